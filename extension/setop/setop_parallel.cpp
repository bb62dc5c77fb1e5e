// setop_parallel.cpp — the MergePath SetOp node as a parallel-aware node: the DSM
// callbacks PostgreSQL calls around a Gather (estimate, initialize, reinitialize for a
// rescan, attach in a worker, shutdown), and one participant's way through a parallel
// execution, following parallel_protocol.h: read this process's share into chunks in the
// query's shared memory; the combining participant (the leader, which holds the GPU,
// when it takes part) adopts every chunk, combines and copies the results into shared
// memory; then everyone emits the batches of result rows it claims. A node planned over
// half of pg_mergepath.memory_limit spills instead, and its participants claim key
// ranges (spill_compute).
#include "setop_node.h"
#include "rescan_bound.h"

// The node's DSM: the parallel state (MpParallelState), then (a node that spills) the spill's file set.
static MpSharedSpill* spill_after(MpParallelState* s) {
    return (MpSharedSpill*)((char*)s + MAXALIGN(sizeof(MpParallelState)));
}

Size mp_setop_estimate_dsm(CustomScanState*, ParallelContext*) {
    return MAXALIGN(sizeof(MpParallelState)) + MAXALIGN(sizeof(MpSharedSpill));
}

// A node planned in memory may switch to spilling at run time when its keys spill
// (lossless: sorted runs; image keys: hash partitions), a limit is set, and a participant
// number is left for the shared chunks' runs or partitions.
static bool switchable(const MpSetOpState* st, const ParallelContext* pcxt) {
    return !st->node.info.spill && (st->node.keys.lossless || st->node.info.keys.images) &&
           mp_memory_limit_bytes() > 0 && pcxt->seg && pcxt->nworkers + 1 < kMpSharedChunksSlot;
}

void mp_setop_initialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate) {
    MpSetOpState* st = (MpSetOpState*)node;
    st->shared = (MpParallelState*)coordinate;
    st->files = NULL;
    st->switchable = false;
    mp_shared_init(st->shared);
    MpSharedSpill* spill = spill_after(st->shared);
    spill->switchable = false;
    if (switchable(st, pcxt)) {
        mp_shared_spill_init(spill, pcxt->seg, pcxt->nworkers);
        spill->switchable = true;
        st->files = spill;
        st->switchable = true;
        return;
    }
    if (!st->node.info.spill) return;
    if (!pcxt->seg) {  // no DSM segment (none left): no workers either; the leader spills alone
        st->shared = NULL;
        return;
    }
    st->files = spill;
    mp_shared_spill_init(spill, pcxt->seg, pcxt->nworkers);
    if (st->node.info.keys.images) spill->limit_bytes = mp_image_spill_budget(st, spill->limit_bytes);
}

// The leader adds what the participants of the last execution counted to its totals
// (rescans add up), and takes who took part; the shared counters start over.
// The spill's report too: the shared memory is gone by the time EXPLAIN prints.
static void harvest_counts(MpSetOpState* st) {
    mp_shared_harvest(st->shared, &st->stats.counts, &st->stats.report);
    if (st->files) mp_spill_report_add(&st->stats.spilled, &st->files->report);
}

// A rescan of the Gather above: every worker of the last execution has exited; the new
// ones run with no tuple bound (rescan_bound.h).
void mp_setop_reinitialize_dsm(CustomScanState* node, ParallelContext* pcxt, void*) {
    mp_unbound_rescanned_workers(pcxt);  // PostgreSQL keeps the last execution's bound
    MpSetOpState* st = (MpSetOpState*)node;
    if (!st->shared) return;  // a node that spills alone (no DSM segment)
    MpChunkSpace space = {node->ss.ps.state->es_query_dsa, NULL, NULL};
    harvest_counts(st);
    mp_shared_reset(st->shared, &space);
    if (st->files) mp_shared_spill_reset(st->files);
}

void mp_setop_initialize_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    MpSetOpState* st = (MpSetOpState*)node;
    st->shared = (MpParallelState*)coordinate;
    MpSharedSpill* spill = spill_after(st->shared);
    if (!st->node.info.spill && !spill->switchable) return;
    mp_shared_spill_attach(spill);
    st->files = spill;
    st->switchable = spill->switchable;
}

// Workers add what they emitted; the leader (which shuts down after every worker sent
// its last row, unless a LIMIT stopped early) takes the totals for EXPLAIN.
void mp_setop_shutdown(CustomScanState* node) {
    MpSetOpState* st = (MpSetOpState*)node;
    MpParallelState* s = st->shared;
    if (!s) return;
    if (!IsParallelWorker()) return harvest_counts(st);
    pg_atomic_fetch_add_u64(&s->rows_emitted, st->stats.counts.rows_emitted);
    st->stats.counts.rows_emitted = 0;
}

static void adopt_while_waiting(void* arg) {
    MpSetOpState* st = (MpSetOpState*)arg;
    if (!mp_spill_switched(st)) mp_adopt_pending(st);  // switched: the chunks go to files instead
}

// The combining participant: every chunk into the stage, results into shared memory.
static void combine_for_all(MpSetOpState* st) {
    MpParallelState* s = st->shared;
    uint64 keys = pg_atomic_read_u64(&s->rows_read[0]) + pg_atomic_read_u64(&s->rows_read[1]);
    // every participant's segments, held here until the node ends (chunk_segments.h)
    mp_segments_attach_all(st->run.space.segments);
    mp_combine(st, keys);
    if (st->node.info.keys.images) {
        mp_put_image_results(st);  // all in place before the others start
        s->report = st->run.stage->report;
        return mp_shared_publish(s);
    }
    mp_lay_out_shared_results(st);
    s->report = st->run.stage->report;
    mp_shared_publish(s);  // the others claim batches and wait for their keys
    mp_put_shared_results(st);
    s->report = st->run.stage->report;
}

// Reads this participant's share and adds its counts to the shared ones.
static void read_share(MpSetOpState* st) {
    MpParallelState* s = st->shared;
    MpReadCounts read = mp_read_inputs(st);
    pg_atomic_fetch_add_u64(&s->rows_read[0], read.rows[0]);
    pg_atomic_fetch_add_u64(&s->rows_read[1], read.rows[1]);
    pg_atomic_fetch_add_u64(&s->null_rows, read.null_rows);
    pg_atomic_fetch_add_u64(&s->outside_rows, read.outside_rows);
    pg_atomic_fetch_add_u64(&s->alloc_us, read.alloc_us);
}

static void adopt_nothing(void*) {}

// A node that spills: every participant reads its share, writes it out as sorted runs
// into the query's file set and exports them; the combiner imports every participant's
// runs, plans the key ranges and publishes the plan; then every participant, late ones
// too, claims ranges, combines them and emits their results (setop_ranges.cpp).
static void spill_compute(MpSetOpState* st) {
    MpParallelState* s = st->shared;
    bool combines = false;
    if (mp_shared_attach(s)) {
        read_share(st);
        mp_ranges_export(st);
        combines = mp_shared_done_reading(s, adopt_nothing, NULL);
    }
    if (combines) {
        mp_ranges_plan_shared(st);
        return mp_shared_publish(s);
    }
    mp_shared_wait_results(s);  // its runs are exported: the plan lists them
    st->emitter.silent = st->node.info.one_emitter;
    mp_ranges_join_shared(st);
}

// A node planned in memory whose participants switched to spilling while reading (the
// chunks they pushed passed half the limit): the combiner writes out what is in
// shared memory as runs of its own, imports those and every participant's exported runs,
// plans the key ranges and publishes; the others take the plan; all claim ranges.
// The shared chunks are freed once written (the query's area; segments go once no one
// holds them: every participant lets its own go after the plan is published). From then
// on everything a participant holds is its own: the key ranges' chunks and results.
static void ranges_in_own_memory(MpSetOpState* st) {
    if (st->run.space.segments) mp_segments_detach_all(st->run.space.segments);
    st->run.space = {NULL, st->run.cxt, st->run.space.segments};
}

static void switched_combine(MpSetOpState* st) {
    mp_switch_to_spilling(st);
    mp_segments_attach_all(st->run.space.segments);
    mp_ranges_spill_shared_chunks(st);
    mp_ranges_plan_shared(st);  // closes the stage, which may have adopted shared chunks
    mp_queue_free_all(&st->shared->queue, &st->run.space);
    ranges_in_own_memory(st);
    mp_shared_publish(st->shared);
}

void mp_parallel_compute(MpSetOpState* st) {
    if (st->strategy.way == MpSetOpWay::SharedRanges) return spill_compute(st);
    MpParallelState* s = st->shared;
    bool combines = false;
    if (mp_shared_attach(s)) {
        read_share(st);
        mp_report_shared_records(st);                // its last records, for the combiner's check
        if (st->strategy.way == MpSetOpWay::SharedSwitched) mp_ranges_export(st);  // it switched while reading
        combines = mp_shared_done_reading(s, adopt_while_waiting, st);
    }
    if (combines && mp_switch_due_after_read(st)) return switched_combine(st);  // reading is over: final
    if (combines) combine_for_all(st);
    else mp_shared_wait_results(s);  // also for a silent one: the combiner holds its chunks now
    st->emitter.silent = st->node.info.one_emitter && !combines;
    if (!combines && mp_spill_switched(st)) {
        mp_switch_to_spilling(st);
        ranges_in_own_memory(st);  // its chunks in shared memory are written
        return mp_ranges_join_shared(st);
    }
    mp_take_shared_results(st);
}
