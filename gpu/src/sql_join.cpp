// sql_join.cpp — the SQL equi-join stage (see sql_join.h), a thin consumer of the
// sorted-sides stage: finish() sorts both sides there with their row numbers, then runs
// the vectorized sorted search (a Merge Path walk of sorted A against sorted B per
// bound: lower, upper, and B's match flags) and frees the sorted keys, which nothing
// reads afterwards (unless B's are kept: download_b_keys). The bounds, flags and sorted
// rows stay in the context's space until download() copies them out; the count of each
// A key is upper - lower, taken on the host.
#include "mergepath/sql_join.h"

#include <algorithm>
#include <utility>
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
    bool want_by_a_row = false;
    bool keep_b_keys = false;
    Buffer<JoinRange> by_a_row;  // the ranges by A row (want_by_a_row; a_lower, a_upper then freed)

    State(SortedSides<K>& s, PipelineTimings& t) : sides(s), timings(t) {}
    Context& ctx() { return sides.context(); }
    void run();
    void move_to_a_row_order(SearchResult& found);
    void download(const JoinRangesOut& out);
    void download_by_a_row(uint64_t first_row, const HostSpan* spans, size_t count);
};

template <class K>
void SqlJoin<K>::State::run() {
    sides.sort();
    Stopwatch clock;
    SearchOutputs want{/*lower=*/true, /*upper=*/true, /*a_match=*/false, /*b_match=*/want_b_match};
    // kept only once complete: an out-of-memory on the way frees what was found
    SearchResult found = sorted_search<K>(ctx(), sides.sorted_keys(Side::A), sides.sorted_keys(Side::B), want);
    if (!keep_b_keys) sides.release_keys();
    if (want_by_a_row) move_to_a_row_order(found);
    ranges = std::move(found);
    timings.kernel_ms += clock.lap_ms();
}

// The ranges of sorted A moved to A row order; the sorted ones are freed.
template <class K>
void SqlJoin<K>::State::move_to_a_row_order(SearchResult& found) {
    const size_t na = sides.rows(Side::A);
    by_a_row = ctx().template alloc<JoinRange>(na);
    View<const uint64_t> lower(found.a_lower.data(), na), upper(found.a_upper.data(), na);
    ranges_by_row(ctx(), sides.sorted_rows(Side::A), lower, upper, View<JoinRange>(by_a_row.data(), na));
    found.a_lower = Buffer<uint64_t>();
    found.a_upper = Buffer<uint64_t>();
}

template <class K>
void SqlJoin<K>::State::download(const JoinRangesOut& out) {
    const size_t na = sides.rows(Side::A), nb = sides.rows(Side::B);
    if (out.b_match && !want_b_match)
        throw Error("mergepath: SqlJoin::download of b_match, which finish() did not compute");
    if (want_by_a_row && (out.a_rows || out.a_lower || out.a_count))
        throw Error("mergepath: SqlJoin::download of A's sorted ranges, which are kept by A row");
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
void SqlJoin<K>::State::download_by_a_row(uint64_t first_row, const HostSpan* spans, size_t count) {
    const size_t na = sides.rows(Side::A);
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
        if (spans[i].bytes % sizeof(JoinRange) != 0)
            throw Error("mergepath: SqlJoin::download_by_a_row into a span of part of a range");
        n += spans[i].bytes / sizeof(JoinRange);
    }
    if (first_row > na || n > na - first_row)
        throw Error("mergepath: SqlJoin::download_by_a_row past the last row of A");
    if (!want_by_a_row) throw Error("mergepath: SqlJoin::download_by_a_row without set_ranges_by_a_row(true)");
    if (n == 0) return;
    Stopwatch clock;
    ctx().copy_out_scattered(by_a_row.data() + first_row, spans, count);
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
void SqlJoin<K>::set_ranges_by_a_row(bool by_a_row) {
    if (this->finished()) throw Error("mergepath: SqlJoin::set_ranges_by_a_row after finish");
    state_->want_by_a_row = by_a_row;
}

template <class K>
void SqlJoin<K>::set_keep_b_keys(bool keep) {
    if (this->finished()) throw Error("mergepath: SqlJoin::set_keep_b_keys after finish");
    state_->keep_b_keys = keep;
}

template <class K>
void SqlJoin<K>::download_b_keys(K* out) {
    this->require_success("download_b_keys");
    if (!state_->keep_b_keys) throw Error("mergepath: SqlJoin::download_b_keys without set_keep_b_keys(true)");
    Stopwatch clock;
    this->context().download(this->sides().sorted_keys(Side::B), out);
    state_->timings.transfer_ms += clock.lap_ms();
}

template <class K>
void SqlJoin<K>::run() { state_->run(); }

template <class K>
void SqlJoin<K>::download(const JoinRangesOut& out) {
    this->require_success("download");
    state_->download(out);
}

template <class K>
void SqlJoin<K>::download_by_a_row(uint64_t first_row, const HostSpan* spans, size_t count) {
    this->require_success("download_by_a_row");
    state_->download_by_a_row(first_row, spans, count);
}

template class SqlJoin<uint32_t>;
template class SqlJoin<uint64_t>;
template class SqlJoin<Key128>;

}  // namespace mergepath
