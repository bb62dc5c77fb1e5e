// allocator.cpp — budget accounting shared by the backends' allocators, and the host
// allocator of the CPU backend (64-byte aligned blocks, large ones cached for reuse).
#include "allocator.h"

#include <cstdlib>

namespace mergepath {
namespace detail {

void* BudgetedAllocator::allocate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (budget_ && in_use_ + bytes > budget_) {
        throw OutOfMemory("mergepath: " + space_name() + " memory budget exceeded: " +
                          std::to_string(in_use_) + " bytes in use + " + std::to_string(bytes) +
                          " requested > budget of " + std::to_string(budget_) + " bytes");
    }
    void* p = raw_allocate(bytes ? bytes : 1);
    if (!p) {
        throw OutOfMemory("mergepath: out of " + space_name() + " memory allocating " +
                          std::to_string(bytes) + " bytes (" + std::to_string(in_use_) +
                          " bytes in use)");
    }
    sizes_[p] = bytes;
    in_use_ += bytes;
    return p;
}

void BudgetedAllocator::release(void* p) noexcept {
    if (!p) return;
    size_t bytes = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = sizes_.find(p);
        if (it != sizes_.end()) {
            bytes = it->second;
            in_use_ -= bytes;
            sizes_.erase(it);
        }
    }
    raw_release(p, bytes ? bytes : 1);  // allocate() asks raw_allocate for at least 1 byte
}

size_t BudgetedAllocator::in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use_;
}

namespace {
constexpr size_t kCacheMinBlock = size_t(1) << 20;   // smaller blocks go straight back to malloc
constexpr size_t kCacheMaxBytes = size_t(4) << 30;   // at most this much idle memory is kept
constexpr size_t kCacheGranule = size_t(2) << 20;    // large sizes round up to 2 MiB for reuse

size_t rounded_size(size_t bytes) {
    size_t granule = bytes >= kCacheMinBlock ? kCacheGranule : 64;
    return (bytes + granule - 1) / granule * granule;
}
}  // namespace

void* HostAllocator::raw_allocate(size_t bytes) {
    size_t size = rounded_size(bytes);
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto hit = cached_.find(size);
    if (hit != cached_.end()) {
        void* p = hit->second;
        cached_.erase(hit);
        cached_bytes_ -= size;
        return p;
    }
    void* p = std::aligned_alloc(64, size);
    if (!p && cached_bytes_) {  // give the cache back and try once more
        free_cache_locked();
        p = std::aligned_alloc(64, size);
    }
    return p;
}

void HostAllocator::raw_release(void* p, size_t bytes) noexcept {
    size_t size = rounded_size(bytes);  // the block's size, as raw_allocate rounded it
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (size >= kCacheMinBlock && cached_bytes_ + size <= kCacheMaxBytes) {
        cached_.emplace(size, p);
        cached_bytes_ += size;
        return;
    }
    std::free(p);
}

void HostAllocator::release_cached() noexcept {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    free_cache_locked();
}

void HostAllocator::free_cache_locked() noexcept {
    for (auto& entry : cached_) std::free(entry.second);
    cached_.clear();
    cached_bytes_ = 0;
}

}  // namespace detail
}  // namespace mergepath
