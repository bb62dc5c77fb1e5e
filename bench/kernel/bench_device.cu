// bench_device.cu — device helpers of the kernel benchmark: random sorted input keys
// (hash-generated, sorted with cub::DeviceRadixSort), the checks that compare our results
// with CCCL's on the device (thrust::equal, match flags, join pairs), and the
// device-to-device copy bandwidth that the pair join (bench/pair_join) is judged against.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/equal.h>

#include <limits>

#include "bench.h"
#include "cccl_cache.cuh"

namespace bench {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(size_t n) {
    size_t blocks = (n + kThreads - 1) / kThreads;
    return unsigned(blocks < 65536 * 8 ? (blocks ? blocks : 1) : 65536 * 8);
}

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class K>
__global__ void fill_random(K* out, size_t n, uint64_t range, uint64_t stride, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint64_t v = __umul64hi(splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull)), range);  // uniform in [0, range)
        out[i] = K(v * stride);
    }
}

template <class K>
__device__ __forceinline__ size_t lower_bound_dev(const K* x, size_t n, K key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
template <class K>
__device__ __forceinline__ size_t upper_bound_dev(const K* x, size_t n, K key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (key < x[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

// Adds each block's sum of per-thread values into *total.
__device__ __forceinline__ void block_add(unsigned long long v, unsigned long long* total) {
    using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    unsigned long long sum = Reduce(tmp).Sum(v);
    if (threadIdx.x == 0 && sum) atomicAdd(total, sum);
}

template <class K>
__global__ void check_a_flags(const K* a, size_t na, const K* b, size_t nb, const uint64_t* lower,
                              const uint8_t* a_match, unsigned long long* bad) {
    unsigned long long errors = 0;
    size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t rounds = (na + stride - 1) / stride;
    for (size_t r = 0; r < rounds; ++r) {
        size_t i = r * stride + blockIdx.x * size_t(blockDim.x) + threadIdx.x;
        if (i < na) {
            uint64_t l = lower[i];
            bool match = l < nb && b[l] == a[i];
            errors += (a_match[i] != 0) != match;
        }
    }
    block_add(errors, bad);
}

template <class K>
__global__ void check_b_flags(const K* a, size_t na, const K* b, size_t nb, const uint8_t* b_match,
                              unsigned long long* bad) {
    unsigned long long errors = 0;
    size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t rounds = (nb + stride - 1) / stride;
    for (size_t r = 0; r < rounds; ++r) {
        size_t j = r * stride + blockIdx.x * size_t(blockDim.x) + threadIdx.x;
        if (j < nb) {
            size_t l = lower_bound_dev(a, na, b[j]);
            bool match = l < na && a[l] == b[j];
            errors += (b_match[j] != 0) != match;
        }
    }
    block_add(errors, bad);
}

template <class K>
__global__ void count_pairs(const K* a, size_t na, const K* b, size_t nb, unsigned long long* total) {
    unsigned long long pairs = 0;
    size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t rounds = (na + stride - 1) / stride;
    for (size_t r = 0; r < rounds; ++r) {
        size_t i = r * stride + blockIdx.x * size_t(blockDim.x) + threadIdx.x;
        if (i < na) pairs += upper_bound_dev(b, nb, a[i]) - lower_bound_dev(b, nb, a[i]);
    }
    block_add(pairs, total);
}

template <class K>
__global__ void check_pairs(const K* a, size_t na, const K* b, size_t nb, const int64_t* ar, const int64_t* br,
                            size_t count, unsigned long long* bad) {
    unsigned long long errors = 0;
    size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t rounds = (count + stride - 1) / stride;
    for (size_t r = 0; r < rounds; ++r) {
        size_t k = r * stride + blockIdx.x * size_t(blockDim.x) + threadIdx.x;
        if (k < count) {
            int64_t i = ar[k], j = br[k];
            bool ok = i >= 0 && j >= 0 && uint64_t(i) < na && uint64_t(j) < nb && a[i] == b[j];
            if (ok && k > 0) ok = ar[k - 1] < i || (ar[k - 1] == i && br[k - 1] < j);
            errors += !ok;
        }
    }
    block_add(errors, bad);
}

// Runs a kernel that adds into one device counter; returns the counter.
template <class Launch>
uint64_t device_counter(cudaStream_t s, Launch launch) {
    DeviceArray<unsigned long long> c(1);
    cuda_check(cudaMemsetAsync(c.data(), 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    launch(c.data());
    cuda_check(cudaGetLastError(), "check kernel launch");
    unsigned long long h = 0;
    cuda_check(cudaMemcpyAsync(&h, c.data(), sizeof h, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
    cuda_check(cudaStreamSynchronize(s), "check kernel");
    return h;
}

}  // namespace

template <class K>
void generate_sorted_keys(K* out, size_t n, uint64_t range, uint64_t seed, cudaStream_t s) {
    if (n == 0) return;
    if (range == 0) range = 1;
    uint64_t stride = uint64_t(std::numeric_limits<K>::max()) / range;
    if (stride == 0) stride = 1;
    DeviceArray<K> unsorted(n);
    fill_random<K><<<grid_for(n), kThreads, 0, s>>>(unsorted.data(), n, range, stride, seed);
    cuda_check(cudaGetLastError(), "fill_random");
    size_t bytes = 0;
    cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, unsorted.data(), out, int64_t(n), 0, int(sizeof(K) * 8), s),
               "cub::DeviceRadixSort::SortKeys (size query)");
    DeviceArray<unsigned char> temp(bytes);
    cuda_check(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, unsorted.data(), out, int64_t(n), 0,
                                              int(sizeof(K) * 8), s),
               "cub::DeviceRadixSort::SortKeys");
    cuda_check(cudaStreamSynchronize(s), "generate_sorted_keys");
}

template <class T>
bool device_equal(const T* x, const T* y, size_t n, cudaStream_t s) {
    if (n == 0) return true;
    bool eq = thrust::equal(thrust_policy(s), x, x + n, y);
    cuda_check(cudaStreamSynchronize(s), "thrust::equal");
    return eq;
}

template <class K>
uint64_t search_flag_errors(const K* a, size_t na, const K* b, size_t nb, const uint64_t* lower,
                            const uint8_t* a_match, const uint8_t* b_match, cudaStream_t s) {
    return device_counter(s, [&](unsigned long long* c) {
        check_a_flags<K><<<grid_for(na), kThreads, 0, s>>>(a, na, b, nb, lower, a_match, c);
        check_b_flags<K><<<grid_for(nb), kThreads, 0, s>>>(a, na, b, nb, b_match, c);
    });
}

template <class K>
uint64_t inner_join_pair_count(const K* a, size_t na, const K* b, size_t nb, cudaStream_t s) {
    return device_counter(s, [&](unsigned long long* c) { count_pairs<K><<<grid_for(na), kThreads, 0, s>>>(a, na, b, nb, c); });
}

template <class K>
uint64_t join_pair_errors(const K* a, size_t na, const K* b, size_t nb, const int64_t* a_rows,
                          const int64_t* b_rows, size_t count, cudaStream_t s) {
    return device_counter(s, [&](unsigned long long* c) {
        check_pairs<K><<<grid_for(count), kThreads, 0, s>>>(a, na, b, nb, a_rows, b_rows, count, c);
    });
}

double d2d_copy_gbps(cudaStream_t s) {
    const size_t bytes = size_t(1) << 30;
    DeviceArray<unsigned char> src(bytes), dst(bytes);
    cuda_check(cudaMemsetAsync(src.data(), 1, bytes, s), "cudaMemsetAsync");
    cudaEvent_t e0, e1;
    cuda_check(cudaEventCreate(&e0), "cudaEventCreate");
    cuda_check(cudaEventCreate(&e1), "cudaEventCreate");
    float best = 1e30f;
    for (int r = 0; r < 6; ++r) {
        cuda_check(cudaEventRecord(e0, s), "cudaEventRecord");
        cuda_check(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
        cuda_check(cudaEventRecord(e1, s), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        if (r > 0 && ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * double(bytes) / (best * 1e6);
}

#define BENCH_INSTANTIATE(K)                                                                              \
    template void generate_sorted_keys<K>(K*, size_t, uint64_t, uint64_t, cudaStream_t);                  \
    template bool device_equal<K>(const K*, const K*, size_t, cudaStream_t);                              \
    template uint64_t search_flag_errors<K>(const K*, size_t, const K*, size_t, const uint64_t*,          \
                                            const uint8_t*, const uint8_t*, cudaStream_t);                \
    template uint64_t inner_join_pair_count<K>(const K*, size_t, const K*, size_t, cudaStream_t);         \
    template uint64_t join_pair_errors<K>(const K*, size_t, const K*, size_t, const int64_t*,             \
                                          const int64_t*, size_t, cudaStream_t);
BENCH_INSTANTIATE(uint32_t)
BENCH_INSTANTIATE(uint64_t)

}  // namespace bench
