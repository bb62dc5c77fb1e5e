// allocator.cpp — budget accounting shared by the backends' allocators, and the host
// allocator of the CPU backend (64-byte aligned malloc).
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = sizes_.find(p);
        if (it != sizes_.end()) {
            in_use_ -= it->second;
            sizes_.erase(it);
        }
    }
    raw_release(p);
}

size_t BudgetedAllocator::in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use_;
}

void* HostAllocator::raw_allocate(size_t bytes) {
    size_t rounded = (bytes + 63) / 64 * 64;
    return std::aligned_alloc(64, rounded);
}

void HostAllocator::raw_release(void* p) noexcept { std::free(p); }

}  // namespace detail
}  // namespace mergepath
