// search_tile.cuh — one tile of vectorized sorted search (Baxter & Merrill): needles
// A and haystack B of the tile sit in shared memory and each thread walks its own
// stretch of the Merge Path, learning the bound of every needle it consumes (lower
// bound with ties A-first, upper bound with ties B-first) and, for every haystack
// element, which needle comes next. sorted_search (search.cu) is this walk; outside the
// library, the kernel benchmark's pair join (bench/pair_join/cuda_pair_join.cu) walks
// it too, with different per-element work.
#pragma once

#include "cuda/cta.cuh"

namespace mergepath {
namespace cuda {

// The haystack as seen from a tile: its own B range in shared memory, anything
// after it in global memory. Index j is relative to the tile's first B element.
template <class K>
struct TileHaystack {
    const K* tile_b;  // shared: B[b0, b0 + nb_tile)
    int nb_tile;
    const K* b;       // global B
    int64_t b0;
    __device__ K operator[](int64_t j) const { return j < nb_tile ? tile_b[j] : b[b0 + j]; }
};

// Whether needle x (tile-local lower bound local_bound) occurs in B.
template <class K>
__device__ bool needle_matches(const K& x, int local_bound, const TileHaystack<K>& hay, int64_t nb) {
    return hay.b0 + local_bound < nb && hay[local_bound] == x;
}

// Whether haystack y matches the needle consumed just before it (ties A-first).
template <class K>
__device__ bool haystack_matches(const K& y, int next_needle, const TileRange& r, const K* tile_a, const K* a) {
    if (next_needle > 0) return tile_a[next_needle - 1] == y;
    return r.a0 > 0 && a[r.a0 - 1] == y;
}

// Walks the thread's VT path steps: on_needle(pos, bound) for each needle consumed
// (tile-local position and bound in the tile's B), on_haystack(pos, next_needle) for
// each haystack element.
template <class Box, algo::Ties T, class K, class OnNeedle, class OnHaystack>
__device__ void walk_tile(const K* keys, const TileRange& r, const ThreadRange& t, OnNeedle on_needle,
                          OnHaystack on_haystack) {
    auto c = algo::make_cursor(keys, t.a, t.a_end, keys + r.na, t.b, t.b_end);
#pragma unroll
    for (int i = 0; i < Box::VT; ++i) {
        if (c.done()) break;
        int pos, bound;
        if (algo::search_step<T>(c, pos, bound))
            on_needle(pos, bound);
        else
            on_haystack(pos, c.ai);
    }
}

}  // namespace cuda
}  // namespace mergepath
