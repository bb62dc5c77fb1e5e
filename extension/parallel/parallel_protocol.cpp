// parallel_protocol.cpp — the phases of a sorted-sides stage shared by the participants
// of a parallel query (see parallel_protocol.h): attach, done reading (who combines),
// waiting, publishing the results, and claiming batches of result rows.
#include "parallel_protocol.h"

extern "C" {
#include "utils/wait_event.h"
}

namespace {

int phase_of(MpParallelState* s) {
    SpinLockAcquire(&s->mutex);
    int phase = s->phase;
    SpinLockRelease(&s->mutex);
    return phase;
}

// Sleeps until the phase is past `phase`; with adopt, also wakes for every chunk pushed
// and calls adopt then.
void wait_past(MpParallelState* s, int phase, void (*adopt)(void*), void* arg) {
    ConditionVariable* cv = adopt ? &s->chunk_cv : &s->cv;
    ConditionVariablePrepareToSleep(cv);
    for (;;) {
        if (adopt) adopt(arg);
        if (phase_of(s) > phase) break;
        ConditionVariableSleep(cv, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
}

}  // namespace

void mp_shared_init(MpParallelState* s) {
    memset(s, 0, sizeof(*s));
    SpinLockInit(&s->mutex);
    ConditionVariableInit(&s->cv);
    ConditionVariableInit(&s->chunk_cv);
    ConditionVariableInit(&s->ready_cv);
    s->phase = MP_PHASE_READ;
    s->combiner = -1;
    mp_queue_init(&s->queue);
    mp_segments_init(&s->segments);
    pg_atomic_init_u64(&s->next_emit, 0);
    pg_atomic_init_u64(&s->results_ready, 0);
    pg_atomic_init_u64(&s->rows_read[0], 0);
    pg_atomic_init_u64(&s->rows_read[1], 0);
    pg_atomic_init_u64(&s->null_rows, 0);
    pg_atomic_init_u64(&s->outside_rows, 0);
    pg_atomic_init_u64(&s->rows_emitted, 0);
    pg_atomic_init_u64(&s->alloc_us, 0);
}

void mp_shared_reset(MpParallelState* s, const MpChunkSpace* space) {
    mp_queue_free_all(&s->queue, space);
    for (const MpSharedResult& r : s->results)
        if (r.runs != kNoChunk && space->dsa) dsa_free(space->dsa, (dsa_pointer)r.runs);
    mp_shared_init(s);
}

void mp_shared_harvest(MpParallelState* s, MpNodeCounts* counts, MpStageReport* report) {
    counts->rows_read[0] += pg_atomic_exchange_u64(&s->rows_read[0], 0);
    counts->rows_read[1] += pg_atomic_exchange_u64(&s->rows_read[1], 0);
    counts->null_rows += pg_atomic_exchange_u64(&s->null_rows, 0);
    counts->outside_rows += pg_atomic_exchange_u64(&s->outside_rows, 0);
    counts->rows_emitted += pg_atomic_exchange_u64(&s->rows_emitted, 0);
    counts->alloc_us += pg_atomic_exchange_u64(&s->alloc_us, 0);
    SpinLockAcquire(&s->mutex);
    if (s->participants > 0) {
        counts->participants = s->participants;
        counts->combiner = s->combiner;
    }
    if (s->report.ran) *report = s->report;  // participants that claim key ranges add to it under the lock
    SpinLockRelease(&s->mutex);
}

bool mp_shared_attach(MpParallelState* s) {
    SpinLockAcquire(&s->mutex);
    bool reads = s->phase == MP_PHASE_READ;
    s->participants++;
    if (reads) {
        s->readers++;
        if (!IsParallelWorker()) s->leader_reads = true;
    }
    SpinLockRelease(&s->mutex);
    return reads;
}

bool mp_shared_done_reading(MpParallelState* s, void (*adopt)(void*), void* arg) {
    SpinLockAcquire(&s->mutex);
    bool last = --s->readers == 0;
    if (last) s->phase = MP_PHASE_COMBINE;
    bool leader_combines = s->leader_reads;
    bool combine = IsParallelWorker() ? last && !leader_combines : true;
    if (combine) s->combiner = IsParallelWorker() ? ParallelWorkerNumber : -1;
    SpinLockRelease(&s->mutex);
    if (last) {
        ConditionVariableBroadcast(&s->cv);
        ConditionVariableBroadcast(&s->chunk_cv);
    }
    if (combine && !last) wait_past(s, MP_PHASE_READ, adopt, arg);  // the leader, others still reading
    return combine;
}

void mp_shared_publish(MpParallelState* s) {
    SpinLockAcquire(&s->mutex);
    s->phase = MP_PHASE_EMIT;
    SpinLockRelease(&s->mutex);
    ConditionVariableBroadcast(&s->cv);
}

void mp_shared_results_ready(MpParallelState* s, uint64 ready) {
    pg_write_barrier();  // the keys, before the count that shows them
    pg_atomic_write_u64(&s->results_ready, ready);
    ConditionVariableBroadcast(&s->ready_cv);
    if (mp_debug_piece_rows > 0) pg_usleep(2000);  // testing: others claim batches not in place yet
}

void mp_shared_wait_ready(MpParallelState* s, uint64 n) {
    if (pg_atomic_read_u64(&s->results_ready) < n) {
        ConditionVariablePrepareToSleep(&s->ready_cv);
        while (pg_atomic_read_u64(&s->results_ready) < n) ConditionVariableSleep(&s->ready_cv, PG_WAIT_EXTENSION);
        ConditionVariableCancelSleep();
    }
    pg_read_barrier();  // the keys, after seeing the count
}

void mp_shared_wait_results(MpParallelState* s) { wait_past(s, MP_PHASE_COMBINE, NULL, NULL); }

bool mp_shared_claim(MpParallelState* s, uint64 total, uint64* begin, uint64* end) {
    uint64 b = pg_atomic_fetch_add_u64(&s->next_emit, kMpEmitBatch);
    if (b >= total) return false;
    *begin = b;
    *end = Min(b + kMpEmitBatch, total);
    return true;
}
