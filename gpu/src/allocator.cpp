// allocator.cpp — budget accounting shared by the backends' allocators (the context's
// own budget, and reservations in a shared ledger), and the host allocator of the CPU
// backend (64-byte aligned blocks; large ones cached for reuse, the least recently
// freed given back first when the cache is full).
#include "allocator.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

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
    peak_ = std::max(peak_, in_use_);
}

size_t BudgetedAllocator::peak() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
}

double BudgetedAllocator::ledger_wait_ms() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ledger_wait_ms_;
}

void BudgetedAllocator::reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = in_use_;
    ledger_wait_ms_ = 0;
}

void BudgetedAllocator::discharge(size_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    in_use_ -= bytes < in_use_ ? bytes : in_use_;
}

BudgetedAllocator::~BudgetedAllocator() {
    if (ledger_ && reserved_) ledger_->give_back(reserved_);
}

void BudgetedAllocator::set_ledger(MemoryLedger* ledger, std::function<bool()> interrupted) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ledger_ && reserved_) ledger_->give_back(reserved_);
    reserved_ = 0;
    ledger_ = ledger;
    interrupted_ = std::move(interrupted);
}

size_t BudgetedAllocator::ledger_reserved() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reserved_;
}

// Grows what is held in the ledger to cover `bytes` more than is allocated, by at
// least `min_step`. Only a context that holds nothing in the ledger waits for room (a
// query waiting to start); one that holds memory and finds no room gets nothing, so
// that no two contexts wait for each other. With `requeue_kept`, a reservation kept
// while idle (nothing allocated) goes back first, so the context queues like the
// others. False: no room, and the context holds *held bytes.
bool BudgetedAllocator::grow_reservation(size_t bytes, size_t min_step, bool requeue_kept, size_t* held) {
    size_t grow;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (allocated_ + bytes <= reserved_) return true;
        if (requeue_kept && allocated_ == 0 && reserved_ > 0) {
            ledger_->give_back(reserved_);
            reserved_ = 0;
        }
        grow = std::max(allocated_ + bytes - reserved_, min_step);
        *held = reserved_;
    }
    if (*held == 0)
        wait_for_ledger(grow);
    else if (!ledger_->try_reserve(grow))
        return false;
    std::lock_guard<std::mutex> lock(mutex_);
    reserved_ += grow;
    return true;
}

bool BudgetedAllocator::reserve_ahead(size_t bytes) {
    size_t held;
    return !ledger_ || grow_reservation(bytes, 0, true, &held);
}

// What an allocation needs beyond what is held, in steps of at least 1 MiB (fewer trips
// to the shared counter); no room while holding memory is an OutOfMemory (the extension
// then computes that query on the CPU backend, freeing what it held).
void BudgetedAllocator::reserve_in_ledger(size_t bytes) {
    constexpr size_t kStep = size_t(1) << 20;
    size_t held;
    if (!ledger_ || grow_reservation(bytes, kStep, false, &held)) return;
    throw OutOfMemory("mergepath: no room in the shared " + space_name() + " memory budget for " +
                      std::to_string(bytes) + " more bytes (this context holds " + std::to_string(held) +
                      ": it does not wait, so that contexts never wait for each other)");
}

void BudgetedAllocator::wait_for_ledger(size_t bytes) {
    using Clock = std::chrono::steady_clock;
    if (ledger_->try_reserve(bytes)) return;
    auto begin = Clock::now();
    struct CountWait {
        BudgetedAllocator* self;
        Clock::time_point begin;
        ~CountWait() {
            std::lock_guard<std::mutex> lock(self->mutex_);
            self->ledger_wait_ms_ += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
        }
    } count_wait{this, begin};
    auto deadline = begin + std::chrono::duration<double, std::milli>(ledger_->patience_ms());
    ledger_->set_waiting(true);
    struct EndWait {
        MemoryLedger* ledger;
        ~EndWait() { ledger->set_waiting(false); }
    } end_wait{ledger_};
    while (Clock::now() < deadline) {
        if (interrupted_ && interrupted_()) throw Cancelled("mergepath: operation cancelled");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (ledger_->try_reserve(bytes)) return;
    }
    double waited = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    throw OutOfMemory("mergepath: no room in the shared " + space_name() + " memory budget for " +
                      std::to_string(bytes) + " bytes after waiting " + std::to_string(int64_t(waited)) + " ms");
}

void BudgetedAllocator::release_cached() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    bool idle = ledger_ && !allocated_ && reserved_;
    bool keep = idle && ledger_->keep_when_idle(reserved_);
    drop_cached(keep);
    if (!idle || keep) return;
    ledger_->give_back(reserved_);
    reserved_ = 0;
}

void* BudgetedAllocator::allocate(size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        check_budget_locked(bytes);  // fail before waiting for the ledger
    }
    reserve_in_ledger(bytes);
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
    allocated_ += bytes;
    peak_ = std::max(peak_, in_use_);
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
            allocated_ -= bytes;
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

void HostAllocator::drop_cached(bool keep_pool) noexcept {
    if (keep_pool) return;
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
