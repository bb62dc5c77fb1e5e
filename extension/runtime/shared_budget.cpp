// shared_budget.cpp — one GPU shared safely by concurrent queries (issue 12): the bytes
// every backend's GPU context holds are reserved in one counter in shared memory
// against a cluster-wide limit, pg_mergepath.gpu_shared_memory (default: 90% of the
// GPU's memory, learned from the first backend that opens it; -1: no limit, the bytes
// are still counted).
// The library reserves before it allocates and gives back when the context goes idle
// (mergepath::MemoryLedger) — unless the budget is at most half used: then the idle
// backend keeps its reservation and its pool's cached memory for its next query; with
// no room, the allocation waits, polling for a cancel,
// up to pg_mergepath.gpu_wait_timeout, then fails as out of memory, and the stage
// computes the query on the CPU backend with a NOTICE. So N concurrent queries queue
// for the device or move to the CPU, and never fail for lack of GPU memory.
//
// The ledger's methods run on library threads: they only touch atomics (no PostgreSQL
// calls); the settings they need are copied into it on the backend's thread. What a
// backend still holds when it exits is given back by its on_shmem_exit callback. The
// hidden pg_mergepath.debug_cpu_shared_budget makes the CPU contexts opened while it is
// set use the ledger too, with that limit, so that tests without a GPU reach the waits
// and the fallback.
#include <atomic>

#include "shared_budget.h"

#include "pg_mergepath.h"

extern "C" {
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

namespace {

struct SharedBudget {
    pg_atomic_uint64 in_use;
    pg_atomic_uint64 device_bytes;
    pg_atomic_uint32 waiting;
};

SharedBudget* shared = nullptr;
shmem_request_hook_type previous_request = nullptr;
shmem_startup_hook_type previous_startup = nullptr;

class SharedLedger final : public mergepath::MemoryLedger {
public:
    bool try_reserve(size_t bytes) noexcept override {
        if (detached_.load()) return false;
        uint64 limit = limit_.load(std::memory_order_relaxed);
        uint64 used = pg_atomic_read_u64(&shared->in_use);
        do {
            if (limit && used + bytes > limit) return false;
        } while (!pg_atomic_compare_exchange_u64(&shared->in_use, &used, used + bytes));
        mine_ += bytes;
        return true;
    }
    void give_back(size_t bytes) noexcept override {
        if (detached_.load()) return;
        mine_ -= bytes;
        subtract(bytes);
    }
    double patience_ms() const noexcept override { return patience_ms_.load(std::memory_order_relaxed); }
    void set_waiting(bool waiting) noexcept override {
        if (waiting && detached_.load()) return;
        if (waiting) {
            pg_atomic_fetch_add_u32(&shared->waiting, 1);
            return;
        }
        uint32 n = pg_atomic_read_u32(&shared->waiting);  // never below 0
        while (n > 0 && !pg_atomic_compare_exchange_u32(&shared->waiting, &n, n - 1)) {
        }
    }
    // An idle backend keeps its reservation and its pool's cache (its next query maps no
    // fresh device memory) while the budget is at most half used, so that idle backends
    // together hold at most about half of it and waiting queries get the rest.
    bool keep_when_idle(size_t) noexcept override {
        if (detached_.load()) return false;
        uint64 limit = limit_.load(std::memory_order_relaxed);
        return limit == 0 || pg_atomic_read_u64(&shared->in_use) <= limit / 2;
    }
    void configure(uint64 limit, double patience_ms) {
        limit_.store(limit);
        patience_ms_.store(patience_ms);
    }
    // Backend exit: what is still held goes back; later calls do nothing.
    void detach() {
        if (detached_.exchange(true)) return;
        subtract(mine_.exchange(0));
    }

private:
    // in_use less `bytes`, never below 0 (a race with the exit must not wrap it around).
    static void subtract(uint64 bytes) {
        uint64 used = pg_atomic_read_u64(&shared->in_use);
        while (!pg_atomic_compare_exchange_u64(&shared->in_use, &used, used > bytes ? used - bytes : 0)) {
        }
    }

    std::atomic<uint64> limit_{0};
    std::atomic<double> patience_ms_{0};
    std::atomic<uint64> mine_{0};  // what this backend holds
    std::atomic<bool> detached_{false};
};

SharedLedger ledger;
bool exit_callback_registered = false;

void request_shared_memory(void) {
    if (previous_request) previous_request();
    RequestAddinShmemSpace(MAXALIGN(sizeof(SharedBudget)));
}

void start_shared_memory(void) {
    if (previous_startup) previous_startup();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found;
    shared = (SharedBudget*)ShmemInitStruct("pg_mergepath shared GPU budget", sizeof(SharedBudget), &found);
    if (!found) {
        pg_atomic_init_u64(&shared->in_use, 0);
        pg_atomic_init_u64(&shared->device_bytes, 0);
        pg_atomic_init_u32(&shared->waiting, 0);
    }
    LWLockRelease(AddinShmemInitLock);
}

void give_back_at_exit(int, Datum) { ledger.detach(); }

// The limit in bytes: the debug CPU limit, the setting, or 90% of the GPU's memory;
// 0 = none (the setting is -1, or no backend has opened the GPU yet).
uint64 limit_bytes(void) {
    if (mp_debug_cpu_shared_budget_kb > 0) return uint64(mp_debug_cpu_shared_budget_kb) << 10;
    if (mp_gpu_shared_memory_mb > 0) return uint64(mp_gpu_shared_memory_mb) << 20;
    if (mp_gpu_shared_memory_mb < 0) return 0;
    return pg_atomic_read_u64(&shared->device_bytes) / 10 * 9;
}

}  // namespace

void mp_shared_budget_install(void) {
    if (!process_shared_preload_libraries_in_progress) return;
    previous_request = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    previous_startup = shmem_startup_hook;
    shmem_startup_hook = start_shared_memory;
}

mergepath::MemoryLedger* mp_shared_ledger(void) {
    if (!shared) return nullptr;
    if (!exit_callback_registered) {
        on_shmem_exit(give_back_at_exit, 0);
        exit_callback_registered = true;
    }
    ledger.configure(limit_bytes(), double(mp_gpu_wait_timeout_ms));
    return &ledger;
}

void mp_shared_budget_note_device(uint64_t device_bytes) {
    if (!shared || !device_bytes) return;
    uint64 unknown = 0;
    pg_atomic_compare_exchange_u64(&shared->device_bytes, &unknown, device_bytes);
}

MpSharedBudgetStatus mp_shared_budget_status(void) {
    if (!shared) return {-1, 0, 0};
    return {int64_t(limit_bytes()), int64_t(pg_atomic_read_u64(&shared->in_use)),
            int32_t(pg_atomic_read_u32(&shared->waiting))};
}
