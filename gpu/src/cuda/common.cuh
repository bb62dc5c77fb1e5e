// common.cuh — what every CUDA kernel file of the backend shares: error checking
// (CUDA failures become mergepath::Error / OutOfMemory, never abort), scratch memory
// from the context's pool, launch configuration (launch boxes: threads per block NT
// and elements per thread VT, tuned per key width), and the path "kinds" that the
// partition kernel and the tile kernels search with.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "algo/path_search.h"
#include "mergepath/context.h"
#include "mergepath/ops.h"

namespace mergepath {
namespace cuda {

inline void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky launch error
    std::string msg = std::string("mergepath: CUDA error in ") + what + ": " + cudaGetErrorString(status);
    if (status == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
    throw Error(msg);
}

inline cudaStream_t stream_of(const Context& ctx) { return static_cast<cudaStream_t>(ctx.cuda_stream()); }

inline void launched(const char* kernel) { check(cudaGetLastError(), kernel); }

inline void synchronize(const Context& ctx, const char* what) {
    check(cudaStreamSynchronize(stream_of(ctx)), what);
}

template <class T>
inline T ceil_div(T x, T y) { return (x + y - 1) / y; }

// Threads per block and serial steps per thread; one tile = NT * VT outputs.
template <int NT_, int VT_>
struct LaunchBox {
    static constexpr int NT = NT_;
    static constexpr int VT = VT_;
    static constexpr int NV = NT_ * VT_;
};

// Tuned on the H100 (bench/RESULTS.md records the sweeps): large tiles win (fewer
// per-thread path searches per element) as long as the keys and 16-bit compacted
// positions (sharing memory with the threads' starts) fit 48 KB of static shared
// memory: 256 x 18 is the largest for 64-bit keys; for 32-bit keys 256 x 27 beat
// 256 x 23 and 256 x 31. Dynamic shared memory for larger tiles measured slower.
template <class K>
struct TileBox;
template <>
struct TileBox<uint32_t> : LaunchBox<256, 27> {};
template <>
struct TileBox<uint64_t> : LaunchBox<256, 18> {};
template <>
struct TileBox<Key128> : LaunchBox<128, 11> {};

// Merge writes every element, so its best tile differs for 32-bit keys (256 x 23:
// 0.92x cub::DeviceMerge, against 0.89x at the set operations' 256 x 27).
template <class K>
struct MergeBox : TileBox<K> {};
template <>
struct MergeBox<uint32_t> : LaunchBox<256, 23> {};

// Sorted search stages an int bound and two flags per element besides the keys, so
// its tiles are smaller.
template <class K>
struct SearchBox;
template <>
struct SearchBox<uint32_t> : LaunchBox<256, 15> {};
template <>
struct SearchBox<uint64_t> : LaunchBox<256, 13> {};
template <>
struct SearchBox<Key128> : LaunchBox<128, 11> {};

// A point on a path: how many A and B elements lie before a cross-diagonal.
struct PathPoint {
    int64_t a;
    int64_t b;
};

// The paths partitions are cut on. search() works on global arrays (int64 indices)
// and on a tile in shared memory (int indices).
template <algo::Ties T>
struct MergePathKind {
    template <class AK, class BK, class I>
    __host__ __device__ static void search(const AK& a, I na, const BK& b, I nb, I diag, I& ai, I& bi) {
        ai = algo::merge_path<T>(a, na, b, nb, diag);
        bi = diag - ai;
    }
};

struct BalancedPathKind {
    template <class K, class I>
    __host__ __device__ static void search(const K* a, I na, const K* b, I nb, I diag, I& ai, I& bi) {
        algo::BalancedPoint<I> p = algo::balanced_path(a, na, b, nb, diag);
        ai = p.a;
        bi = p.b(diag);
    }
};

// Global partition kernel: the path point at every tile boundary (diag = i * spacing).
template <class Path, class AK, class BK>
__global__ void partition_kernel(AK a, int64_t na, BK b, int64_t nb, int64_t spacing, int64_t count,
                                 PathPoint* points) {
    int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    int64_t diag = i * spacing < na + nb ? i * spacing : na + nb;
    PathPoint p;
    Path::search(a, na, b, nb, diag, p.a, p.b);
    points[i] = p;
}

// Partition points for tiles of `spacing` path steps: num_tiles + 1 of them.
template <class Path, class AK, class BK>
Buffer<PathPoint> partition(Context& ctx, AK a, int64_t na, BK b, int64_t nb, int64_t spacing, int64_t num_tiles) {
    Buffer<PathPoint> points = ctx.alloc<PathPoint>(num_tiles + 1);
    int64_t count = num_tiles + 1;
    partition_kernel<Path><<<unsigned(ceil_div<int64_t>(count, 128)), 128, 0, stream_of(ctx)>>>(
        a, na, b, nb, spacing, count, points.data());
    launched("partition_kernel");
    return points;
}

}  // namespace cuda
}  // namespace mergepath
