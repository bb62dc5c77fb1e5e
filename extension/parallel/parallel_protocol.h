// parallel_protocol.h — how the participants of a parallel query (the leader and its
// workers, each running its own copy of a parallel-aware node) share one sorted-sides
// stage. The model is PostgreSQL's Parallel Hash (nodeHash.c): a small state in the
// query's dynamic shared memory, phases, and a condition variable; here:
//
//   READ     every participant that attaches while reading is open reads its share
//            of the partial inputs (Parallel Seq Scan hands out blocks) and writes
//            keys into chunks of its own in shared memory (key_chunks.h); full chunks
//            go on one shared queue. Reading is complete when the last reader is
//            done: a partial scan only ends once every block is handed out, so at
//            that moment every row has been read by someone.
//   COMBINE  one participant adopts every chunk into the stage, sorts and combines,
//            and writes the results into shared memory (into the chunks of the left
//            input, UNION: of both inputs, which nobody reads any more: no new memory,
//            no new pages to fault in, and always room since no result is larger). It
//            is the leader when the leader took part in reading: only the leader (a
//            long-lived backend) may hold a CUDA context, and it ships the chunks
//            others push while it still reads or waits. Otherwise
//            (parallel_leader_participation = off, or a leader that came late) the
//            last reader combines, on the CPU backend.
//   EMIT     every participant, late ones too, claims batches of result rows from a
//            shared cursor and emits them, so the Gather (or a Partial Aggregate under
//            it) above gets its rows from every process at once. A set operation's
//            combiner publishes as soon as it knows where the results go and copies
//            them in piece by piece; a participant waits only for the batch it claimed.
//
// No participant ever waits while holding rows for the leader to drain: rows are only
// emitted after the combine, so the tuple queues cannot deadlock the waits. Errors need
// no protocol: an ERROR in any participant ends the whole parallel query, and waits
// are interruptible (ConditionVariableSleep checks for interrupts).
#pragma once

#include "key_chunks.h"
#include "stage.h"
#include "threads.h"

#include "pg_mergepath.h"

enum MpSharedPhase { MP_PHASE_READ = 0, MP_PHASE_COMBINE = 1, MP_PHASE_EMIT = 2 };

// Combined keys of one stream in shared memory: `run_count` runs (MpSharedRun[], in the
// space), each `count` keys from `keys` on (the first keys of a chunk, or a part of an
// array of results), `count` keys in all.
struct MpSharedRun {
    MpChunkRef keys;
    uint64 count;
};
struct MpSharedResult {
    MpChunkRef runs;
    uint64 run_count;
    uint64 count;
};

struct MpParallelState {
    slock_t mutex;
    ConditionVariable cv;        // the phase moved on
    ConditionVariable chunk_cv;  // a chunk was pushed, or reading is complete (the leader waits here)
    int phase;                 // MpSharedPhase
    int readers;               // attached participants still reading
    int participants;          // attached so far
    bool leader_reads;         // the leader attached while reading was open
    int combiner;              // -1: the leader, else the combining worker's number
    MpChunkQueue queue;        // full chunks of every participant, not yet adopted
    MpSharedSegments segments;  // the participants' own chunk segments (chunk_segments.h)
    MpSharedResult results[2];  // per key stream
    pg_atomic_uint64 next_emit;  // emission cursor over results[0] ++ results[1]
    pg_atomic_uint64 results_ready;  // set ops: result keys in place, over the same order
    ConditionVariable ready_cv;      // results_ready moved on
    pg_atomic_uint64 rows_read[2];
    pg_atomic_uint64 null_rows;
    pg_atomic_uint64 outside_rows;
    pg_atomic_uint64 rows_emitted;
    pg_atomic_uint64 alloc_us;  // chunk allocation, every participant
    MpStageReport report;      // the combiner's
};

void mp_shared_init(MpParallelState* s);

// What EXPLAIN ANALYZE counts over every participant of a node and every execution
// (rescans add up).
struct MpNodeCounts {
    uint64 rows_read[2];
    uint64 null_rows;     // rows with a NULL (set ops: in their own stream; joins: in a key)
    uint64 outside_rows;  // set ops with ranged keys: rows outside the ranges (second stream)
    uint64 rows_emitted;
    uint64 alloc_us;      // allocating and faulting in key chunks, summed over participants
    int participants;
    int combiner;  // -1 the leader (or a serial node), else a worker's number
};

// The leader, after an execution: adds the participants' shared counters to `counts`
// (they start over), takes who took part and the combiner's report.
void mp_shared_harvest(MpParallelState* s, MpNodeCounts* counts, MpStageReport* report);
// Back to READ for a rescan: frees the chunks and results of the last execution.
void mp_shared_reset(MpParallelState* s, const MpChunkSpace* space);

// Attaches the calling participant; true when it should read its share.
bool mp_shared_attach(MpParallelState* s);

// The calling participant has read its share. Returns true when it is the one to
// combine, now. The leader returns only once reading is complete, calling adopt()
// whenever woken meanwhile (chunks pushed by others can be shipped early).
bool mp_shared_done_reading(MpParallelState* s, void (*adopt)(void* arg), void* arg);

// The combiner: where the results go is known (they may still be coming in).
void mp_shared_publish(MpParallelState* s);
// The combiner (set ops): the first `ready` result keys are in place.
void mp_shared_results_ready(MpParallelState* s, uint64 ready);
// Waits until the first `n` result keys are in place.
void mp_shared_wait_ready(MpParallelState* s, uint64 n);
// Everyone else: waits until the results are in place.
void mp_shared_wait_results(MpParallelState* s);

// Rows of results per piece a combiner copies in and announces: ~8 MB (enough for the
// staged copy to run at speed, few enough that the first batches are ready soon), or
// pg_mergepath.debug_piece_rows.
inline uint64 mp_piece_rows(size_t row_bytes) {
    return mp_debug_piece_rows > 0 ? uint64(mp_debug_piece_rows) : (uint64(8) << 20) / row_bytes;
}

// Result rows per claim: enough to amortise the atomic, small enough to spread the work.
constexpr uint64 kMpEmitBatch = 4096;

// Claims the next batch of result rows [*begin, *end) of `total`; false when none is left.
bool mp_shared_claim(MpParallelState* s, uint64 total, uint64* begin, uint64* end);
