// cccl_cache.cuh — the temporary-storage cache the CCCL baselines run with, so that
// Thrust's and CUB's temporary allocations are not timed as cudaMalloc/cudaFree (the
// library's own operations allocate from its caching pool, too).
#pragma once

#include <thrust/execution_policy.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstddef>
#include <map>

namespace bench {

// Thrust allocator (value_type char) that keeps freed blocks for reuse.
class CachingAllocator {
public:
    using value_type = char;
    char* allocate(std::ptrdiff_t bytes);
    void deallocate(char* p, size_t);
    void release();  // cudaFree every cached block

private:
    std::multimap<size_t, char*> free_;
    std::map<char*, size_t> used_;
};

CachingAllocator& thrust_cache();

// The policy every Thrust baseline runs with: no extra synchronization, cached temporaries.
inline auto thrust_policy(cudaStream_t s) { return thrust::cuda::par_nosync(thrust_cache()).on(s); }

}  // namespace bench
