// cccl_merge_search.cu — CCCL baselines for merge (cub::DeviceMerge::MergeKeys) and
// vectorized search (thrust::lower_bound with sorted needles), and the Thrust cache.
#include <cub/device/device_merge.cuh>
#include <thrust/binary_search.h>

#include <new>

#include "bench.h"
#include "cccl_cache.cuh"

namespace bench {

char* CachingAllocator::allocate(std::ptrdiff_t bytes) {
    auto it = free_.lower_bound(size_t(bytes));
    char* p = nullptr;
    size_t size = size_t(bytes);
    if (it != free_.end()) {
        p = it->second;
        size = it->first;
        free_.erase(it);
    } else if (cudaMalloc(reinterpret_cast<void**>(&p), size) != cudaSuccess) {
        cudaGetLastError();
        throw std::bad_alloc();
    }
    used_[p] = size;
    return p;
}

void CachingAllocator::deallocate(char* p, size_t) {
    auto it = used_.find(p);
    if (it == used_.end()) return;
    free_.emplace(it->second, p);
    used_.erase(it);
}

void CachingAllocator::release() {
    for (auto& f : free_) cudaFree(f.second);
    free_.clear();
}

CachingAllocator& thrust_cache() {
    static CachingAllocator cache;
    return cache;
}

namespace {
DeviceArray<unsigned char>& cub_temp() {
    static DeviceArray<unsigned char> temp;
    return temp;
}
}  // namespace

void release_cccl_cache() {
    thrust_cache().release();
    cub_temp().free();
}

template <class K>
void cub_merge_keys(const K* a, size_t na, const K* b, size_t nb, K* out, cudaStream_t s) {
    size_t bytes = 0;
    cuda_check(cub::DeviceMerge::MergeKeys(nullptr, bytes, a, int64_t(na), b, int64_t(nb), out, cuda::std::less<K>{}, s),
               "cub::DeviceMerge::MergeKeys (size query)");
    cub_temp().resize(bytes);
    cuda_check(cub::DeviceMerge::MergeKeys(cub_temp().data(), bytes, a, int64_t(na), b, int64_t(nb), out,
                                           cuda::std::less<K>{}, s),
               "cub::DeviceMerge::MergeKeys");
}

template <class K>
void thrust_lower_bound(const K* haystack, size_t nb, const K* needles, size_t na, uint64_t* out, cudaStream_t s) {
    thrust::lower_bound(thrust_policy(s), haystack, haystack + nb, needles, needles + na, out);
}

template void cub_merge_keys<uint32_t>(const uint32_t*, size_t, const uint32_t*, size_t, uint32_t*, cudaStream_t);
template void cub_merge_keys<uint64_t>(const uint64_t*, size_t, const uint64_t*, size_t, uint64_t*, cudaStream_t);
template void thrust_lower_bound<uint32_t>(const uint32_t*, size_t, const uint32_t*, size_t, uint64_t*, cudaStream_t);
template void thrust_lower_bound<uint64_t>(const uint64_t*, size_t, const uint64_t*, size_t, uint64_t*, cudaStream_t);

}  // namespace bench
