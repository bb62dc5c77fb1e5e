// join_parallel.cpp — the MergePath Join as a parallel-aware node: the DSM callbacks
// PostgreSQL calls around a Gather (estimate, initialize, reinitialize for a rescan,
// attach in a worker, shutdown), and one participant's way through a parallel
// execution, following parallel_protocol.h: read this process's share of both inputs
// into chunks and stored rows in the query's shared memory; the combining participant
// (the leader, which holds the GPU, when it takes part) adopts every chunk, sorts,
// searches, puts B's results and the row directory into shared memory and publishes,
// then puts A's ranges next to A's keys piece by piece; every participant expands the
// batches of A rows it claims (each waiting until its batch's ranges are in place), and the last one to finish
// emits the outer join's unmatched rows (join_emit.cpp). A join over the memory limit
// writes hash partitions instead, and each participant joins the partitions it claims
// (join_spill_parallel.cpp).
#include "join_node.h"
#include "rescan_bound.h"

Size mp_join_estimate_dsm(CustomScanState*, ParallelContext*) { return MAXALIGN(sizeof(MpJoinShared)); }

void mp_join_shared_init(MpJoinShared* sh) {
    mp_shared_init(&sh->parallel);
    MpJoinSharedSpill* ss = &sh->spill;  // its file set and sizes stay (join_spill_parallel.cpp)
    pg_atomic_init_u32(&ss->switched, 0);
    pg_atomic_init_u32(&ss->partitioners, 0);
    pg_atomic_init_u64(&ss->exported, 0);
    pg_atomic_init_u32(&ss->next_partition, 0);
    pg_atomic_init_u64(&ss->held_bytes, 0);
    pg_atomic_init_u64(&ss->disk_kb, 0);
    pg_atomic_init_u64(&ss->ranges, 0);
    pg_atomic_init_u64(&ss->keys_split, 0);
    pg_atomic_init_u64(&ss->keys_looped, 0);
    memset(&sh->results, 0, sizeof(sh->results));
    sh->emitters = 0;
    sh->extras_claimed = false;
    pg_atomic_init_u64(&sh->pairs, 0);
    pg_atomic_init_u64(&sh->filtered, 0);
    pg_atomic_init_u64(&sh->proven, 0);
}

// What this process keeps of the last execution and what its shared state must not see:
// PostgreSQL may call ReInitializeDSM before the node's own rescan (a Gather with a rescan
// parameter), and InitializeDSM again on a new parallel context (a Gather shut down early,
// then rescanned). The emitter leaves the old execution's count (else the new one's
// would lose it); the spill's sorts and files close before their file set goes.
static void end_last_execution(MpJoinState* st) {
    mp_join_stop_emit(st);
    mp_join_end_way(st);
}

void mp_join_initialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate) {
    MpJoinState* st = (MpJoinState*)node;
    end_last_execution(st);
    if (!pcxt->seg) {  // no DSM segment (none left): no workers either; the leader joins alone
        st->dsm = NULL;
        return;
    }
    st->dsm = (MpJoinShared*)coordinate;
    mp_join_shared_init(st->dsm);
    mp_join_spill_share_init(st->dsm, pcxt);
}

// The leader adds what the participants of the last execution counted to its totals
// (rescans add up), and takes who took part; the shared counters start over.
static void harvest_counts(MpJoinState* st) {
    MpJoinShared* sh = st->dsm;
    mp_join_spill_share_counts(st);
    mp_join_spill_harvest(st);
    mp_shared_harvest(&sh->parallel, &st->stats.counts.node, &st->stats.report);
    st->stats.counts.pairs += pg_atomic_exchange_u64(&sh->pairs, 0);
    st->stats.counts.filtered += pg_atomic_exchange_u64(&sh->filtered, 0);
    st->stats.counts.proven += pg_atomic_exchange_u64(&sh->proven, 0);
}

// A rescan of the Gather above: every worker of the last execution has exited; the new
// ones run with no tuple bound (rescan_bound.h).
void mp_join_reinitialize_dsm(CustomScanState* node, ParallelContext* pcxt, void*) {
    mp_unbound_rescanned_workers(pcxt);  // PostgreSQL keeps the last execution's bound
    MpJoinState* st = (MpJoinState*)node;
    if (!st->dsm) return;  // a leader that joins alone (no DSM segment)
    MpChunkSpace space = {node->ss.ps.state->es_query_dsa, NULL, NULL};
    harvest_counts(st);
    end_last_execution(st);
    mp_shared_reset(&st->dsm->parallel, &space);
    mp_join_shared_init(st->dsm);
    mp_join_spill_share_reset(st->dsm);
}

void mp_join_initialize_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    MpJoinState* st = (MpJoinState*)node;
    st->dsm = (MpJoinShared*)coordinate;
    mp_join_spill_share_attach(st->dsm);
}

// Every participant but the leader adds its own counts to the shared ones (the leader
// counts its own directly); the leader, which shuts down after every worker sent its
// last row (unless a LIMIT stopped early), takes the totals for EXPLAIN.
void mp_join_shutdown(CustomScanState* node) {
    MpJoinState* st = (MpJoinState*)node;
    MpJoinShared* sh = st->dsm;
    if (!sh) return;
    mp_join_stop_emit(st);
    if (!IsParallelWorker()) return harvest_counts(st);
    mp_join_spill_share_counts(st);
    pg_atomic_fetch_add_u64(&sh->parallel.rows_emitted, st->stats.counts.node.rows_emitted);
    pg_atomic_fetch_add_u64(&sh->pairs, st->stats.counts.pairs);
    pg_atomic_fetch_add_u64(&sh->filtered, st->stats.counts.filtered);
    pg_atomic_fetch_add_u64(&sh->proven, st->stats.counts.proven);
    st->stats.counts.node.rows_emitted = st->stats.counts.pairs = st->stats.counts.filtered = 0;
    st->stats.counts.proven = 0;
}

static void adopt_while_waiting(void* arg) { mp_join_adopt_pending((MpJoinState*)arg); }

// The combining participant: every chunk into the stage, results into shared memory.
static void combine_for_all(MpJoinState* st) {
    MpParallelState* s = &st->dsm->parallel;
    uint64 keys = pg_atomic_read_u64(&s->rows_read[0]) + pg_atomic_read_u64(&s->rows_read[1]);
    // every participant's segments, held here until the node ends (chunk_segments.h)
    mp_segments_attach_all(st->run.space.segments);
    mp_join_combine(st, keys);
    mp_shared_publish(s);  // A's ranges follow piece by piece; emitters wait for theirs
    mp_join_put_ranges(st);
    s->report = st->run.stage->report;
}

static void read_share(MpJoinState* st) {
    MpParallelState* s = &st->dsm->parallel;
    MpJoinReadCounts read = mp_join_read_inputs(st);
    pg_atomic_fetch_add_u64(&s->rows_read[0], read.rows[0]);
    pg_atomic_fetch_add_u64(&s->rows_read[1], read.rows[1]);
    pg_atomic_fetch_add_u64(&s->null_rows, read.null_key_rows);
}

// A join whose participants partitioned their shares: the combiner first writes the rows
// still in shared memory into partitions (every participant's segments attached, so
// they outlive their writers), then publishes; from here on every participant joins the
// partitions it claims in its own memory (way JoinPartitions, then Finished).
static void join_partitions(MpJoinState* st, bool combines) {
    if (combines) {
        mp_segments_attach_all(st->run.space.segments);
        mp_join_spill_move_shared(st);
        mp_queue_free_all(&st->dsm->parallel.queue, &st->run.space);  // the chunks in the query's area: read
        mp_shared_publish(&st->dsm->parallel);
    }
    mp_join_free_run(st);
    st->strategy.way = MpJoinWay::JoinPartitions;
    mp_join_spill_next_partition(st);  // first: the run then knows its way
    mp_join_start_run(st);
}

void mp_join_parallel_compute(MpJoinState* st) {
    MpParallelState* s = &st->dsm->parallel;
    bool combines = false;
    if (mp_shared_attach(s)) {
        read_share(st);
        combines = mp_shared_done_reading(s, adopt_while_waiting, st);
    }
    // reading is over for everyone once the combiner is chosen or the results published
    if (!combines) mp_shared_wait_results(s);
    if (mp_join_spill_partitioned(st)) return join_partitions(st, combines);
    if (combines) combine_for_all(st);
}
