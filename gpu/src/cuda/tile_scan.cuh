// tile_scan.cuh — single-pass scan across tiles (CUB's decoupled look-back,
// ScanTileState + TilePrefixCallbackOp): each tile kernel block publishes its own
// count and learns the sum of all earlier tiles' counts without a second kernel.
// The set operations use it to place their compacted outputs (select_kernel.cuh);
// outside the library, the kernel benchmark's pair join
// (bench/pair_join/cuda_pair_join.cu) uses it to turn per-needle pair counts into
// output offsets in the same pass as the search.
#pragma once

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cuda/std/functional>

#include "cuda/common.cuh"

namespace mergepath {
namespace cuda {

using TileState = cub::ScanTileState<long long>;
// Look-back waits: CUB's fixed delays (polls 350 ns apart, applied on grids of 500+
// tiles only), but 1.4 us before the first look instead of CUB's 450 ns for primitive
// values. While a block sleeps, the other blocks on its SM compute and its
// predecessors publish, so it polls less; on the H100 at 100M 64-bit this made every
// set operation 2-4% faster than CUB's default (no delay at all: 6% slower; bench/RESULTS.md).
// fixed_delay_constructor_t is in cub::detail: recheck it when CCCL is upgraded.
using TilePrefix = cub::TilePrefixCallbackOp<long long, ::cuda::std::plus<long long>, TileState,
                                             cub::detail::fixed_delay_constructor_t<350, 1400>>;

static __global__ void init_tile_state(TileState state, int num_tiles) { state.InitializeStatus(num_tiles); }

// Tile states for num_tiles tiles, initialized on the context's stream; `memory`
// keeps their storage alive.
inline TileState make_tile_state(Context& ctx, int64_t num_tiles, Buffer<unsigned char>& memory) {
    if (num_tiles > INT32_MAX) throw Error("mergepath: input too large for one launch");
    TileState state;
    size_t bytes = 0;
    check(TileState::AllocationSize(int(num_tiles), bytes), "ScanTileState::AllocationSize");
    memory = ctx.alloc<unsigned char>(bytes);
    check(state.Init(int(num_tiles), memory.data(), bytes), "ScanTileState::Init");
    init_tile_state<<<unsigned(ceil_div<int64_t>(num_tiles + 32, 128)), 128, 0, stream_of(ctx)>>>(state, int(num_tiles));
    launched("init_tile_state");
    return state;
}

// The tile's exclusive prefix: the sum of the counts of all earlier tiles. Every
// thread of the block calls it (it synchronizes the block).
__device__ inline long long look_back(TileState& state, TilePrefix::TempStorage& temp, int tile, long long tile_count) {
    if (tile == 0) {
        if (threadIdx.x == 0) state.SetInclusive(0, tile_count);
        return 0;
    }
    TilePrefix prefix(state, temp, ::cuda::std::plus<long long>(), tile);
    if (threadIdx.x < 32) prefix(tile_count);
    __syncthreads();
    return prefix.GetExclusivePrefix();
}

}  // namespace cuda
}  // namespace mergepath
