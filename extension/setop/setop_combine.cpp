// setop_combine.cpp — step 2 of the MergePath SetOp node (see setop_exec.cpp): the
// per-execution setup (run memory context, the stage, where chunks live, the writers)
// and the combining step: the stage opens on a device, adopts every chunk, sorts and
// runs the set operation; the results are then read in place from the library's
// memory (a serial node) or copied into shared memory for every participant to emit
// from (a parallel node).
#include "setop_node.h"

#include "prefault.h"
#include "timing.h"

// Writers of both streams and sides into the node's queue, in this process's chunk
// space; a parallel node's wake the leader, which ships chunks while it reads or waits.
static void init_writers(MpSetOpState* st) {
    ConditionVariable* wake = st->strategy.way == MpSetOpWay::SharedInMemory ? &st->shared->chunk_cv : NULL;
    bool with_refs = st->node.info.keys.images;  // the main keys' records (nothing goes to stream 1)
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++)
            mp_writer_init(&st->run.writers[stream][side], mp_setop_chunk_space(st), mp_setop_queue(st), wake, stream,
                           side, int(mp_stream_key_bytes(st, stream)), with_refs && stream == int(MpKeyStream::Main));
}

// (the way is SharedSwitched by now: mp_setop_queue and mp_setop_chunk_space are its own)
void mp_writers_to_own_memory(MpSetOpState* st) {
    for (int stream = 0; stream < 2; stream++)  // the chunks being filled join the shared queue
        for (int side = 0; side < 2; side++) mp_writer_flush(&st->run.writers[stream][side]);
    st->run.own_space = {NULL, st->run.cxt, NULL};
    mp_queue_init(&st->run.local_queue);
    uint64 spent_us[2][2];  // counted once the side is read
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) spent_us[stream][side] = st->run.writers[stream][side].alloc_us;
    init_writers(st);
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) st->run.writers[stream][side].alloc_us = spent_us[stream][side];
    // image keys: records from now on in its own blocks (those it wrote before stay listed
    // on the shared queue, with the chunks that reference them)
    if (st->node.info.keys.images) mp_arena_init_blocks(&st->run.image_arena, &st->run.own_space, mp_setop_queue(st));
}

void mp_start_run(MpSetOpState* st) {
    if (!st->run.cxt)
        st->run.cxt =
            AllocSetContextCreate(st->css.ss.ps.state->es_query_cxt, "pg_mergepath SetOp", ALLOCSET_DEFAULT_SIZES);
    // image keys are grouped here (image_groups.h): the stage only sorts them
    mergepath::SetOpShape shape = st->node.keys.lossless      ? mergepath::SetOpShape::Keys
                                  : st->node.info.keys.images ? mergepath::SetOpShape::SortedSides
                                                              : mergepath::SetOpShape::Rows;
    st->run.stage = mp_stage_create(st->run.cxt, st->node.keys.key_bits, st->node.op, st->node.all, shape);
    // a node that spills keeps its chunks to itself: only its runs are shared (files)
    bool shared_chunks = st->strategy.way == MpSetOpWay::SharedInMemory;
    st->run.space.cxt = st->run.cxt;
    st->run.space.dsa = shared_chunks ? st->css.ss.ps.state->es_query_dsa : NULL;
    st->run.space.segments =
        shared_chunks ? mp_segments_open(st->run.cxt, &st->shared->segments, &st->shared->leader_reads) : NULL;
    st->run.records_reported = 0;
    if (shared_chunks && !st->run.space.dsa)
        elog(ERROR, "pg_mergepath: a parallel MergePath SetOp runs without its dynamic shared memory area");
    mp_queue_init(&st->run.local_queue);
    init_writers(st);
    if (st->node.info.keys.images) {
        MemoryContext old = MemoryContextSwitchTo(st->run.cxt);
        mp_image_scratch_init(&st->run.image_scratch, &st->node.images);
        MemoryContextSwitchTo(old);
        mp_arena_init_blocks(&st->run.image_arena, &st->run.space, mp_setop_queue(st));
    } else if (!st->node.keys.lossless) {
        mp_row_store_init(&st->run.store[0], st->run.cxt, "pg_mergepath left rows");
        mp_row_store_init(&st->run.store[1], st->run.cxt, "pg_mergepath right rows");
    }
}

// Hands chunks to the stage; image keys record the order (their row numbers follow it).
static void adopt(MpSetOpState* st, MpChunkRef first) {
    if (st->node.info.keys.images) mp_adopted_record(st->run.adopted, &st->run.space, st->run.cxt, first);
    mp_stage_adopt(st->run.stage, &st->run.space, first);
}

// While reading: when the GPU has started, the chunks pushed so far (by every
// participant) go to the stage, whose runs ship and sort on the device meanwhile. Only
// the process that will combine does this: a serial node, or a parallel node's leader.
void mp_adopt_pending(MpSetOpState* st) {
    if (IsParallelWorker() || !mp_stage_open_early(st->run.stage)) return;
    adopt(st, mp_queue_take(mp_setop_queue(st), &st->run.space));
}

// The chunks from `first` on, mapped here in one pass on threads (see mp_premap).
static void premap_chunks(MpSetOpState* st, MpChunkRef first) {
    if (!st->shared) return;
    int count = 0;
    for (MpChunkRef ref = first; ref != kNoChunk; ref = mp_chunk_at(&st->run.space, ref)->next) count++;
    MpMemoryRange* ranges = (MpMemoryRange*)palloc(sizeof(MpMemoryRange) * Max(count, 1));
    count = 0;
    for (MpChunkRef ref = first; ref != kNoChunk; ref = mp_chunk_at(&st->run.space, ref)->next) {
        MpChunk* c = mp_chunk_at(&st->run.space, ref);
        ranges[count++] = {c, sizeof(MpChunk) + c->count * c->key_size};
    }
    mp_premap(ranges, count, kMpCombinerThreads);
    pfree(ranges);
}

void mp_combine(MpSetOpState* st, uint64 keys) {
    MpStopwatch clock;
    mp_stage_open(st->run.stage, mp_choose_device(keys), keys);
    MpChunkRef rest = mp_queue_take(mp_setop_queue(st), &st->run.space);
    premap_chunks(st, rest);  // what is left to ship after reading: everyone waits for it
    adopt(st, rest);
    mp_stage_finish(st->run.stage);
    st->run.stage->report.combine_ms = clock.lap_ms();
}

void mp_keep_local_results(MpSetOpState* st) {
    for (int s = 0; s < 2; s++) {
        MpKeyStream stream = MpKeyStream(s);
        st->emitter.result_count[s] = mp_stage_result_count(st->run.stage, stream);
        st->emitter.run_count[s] = st->emitter.result_count[s] > 0 ? 1 : 0;
        if (!st->emitter.run_count[s]) continue;
        st->emitter.runs[s] =
            (MpResultRun*)MemoryContextAlloc(GetMemoryChunkContext(st->run.stage), sizeof(MpResultRun));
        st->emitter.runs[s][0] = {(const char*)mp_stage_host_results(st->run.stage, stream),
                                  st->emitter.result_count[s]};
    }
}

// Where one stream's results go: the chunks of the left input's keys of that stream
// (UNION, whose results may outnumber them: of both inputs' keys), which the stage no
// longer reads (see parallel_protocol.h), listed as runs in shared memory; their spans
// are kept for mp_put_shared_results.
static void lay_out_stream(MpSetOpState* st, MpKeyStream stream) {
    const int s = int(stream);
    MpSharedResult* out = &st->shared->results[s];
    const size_t key_bytes = mp_stream_key_bytes(st, int(stream));
    uint64 n = mp_stage_result_count(st->run.stage, stream), placed = 0;
    const uint32 last_side = mp_setop_results_from_b(st) ? 1 : 0;
    int chunks = 0;
    for (MpChunk* c = mp_chunk_at(&st->run.space, mp_setop_queue(st)->all); c;
         c = mp_chunk_at(&st->run.space, c->next_all))
        chunks += c->side <= last_side && c->stream == uint32(stream);
    out->runs = kNoChunk;
    out->run_count = out->count = 0;
    st->emitter.result_span_count[s] = 0;
    if (n == 0) return;
    void* address = NULL;
    out->runs = mp_space_alloc(&st->run.space, sizeof(MpSharedRun) * chunks, &address);
    MpSharedRun* runs = (MpSharedRun*)address;
    mergepath::HostSpan* spans =
        (mergepath::HostSpan*)MemoryContextAlloc(st->run.cxt, sizeof(mergepath::HostSpan) * chunks);
    for (MpChunkRef ref = mp_setop_queue(st)->all; placed < n && ref != kNoChunk;) {
        MpChunk* c = mp_chunk_at(&st->run.space, ref);
        if (c->side <= last_side && c->stream == uint32(stream)) {
            uint64 take = Min(c->capacity, n - placed);
            spans[out->run_count] = {mp_chunk_keys(c), take * key_bytes};
            runs[out->run_count++] = {ref + sizeof(MpChunk), take};  // the chunk's keys
            placed += take;
        }
        ref = c->next_all;
    }
    if (placed < n) elog(ERROR, "pg_mergepath: %llu result keys and room for %llu", (unsigned long long)n,
                         (unsigned long long)placed);
    out->count = n;
    st->emitter.result_spans[s] = spans;
    st->emitter.result_span_count[s] = int(out->run_count);
}

void mp_lay_out_shared_results(MpSetOpState* st) {
    lay_out_stream(st, MpKeyStream::Main);
    lay_out_stream(st, MpKeyStream::Nulls);
}

// One stream's results copied in piece by piece, each announced once in place;
// `before` keys of the other stream come first in the emission order.
static void download_stream(MpSetOpState* st, MpKeyStream stream, uint64 before) {
    const int s = int(stream);
    const mergepath::HostSpan* spans = st->emitter.result_spans[s];
    uint64 placed = 0;
    const size_t key_bytes = mp_stream_key_bytes(st, int(stream));
    const size_t piece_bytes = mp_piece_rows(key_bytes) * key_bytes;
    for (int i = 0; i < st->emitter.result_span_count[s];) {
        int first = i;
        size_t bytes = 0;
        while (i < st->emitter.result_span_count[s] && (i == first || bytes < piece_bytes)) bytes += spans[i++].bytes;
        CHECK_FOR_INTERRUPTS();
        mp_stage_download_results(st->run.stage, stream, placed, spans + first, i - first);
        placed += bytes / key_bytes;
        mp_shared_results_ready(st->shared, before + placed);
    }
}

void mp_put_shared_results(MpSetOpState* st) {
    MpStopwatch clock;
    // other participants wrote most of these chunks: their pages are mapped here for
    // writing, on threads, rather than by a minor fault every 4 kB inside the downloads
    // (the keys there are read no more: the results overwrite them)
    static_assert(sizeof(mergepath::HostSpan) == sizeof(MpMemoryRange), "a span is a range");
    for (int s = 0; s < 2; s++)
        mp_prefault(reinterpret_cast<const MpMemoryRange*>(st->emitter.result_spans[s]), st->emitter.result_span_count[s]);
    download_stream(st, MpKeyStream::Main, 0);
    download_stream(st, MpKeyStream::Nulls, st->shared->results[0].count);
    mp_stage_release(st->run.stage);  // the keys are all in shared memory now
    st->run.stage->report.combine_ms += clock.lap_ms();
}

void mp_take_shared_results(MpSetOpState* st) {
    for (int s = 0; s < 2; s++) {
        const MpSharedResult* in = &st->shared->results[s];
        const MpSharedRun* shared_runs = (const MpSharedRun*)mp_space_at(&st->run.space, in->runs);
        st->emitter.result_count[s] = in->count;
        st->emitter.run_count[s] = int(in->run_count);
        if (!in->run_count) continue;
        st->emitter.runs[s] = (MpResultRun*)MemoryContextAlloc(st->run.cxt, sizeof(MpResultRun) * in->run_count);
        for (uint64 r = 0; r < in->run_count; r++)
            st->emitter.runs[s][r] = {(const char*)mp_space_at(&st->run.space, shared_runs[r].keys),
                                      shared_runs[r].count};
    }
}
