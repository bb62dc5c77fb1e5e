// shared_budget.h — the GPU memory budget every backend of the cluster shares (see
// shared_budget.cpp): a mergepath::MemoryLedger kept in the extension's shared memory,
// which each backend's GPU context reserves its device memory in, waiting for room
// (pg_mergepath.gpu_wait_timeout) before its query moves to the CPU backend.
#pragma once

#include <cstdint>

#include "mergepath/context.h"

// _PG_init (under shared_preload_libraries): asks for and sets up the shared memory.
void mp_shared_budget_install(void);

// This backend's ledger, its limit and patience refreshed from the settings; nullptr
// when there is no shared memory (the module was not preloaded).
mergepath::MemoryLedger* mp_shared_ledger(void);

// The GPU's memory, learned when a backend opened it (the automatic limit is 90% of it).
void mp_shared_budget_note_device(uint64_t device_bytes);

struct MpSharedBudgetStatus {
    int64_t limit;    // bytes; 0: no limit (-1, or the GPU not opened yet); -1: no shared memory
    int64_t in_use;   // bytes reserved by all backends
    int32_t waiting;  // backends waiting for room now
};
MpSharedBudgetStatus mp_shared_budget_status(void);
