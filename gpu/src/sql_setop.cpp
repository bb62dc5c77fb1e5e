// sql_setop.cpp — the SQL set-operation pipeline (see sql_setop.h): keys gathered per
// side on the host; add() ships every ship_rows waiting keys of a side as a sorted
// run (sorted_runs.h: on the GPU copied through pinned staging and radix-sorted
// without waiting, on the CPU sorted in place). finish() ships the rest and merges
// each side's runs (a tree of Merge Path merges), or, with shipping off or failed,
// moves whole sides to the backend and sorts them (radix sort on the GPU, parallel
// sort on the CPU); then it reduces A to one key per run for the DISTINCT forms
// (unique), runs the Balanced Path intersection / difference and brings the result
// back. INTERSECT = unique(A) ∩ B and EXCEPT = unique(A) − B, by key + rank.
#include "mergepath/sql_setop.h"

#include <chrono>

#include "mergepath/ops.h"
#include "sorted_runs.h"

namespace mergepath {
namespace {

constexpr size_t kGpuShipRows = size_t(1) << 22;

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

template <class T>
std::vector<T> to_host(Context& ctx, const Buffer<T>& b, size_t n) {
    std::vector<T> out(n);
    ctx.download(View<const T>(b.data(), n), out.data());
    return out;
}

int index_of(Side side) { return side == Side::A ? 0 : 1; }

}  // namespace

template <class K>
struct SqlSetOp<K>::State {
    Context* ctx;
    SetOp op;
    bool all, with_rows;
    bool finished = false, attempted = false, succeeded = false;
    size_t ship_rows = SqlSetOp<K>::kBackendDefault;
    bool shipping_failed = false;  // a shipment ran out of memory: whole sides at the end
    // Each side as added (sorted_runs.h says how keys and row numbers stay consistent).
    std::vector<K> keys[2];
    std::vector<uint64_t> rows[2];
    SortedRuns<K> runs[2];
    std::vector<K> result_keys;
    std::vector<uint64_t> result_positions;
    PipelineTimings timings;

    State(Context& c, SetOp o, bool a, bool w)
        : ctx(&c), op(o), all(a), with_rows(w), runs{SortedRuns<K>(w), SortedRuns<K>(w)} {}
    size_t ship_every() const;
    void ship_waiting(int side);
    void sort_sides(SideArray<K> (&sides)[2], Stopwatch& clock);
    void run();
};

// Keys per run on the bound context; 0 = no shipping.
template <class K>
size_t SqlSetOp<K>::State::ship_every() const {
    if (shipping_failed) return 0;
    size_t every = ship_rows != kBackendDefault ? ship_rows : ctx->host_memory() ? kNoShipping : kGpuShipRows;
    return every == kNoShipping ? 0 : every;
}

// add(): ships the side's waiting keys once there are enough. Out of memory ends
// shipping for this pipeline; any other error propagates.
template <class K>
void SqlSetOp<K>::State::ship_waiting(int side) {
    const size_t every = ship_every();
    if (every == 0 || keys[side].size() - runs[side].shipped() < every) return;
    Stopwatch clock;
    try {
        runs[side].ship(*ctx, keys[side], rows[side]);
        timings.runs++;
    } catch (const OutOfMemory&) {
        runs[0].clear();
        runs[1].clear();
        shipping_failed = true;
    }
    timings.ship_ms += clock.lap_ms();
}

// finish(): both sides sorted in the context's space, from runs or whole.
template <class K>
void SqlSetOp<K>::State::sort_sides(SideArray<K> (&sides)[2], Stopwatch& clock) {
    Context& c = *ctx;
    if (ship_every() != 0) {
        try {
            for (int s = 0; s < 2; ++s) runs[s].ship(c, keys[s], rows[s]);  // the rest
        } catch (const OutOfMemory&) {
            runs[0].clear();  // give the device memory back before the caller redoes the work
            runs[1].clear();
            throw;
        }
        (c.host_memory() ? timings.sort_ms : timings.transfer_ms) += clock.lap_ms();
        for (int s = 0; s < 2; ++s) sides[s] = runs[s].merge(c, keys[s], rows[s]);
    } else {
        for (int s = 0; s < 2; ++s) {
            runs[s].clear();
            sides[s] = upload_whole<K>(c, keys[s], with_rows ? &rows[s] : nullptr);
        }
        timings.transfer_ms += clock.lap_ms();
        for (int s = 0; s < 2; ++s) sort_whole<K>(c, sides[s]);
    }
}

template <class K>
void SqlSetOp<K>::State::run() {
    Context& ctx = *this->ctx;
    Stopwatch clock;
    SideArray<K> sides[2];
    sort_sides(sides, clock);
    UniqueResult<K> distinct_a;
    View<const K> left = sides[0].ckeys();
    if (!all) {
        distinct_a = unique<K>(ctx, left);
        left = View<const K>(distinct_a.keys.data(), distinct_a.count);
    }
    timings.sort_ms += clock.lap_ms();
    TaggedResult<K> r = set_op<K>(ctx, op, left, sides[1].ckeys(), Outputs{!with_rows, with_rows});
    timings.kernel_ms += clock.lap_ms();
    if (!with_rows) {
        result_keys = to_host(ctx, r.keys, r.count);
    } else {
        result_positions = to_host(ctx, r.indices, r.count);
        if (!all) {
            std::vector<uint64_t> firsts = to_host(ctx, distinct_a.first_indices, distinct_a.count);
            for (auto& p : result_positions) p = firsts[p];
        }
        for (int s = 0; s < 2; ++s) sides[s].copy_to(ctx, keys[s], &rows[s]);
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
void SqlSetOp<K>::set_ship_rows(size_t rows) { state_->ship_rows = rows; }

template <class K>
void SqlSetOp<K>::add(Side side, const K* keys, size_t n) {
    if (state_->attempted) throw Error("mergepath: SqlSetOp::add after finish");
    auto& v = state_->keys[index_of(side)];
    v.insert(v.end(), keys, keys + n);
    state_->ship_waiting(index_of(side));
}

template <class K>
size_t SqlSetOp<K>::rows(Side side) const { return state_->keys[index_of(side)].size(); }

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
    for (auto& r : state_->runs) r.clear();  // their memory belongs to the old context
    state_->shipping_failed = false;
    state_->ctx = &ctx;
    state_->finished = false;
}

template <class K>
const std::vector<K>& SqlSetOp<K>::result_keys() const { return state_->result_keys; }
template <class K>
const std::vector<K>& SqlSetOp<K>::sorted_keys(Side side) const { return state_->keys[index_of(side)]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::sorted_rows(Side side) const { return state_->rows[index_of(side)]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::result_positions() const { return state_->result_positions; }
template <class K>
const PipelineTimings& SqlSetOp<K>::timings() const { return state_->timings; }

template class SqlSetOp<uint32_t>;
template class SqlSetOp<uint64_t>;
template class SqlSetOp<Key128>;

}  // namespace mergepath
