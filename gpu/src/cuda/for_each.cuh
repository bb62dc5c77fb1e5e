// for_each.cuh — the CUDA backend's one element-wise kernel: f(i) for every i in
// [0, n), grid-stride, queued on the context's stream without waiting. Small
// per-element jobs (row numbers of a shipped run, the row gather of merge_pairs) are
// functors run through it instead of kernels of their own.
#pragma once

#include "cuda/common.cuh"

namespace mergepath {
namespace cuda {

template <class F>
__global__ void for_each_index_kernel(F f, int64_t n) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

template <class F>
void for_each_index(Context& ctx, int64_t n, F f, const char* what) {
    if (n <= 0) return;
    constexpr int kThreads = 256;
    constexpr int64_t kMaxBlocks = int64_t(1) << 20;  // beyond this, threads loop
    int64_t blocks = ceil_div<int64_t>(n, kThreads);
    if (blocks > kMaxBlocks) blocks = kMaxBlocks;
    for_each_index_kernel<<<unsigned(blocks), kThreads, 0, stream_of(ctx)>>>(f, n);
    launched(what);
}

}  // namespace cuda
}  // namespace mergepath
