// sorted_runs.cpp — one side of the SQL pipeline sorted as runs or whole (see
// sorted_runs.h): shipping a run (CPU: stable sort of the host slice with its row
// numbers; GPU: ship_run, queued without waiting), the pairwise tree of Merge Path
// merges that combines the runs, and the whole-array upload and sort.
#include "sorted_runs.h"

#include <numeric>
#include <utility>

#include "backends.h"
#include "ship_run.h"

namespace mergepath {

void extend_rows(std::vector<uint64_t>& rows, size_t n) {
    const size_t from = rows.size();
    if (from >= n) return;
    rows.resize(n);
    std::iota(rows.begin() + from, rows.end(), uint64_t(from));
}

namespace {

// Views over the array's own storage, n elements.
template <class K>
void point_at_stores(SideArray<K>& s, size_t n) {
    s.keys = View<K>(s.key_store.data(), n);
    s.rows = View<uint64_t>(s.row_store.data(), s.row_store.empty() ? 0 : n);
}

// The Merge Path merge of two adjacent runs (a holds the earlier rows: A first on ties).
template <class K>
SideArray<K> merge_two(Context& ctx, const SideArray<K>& a, const SideArray<K>& b, bool with_rows) {
    SideArray<K> out;
    size_t n = 0;
    if (with_rows) {
        PairsResult<K> m = merge_pairs<K>(ctx, a.ckeys(), a.crows(), b.ckeys(), b.crows());
        out.key_store = std::move(m.keys);
        out.row_store = std::move(m.rows);
        n = m.count;
    } else {
        TaggedResult<K> m = mergepath::merge<K>(ctx, a.ckeys(), b.ckeys(), Outputs{true, false});
        out.key_store = std::move(m.keys);
        n = m.count;
    }
    point_at_stores(out, n);
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
void SideArray<K>::copy_to(Context& ctx, std::vector<K>& host_keys, std::vector<uint64_t>* host_rows) const {
    host_keys.resize(keys.size);
    if (keys.data != host_keys.data()) ctx.download(ckeys(), host_keys.data());
    if (!host_rows) return;
    host_rows->resize(rows.size);
    if (rows.data != host_rows->data()) ctx.download(crows(), host_rows->data());
}

template <class K>
SideArray<K> upload_whole(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>* rows) {
    if (rows) extend_rows(*rows, keys.size());
    SideArray<K> s;
    if (ctx.host_memory()) {
        s.keys = View<K>(keys.data(), keys.size());
        if (rows) s.rows = View<uint64_t>(rows->data(), rows->size());
        return s;
    }
    s.key_store = ctx.upload(keys.data(), keys.size());
    if (rows) s.row_store = ctx.upload(rows->data(), rows->size());
    point_at_stores(s, keys.size());
    return s;
}

template <class K>
void sort_whole(Context& ctx, SideArray<K>& side) {
    if (side.rows.size) sort_pairs<K>(ctx, side.keys, side.rows);
    else sort_keys<K>(ctx, side.keys);
}

template <class K>
void SortedRuns<K>::ship(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>& rows) {
    const size_t begin = shipped_, end = keys.size(), n = end - begin;
    if (n == 0) return;
    runs_.reserve(runs_.size() + 1);
    Run run;
    run.begin = begin;
    run.end = end;
    if (ctx.host_memory()) {
        View<K> slice(keys.data() + begin, n);
        if (with_rows_) {
            extend_rows(rows, end);
            sort_pairs<K>(ctx, slice, View<uint64_t>(rows.data() + begin, n));
        } else {
            sort_keys<K>(ctx, slice);
        }
        run.on_host = true;
    } else {
        // Keys past rows.size() never moved: the device numbers them. Earlier ones
        // (sorted on a CPU context before a rebind) carry their row numbers along.
        const uint64_t* given = nullptr;
        if (with_rows_ && begin < rows.size()) {
            extend_rows(rows, end);
            given = rows.data() + begin;
        }
        cuda::DeviceRun<K> d = cuda::ship_run<K>(ctx, keys.data() + begin, given, n, begin, with_rows_);
        run.keys = std::move(d.keys);
        run.rows = std::move(d.rows);
    }
    runs_.push_back(std::move(run));
    shipped_ = end;
}

template <class K>
SideArray<K> SortedRuns<K>::array_of(Run& run, std::vector<K>& keys, std::vector<uint64_t>& rows) const {
    SideArray<K> s;
    const size_t n = run.end - run.begin;
    if (run.on_host) {
        s.keys = View<K>(keys.data() + run.begin, n);
        if (with_rows_) s.rows = View<uint64_t>(rows.data() + run.begin, n);
        return s;
    }
    s.key_store = std::move(run.keys);
    s.row_store = std::move(run.rows);
    point_at_stores(s, n);
    return s;
}

template <class K>
SideArray<K> SortedRuns<K>::merge(Context& ctx, std::vector<K>& keys, std::vector<uint64_t>& rows) {
    if (shipped_ != keys.size()) throw Error("mergepath: sorted runs merged before every key was shipped");
    std::vector<SideArray<K>> level;
    for (Run& run : runs_) level.push_back(array_of(run, keys, rows));
    clear();
    if (level.empty()) return SideArray<K>();  // an empty side
    return merge_tree(ctx, std::move(level), with_rows_);
}

template <class K>
void SortedRuns<K>::clear() {
    runs_.clear();
    shipped_ = 0;
}

#define INSTANTIATE_SORTED_RUNS(K)                                                                 \
    template struct SideArray<K>;                                                                  \
    template class SortedRuns<K>;                                                                  \
    template SideArray<K> upload_whole<K>(Context&, std::vector<K>&, std::vector<uint64_t>*);      \
    template void sort_whole<K>(Context&, SideArray<K>&);
MERGEPATH_FOR_EACH_KEY(INSTANTIATE_SORTED_RUNS)

}  // namespace mergepath
