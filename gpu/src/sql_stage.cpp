// sql_stage.cpp — the part every SQL consumer of the sorted-sides stage shares (see
// sql_stage.h): adding keys, the order of calls, rebinding, timings.
#include "mergepath/sql_stage.h"

#include <string>

namespace mergepath {

template <class K>
SqlStage<K>::SqlStage(Context& ctx, bool with_rows, const char* name) : sides_(ctx, with_rows), name_(name) {}

template <class K>
SqlStage<K>::~SqlStage() = default;

template <class K>
void SqlStage<K>::set_ship_rows(size_t rows) { sides_.set_ship_rows(rows); }

template <class K>
void SqlStage<K>::add(Side side, const K* keys, size_t n) {
    if (attempted_) throw Error(std::string("mergepath: ") + name_ + "::add after finish");
    sides_.add(side, keys, n);
}

template <class K>
void SqlStage<K>::add_chunk(Side side, const K* keys, size_t n, bool ascending, const uint64_t* values) {
    if (attempted_) throw Error(std::string("mergepath: ") + name_ + "::add after finish");
    if (values && !accepts_values(side)) throw Error(std::string("mergepath: ") + name_ + ": values on a side that needs row numbers");
    sides_.add_chunk(side, keys, n, ascending, values);
}

template <class K>
size_t SqlStage<K>::rows(Side side) const { return sides_.rows(side); }

template <class K>
void SqlStage<K>::finish() {
    if (finished_) throw Error(std::string("mergepath: ") + name_ + "::finish called twice");
    finished_ = attempted_ = true;
    run();
    succeeded_ = true;
}

template <class K>
void SqlStage<K>::rebind(Context& ctx) {
    if (succeeded_) throw Error(std::string("mergepath: ") + name_ + "::rebind after a successful finish");
    sides_.rebind(ctx);
    finished_ = false;
}

template <class K>
Context& SqlStage<K>::context() const { return sides_.context(); }

template <class K>
void SqlStage<K>::require_success(const char* call) const {
    if (!succeeded_) throw Error(std::string("mergepath: ") + name_ + "::" + call + " before a successful finish");
}

template <class K>
PipelineTimings SqlStage<K>::timings() const {
    PipelineTimings t = own_timings_;
    const StageTimings& stage = sides_.timings();
    t.runs = stage.runs;
    t.ship_ms = stage.ship_ms;
    t.transfer_ms += stage.transfer_ms;
    t.sort_ms += stage.sort_ms;
    return t;
}

template class SqlStage<uint32_t>;
template class SqlStage<uint64_t>;
template class SqlStage<Key128>;

}  // namespace mergepath
