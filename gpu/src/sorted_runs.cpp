// sorted_runs.cpp — one side of the sorted-sides stage as runs (see sorted_runs.h):
// shipping a run (CPU: the slices copied into a context buffer and sorted there with
// their row numbers; GPU: ship_run, queued without waiting), and the pairwise tree of
// Merge Path merges that combines the runs.
#include "sorted_runs.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace {

constexpr size_t kCopyPieceKeys = size_t(1) << 18;

// Copies the slices' keys (or, with Field = uint64_t and values, their values) one
// after another into `to`, in pieces spread over the threads.
template <class Field, class K, class Of>
void copy_slices(Context& ctx, const std::vector<HostSlice<K>>& slices, Field* to, Of field_of) {
    struct Piece {
        const Field* from;
        Field* to;
        size_t n;
    };
    std::vector<Piece> pieces;
    for (const HostSlice<K>& s : slices) {
        for (size_t i = 0; i < s.n; i += kCopyPieceKeys)
            pieces.push_back({field_of(s) + i, to + i, std::min(kCopyPieceKeys, s.n - i)});
        to += s.n;
    }
    cpu::parallel_for(ctx, pieces.size(), [&](size_t i) {
        std::memcpy(pieces[i].to, pieces[i].from, pieces[i].n * sizeof(Field));
    });
}

// The CPU backend's run: the slices copied into the context's memory (with their
// values, or row numbers), sorted in place unless they ascend already.
template <class K>
SideArray<K> host_run(Context& ctx, const std::vector<HostSlice<K>>& slices, uint64_t first_row, bool with_rows,
                      bool ascending) {
    size_t n = 0;
    for (const HostSlice<K>& s : slices) n += s.n;
    SideArray<K> run;
    run.keys = ctx.alloc<K>(n);
    if (with_rows) run.rows = ctx.alloc<uint64_t>(n);
    run.count = n;
    copy_slices(ctx, slices, run.keys.data(), [](const HostSlice<K>& s) { return s.keys; });
    View<K> keys(run.keys.data(), n);
    if (with_rows && !slices.empty() && slices[0].values)
        copy_slices(ctx, slices, run.rows.data(), [](const HostSlice<K>& s) { return s.values; });
    else if (with_rows) std::iota(run.rows.data(), run.rows.data() + n, first_row);
    if (ascending) return run;
    if (with_rows) sort_pairs<K>(ctx, keys, View<uint64_t>(run.rows.data(), n));
    else sort_keys<K>(ctx, keys);
    return run;
}

// The Merge Path merge of two adjacent runs (a holds the earlier rows: A first on ties).
template <class K>
SideArray<K> merge_two(Context& ctx, const SideArray<K>& a, const SideArray<K>& b, bool with_rows) {
    SideArray<K> out;
    if (with_rows) {
        PairsResult<K> m = merge_pairs<K>(ctx, a.ckeys(), a.crows(), b.ckeys(), b.crows());
        out.keys = std::move(m.keys);
        out.rows = std::move(m.rows);
        out.count = m.count;
    } else {
        TaggedResult<K> m = mergepath::merge<K>(ctx, a.ckeys(), b.ckeys(), Outputs{true, false});
        out.keys = std::move(m.keys);
        out.count = m.count;
    }
    return out;
}

// Merges adjacent pairs, level by level, until one array is left. A pair's inputs are
// freed as soon as it is merged, so a level needs little more than the data once.
template <class K>
SideArray<K> merge_tree(Context& ctx, std::vector<SideArray<K>> level, bool with_rows) {
    while (level.size() > 1) {
        std::vector<SideArray<K>> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2) {
            next.push_back(merge_two(ctx, level[i], level[i + 1], with_rows));
            level[i] = SideArray<K>();
            level[i + 1] = SideArray<K>();
        }
        if (level.size() % 2) next.push_back(std::move(level.back()));
        level = std::move(next);
    }
    return std::move(level.front());
}

}  // namespace

template <class K>
void SortedRuns<K>::ship(Context& ctx, const std::vector<HostSlice<K>>& slices, uint64_t first_row, bool ascending) {
    runs_.reserve(runs_.size() + 1);
    if (ctx.host_memory()) {
        runs_.push_back(host_run(ctx, slices, first_row, with_rows_, ascending));
        return;
    }
    cuda::DeviceRun<K> d = cuda::ship_run<K>(ctx, slices.data(), slices.size(), first_row, with_rows_);
    SideArray<K> run;
    run.count = d.keys.size();
    run.keys = std::move(d.keys);
    run.rows = std::move(d.rows);
    runs_.push_back(std::move(run));
}

template <class K>
SideArray<K> SortedRuns<K>::merge(Context& ctx) {
    std::vector<SideArray<K>> level = std::move(runs_);
    runs_.clear();
    if (level.empty()) return SideArray<K>();
    return merge_tree(ctx, std::move(level), with_rows_);
}

#define INSTANTIATE_SORTED_RUNS(K) \
    template struct SideArray<K>;  \
    template class SortedRuns<K>;
MERGEPATH_FOR_EACH_KEY(INSTANTIATE_SORTED_RUNS)

}  // namespace mergepath
