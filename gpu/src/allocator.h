// allocator.h — the budgeted allocator every backend's memory comes from: it counts
// the bytes held by live Buffers and scratch space, refuses (OutOfMemory) an
// allocation that would exceed the context's budget, reserves its memory in a shared
// ledger when it has one (waiting for room: see MemoryLedger in context.h), and
// delegates the actual memory to the backend (a caching host allocator for the CPU, a
// cached CUDA stream-ordered pool for the GPU).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "mergepath/context.h"

namespace mergepath {
namespace detail {

class BudgetedAllocator : public Allocator {
public:
    ~BudgetedAllocator() override;
    void* allocate(size_t bytes) override;
    void release(void* p) noexcept override;
    size_t in_use() const;
    // Counts `bytes` of memory held elsewhere (the host keys a stage reads in place) in
    // this budget: throws OutOfMemory when that would exceed it; discharge() undoes it.
    void charge(size_t bytes);
    void discharge(size_t bytes) noexcept;
    size_t budget() const { return budget_; }
    void set_budget(size_t bytes) { budget_ = bytes; }
    // Allocations are reserved in `ledger` first (nullptr: none); `interrupted` is
    // polled while waiting for room there.
    void set_ledger(MemoryLedger* ledger, std::function<bool()> interrupted);
    size_t ledger_reserved() const;
    bool reserve_ahead(size_t bytes);  // Context::reserve_memory
    // The most bytes in use (allocations and charges) since reset_peak(), and the time
    // allocations waited for room in the ledger since then.
    size_t peak() const;
    double ledger_wait_ms() const;
    void reset_peak();
    // Drops what the backend caches for reuse and, with nothing allocated, gives the
    // ledger back what was reserved in it, unless the ledger lets the allocator keep
    // both (then nothing is dropped). The CUDA backend's pinned staging always stays.
    void release_cached() noexcept;

protected:
    // keep_pool: the memory cached for reuse stays (the ledger let it keep it).
    virtual void drop_cached(bool keep_pool) noexcept { (void)keep_pool; }
    bool has_ledger() const { return ledger_ != nullptr; }
    virtual void* raw_allocate(size_t bytes) = 0;  // nullptr when the backend is out of memory
    virtual void raw_release(void* p, size_t bytes) noexcept = 0;  // bytes: as given to raw_allocate
    virtual std::string space_name() const = 0;

private:
    void check_budget_locked(size_t bytes) const;
    bool grow_reservation(size_t bytes, size_t min_step, bool requeue_kept, size_t* held);
    void reserve_in_ledger(size_t bytes);
    void wait_for_ledger(size_t bytes);

    mutable std::mutex mutex_;
    std::unordered_map<void*, size_t> sizes_;
    size_t in_use_ = 0;
    size_t budget_ = 0;
    MemoryLedger* ledger_ = nullptr;
    std::function<bool()> interrupted_;
    size_t allocated_ = 0;  // bytes of live allocations (in_use_ less charged bytes)
    size_t reserved_ = 0;   // bytes held in the ledger (>= allocated_ while working)
    size_t peak_ = 0;
    double ledger_wait_ms_ = 0;
};

// Host memory of the CPU backend: 64-byte aligned blocks. Large blocks are kept on
// release and handed out again for requests of the same rounded size, so repeated
// operations do not page-fault fresh memory in every call (a kernel-zeroed page per
// 4 KiB costs more than the merge that writes it). The cache is bounded and
// release_cached() empties it.
class HostAllocator final : public BudgetedAllocator {
public:
    ~HostAllocator() override { drop_cached(false); }
    size_t cached_bytes() const;  // idle memory kept for reuse

protected:
    void drop_cached(bool keep_pool) noexcept override;
    void* raw_allocate(size_t bytes) override;
    void raw_release(void* p, size_t bytes) noexcept override;
    std::string space_name() const override { return "host"; }

private:
    struct CachedBlock {
        size_t size;
        void* block;
    };
    using BySize = std::multimap<size_t, std::list<CachedBlock>::iterator>;
    void forget_locked(BySize::iterator entry) noexcept;
    void free_cache_locked() noexcept;

    mutable std::mutex cache_mutex_;
    std::list<CachedBlock> recent_;  // free blocks, most recently freed first
    BySize by_size_;                 // rounded size -> its blocks in recent_
    size_t cached_bytes_ = 0;
};

}  // namespace detail
}  // namespace mergepath
