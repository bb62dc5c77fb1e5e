// sort.cu — CUDA backend sorting with CUB's onesweep radix sort (keys, or keys with
// a row payload). 128-bit keys are sorted through a decomposer (hi word, then lo).
// sort_into (sort.cuh) sorts from one array into another without waiting; the
// in-place sort_pairs / sort_keys sort into scratch buffers from the pool, copy back
// and wait for the stream.
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>

#include "backends.h"
#include "cuda/common.cuh"
#include "cuda/sort.cuh"

namespace mergepath {
namespace cuda {
namespace {

struct Key128Decomposer {
    __host__ __device__ ::cuda::std::tuple<uint64_t&, uint64_t&> operator()(Key128& k) const { return {k.hi, k.lo}; }
};


cudaError_t sort_call(void* t, size_t& n_bytes, const uint32_t* in, uint32_t* out, const uint64_t* rin, uint64_t* rout,
                      int64_t n, cudaStream_t s) {
    return rin ? cub::DeviceRadixSort::SortPairs(t, n_bytes, in, out, rin, rout, n, 0, 32, s)
               : cub::DeviceRadixSort::SortKeys(t, n_bytes, in, out, n, 0, 32, s);
}
cudaError_t sort_call(void* t, size_t& n_bytes, const uint64_t* in, uint64_t* out, const uint64_t* rin, uint64_t* rout,
                      int64_t n, cudaStream_t s) {
    return rin ? cub::DeviceRadixSort::SortPairs(t, n_bytes, in, out, rin, rout, n, 0, 64, s)
               : cub::DeviceRadixSort::SortKeys(t, n_bytes, in, out, n, 0, 64, s);
}
cudaError_t sort_call(void* t, size_t& n_bytes, const Key128* in, Key128* out, const uint64_t* rin, uint64_t* rout,
                      int64_t n, cudaStream_t s) {
    return rin ? cub::DeviceRadixSort::SortPairs(t, n_bytes, in, out, rin, rout, n, Key128Decomposer{}, s)
               : cub::DeviceRadixSort::SortKeys(t, n_bytes, in, out, n, Key128Decomposer{}, s);
}

template <class K>
void sort_in_place(Context& ctx, View<K> keys, uint64_t* rows) {
    size_t n = keys.size;
    if (n < 2) return;
    cudaStream_t s = stream_of(ctx);
    Buffer<K> keys_out = ctx.alloc<K>(n);
    Buffer<uint64_t> rows_out = rows ? ctx.alloc<uint64_t>(n) : Buffer<uint64_t>();
    sort_into<K>(ctx, keys.data, keys_out.data(), rows, rows_out.data(), n);
    check(cudaMemcpyAsync(keys.data, keys_out.data(), n * sizeof(K), cudaMemcpyDeviceToDevice, s), "copy back");
    if (rows) check(cudaMemcpyAsync(rows, rows_out.data(), n * sizeof(uint64_t), cudaMemcpyDeviceToDevice, s), "copy back");
    synchronize(ctx, "DeviceRadixSort");
}

}  // namespace

template <class K>
void sort_into(Context& ctx, const K* keys_in, K* keys_out, const uint64_t* rows_in, uint64_t* rows_out, size_t n) {
    cudaStream_t s = stream_of(ctx);
    if (n == 0) return;
    if (n == 1) {  // nothing to order: a copy
        check(cudaMemcpyAsync(keys_out, keys_in, n * sizeof(K), cudaMemcpyDeviceToDevice, s), "sort_into copy");
        if (rows_in)
            check(cudaMemcpyAsync(rows_out, rows_in, n * sizeof(uint64_t), cudaMemcpyDeviceToDevice, s), "sort_into copy");
        return;
    }
    size_t bytes = 0;
    check(sort_call(nullptr, bytes, keys_in, keys_out, rows_in, rows_out, int64_t(n), s), "DeviceRadixSort");
    Buffer<unsigned char> temp = ctx.alloc<unsigned char>(bytes);
    check(sort_call(temp.data(), bytes, keys_in, keys_out, rows_in, rows_out, int64_t(n), s), "DeviceRadixSort");
}

template <class K>
void sort_pairs(Context& ctx, View<K> keys, View<uint64_t> rows) {
    sort_in_place(ctx, keys, rows.data);
}

template <class K>
void sort_keys(Context& ctx, View<K> keys) {
    sort_in_place<K>(ctx, keys, nullptr);
}

#define INSTANTIATE_SORT_INTO(K) \
    template void sort_into<K>(Context&, const K*, K*, const uint64_t*, uint64_t*, size_t);
MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SORT)
MERGEPATH_FOR_EACH_KEY(INSTANTIATE_SORT_INTO)

}  // namespace cuda
}  // namespace mergepath
