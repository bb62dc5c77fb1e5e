// sql_setop.cpp — the SQL set-operation pipeline (see sql_setop.h), a thin consumer of
// the sorted-sides stage: finish() sorts both sides there, reduces A (UNION: and B) to
// one key per run for the DISTINCT forms (unique), runs the Balanced Path intersection /
// difference / union (UNION ALL: the Merge Path merge) and keeps the result in the
// context's space until the caller reads it. By key + rank: INTERSECT = unique(A) ∩ B,
// EXCEPT = unique(A) − B, UNION = unique(A) ∪ unique(B).
#include "mergepath/sql_setop.h"

#include <mutex>

#include "mergepath/ops.h"
#include "stopwatch.h"

namespace mergepath {
namespace {

template <class T>
std::vector<T> to_host(Context& ctx, View<const T> v) {
    std::vector<T> out(v.size);
    ctx.download(v, out.data());
    return out;
}

int index_of(Side side) { return side == Side::A ? 0 : 1; }

}  // namespace

template <class K>
struct SqlSetOp<K>::State {
    SortedSides<K>& sides;     // the base's
    PipelineTimings& timings;  // unique, kernel and downloads (the base's own_timings_)
    SetOp op;
    bool all, with_rows;
    SetOpShape shape;
    Buffer<K> result;  // keys-only shape, in the context's space
    size_t result_count = 0;
    mutable std::once_flag host_copy_made;
    mutable std::vector<K> host_copy;  // GPU: result downloaded on first host_result_keys()
    std::vector<uint64_t> result_positions;
    std::vector<K> sorted_keys[2];
    std::vector<uint64_t> sorted_rows[2];

    State(SortedSides<K>& s, PipelineTimings& t, SetOp o, bool a, SetOpShape sh)
        : sides(s), timings(t), op(o), all(a), with_rows(sh != SetOpShape::Keys), shape(sh) {}
    Context& ctx() { return sides.context(); }
    void run();
    void keep_sorted_sides();
    void keep_rows_shape(TaggedResult<K>& r, UniqueResult<K>& distinct_a);
};

template <class K>
void SqlSetOp<K>::State::keep_sorted_sides() {
    for (int s = 0; s < 2; ++s) {
        Side side = s == 0 ? Side::A : Side::B;
        sorted_keys[s] = to_host(ctx(), sides.sorted_keys(side));
        sorted_rows[s] = to_host(ctx(), sides.sorted_rows(side));
    }
}

template <class K>
void SqlSetOp<K>::State::keep_rows_shape(TaggedResult<K>& r, UniqueResult<K>& distinct_a) {
    result_positions = to_host(ctx(), View<const uint64_t>(r.indices.data(), r.count));
    if (!all) {
        std::vector<uint64_t> firsts =
            to_host(ctx(), View<const uint64_t>(distinct_a.first_indices.data(), distinct_a.count));
        for (auto& p : result_positions) p = firsts[p];
    }
    keep_sorted_sides();
}

template <class K>
void SqlSetOp<K>::State::run() {
    sides.sort();
    Stopwatch clock;
    if (shape == SetOpShape::SortedSides) {
        keep_sorted_sides();
        sides.release();
        timings.transfer_ms += clock.lap_ms();
        return;
    }
    UniqueResult<K> distinct_a, distinct_b;
    View<const K> left = sides.sorted_keys(Side::A), right = sides.sorted_keys(Side::B);
    if (!all) {
        distinct_a = unique<K>(ctx(), left);
        left = View<const K>(distinct_a.keys.data(), distinct_a.count);
    }
    if (!all && op == SetOp::Union) {
        distinct_b = unique<K>(ctx(), right);
        right = View<const K>(distinct_b.keys.data(), distinct_b.count);
    }
    timings.sort_ms += clock.lap_ms();
    const Outputs want{!with_rows, with_rows};
    TaggedResult<K> r =
        all && op == SetOp::Union ? merge<K>(ctx(), left, right, want) : set_op<K>(ctx(), op, left, right, want);
    timings.kernel_ms += clock.lap_ms();
    result_count = r.count;
    if (with_rows) keep_rows_shape(r, distinct_a);
    else result = std::move(r.keys);
    sides.release();
    timings.transfer_ms += clock.lap_ms();
}

template <class K>
SqlSetOp<K>::SqlSetOp(Context& ctx, SetOp op, bool all, SetOpShape shape)
    : SqlStage<K>(ctx, shape != SetOpShape::Keys, "SqlSetOp"),
      state_(new State(this->sides(), this->own_timings_, op, all, shape)) {
    if (op != SetOp::Intersection && op != SetOp::Difference && op != SetOp::Union)
        throw Error(
            "mergepath: SQL set operations are INTERSECT (Intersection), EXCEPT (Difference) and UNION (Union)");
    if (op == SetOp::Union && shape == SetOpShape::Rows)
        throw Error("mergepath: UNION has no with-rows shape (its results come from both sides)");
}

template <class K>
SqlSetOp<K>::~SqlSetOp() = default;

template <class K>
void SqlSetOp<K>::run() { state_->run(); }

template <class K>
size_t SqlSetOp<K>::result_count() const { return state_->with_rows ? 0 : state_->result_count; }

template <class K>
const K* SqlSetOp<K>::host_result_keys() const {
    State& s = *state_;
    if (s.sides.context().host_memory()) return s.result.data();
    std::call_once(s.host_copy_made,
                   [&] { s.host_copy = to_host(s.sides.context(), View<const K>(s.result.data(), result_count())); });
    return s.host_copy.data();
}

template <class K>
void SqlSetOp<K>::download_result_keys(size_t first, const std::vector<View<K>>& into) {
    std::vector<HostSpan> spans;
    size_t n = 0;
    for (const View<K>& v : into) {
        spans.push_back({v.data, v.size * sizeof(K)});
        n += v.size;
    }
    if (first > result_count() || n > result_count() - first) throw Error("mergepath: result range out of bounds");
    Stopwatch clock;
    state_->ctx().copy_out_scattered(state_->result.data() + first, spans.data(), spans.size());
    state_->timings.transfer_ms += clock.lap_ms();
}

template <class K>
std::vector<K> SqlSetOp<K>::result_keys() const {
    const K* keys = host_result_keys();
    return std::vector<K>(keys, keys + result_count());
}

template <class K>
const std::vector<K>& SqlSetOp<K>::sorted_keys(Side side) const { return state_->sorted_keys[index_of(side)]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::sorted_rows(Side side) const { return state_->sorted_rows[index_of(side)]; }
template <class K>
const std::vector<uint64_t>& SqlSetOp<K>::result_positions() const { return state_->result_positions; }

template class SqlSetOp<uint32_t>;
template class SqlSetOp<uint64_t>;
template class SqlSetOp<Key128>;

}  // namespace mergepath
