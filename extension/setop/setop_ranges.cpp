// setop_ranges.cpp — a serial MergePath SetOp node whose keys outgrow
// pg_mergepath.memory_limit: bounded memory by sorted runs in temporary files and key
// ranges (spill/spill_runs.h; the ranges come from mergepath/key_ranges.h).
//  - While reading: once the key chunks held reach a third of the limit, the stage
//    (which may have shipped runs to the GPU) is dropped and every chunk is written out
//    as sorted runs; from then on, chunks are spilled each time they reach that size.
//  - After reading: the rest is spilled and each stream's key ranges are planned, about
//    a twelfth of the limit each. Then one range at a time, in key order: the range's
//    keys of every run are loaded into chunks and a fresh stage combines them on the
//    device the query chooses, exactly as an input held in memory; its result keys are
//    emitted, and the range's memory is freed before the next one is loaded. Equal keys
//    never straddle two ranges, so each range's result is final.
//  - A range holding more than a third of the limit (one key repeated past it) is
//    streamed instead: both sides' runs are merged key by key, and each key's copies come
//    from its counts (mergepath::sql_setop_copies, nodeSetOp.c's rules), emitted in
//    batches of bounded size.
// A parallel node planned to spill (info.spill) does the same with every participant,
// each within its share of the limit (the limit divided by the planned participants):
// each spills its own chunks and exports its runs into the query's file set
// (spill_runs.h); the combiner imports all of them, plans the ranges (merging runs
// first if there are too many) and writes the plan into the file set; then every
// participant, the combiner too, claims ranges from a shared cursor, finds their keys
// in every run by binary search, combines them on its own backend (the leader on the
// GPU when a range is large enough) and emits their results.
// Lossless keys: their result rows are decoded from the keys, so nothing else is held.
// Image keys follow the same flow (reading, spilling, claims, emitting) with hash
// partitions in place of sorted runs and key ranges (image_ranges.cpp).
#include "setop_ranges.h"

#include "mergepath/key_ranges.h"

// With pg_mergepath.device = auto, a range this small is combined on the CPU backend:
// on the GPU each range pays a fixed cost (its stage, budget reservation, launches) of
// a few ms, more than the CPU backend needs for it (tiny memory limits make hundreds of
// ranges).
constexpr uint64 kMinGpuRangeKeys = uint64(1) << 20;

MpDevice mp_range_device(uint64 keys) {
    if (mp_device_setting == MP_DEVICE_SETTING_AUTO && keys < kMinGpuRangeKeys) return MpDevice::Cpu;
    return mp_choose_device(keys);
}

// Keys of both sides a range is planned to hold, and the most one may load.
static uint64 range_target_bytes(const MpSetOpRanges* r) { return r->limit_bytes / 12; }
static uint64 range_target_keys(const MpSetOpRanges* r, uint32 bytes) { return Max(range_target_bytes(r) / bytes, 1); }
static uint64 range_load_cap(const MpSetOpRanges* r, uint32 bytes) {
    return Max(mp_range_load_cap_bytes(r) / bytes, 1);
}

// The node's memory limit, or this participant's share of the leader's. A parallel
// node planned to spill that runs with no limit (memory_limit = -1 set after planning)
// still writes its runs, but as one range.
static uint64 limit_bytes(const MpSetOpState* st) {
    const MpSharedSpill* s = mp_setop_spill_files(st);
    if (!s) return mp_memory_limit_bytes();
    return s->limit_bytes > 0 ? s->limit_bytes / uint64(Max(s->participants, 1)) : uint64(1) << 60;
}

// Bytes of keys this process holds: in the chunks pushed and in the writers' current
// ones; image keys' records too. What is written counts, not the chunks' and blocks'
// room, so that a spill (which empties them) is not due again at once, and a small
// input (one partly filled chunk per side) does not spill under a limit of a few MB.
static uint64 held_key_bytes(const MpSetOpState* st) {
    uint64 bytes = mp_setop_queue(st)->used_bytes + mp_writers_used_bytes(st->run.writers);
    const MpRowArena* arena = &st->run.image_arena;
    return bytes + (arena->block ? arena->held_bytes - (arena->capacity - arena->used) : 0);
}

// Key-chunk bytes this process holds before it spills them (0: it never spills).
static uint64 spill_threshold(const MpSetOpState* st) {
    if ((!st->node.keys.lossless && !st->node.info.keys.images) || st->strategy.way == MpSetOpWay::SharedInMemory)
        return 0;
    return limit_bytes(st) / 3;
}

static bool spill_due(const MpSetOpState* st) {
    uint64 threshold = spill_threshold(st);
    return threshold > 0 && held_key_bytes(st) >= threshold;
}

static void start_spilling(MpSetOpState* st) {
    MpSetOpRanges* r = (MpSetOpRanges*)MemoryContextAllocZero(st->run.cxt, sizeof(MpSetOpRanges));
    r->limit_bytes = limit_bytes(st);
    MpSharedSpill* files = mp_setop_spill_files(st);
    mp_spill_init(&r->spill, st->run.cxt, st->node.keys.key_bits / 8, r->limit_bytes, range_target_bytes(r),
                  files ? &files->fileset : NULL, mp_spill_participant(), files ? files->participants : 1);
    r->range_cxt = AllocSetContextCreate(st->run.cxt, "pg_mergepath SetOp range", ALLOCSET_DEFAULT_SIZES);
    r->space = {NULL, r->range_cxt, NULL};
    r->batch_cap = Max(Min(uint64(65536), r->limit_bytes / 16 / sizeof(mergepath::Key128)), 1);
    r->batch = (char*)MemoryContextAlloc(st->run.cxt, r->batch_cap * sizeof(mergepath::Key128));
    mp_stage_close(st->run.stage);  // what it shipped is written out with the rest
    st->strategy.ranges = r;
    if (st->strategy.way == MpSetOpWay::InMemory) st->strategy.way = MpSetOpWay::KeyRanges;  // a serial node's switch
    if (st->node.info.keys.images) mp_image_ranges_start(st);
}

// Every chunk pushed so far (adopted by the dropped stage or not) becomes sorted runs.
static void spill_queued(MpSetOpState* st) {
    if (st->strategy.ranges->images) return mp_image_ranges_spill(st);
    mp_spill_chunks(&st->strategy.ranges->spill, mp_setop_queue(st)->all);
    mp_queue_init(mp_setop_queue(st));
}

bool mp_spill_switched(const MpSetOpState* st) {
    return mp_setop_switchable(st) && pg_atomic_read_u32(&st->files->switched) != 0;
}

// A parallel node planned in memory: once the chunks every participant pushed hold half
// the limit in keys written (the planner's rule for a parallel node: setop_path.cpp), the
// participants switch to spilling (each at its next chunk, or after reading); what is in
// shared memory by then stays there for the combiner.
static bool shared_chunks_due(const MpSetOpState* st) {
    uint64 held = st->shared->queue.used_bytes + pg_atomic_read_u64(&st->files->record_bytes);
    return 2 * held > st->files->limit_bytes;
}

void mp_report_shared_records(MpSetOpState* st) {
    if (!st->node.info.keys.images || st->strategy.way != MpSetOpWay::SharedInMemory || !mp_setop_switchable(st))
        return;
    const MpRowArena* arena = &st->run.image_arena;  // the records it wrote in shared memory
    uint64 held = arena->held_bytes - (arena->block ? arena->capacity - arena->used : 0);
    if (held > st->run.records_reported)
        pg_atomic_fetch_add_u64(&st->files->record_bytes, held - st->run.records_reported);
    st->run.records_reported = held;
}

static void switch_when_due(MpSetOpState* st) {
    MpSharedSpill* sw = st->files;
    if (!pg_atomic_read_u32(&sw->switched)) {
        if (!shared_chunks_due(st)) return;
        pg_atomic_write_u32(&sw->switched, 1);
    }
    mp_switch_to_spilling(st);
}

bool mp_switch_due_after_read(MpSetOpState* st) {
    if (!mp_setop_switchable(st)) return false;
    if (!pg_atomic_read_u32(&st->files->switched) && shared_chunks_due(st))
        pg_atomic_write_u32(&st->files->switched, 1);  // the last chunks, flushed after reading
    return mp_spill_switched(st);
}

void mp_after_chunk_pushed(MpSetOpState* st) {
    mp_report_shared_records(st);
    if (st->strategy.way == MpSetOpWay::SharedInMemory && mp_setop_switchable(st)) switch_when_due(st);
    if (!spill_due(st)) {
        if (mp_setop_way_in_memory(st->strategy.way)) mp_adopt_pending(st);
        return;
    }
    if (!st->strategy.ranges) start_spilling(st);
    spill_queued(st);
}

void mp_ranges_set_results(MpSetOpState* st, int stream, MpResultRun* run) {
    for (int s = 0; s < 2; s++) {
        st->emitter.result_count[s] = s == stream && run ? run->count : 0;
        st->emitter.run_count[s] = s == stream && run && run->count ? 1 : 0;
        st->emitter.runs[s] = s == stream ? run : NULL;
    }
    st->emitter.emit_pos = st->emitter.emit_end = 0;
}

// Streaming: the next key of A in the range that has copies to emit (B's keys below it
// are passed; UNION: the next key of either side); false when A has none left (B's rest
// of the range is passed too).
static bool next_streamed_key(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpSpill* spill = &r->spill;
    const int s = r->stream, range = r->range;
    const bool b_keys_emit = mp_setop_results_from_b(st);
    for (;;) {
        const void* a = mp_spill_peek(spill, s, 0, range);
        const void* b = b_keys_emit ? mp_spill_peek(spill, s, 1, range) : NULL;
        if (!a && !b) break;
        const void* next = !a || (b && mp_spill_key_less(spill, s, b, a)) ? b : a;
        memcpy(r->key, next, mp_stream_key_bytes(st, s));
        uint64 m = mp_spill_take_upto(spill, s, 0, r->key, false);
        if (!b_keys_emit) mp_spill_take_upto(spill, s, 1, r->key, true);  // B's keys below it
        uint64 n = mp_spill_take_upto(spill, s, 1, r->key, false);
        r->copies_left = mergepath::sql_setop_copies(st->node.op, st->node.all, m, n);
        if (r->copies_left > 0) return true;
    }
    while (const void* b = mp_spill_peek(spill, s, 1, range)) {  // the rest of B's range
        memcpy(r->key, b, mp_stream_key_bytes(st, s));
        mp_spill_take_upto(spill, s, 1, r->key, false);
    }
    return false;
}

// Streaming: the next batch of result keys; false when the range has no more.
static bool streamed_batch(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    if (r->images) return mp_image_ranges_streamed_batch(st);
    const uint32 bytes = mp_stream_key_bytes(st, r->stream);
    uint64 n = 0;
    while (n < r->batch_cap && (r->copies_left > 0 || next_streamed_key(st))) {
        for (; r->copies_left > 0 && n < r->batch_cap; r->copies_left--) memcpy(r->batch + n++ * bytes, r->key, bytes);
        CHECK_FOR_INTERRUPTS();
    }
    r->batch_run = {r->batch, n};
    mp_ranges_set_results(st, r->stream, &r->batch_run);
    return n > 0;
}

// Loads the current range into chunks; false (cursors put back) when it exceeds the cap.
static bool load_range(MpSetOpState* st, uint64* keys_out, uint64* a_keys) {
    MpSetOpRanges* r = st->strategy.ranges;
    const int s = r->stream;
    const uint64 cap = range_load_cap(r, mp_stream_key_bytes(st, s));
    int runs = r->spill.sides[s][0].run_count + r->spill.sides[s][1].run_count;
    uint64* saved = (uint64*)MemoryContextAlloc(r->range_cxt, sizeof(uint64) * Max(runs, 1));
    mp_spill_save(&r->spill, s, saved);
    uint64 loaded = 0;
    for (int side = 0; side < 2 && loaded <= cap; side++) {
        MpChunkWriter w;
        mp_writer_init(&w, &r->space, &r->queue, NULL, s, side, mp_stream_key_bytes(st, s));
        uint64 n = mp_spill_load_range(&r->spill, s, side, r->range, &w, cap - loaded);
        mp_writer_flush(&w);
        if (side == 0) *a_keys = n;
        loaded += n;
    }
    *keys_out = loaded;
    if (loaded <= cap) return true;
    mp_spill_restore(&r->spill, s, saved);
    return false;
}

void mp_ranges_drop(MpSetOpRanges* r) {
    MemoryContextReset(r->range_cxt);
    mp_queue_init(&r->queue);
}

static void adopt_keys(MpSetOpState* st, MpChunkRef first) {
    mp_stage_adopt(st->run.stage, &st->strategy.ranges->space, first);
}

void mp_ranges_run_stage(MpSetOpState* st, mergepath::SetOpShape shape, uint64 keys,
                         void (*adopt)(MpSetOpState*, MpChunkRef)) {
    MpSetOpRanges* r = st->strategy.ranges;
    st->run.stage = mp_stage_create(r->range_cxt, st->node.keys.key_bits, st->node.op, st->node.all, shape);
    st->run.stage->cpu_threads = r->cpu_threads;
    // once a range found no room in the shared GPU budget (NOTICE), the later ones run
    // on the CPU backend at once: not one wait and one NOTICE per range
    st->run.stage->budget_full = r->budget_full;
    mp_stage_open(st->run.stage, mp_range_device(keys), keys);
    r->budget_full = st->run.stage->report.budget_fallback;
    adopt(st, mp_queue_take(&r->queue, &r->space));
    mp_stage_finish(st->run.stage);
    mp_stage_report_add(&st->stats.report, &st->run.stage->report);
}

// The current range combined by a fresh stage; false when its result is empty.
static bool combine_range(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    if (r->images) return mp_image_ranges_combine(st);
    mp_ranges_drop(r);  // the previous range's
    r->spill.report.ranges++;
    uint64 keys = 0, a_keys = 0;
    if (!load_range(st, &keys, &a_keys)) {
        mp_ranges_drop(r);
        r->spill.report.streamed++;
        r->streaming = true;
        r->copies_left = 0;
        return streamed_batch(st);
    }
    if (a_keys == 0 && (keys == 0 || !mp_setop_results_from_b(st))) {  // INTERSECT and EXCEPT of an empty A are empty
        mp_ranges_set_results(st, r->stream, NULL);
        return false;
    }
    mp_ranges_run_stage(st, mergepath::SetOpShape::Keys, keys, adopt_keys);
    mp_keep_local_results(st);
    st->emitter.emit_pos = st->emitter.emit_end = 0;
    return mp_result_total(st) > 0;
}

// The stream's ranges next (planned on first use).
static void start_stream(MpSetOpState* st, int stream) {
    MpSetOpRanges* r = st->strategy.ranges;
    r->stream = stream;
    r->range_count = mp_spill_plan_ranges(&r->spill, stream, range_target_keys(r, mp_stream_key_bytes(st, stream)));
}

// A participant that claims ranges: the next one, its cursors moved to its first keys
// unless they are there already (it follows the last one this process combined).
static bool claim_range(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    int stream, range;
    if (!mp_shared_spill_claim(st->files, &stream, &range)) return false;
    if (stream != r->stream || range != r->range + 1) mp_spill_seek_range(&r->spill, stream, range);
    r->stream = stream;
    r->range = range;
    r->range_count = st->files->range_count[stream];
    return true;
}

// The next range this process combines: a serial node's follow each other, Main's then
// Nulls'; a parallel participant claims its own.
static bool next_range(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    if (r->images) return mp_image_ranges_next(st);
    if (mp_setop_claims_ranges(st)) return claim_range(st);
    if (++r->range < r->range_count) return true;
    if (r->stream == int(MpKeyStream::Nulls)) return false;
    start_stream(st, int(MpKeyStream::Nulls));
    r->range = 0;
    return true;
}

// A participant has no range left: what it did goes into the shared report and stage
// report (the leader's EXPLAIN sums them over every participant).
static void report_claims(MpSetOpState* st) {
    MpSharedSpill* s = st->files;
    SpinLockAcquire(&s->mutex);
    s->report.ranges += st->strategy.ranges->spill.report.ranges;
    s->report.streamed += st->strategy.ranges->spill.report.streamed;
    SpinLockRelease(&s->mutex);
    SpinLockAcquire(&st->shared->mutex);
    mp_stage_report_add(&st->shared->report, &st->stats.report);
    SpinLockRelease(&st->shared->mutex);
    st->strategy.ranges->spill.report.ranges = st->strategy.ranges->spill.report.streamed = 0;
    st->stats.report = MpStageReport();
    if (st->strategy.ranges->images) mp_image_ranges_report_shared(st);  // what its splits wrote
}

bool mp_ranges_next_results(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    for (;;) {
        if (r->streaming && streamed_batch(st)) return true;
        r->streaming = false;
        if (!next_range(st)) break;
        if (combine_range(st)) return true;
    }
    mp_ranges_drop(r);
    mp_ranges_set_results(st, 0, NULL);
    if (mp_setop_claims_ranges(st)) report_claims(st);
    return false;
}

void mp_ranges_restart(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    const int main = int(MpKeyStream::Main);
    if (r->images) {
        mp_image_ranges_restart(st);
    } else {
        mp_spill_rewind(&r->spill, main);
        mp_spill_rewind(&r->spill, int(MpKeyStream::Nulls));
        start_stream(st, main);
    }
    r->range = -1;
    r->streaming = false;
    r->copies_left = 0;
    mp_ranges_next_results(st);
}

// Every run written: the report starts over and the first range's results are computed.
static void start_ranges(MpSetOpState* st) {
    st->stats.report = MpStageReport();
    st->stats.report.device = mp_planning_device();
    mp_ranges_restart(st);
}

bool mp_ranges_due_after_read(MpSetOpState* st) {
    if (!st->strategy.ranges && spill_due(st)) start_spilling(st);  // never checked: no chunk filled
    return st->strategy.ranges != NULL;
}

void mp_ranges_finish_read(MpSetOpState* st) {
    spill_queued(st);  // what the writers pushed after the last spill
    start_ranges(st);
}

void mp_ranges_close(MpSetOpState* st) {
    if (!st->strategy.ranges) return;
    // a parallel node's report is the combiner's, harvested by the leader
    if (!mp_setop_claims_ranges(st)) {
        mp_spill_report_add(&st->stats.spilled, &st->strategy.ranges->spill.report);
        mp_image_ranges_report(st, &st->stats.spilled);
    }
    if (st->strategy.ranges->images) mp_image_ranges_close(st);
    mp_spill_close(&st->strategy.ranges->spill);
    st->strategy.ranges = NULL;
}

void mp_ranges_export(MpSetOpState* st) {
    if (!st->strategy.ranges) start_spilling(st);
    spill_queued(st);
    if (st->strategy.ranges->images)
        mp_image_ranges_export(st);
    else
        mp_spill_export(&st->strategy.ranges->spill);
    pg_atomic_fetch_or_u64(&st->files->exported, uint64(1) << mp_spill_participant());
}

// Claims start: the stage report starts over, no range combined yet. The cores are
// shared by the participants that took part so far (all planned ones, or fewer when
// some workers did not start; a late one joining makes a little oversubscription).
static void start_claims(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    SpinLockAcquire(&st->shared->mutex);
    int sharing = Max(st->shared->participants, 1);
    SpinLockRelease(&st->shared->mutex);
    if (r->images && sharing > 1) sharing--;  // the leader only gathers (image_ranges.cpp)
    if (st->node.info.one_emitter) sharing = 1;  // the combiner claims every range alone
    r->cpu_threads = Max(1, mp_cpu_thread_count() / sharing);
    st->stats.report = MpStageReport();
    st->stats.report.device = mp_planning_device();
    r->stream = int(MpKeyStream::Main);
    r->range = -1;
    mp_ranges_set_results(st, 0, NULL);
}

void mp_ranges_spill_shared_chunks(MpSetOpState* st) {
    MpSharedSpill* shared = st->files;
    if (st->node.info.keys.images) {  // partitions of the same count as every participant's
        if (!st->strategy.ranges) start_spilling(st);
        return mp_image_ranges_spill_shared(st);
    }
    MpSpill spill;
    mp_spill_init(&spill, st->run.cxt, st->node.keys.key_bits / 8, limit_bytes(st), limit_bytes(st) / 12,
                  &shared->fileset, kMpSharedChunksSlot, 1);
    mp_spill_chunks(&spill, st->shared->queue.all, &st->run.space);
    mp_spill_export(&spill);
    pg_atomic_fetch_or_u64(&shared->exported, uint64(1) << kMpSharedChunksSlot);
}

void mp_ranges_plan_shared(MpSetOpState* st) {
    MpSharedSpill* shared = st->files;
    if (!st->strategy.ranges) start_spilling(st);
    MpSetOpRanges* r = st->strategy.ranges;
    if (r->images) {  // every participant reads each partition's files itself
        shared->range_count[int(MpKeyStream::Main)] = r->range_count;
        shared->range_count[int(MpKeyStream::Nulls)] = 0;
        return start_claims(st);
    }
    uint64 exported = pg_atomic_read_u64(&shared->exported);
    for (int p = 0; p < kMpMaxSpillParticipants; p++)
        if (exported & (uint64(1) << p)) mp_spill_import(&r->spill, &shared->fileset, p);
    for (int stream = 0; stream < 2; stream++)
        shared->range_count[stream] =
            mp_spill_plan_ranges(&r->spill, stream, range_target_keys(r, mp_stream_key_bytes(st, stream)));
    mp_spill_export_plan(&r->spill);
    shared->report = r->spill.report;  // runs and bytes written, merged runs too
    r->spill.report = MpSpillReport();
    start_claims(st);
}

void mp_ranges_join_shared(MpSetOpState* st) {
    if (!st->strategy.ranges) start_spilling(st);
    if (!st->strategy.ranges->images) mp_spill_import_plan(&st->strategy.ranges->spill, &st->files->fileset);
    start_claims(st);
}

MpSpillReport mp_ranges_report(const MpSetOpState* st) {
    if (st->shared && st->files)  // the combiner's, wherever it ran (harvested)
        return st->stats.spilled;
    MpSpillReport total = st->stats.spilled;
    if (st->strategy.ranges) mp_spill_report_add(&total, &st->strategy.ranges->spill.report);
    mp_image_ranges_report(st, &total);
    return total;
}
