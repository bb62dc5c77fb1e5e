// rescan_bound.cpp — see rescan_bound.h: the workers of a rescanned Gather run with no
// tuple bound instead of the first execution's.
#include "rescan_bound.h"

#if PG_VERSION_NUM >= 190000
#error "check execParallel.c: PARALLEL_KEY_EXECUTOR_FIXED and FixedParallelExecutorState's first member"
#endif

namespace {

// execParallel.c keeps both of these private; they are the same in PostgreSQL 15, 17
// and 18 (the key since 11, and tuples_needed has been the struct's first member since
// the bound was added in 11).
constexpr uint64 kExecutorFixedKey = UINT64CONST(0xE000000000000001);  // PARALLEL_KEY_EXECUTOR_FIXED

struct FixedExecutorStatePrefix {  // FixedParallelExecutorState's first member
    int64 tuples_needed;           // < 0: no bound
};

}  // namespace

void mp_unbound_rescanned_workers(ParallelContext* pcxt) {
    if (!pcxt || !pcxt->toc) return;
    auto* fixed = (FixedExecutorStatePrefix*)shm_toc_lookup(pcxt->toc, kExecutorFixedKey, true);
    if (fixed) fixed->tuples_needed = -1;
}
