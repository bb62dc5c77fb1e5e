// allocator.cpp — budget accounting shared by the backends' allocators, and the host
// allocator of the CPU backend (64-byte aligned blocks; large ones cached for reuse,
// the least recently freed given back first when the cache is full).
#include "allocator.h"

#include <algorithm>
#include <cstdlib>

namespace mergepath {
namespace detail {

void BudgetedAllocator::check_budget_locked(size_t bytes) const {
    if (budget_ && in_use_ + bytes > budget_) {
        throw OutOfMemory("mergepath: " + space_name() + " memory budget exceeded: " +
                          std::to_string(in_use_) + " bytes in use + " + std::to_string(bytes) +
                          " requested > budget of " + std::to_string(budget_) + " bytes");
    }
}

void BudgetedAllocator::charge(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    check_budget_locked(bytes);
    in_use_ += bytes;
}

void BudgetedAllocator::discharge(size_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    in_use_ -= bytes < in_use_ ? bytes : in_use_;
}

void* BudgetedAllocator::allocate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    check_budget_locked(bytes);
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
    auto hit = by_size_.find(size);
    if (hit != by_size_.end()) {
        void* p = hit->second->block;
        forget_locked(hit);
        return p;
    }
    void* p = std::aligned_alloc(64, size);
    if (!p && cached_bytes_) {  // give the cache back and try once more
        free_cache_locked();
        p = std::aligned_alloc(64, size);
    }
    return p;
}

// Keeps the block as the most recently freed; when the cache would exceed its limit,
// the least recently freed blocks go back to the system (blocks of sizes no longer
// asked for must not pin the cache: new sizes would then fault in fresh pages on
// every call).
void HostAllocator::raw_release(void* p, size_t bytes) noexcept {
    size_t size = rounded_size(bytes);  // the block's size, as raw_allocate rounded it
    if (size < kCacheMinBlock || size > kCacheMaxBytes) {
        std::free(p);
        return;
    }
    std::lock_guard<std::mutex> lock(cache_mutex_);
    try {
        recent_.push_front(CachedBlock{size, p});
        by_size_.emplace(size, recent_.begin());
    } catch (...) {  // no memory for the bookkeeping: do not cache
        if (!recent_.empty() && recent_.front().block == p) recent_.pop_front();
        std::free(p);
        return;
    }
    cached_bytes_ += size;
    while (cached_bytes_ > kCacheMaxBytes) {
        auto oldest = std::prev(recent_.end());
        auto range = by_size_.equal_range(oldest->size);
        auto entry = std::find_if(range.first, range.second, [&](const auto& e) { return e.second == oldest; });
        std::free(oldest->block);
        forget_locked(entry);
    }
}

void HostAllocator::forget_locked(BySize::iterator entry) noexcept {
    cached_bytes_ -= entry->first;
    recent_.erase(entry->second);
    by_size_.erase(entry);
}

size_t HostAllocator::cached_bytes() const {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    return cached_bytes_;
}

void HostAllocator::release_cached() noexcept {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    free_cache_locked();
}

void HostAllocator::free_cache_locked() noexcept {
    for (auto& entry : recent_) std::free(entry.block);
    recent_.clear();
    by_size_.clear();
    cached_bytes_ = 0;
}

}  // namespace detail
}  // namespace mergepath
