// bench.h — what the kernel benchmark's host driver (bench_main.cpp) needs from its CUDA
// files: device arrays, random sorted key generation (CUB radix sort), the CCCL baselines
// (cub::DeviceMerge::MergeKeys, thrust::set_*, thrust::lower_bound) and device-side result
// checks. Only K = uint32_t and uint64_t are instantiated (the benchmark's key widths).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mergepath/types.h"

namespace bench {

// Throws std::runtime_error naming the failed call.
inline void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A device allocation outside the library's pool (inputs and CCCL outputs).
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(size_t n) { resize(n); }
    ~DeviceArray() { free(); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    void resize(size_t n) {
        if (n <= cap_) { n_ = n; return; }
        free();
        cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMalloc");
        cap_ = n_ = n;
    }
    void free() {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        cap_ = n_ = 0;
    }
    T* data() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0, cap_ = 0;
};

// n keys uniform over `range` values spread across K's domain (key = v * (max/range)), sorted.
template <class K>
void generate_sorted_keys(K* out, size_t n, uint64_t range, uint64_t seed, cudaStream_t s);

// CCCL baselines on device pointers, on stream s (temporary storage from a cache).
template <class K>
void cub_merge_keys(const K* a, size_t na, const K* b, size_t nb, K* out, cudaStream_t s);
template <class K>
size_t thrust_set_op(mergepath::SetOp op, const K* a, size_t na, const K* b, size_t nb, K* out, cudaStream_t s);
template <class K>
void thrust_lower_bound(const K* haystack, size_t nb, const K* needles, size_t na, uint64_t* out, cudaStream_t s);

// Checks on device. device_equal: T in {uint32_t, uint64_t}.
template <class T>
bool device_equal(const T* x, const T* y, size_t n, cudaStream_t s);
// Elements of a_match (given the correct lower bounds) and b_match that are wrong.
template <class K>
uint64_t search_flag_errors(const K* a, size_t na, const K* b, size_t nb, const uint64_t* lower,
                            const uint8_t* a_match, const uint8_t* b_match, cudaStream_t s);
// Number of (i, j) with A[i] == B[j].
template <class K>
uint64_t inner_join_pair_count(const K* a, size_t na, const K* b, size_t nb, cudaStream_t s);
// Pairs that are out of range, join unequal keys, or break strict (a, b) ascending order.
template <class K>
uint64_t join_pair_errors(const K* a, size_t na, const K* b, size_t nb, const int64_t* a_rows,
                          const int64_t* b_rows, size_t count, cudaStream_t s);

// Device-to-device copy bandwidth (bytes read + written per second) with cudaMemcpyAsync.
double d2d_copy_gbps(cudaStream_t s);
// Frees the CCCL temporary-storage caches.
void release_cccl_cache();

}  // namespace bench
