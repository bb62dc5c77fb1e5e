// join_combine.cpp — step 2 of the MergePath Join (see join_exec.cpp): the per-execution
// setup (run memory context, the stage, where chunks and stored rows live, the writers
// and arenas) and the combining step: the stage opens on a device, adopts every chunk
// of keys, sorts both sides and searches sorted A in sorted B; the results are then
// copied where every emitter reads them (the node's memory, or the parallel query's
// shared memory): B's sorted rows and match flags, and the row directory that turns a
// row number into its stored row, into arrays; A's ranges, by A row, into the room
// next to each A key in its chunk, piece by piece (a parallel node has published by
// then, and an emitter waits only for the rows it claimed).
//
// Why by A row: emitters walk A in the order its rows were stored, so A's stored rows
// are read in sequence (in key order they would be read at random: a fact table's
// gigabytes of rows against a dimension's few megabytes), and the room for the ranges
// was allocated with the row's chunk by the participant that read it (in parallel);
// the combiner only maps the rooms' pages, a batch at a time, before it downloads.
//
// Row numbers: the library numbers each side's keys in the order their chunks were
// adopted; the combiner records that order (row_directory.h). B's keys carry their
// rows' references through the sort instead where the emitters will read B's rows
// (carries_b_refs), so sorted B comes back as references.
#include "join_node.h"

#include "prefault.h"
#include "timing.h"

// Whether B's row references ride through the sort as its keys' values (its sorted rows
// are then references: no b_rows_to_refs): when B stores rows that the emitters are
// expected to read. B's exact numeric keys, on a side nothing else reads, are never
// rechecked (emitters_read_b_rows): their references are left behind, and should some
// key not be exact after all, its row numbers are turned into references afterwards.
static bool carries_b_refs(const MpJoinState* st) {
    return st->node.nstored[1] > 0 && (!st->node.exact_keys || st->node.reads_side[1]);
}

void mp_join_start_run(MpJoinState* st) {
    EState* estate = st->css.ss.ps.state;
    if (!st->run.cxt)
        st->run.cxt = AllocSetContextCreate(estate->es_query_cxt, "pg_mergepath Join", ALLOCSET_DEFAULT_SIZES);
    mp_join_probe_start(st);
    const bool shared = mp_join_runs_shared(st);
    MpJoinStageWants wants = {st->node.library_match, st->strategy.way == MpJoinWay::StreamOuter,
                              carries_b_refs(st)};
    st->run.stage = mp_stage_create_join(st->run.cxt, st->node.info.key_bits, wants);
    // a streamed outer side's partial path over a whole inner side (not parallel-aware):
    // every participant sorts all of B, a worker on one core
    if (st->node.info.own_inner && IsParallelWorker()) st->run.stage->cpu_threads = 1;
    // the partitions of a spilled parallel join: every participant joins its own at once
    if (st->strategy.way == MpJoinWay::JoinPartitions)
        st->run.stage->cpu_threads = Max(1, mp_cpu_thread_count() / Max(1, st->strategy.spill.sharing));
    st->run.space.cxt = st->run.cxt;
    st->run.space.dsa = shared ? estate->es_query_dsa : NULL;
    if (shared && !st->run.space.dsa)
        elog(ERROR, "pg_mergepath: a parallel MergePath Join runs without its dynamic shared memory area");
    MpJoinShared* sh = mp_join_shared(st);
    // keys and stored rows in segments of each participant's, while the leader reads
    st->run.space.segments =
        shared ? mp_segments_open(st->run.cxt, &sh->parallel.segments, &sh->parallel.leader_reads) : NULL;
    if (!shared) mp_join_shared_init(sh);
    ConditionVariable* wake = shared ? &sh->parallel.chunk_cv : NULL;
    MpChunkQueue* queue = &sh->parallel.queue;
    MemoryContext old = MemoryContextSwitchTo(st->run.cxt);
    for (int side = 0; side < 2; side++) {
        mp_writer_init(&st->run.writers[0][side], &st->run.space, queue, wake, 0, side, st->node.info.key_bits / 8,
                       st->node.nstored[side] > 0, /*with_ranges=*/side == 0);
        mp_writer_init(&st->run.writers[1][side], &st->run.space, queue, wake, 1, side, sizeof(uint64));
        mp_arena_init(&st->run.arena[side], &st->run.space, queue, st->node.stored_desc[side],
                      st->node.stored_columns[side], side);
    }
    MemoryContextSwitchTo(old);
}

void mp_join_free_run(MpJoinState* st) {
    if (st->run.space.segments) mp_segments_detach_all(st->run.space.segments);
    st->run.space.segments = NULL;
    if (st->run.cxt) MemoryContextReset(st->run.cxt);
    st->run.stage = NULL;
    memset(st->run.writers, 0, sizeof(st->run.writers));
    memset(st->run.arena, 0, sizeof(st->run.arena));
    memset(st->run.adopted, 0, sizeof(st->run.adopted));
    memset(&st->emitter.a_dir, 0, sizeof(st->emitter.a_dir));
    st->emitter.a_dir_near = 0;
    memset(&st->emitter.a_window, 0, sizeof(st->emitter.a_window));
    memset(&st->emitter.b_window, 0, sizeof(st->emitter.b_window));
    memset(&st->emitter.b_walk, 0, sizeof(st->emitter.b_walk));
    st->emitter.b_active = &st->emitter.b_window;
    memset(&st->emitter.proof, 0, sizeof(st->emitter.proof));
    st->emitter.b_refs = NULL;
    st->emitter.b_matched = NULL;
}

// An empty window over kMpEmitBatch B positions (join_emit.cpp).
static void alloc_pair_window(MemoryContext cxt, MpPairWindow* w) {
    w->pos = (uint64*)MemoryContextAlloc(cxt, sizeof(uint64) * kMpEmitBatch);
    w->block_end = (uint32*)MemoryContextAlloc(cxt, sizeof(uint32) * kMpEmitBatch);
    w->tuples = (MinimalTuple*)MemoryContextAlloc(cxt, sizeof(MinimalTuple) * kMpEmitBatch);
    w->count = w->next = 0;
}

static void* grow(MemoryContext cxt, void* array, size_t bytes) {
    return array ? repalloc(array, bytes) : MemoryContextAlloc(cxt, bytes);
}

static void adopt(MpJoinState* st, MpChunkRef first) {
    mp_adopted_record(st->run.adopted, &st->run.space, st->run.cxt, first);
    mp_stage_adopt(st->run.stage, &st->run.space, first);
}

void mp_join_adopt_pending(MpJoinState* st) {
    if (IsParallelWorker() || mp_join_way_sorts_input(st->strategy.way) || !mp_stage_open_early(st->run.stage)) return;
    if (st->dsm && (pg_atomic_read_u32(&st->dsm->spill.switched) || mp_join_spill_partitioned(st)))
        return;  // the rows go to partitions instead (someone switched)
    adopt(st, mp_queue_take(&mp_join_shared(st)->parallel.queue, &st->run.space));
}

// A result array of n elements of `side`'s in the space, freed with the chunks.
static MpChunkRef result_array(MpJoinState* st, int side, uint64 n, size_t element, void** address) {
    return mp_space_alloc_kept(&st->run.space, &mp_join_shared(st)->parallel.queue, n * element, address, side);
}

// A's directory into the space.
static void put_a_directory(MpJoinState* st, MpJoinResults* r) {
    const MpAdoptedChunks* a = &st->run.adopted[0];
    void *first, *chunk;
    r->a_dir_count = a->count;
    r->a_dir_first = result_array(st, 0, a->count, sizeof(uint64), &first);
    r->a_dir_chunk = result_array(st, 0, a->count, sizeof(MpChunkRef), &chunk);
    if (a->count == 0) return;
    memcpy(first, a->first, sizeof(uint64) * a->count);
    memcpy(chunk, a->chunk, sizeof(MpChunkRef) * a->count);
}

// Sorted B's row numbers turned, in place, into the references of their stored rows, on
// the combiner's threads: once per B row here rather than once per pair by an emitter
// (a dimension's row is in millions of pairs). Only where the references did not ride
// through the sort (carries_b_refs). The directory's chunks are mapped first,
// in this thread; the threads only read memory.
static void b_rows_to_refs(MpJoinState* st, uint64* rows, uint64 n) {
    const MpAdoptedChunks* a = &st->run.adopted[1];
    MpRowDirectory dir;
    mp_directory_fill(st->run.cxt, &st->run.space, &dir, a->first, a->chunk, a->count, false);
    mp_rows_to_refs(&dir, rows, rows, n);
}

// B's arrays of one kind, or none (kNoChunk and a null address) when not wanted.
static MpChunkRef wanted_array(MpJoinState* st, bool wanted, uint64 n, size_t element, void** address,
                               MpMemoryRange* fresh, int* nfresh) {
    *address = NULL;
    if (!wanted) return kNoChunk;
    MpChunkRef ref = result_array(st, 1, n, element, address);
    fresh[(*nfresh)++] = {*address, n * element};
    return ref;
}

// Whether an emitter may read a B row's stored columns (through its reference): B stores
// some, and something besides the key recheck reads them, or some pair may be rechecked.
// Exact numeric keys (join_node.h: exact_keys) are never rechecked, and a key that is not
// exact equals no exact one: when every key of B is exact, no pair is rechecked.
static bool emitters_read_b_rows(MpJoinState* st) {
    if (carries_b_refs(st)) return true;  // (read whatever the keys)
    if (st->node.nstored[1] == 0) return false;
    return !mp_adopted_keys_all_have(&st->run.adopted[1], &st->run.space, kMpNumericExactBit);
}

// B's results from the stage into the space: only what the emitters read. B's rows need
// no row numbers when no emitter reads their stored columns; its match flags matter only
// for right and full joins.
static void put_b_results(MpJoinState* st) {
    MpJoinResults* r = &mp_join_shared(st)->results;
    for (int side = 0; side < 2; side++) r->rows[side] = mp_stage_side_rows(st->run.stage, side);
    const uint64 nb = r->rows[1];
    mergepath::JoinRangesOut out = {};
    void* b_matched;
    MpMemoryRange fresh[2];
    int nfresh = 0;
    const bool b_rows_read = emitters_read_b_rows(st);
    if (!b_rows_read && st->node.nstored[1] > 0) st->stats.b_rows_unread = true;
    r->b_refs = wanted_array(st, b_rows_read, nb, sizeof(uint64), (void**)&out.b_rows, fresh, &nfresh);
    r->b_matched = wanted_array(st, st->node.outer_side[1], nb, 1, &b_matched, fresh, &nfresh);
    out.b_match = st->node.library_match ? (uint8_t*)b_matched : nullptr;
    mp_prefault(fresh, nfresh);
    mp_stage_download_ranges(st->run.stage, out);
    if (b_matched && !st->node.library_match) memset(b_matched, 0, nb);  // the emitters set them
    if (out.b_rows && !st->run.stage->join.b_refs) b_rows_to_refs(st, out.b_rows, nb);
    if (st->strategy.way == MpJoinWay::StreamOuter) mp_join_probe_put_b(st);
    put_a_directory(st, r);
}

void mp_join_combine(MpJoinState* st, uint64 keys) {
    MpStopwatch clock;
    mp_stage_open(st->run.stage, mp_choose_device(keys), keys);
    adopt(st, mp_queue_take(&mp_join_shared(st)->parallel.queue, &st->run.space));
    mp_stage_finish(st->run.stage);
    put_b_results(st);
    st->run.stage->report.combine_ms = clock.lap_ms();
}

static_assert(sizeof(mergepath::JoinRange) == kMpRangeSize, "a chunk's room holds the library's ranges");
static_assert(sizeof(mergepath::HostSpan) == sizeof(MpMemoryRange), "a span is a range");

// The room next to each of A's chunks, in adoption order (consecutive A rows), where its
// ranges go.
static mergepath::HostSpan* range_rooms(MpJoinState* st) {
    const MpAdoptedChunks* a = &st->run.adopted[0];
    mergepath::HostSpan* rooms = (mergepath::HostSpan*)palloc(sizeof(mergepath::HostSpan) * Max(1, a->count));
    for (uint64 i = 0; i < a->count; i++) {
        MpChunk* c = mp_chunk_at(&st->run.space, a->chunk[i]);
        rooms[i] = {mp_chunk_ranges(c), c->count * sizeof(mergepath::JoinRange)};
    }
    return rooms;
}

// Pieces' worth of rooms mapped at a time (see mp_join_put_ranges): 256 MB, a query's
// interrupts checked between batches.
constexpr uint64 kMpRoomBatchPieces = 32;

// A's ranges, piece by piece, into the rooms. In a parallel node the rooms' pages
// (other participants allocated them; nothing is in them yet) are mapped for writing in
// this process first, a batch of many pieces at a time on threads: a download into
// pages this process never touched would take a fault per page on the one thread that
// copies, and mapping them per piece started threads twenty times per query (and,
// mapped for reading, left each page to fault again when written). A serial node's
// rooms were mapped when it allocated them (mp_prefault_block).
void mp_join_put_ranges(MpJoinState* st) {
    MpStopwatch clock;
    const MpAdoptedChunks* a = &st->run.adopted[0];
    MpParallelState* s = &mp_join_shared(st)->parallel;
    mergepath::HostSpan* rooms = range_rooms(st);
    uint64 mapped = mp_join_runs_shared(st) ? 0 : a->count;  // rooms [0, mapped) are mapped here
    const uint64 piece_rows = mp_piece_rows(sizeof(mergepath::JoinRange));
    const uint64 batch_bytes = kMpRoomBatchPieces * piece_rows * sizeof(mergepath::JoinRange);
    for (uint64 i = 0; i < a->count;) {
        uint64 first = i, rows = 0;
        while (i < a->count && (i == first || rows < piece_rows))
            rows += mp_chunk_at(&st->run.space, a->chunk[i++])->count;
        CHECK_FOR_INTERRUPTS();
        if (mapped < i) {  // the next batch of rooms, this piece's and those after it
            uint64 from = mapped, bytes = 0;
            while (mapped < a->count && (mapped < i || bytes < batch_bytes)) bytes += rooms[mapped++].bytes;
            mp_prefault(reinterpret_cast<const MpMemoryRange*>(rooms + from), int(mapped - from));
        }
        mp_stage_download_ranges_by_a_row(st->run.stage, a->first[first], rooms + first, int(i - first));
        if (mp_join_runs_shared(st)) mp_shared_results_ready(s, a->first[first] + rows);
    }
    if (mp_join_runs_shared(st)) mp_shared_results_ready(s, a->rows);
    pfree(rooms);
    mp_stage_release(st->run.stage);  // everything the emitters need is in the space now
    double ms = clock.lap_ms();
    st->run.stage->report.combine_ms += ms;
    st->run.stage->report.ranges_ms = ms;
}

// Before pairs are expanded: the pages every emitter reads at random, mapped here in one
// pass rather than by a minor fault each on first touch: B's blocks of stored rows and
// B's result arrays (its rows' references and match flags, a streamed join's keys and
// their directory), written by other participants. A's rows, chunks and ranges are read
// only in the batches this emitter claims, in order: those fault in as they are reached.
// (Mapping them too, in every participant, mapped the whole of A once per participant,
// and unmapped it at the end: a fifth of a 16-participant text join's CPU time, in the
// kernel.) Nor B's rows when A's keys are exact numerics (join_node.h: exact_keys) and
// nothing but the recheck reads B's columns: only the pairs of a key that is not exact
// (NaN, the infinities, more decimals, larger) read one then.
static void premap_stored_rows(MpJoinState* st) {
    if (st->node.exact_keys && !st->node.reads_side[1]) return;
    MpMemoryRange* ranges = NULL;
    int count = 0, capacity = 0;
    for (MpChunkRef ref = mp_join_shared(st)->parallel.queue.all; ref != kNoChunk;) {
        MpChunk* c = mp_chunk_at(&st->run.space, ref);
        if (c->stream == kRowBlockStream && c->side == 1) {
            if (count == capacity) {
                capacity = Max(64, capacity * 2);
                ranges = (MpMemoryRange*)grow(st->run.cxt, ranges, sizeof(MpMemoryRange) * capacity);
            }
            ranges[count++] = {c, sizeof(MpChunk) + c->capacity};
        }
        ref = c->next_all;
    }
    mp_premap(ranges, count, mp_join_runs_shared(st) ? 2 : 8);
}

void mp_join_take_results(MpJoinState* st) {
    const MpJoinResults* r = &mp_join_shared(st)->results;
    st->emitter.b_refs = (const uint64*)mp_space_at(&st->run.space, r->b_refs);
    st->emitter.b_matched = (uint8*)mp_space_at(&st->run.space, r->b_matched);
    premap_stored_rows(st);
    mp_join_probe_take(st);
    st->emitter.a_dir_near = 0;
    mp_directory_fill(st->run.cxt, &st->run.space, &st->emitter.a_dir,
                      (const uint64*)mp_space_at(&st->run.space, r->a_dir_first),
                      (const MpChunkRef*)mp_space_at(&st->run.space, r->a_dir_chunk), r->a_dir_count, true);
    if (st->node.nstored[0] > 0) {
        st->emitter.a_window.refs = (uint64*)MemoryContextAlloc(st->run.cxt, sizeof(uint64) * kMpEmitBatch);
        st->emitter.a_window.lo = st->emitter.a_window.hi = 0;
    }
    if (st->node.nstored[1] > 0) {
        alloc_pair_window(st->run.cxt, &st->emitter.b_window);
        alloc_pair_window(st->run.cxt, &st->emitter.b_walk);
        st->emitter.b_active = &st->emitter.b_window;
    }
    mp_join_proof_alloc(st);
}
