// join_parallel.cpp — the MergePath Join as a parallel-aware node: the DSM callbacks
// PostgreSQL calls around a Gather (estimate, initialize, reinitialize for a rescan,
// attach in a worker, shutdown), and one participant's way through a parallel
// execution, following parallel_stage.h: read this process's share of both inputs
// into chunks and stored rows in the query's shared memory; the combining participant
// (the leader, which holds the GPU, when it takes part) adopts every chunk, sorts,
// searches, puts B's results and the row directory into shared memory and publishes,
// then puts A's ranges next to A's keys piece by piece; every participant expands the
// batches of A rows it claims (each waiting until its batch's ranges are in place), and the last one to finish
// emits the outer join's unmatched rows (join_emit.cpp).
#include "join.h"

Size mp_join_estimate_dsm(CustomScanState*, ParallelContext*) { return MAXALIGN(sizeof(MpJoinShared)); }

void mp_join_shared_init(MpJoinShared* sh) {
    mp_shared_init(&sh->stage);
    memset(&sh->results, 0, sizeof(sh->results));
    sh->emitters = 0;
    sh->extras_claimed = false;
    pg_atomic_init_u64(&sh->pairs, 0);
    pg_atomic_init_u64(&sh->filtered, 0);
}

void mp_join_initialize_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    MpJoinState* st = (MpJoinState*)node;
    st->shared = (MpJoinShared*)coordinate;
    mp_join_shared_init(st->shared);
}

// The leader adds what the participants of the last execution counted to its totals
// (rescans add up), and takes who took part; the shared counters start over.
static void harvest_counts(MpJoinState* st) {
    MpJoinShared* sh = st->shared;
    mp_shared_harvest(&sh->stage, &st->counts.stage, &st->report);
    st->counts.pairs += pg_atomic_exchange_u64(&sh->pairs, 0);
    st->counts.filtered += pg_atomic_exchange_u64(&sh->filtered, 0);
}

// A rescan of the Gather above: every worker of the last execution has exited.
void mp_join_reinitialize_dsm(CustomScanState* node, ParallelContext*, void*) {
    MpJoinState* st = (MpJoinState*)node;
    MpChunkSpace space = {node->ss.ps.state->es_query_dsa, NULL, NULL};
    harvest_counts(st);
    mp_shared_reset(&st->shared->stage, &space);
    mp_join_shared_init(st->shared);
}

void mp_join_initialize_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    ((MpJoinState*)node)->shared = (MpJoinShared*)coordinate;
}

// Every participant but the leader adds its own counts to the shared ones (the leader
// counts its own directly); the leader, which shuts down after every worker sent its
// last row (unless a LIMIT stopped early), takes the totals for EXPLAIN.
void mp_join_shutdown(CustomScanState* node) {
    MpJoinState* st = (MpJoinState*)node;
    MpJoinShared* sh = st->shared;
    if (!sh) return;
    mp_join_stop_emit(st);
    if (!IsParallelWorker()) return harvest_counts(st);
    pg_atomic_fetch_add_u64(&sh->stage.rows_emitted, st->counts.stage.rows_emitted);
    pg_atomic_fetch_add_u64(&sh->pairs, st->counts.pairs);
    pg_atomic_fetch_add_u64(&sh->filtered, st->counts.filtered);
    st->counts.stage.rows_emitted = st->counts.pairs = st->counts.filtered = 0;
}

static void adopt_while_waiting(void* arg) { mp_join_adopt_pending((MpJoinState*)arg); }

// The combining participant: every chunk into the stage, results into shared memory.
static void combine_for_all(MpJoinState* st) {
    MpSharedStage* s = &st->shared->stage;
    uint64 keys = pg_atomic_read_u64(&s->rows_read[0]) + pg_atomic_read_u64(&s->rows_read[1]);
    // every participant's segments, held here until the node ends (chunk_segments.h)
    mp_segments_attach_all(st->space.segments);
    mp_join_combine(st, keys);
    mp_shared_publish(s);  // A's ranges follow piece by piece; emitters wait for theirs
    mp_join_put_ranges(st);
    s->report = st->stage->report;
}

static void read_share(MpJoinState* st) {
    MpSharedStage* s = &st->shared->stage;
    MpJoinReadCounts read = mp_join_read_inputs(st);
    pg_atomic_fetch_add_u64(&s->rows_read[0], read.rows[0]);
    pg_atomic_fetch_add_u64(&s->rows_read[1], read.rows[1]);
    pg_atomic_fetch_add_u64(&s->null_rows, read.null_key_rows);
}

void mp_join_parallel_compute(MpJoinState* st) {
    MpSharedStage* s = &st->shared->stage;
    bool combines = false;
    if (mp_shared_attach(s)) {
        read_share(st);
        combines = mp_shared_done_reading(s, adopt_while_waiting, st);
    }
    if (combines) combine_for_all(st);
    else mp_shared_wait_results(s);
}
