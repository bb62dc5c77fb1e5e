// sql_setop.cpp — the SQL set-operation pipeline (see sql_setop.h): keys gathered per
// side on the host; finish() moves them to the backend, sorts them (radix sort on the
// GPU, parallel sort on the CPU), reduces A to one key per run for the DISTINCT forms
// (unique), runs the Balanced Path intersection / difference and brings the result
// back. INTERSECT = unique(A) ∩ B and EXCEPT = unique(A) − B, by key + rank.
#include "mergepath/sql_setop.h"

#include <chrono>
#include <numeric>

#include "mergepath/ops.h"

namespace mergepath {
namespace {

class Stopwatch {
public:
    double lap_ms() {
        auto now = std::chrono::steady_clock::now();
        double ms = std::chrono::duration<double, std::milli>(now - start_).count();
        start_ = now;
        return ms;
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// A host vector seen from the backend: the vector itself on the CPU backend, an
// uploaded copy on the GPU (copied back by download()).
template <class T>
class BackendArray {
public:
    BackendArray(Context& ctx, std::vector<T>& host) : ctx_(ctx), host_(host) {
        if (!ctx.host_memory()) device_ = ctx.upload(host.data(), host.size());
    }
    View<T> view() { return ctx_.host_memory() ? View<T>(host_.data(), host_.size()) : View<T>(device_.data(), device_.size()); }
    View<const T> cview() { View<T> v = view(); return View<const T>(v.data, v.size); }
    void download() {
        if (!ctx_.host_memory()) ctx_.download(View<const T>(device_.data(), device_.size()), host_.data());
    }

private:
    Context& ctx_;
    std::vector<T>& host_;
    Buffer<T> device_;
};

template <class T>
std::vector<T> to_host(Context& ctx, const Buffer<T>& b, size_t n) {
    std::vector<T> out(n);
    ctx.download(View<const T>(b.data(), n), out.data());
    return out;
}

}  // namespace

template <class K>
struct SqlSetOp<K>::State {
    Context* ctx;
    SetOp op;
    bool all, with_rows;
    bool finished = false, attempted = false, succeeded = false;
    std::vector<K> keys[2];
    std::vector<uint64_t> rows[2];
    std::vector<K> result_keys;
    std::vector<uint64_t> result_positions;
    PipelineTimings timings;

    State(Context& c, SetOp o, bool a, bool w) : ctx(&c), op(o), all(a), with_rows(w) {}
    void run();
};

template <class K>
void SqlSetOp<K>::State::run() {
    Context& ctx = *this->ctx;
    Stopwatch clock;
    BackendArray<K> a(ctx, keys[0]), b(ctx, keys[1]);
    // Row numbers are made once: a CPU run sorts keys and rows together in place, so
    // after a failed finish() each key still carries its own row for a rerun.
    for (int side = 0; with_rows && side < 2; ++side) {
        if (rows[side].size() == keys[side].size()) continue;
        rows[side].resize(keys[side].size());
        std::iota(rows[side].begin(), rows[side].end(), 0);
    }
    BackendArray<uint64_t> ra(ctx, rows[0]), rb(ctx, rows[1]);
    timings.transfer_ms += clock.lap_ms();
    if (with_rows) {
        sort_pairs<K>(ctx, a.view(), ra.view());
        sort_pairs<K>(ctx, b.view(), rb.view());
    } else {
        sort_keys<K>(ctx, a.view());
        sort_keys<K>(ctx, b.view());
    }
    UniqueResult<K> distinct_a;
    View<const K> left = a.cview();
    if (!all) {
        distinct_a = unique<K>(ctx, left);
        left = View<const K>(distinct_a.keys.data(), distinct_a.count);
    }
    timings.sort_ms += clock.lap_ms();
    TaggedResult<K> r = set_op<K>(ctx, op, left, b.cview(), Outputs{!with_rows, with_rows});
    timings.kernel_ms += clock.lap_ms();
    if (!with_rows) {
        result_keys = to_host(ctx, r.keys, r.count);
    } else {
        result_positions = to_host(ctx, r.indices, r.count);
        if (!all) {
            std::vector<uint64_t> firsts = to_host(ctx, distinct_a.first_indices, distinct_a.count);
            for (auto& p : result_positions) p = firsts[p];
        }
        a.download(); b.download(); ra.download(); rb.download();
    }
    timings.transfer_ms += clock.lap_ms();
}

template <class K>
SqlSetOp<K>::SqlSetOp(Context& ctx, SetOp op, bool all, bool with_rows)
    : state_(new State(ctx, op, all, with_rows)) {
    if (op != SetOp::Intersection && op != SetOp::Difference)
        throw Error("mergepath: SQL set operations are INTERSECT (Intersection) and EXCEPT (Difference)");
}

template <class K>
SqlSetOp<K>::~SqlSetOp() = default;

template <class K>
void SqlSetOp<K>::add(Side side, const K* keys, size_t n) {
    if (state_->attempted) throw Error("mergepath: SqlSetOp::add after finish");
    auto& v = state_->keys[side == Side::A ? 0 : 1];
    v.insert(v.end(), keys, keys + n);
}

template <class K>
size_t SqlSetOp<K>::rows(Side side) const { return state_->keys[side == Side::A ? 0 : 1].size(); }

template <class K>
void SqlSetOp<K>::finish() {
    if (state_->finished) throw Error("mergepath: SqlSetOp::finish called twice");
    state_->finished = state_->attempted = true;
    state_->run();
    state_->succeeded = true;
}

template <class K>
void SqlSetOp<K>::rebind(Context& ctx) {
    if (state_->succeeded)
        throw Error("mergepath: SqlSetOp::rebind after a successful finish");
    state_->ctx = &ctx;
    state_->finished = false;
}

template <class K>
const std::vector<K>& SqlSetOp<K>::result_keys() const { return state_->result_keys; }
template <class K>
const std::vector<K>& SqlSetOp<K>::sorted_keys(Side side) const { return state_->keys[side == Side::A ? 0 : 1]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::sorted_rows(Side side) const { return state_->rows[side == Side::A ? 0 : 1]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::result_positions() const { return state_->result_positions; }
template <class K>
const PipelineTimings& SqlSetOp<K>::timings() const { return state_->timings; }

template class SqlSetOp<uint32_t>;
template class SqlSetOp<uint64_t>;
template class SqlSetOp<Key128>;

}  // namespace mergepath
