// sql_join.cpp — the SQL equi-join stage (see sql_join.h), a thin consumer of the
// sorted-sides stage: finish() sorts both sides there with their row numbers, then runs
// the vectorized sorted search (a Merge Path walk of sorted A against sorted B per
// bound: lower, upper, and B's match flags) and frees the sorted keys, which nothing
// reads afterwards. The bounds, flags and sorted rows stay in the context's space until
// download() copies them out; the count of each A key is upper - lower, taken on the host.
#include "mergepath/sql_join.h"

#include <algorithm>
#include <vector>

#include "mergepath/ops.h"
#include "stopwatch.h"

namespace mergepath {
namespace {

// Turns upper bounds into counts: count[i] = upper[i] - lower[i], in place.
void upper_to_count(uint64_t* upper_then_count, const uint64_t* lower, size_t n) {
    for (size_t i = 0; i < n; ++i) upper_then_count[i] -= lower[i];
}

// The same when the caller wants no lower bounds: they come through a small host
// buffer, a piece at a time, instead of a second array as large as the counts.
void upper_to_count_in_pieces(Context& ctx, uint64_t* upper_then_count, View<const uint64_t> lower) {
    constexpr size_t kPiece = size_t(1) << 17;
    std::vector<uint64_t> piece(std::min(kPiece, lower.size));
    for (size_t first = 0; first < lower.size; first += kPiece) {
        size_t n = std::min(kPiece, lower.size - first);
        ctx.download(View<const uint64_t>(lower.data + first, n), piece.data());
        upper_to_count(upper_then_count + first, piece.data(), n);
    }
}

}  // namespace

template <class K>
struct SqlJoin<K>::State {
    SortedSides<K>& sides;     // the base's
    PipelineTimings& timings;  // the search and the downloads (the base's own_timings_)
    bool want_b_match = true;
    SearchResult ranges;  // a_lower, a_upper and (if wanted) b_match, in the context's space

    State(SortedSides<K>& s, PipelineTimings& t) : sides(s), timings(t) {}
    Context& ctx() { return sides.context(); }
    void run();
    void download(const JoinRangesOut& out);
};

template <class K>
void SqlJoin<K>::State::run() {
    sides.sort();
    Stopwatch clock;
    SearchOutputs want{/*lower=*/true, /*upper=*/true, /*a_match=*/false, /*b_match=*/want_b_match};
    ranges = sorted_search<K>(ctx(), sides.sorted_keys(Side::A), sides.sorted_keys(Side::B), want);
    sides.release_keys();
    timings.kernel_ms += clock.lap_ms();
}

template <class K>
void SqlJoin<K>::State::download(const JoinRangesOut& out) {
    const size_t na = sides.rows(Side::A), nb = sides.rows(Side::B);
    if (out.b_match && !want_b_match)
        throw Error("mergepath: SqlJoin::download of b_match, which finish() did not compute");
    Stopwatch clock;
    View<const uint64_t> lower(ranges.a_lower.data(), na), upper(ranges.a_upper.data(), na);
    if (out.a_rows) ctx().download(sides.sorted_rows(Side::A), out.a_rows);
    if (out.a_lower) ctx().download(lower, out.a_lower);
    if (out.a_count) ctx().download(upper, out.a_count);
    if (out.b_rows) ctx().download(sides.sorted_rows(Side::B), out.b_rows);
    if (out.b_match) ctx().download(View<const uint8_t>(ranges.b_match.data(), nb), out.b_match);
    if (out.a_count && out.a_lower) upper_to_count(out.a_count, out.a_lower, na);
    else if (out.a_count) upper_to_count_in_pieces(ctx(), out.a_count, lower);
    timings.transfer_ms += clock.lap_ms();
}

template <class K>
SqlJoin<K>::SqlJoin(Context& ctx)
    : SqlStage<K>(ctx, /*with_rows=*/true, "SqlJoin"), state_(new State(this->sides(), this->own_timings_)) {}

template <class K>
SqlJoin<K>::~SqlJoin() = default;

template <class K>
void SqlJoin<K>::set_want_b_match(bool want) {
    if (this->finished()) throw Error("mergepath: SqlJoin::set_want_b_match after finish");
    state_->want_b_match = want;
}

template <class K>
void SqlJoin<K>::run() { state_->run(); }

template <class K>
void SqlJoin<K>::download(const JoinRangesOut& out) {
    this->require_success("download");
    state_->download(out);
}

template class SqlJoin<uint32_t>;
template class SqlJoin<uint64_t>;
template class SqlJoin<Key128>;

}  // namespace mergepath
