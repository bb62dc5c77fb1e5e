// image_ranges.cpp — a MergePath SetOp node over image keys (images.h) whose records
// outgrow pg_mergepath.memory_limit: hash partitions in temporary files
// (spill/hash_partitions.h), combined one piece at a time, the way a Grace hash join
// recurses. Sorted runs, as lossless keys use (setop_ranges.cpp), would need a record
// per key in every run; the images' order is their hashes' anyway.
//  - While reading: once the records and key chunks held reach a third of the limit,
//    every row held (chunks in the order they were pushed, then the writers' current
//    ones) goes to its side's partition, as its hash and record (buffered, written as
//    blocks into one file per side), and that memory is freed; again each time the
//    limit's third is reached.
//  - After reading: partition by partition (a parallel node's workers claim them and
//    read every participant's blocks of each; the leader only gathers), the piece's rows
//    are loaded into a fresh arena and chunks, and a fresh stage sorts them by hash and
//    image_groups.h groups them, exactly as an input held in memory; equal images share
//    a hash, so each piece's result is final. Rows keep the order they were read in,
//    so each group's first row is the one the in-memory node would emit.
//  - A piece that passes the load cap (a third of the limit) is split by its rows'
//    mixed hashes into smaller pieces (one pass writing new temporary files) and those
//    are combined in turn; a piece whose rows all share one hash (one image repeated
//    past the limit, or hashes kept short by debug_hash_bits) is streamed instead: one
//    pass per distinct image in image order, each group's copies from its counts
//    (mergepath::sql_setop_copies), emitted in batches that reference a copy of the
//    group's first row.
#include "setop_ranges.h"

#include <algorithm>

#include "mergepath/key_ranges.h"
#include "timing.h"

namespace {

// Bytes a loaded row takes besides its record: its hash and reference in a chunk, the
// sorted hash and row number downloaded, its result slot.
constexpr uint64 kLoadedRowBytes = 40;
// Most pieces one split writes (two files each, a BLCKSZ buffer per file), and the
// fewest any split or partitioning may use: a tiny limit then holds a little more in
// buffers than it says, rather than rewriting each row many times.
constexpr int kMaxSplitWays = 64;
constexpr uint64 kMinWays = 8;

// A record kept across rows read (its buffer grown, never shrunk).
struct KeptRecord {
    char* data;
    uint32 len, cap;
};

}  // namespace

struct MpImageRanges {
    MpPartitions parts;
    MpPieceReader current;   // the piece being combined or streamed
    bool has_current;
    MpPieceReader* pending;  // pieces split off, still to combine: a stack
    int pending_count, pending_cap;
    char* scratch;           // a record read from a file
    uint32 scratch_cap;
    // streaming a piece of one mixed hash
    uint64 stream_mixed;
    bool stream_done;        // a pass found no group left
    KeptRecord group;        // the last group's first row (its image bounds the next pass)
    bool has_group;
    KeptRecord best, first[2];  // one pass's smallest image above it, its first row per side
    MemoryContext batch_cxt; // the records the current batch references
};

namespace {

// The plan's estimate of the bytes its inputs take loaded (all participants').
double estimated_bytes(const MpSetOpState* st) {
    const Plan* plan = st->css.ss.ps.plan;
    double bytes = 0;
    for (const Plan* child : {outerPlan(plan), innerPlan(plan)})
        bytes += child->plan_rows * (double(child->plan_width) + kLoadedRowBytes);
    if (st->files && !mp_setop_switchable(st)) bytes *= st->files->participants;  // partial plans' rows are per participant
    return bytes;
}

// Partitions so that a piece is about half a load (an estimate twice too small still
// fits), at most one per 128 kB of the limit; every participant of a parallel node
// computes the same from the plan.
int partition_count(const MpSetOpState* st, uint64 limit_bytes) {
    // a node that switched at run time: the plan's estimate was wrong; every participant
    // takes the most partitions its share of the limit allows
    const double bytes = mp_setop_switchable(st) ? 1e300 : estimated_bytes(st);
    double piece = Max(double(limit_bytes) / 6, 1.0);
    uint64 most = Max(limit_bytes / (16 * BLCKSZ), kMinWays);
    uint64 count = 2;
    while (count < Min(most, uint64(1024)) && double(count) * piece < bytes) count *= 2;
    return int(count);
}

uint64 ceil_div(uint64 a, uint64 b) { return (a + b - 1) / b; }

char* copy_record(MemoryContext cxt, const char* record, uint32 len) {
    char* copy = (char*)MemoryContextAllocHuge(cxt, Max(len, 1));
    memcpy(copy, record, len);
    return copy;
}

void keep_record(KeptRecord* k, MemoryContext cxt, const char* record, uint32 len) {
    if (len > k->cap || !k->data) {
        if (k->data) pfree(k->data);
        k->cap = Max(len, 64);
        k->data = (char*)MemoryContextAllocHuge(cxt, k->cap);
    }
    memcpy(k->data, record, len);
    k->len = len;
}

// A record of `len` bytes read into the scratch buffer.
const char* read_to_scratch(MpImageRanges* ir, int side, uint32 len) {
    if (len > ir->scratch_cap) {
        if (ir->scratch) pfree(ir->scratch);
        ir->scratch = (char*)MemoryContextAllocHuge(ir->parts.cxt, len);
        ir->scratch_cap = len;
    }
    mp_piece_read_record(&ir->current, side, ir->scratch, len);
    return ir->scratch;
}

// The main-stream chunks of one side in `all` (newest first), in the order they were pushed.
int chunks_of_side(const MpChunkSpace* space, MpChunkRef all, int side, MpChunk** out) {
    int n = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = mp_chunk_at(space, ref)->next_all) {
        MpChunk* c = mp_chunk_at(space, ref);
        if (c->stream == uint32(MpKeyStream::Main) && int(c->side) == side) out[n++] = c;
    }
    std::reverse(out, out + n);
    return n;
}

// Rows (hashes, references into `space`) into their side's partitions.
void spill_rows(MpSetOpState* st, MpPartitions* parts, const MpChunkSpace* space, int side, const uint64* hashes,
                const uint64* refs, uint64 n) {
    for (uint64 i = 0; i < n; i++) {
        const char* record = (const char*)mp_space_at(space, refs[i]);
        mp_partitions_write(parts, side, hashes[i], record, uint32(mp_image_record_size(&st->node.images, record)));
    }
}

void push_piece(MpImageRanges* ir, const MpPieceReader& piece) {
    if (ir->pending_count == ir->pending_cap) {
        ir->pending_cap = Max(8, 2 * ir->pending_cap);
        ir->pending = ir->pending ? (MpPieceReader*)repalloc(ir->pending, sizeof(MpPieceReader) * ir->pending_cap)
                                  : (MpPieceReader*)MemoryContextAlloc(ir->parts.cxt,
                                                                       sizeof(MpPieceReader) * ir->pending_cap);
    }
    ir->pending[ir->pending_count++] = piece;
}

void close_current(MpImageRanges* ir) {
    if (ir->has_current) mp_piece_close(&ir->current);
    ir->has_current = false;
}

// What loading the current piece found.
struct Loaded {
    bool fits;
    uint64 rows, a_rows;
    uint64 bytes;          // what all its rows would take loaded
    uint64 lo, hi;         // the smallest and largest mixed hash of its rows
};

// The current piece's rows into the range's arena and chunks, until they pass the cap;
// past it, the rest is only measured.
Loaded load_piece(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpPieceReader* piece = &r->images->current;
    const uint64 cap = mp_range_load_cap_bytes(r);
    Loaded out = {true, 0, 0, 0, PG_UINT64_MAX, 0};
    const uint64 first_block = Max(cap / 8, uint64(8192));  // blocks and chunks grow from here
    MpRowArena arena;
    mp_arena_init_blocks(&arena, &r->space, &r->queue);
    arena.next_bytes = Min(arena.next_bytes, first_block);
    mp_piece_rewind(piece);
    for (int side = 0; side < 2; side++) {
        MpChunkWriter w;
        mp_writer_init(&w, &r->space, &r->queue, NULL, int(MpKeyStream::Main), side, sizeof(uint64), true);
        w.next_bytes = Min(w.next_bytes, first_block);
        MpPartitionRow row;
        for (uint64 n = 0; mp_piece_next(piece, side, &row); n++) {
            if ((n & 1023) == 0) CHECK_FOR_INTERRUPTS();
            uint64 mixed = mp_partition_mix(row.hash);
            if (mixed < piece->lo || mixed > piece->hi) {
                mp_piece_skip_record(piece, side, row.len);
                continue;
            }
            out.lo = Min(out.lo, mixed);
            out.hi = Max(out.hi, mixed);
            out.bytes += row.len + kLoadedRowBytes;
            out.fits = out.fits && out.bytes <= cap;
            if (!out.fits) {
                mp_piece_skip_record(piece, side, row.len);
                continue;
            }
            uint64 ref;
            mp_piece_read_record(piece, side, mp_arena_reserve(&arena, row.len, &ref), row.len);
            mp_writer_put_ref(&w, row.hash, ref);
            out.rows++;
        }
        mp_writer_flush(&w);
        if (side == 0) out.a_rows = out.rows;
    }
    return out;
}

void adopt_images(MpSetOpState* st, MpChunkRef first) {
    MpSetOpRanges* r = st->strategy.ranges;
    mp_adopted_record(st->run.adopted, &r->space, r->range_cxt, first);
    mp_stage_adopt(st->run.stage, &r->space, first);
}

// A piece too large to load: split into pieces of about half a load each over its
// rows' mixed hashes, stacked so that the first is combined next.
void split_current(MpSetOpState* st, const Loaded& loaded) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    const uint64 by_memory = Max(r->limit_bytes / 8 / (2 * BLCKSZ), kMinWays);
    const uint64 needed = ceil_div(loaded.bytes, Max(mp_range_load_cap_bytes(r) / 2, 1));
    int ways = int(Max(Min(Min(needed, by_memory), uint64(kMaxSplitWays)), uint64(2)));
    MpPieceReader* out = (MpPieceReader*)palloc(sizeof(MpPieceReader) * ways);
    int made = mp_piece_split(&ir->parts, &ir->current, loaded.lo, loaded.hi, ways, out, &ir->scratch,
                              &ir->scratch_cap);
    close_current(ir);
    for (int i = made - 1; i >= 0; i--) push_piece(ir, out[i]);
    pfree(out);
}

// One pass over the streamed piece: the smallest image above the last group's (in
// ir->best), its rows per side and its first row on each (ir->first). False when
// there is none.
bool next_group_pass(MpSetOpState* st, uint64 count[2]) {
    MpImageRanges* ir = st->strategy.ranges->images;
    MemoryContext cxt = ir->parts.cxt;
    bool found = false;
    count[0] = count[1] = 0;
    mp_piece_rewind(&ir->current);
    MpPartitionRow row;
    for (int side = 0; side < 2; side++) {
        for (uint64 n = 0; mp_piece_next(&ir->current, side, &row); n++) {
            if ((n & 1023) == 0) CHECK_FOR_INTERRUPTS();
            if (mp_partition_mix(row.hash) != ir->stream_mixed) {
                mp_piece_skip_record(&ir->current, side, row.len);
                continue;
            }
            const char* record = read_to_scratch(ir, side, row.len);
            if (ir->has_group && !mp_image_less(ir->group.data, record)) continue;  // done with already
            if (!found || mp_image_less(record, ir->best.data)) {                   // a smaller one
                keep_record(&ir->best, cxt, record, row.len);
                count[0] = count[1] = 0;
                found = true;
            }
            if (!mp_images_equal(record, ir->best.data) || count[side]++ > 0) continue;
            keep_record(&ir->first[side], cxt, record, row.len);
        }
    }
    return found;
}

// The next group of the streamed piece with copies to emit: its first row kept in
// ir->group, r->copies_left set. False when the piece has no more.
bool next_streamed_group(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    uint64 count[2];
    while (!ir->stream_done && next_group_pass(st, count)) {
        int side = (st->node.info.first_side == 1 && count[1] > 0) || count[0] == 0 ? 1 : 0;
        keep_record(&ir->group, ir->parts.cxt, ir->first[side].data, ir->first[side].len);
        ir->has_group = true;
        r->copies_left = mergepath::sql_setop_copies(st->node.op, st->node.all, count[0], count[1]);
        if (r->copies_left > 0) return true;
    }
    ir->stream_done = true;
    return false;
}

// A parallel leader whose workers took part leaves the partitions to them and only
// gathers their rows: while it combines a piece of its own, the workers' tuple queues
// can fill and stop them (on the H100 host, 10M x 10M text under 512MB, before the
// partitions went into two files a process: 1.0-3.5 s with the leader claiming,
// 0.9-1.05 s without). Its pieces would be small, on the CPU backend, like theirs.
// Alone (no worker started) it claims them all.
bool leader_leaves_claims(MpSetOpState* st) {
    if (IsParallelWorker()) return false;
    SpinLockAcquire(&st->shared->mutex);
    int participants = st->shared->participants;
    SpinLockRelease(&st->shared->mutex);
    return participants > 1;
}

}  // namespace

// Partitioned by choice (below the limit, kMpImagePartitionedBytes): a budget of half
// the estimated input, at least 512 MB, at most the limit (measured on the H100 host,
// 10M x 10M text under 512 MB: 0.8-0.9 s and 117-188 MB, against 1.2-1.4 s and 1.4 GB
// held in memory).
// A plan partitioned by choice that runs with no limit (a cached plan after SET
// memory_limit = -1) takes the budget it would have had under the default.
uint64 mp_image_spill_budget(const MpSetOpState* st, uint64 limit_bytes) {
    const double floor_bytes = double(uint64(512) << 20);
    const double wanted = Max(estimated_bytes(st) / 2, floor_bytes);  // in double: estimates may be huge
    if (limit_bytes > 0 && wanted >= double(limit_bytes)) return limit_bytes;
    return wanted >= double(uint64(1) << 62) ? uint64(1) << 62 : uint64(wanted);
}

void mp_image_ranges_start(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = (MpImageRanges*)MemoryContextAllocZero(st->run.cxt, sizeof(MpImageRanges));
    SharedFileSet* fileset = mp_setop_spill_files(st) ? &st->files->fileset : NULL;
    const int count = partition_count(st, r->limit_bytes);
    // every partition's buffer of both sides within a 16th of the limit (BLCKSZ at least:
    // the index of blocks stays below 0.2% of what is spilled)
    const uint64 block = Max(Min(r->limit_bytes / 16 / (2 * uint64(count)), uint64(64) << 10), uint64(BLCKSZ));
    mp_partitions_init(&ir->parts, st->run.cxt, count, uint32(block), fileset, mp_spill_participant());
    ir->batch_cxt = AllocSetContextCreate(st->run.cxt, "pg_mergepath image batch", ALLOCSET_DEFAULT_SIZES);
    r->images = ir;
    r->range_count = ir->parts.count;
    r->range = -1;
}

// The rows of every main-stream chunk listed from `all` (in `space`), side by side in the
// order they were pushed, into `parts`; with `writers`, each side's writer's current chunk
// after them (its chunk then reused).
static void spill_chunks(MpSetOpState* st, MpPartitions* parts, const MpChunkSpace* space, MpChunkRef all,
                         MpChunkWriter (*writers)[2]) {
    int total = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = mp_chunk_at(space, ref)->next_all) total++;
    MpChunk** chunks = (MpChunk**)palloc(sizeof(MpChunk*) * Max(total, 1));
    for (int side = 0; side < 2; side++) {
        int n = chunks_of_side(space, all, side, chunks);
        for (int i = 0; i < n; i++)
            spill_rows(st, parts, space, side, (const uint64*)mp_chunk_keys(chunks[i]), mp_chunk_refs(chunks[i]),
                       chunks[i]->count);
        MpChunkWriter* w = writers ? &writers[int(MpKeyStream::Main)][side] : NULL;
        if (w && w->chunk) spill_rows(st, parts, space, side, (const uint64*)w->keys, w->refs, w->pos);
        if (w) w->pos = 0;  // its chunk is reused; its records are written out
        CHECK_FOR_INTERRUPTS();
    }
    pfree(chunks);
}

void mp_image_ranges_spill(MpSetOpState* st) {
    MpStopwatch clock;
    MpChunkQueue* queue = mp_setop_queue(st);
    const MpChunkSpace* chunk_space = mp_setop_chunk_space(st);
    spill_chunks(st, &st->strategy.ranges->images->parts, chunk_space, queue->all, st->run.writers);
    for (MpChunkRef ref = queue->all; ref != kNoChunk;) {  // chunks and record blocks
        MpChunk* c = mp_chunk_at(chunk_space, ref);
        ref = c->next_all;
        pfree(c);
    }
    mp_queue_init(queue);
    mp_arena_init_blocks(&st->run.image_arena, chunk_space, queue);
    memset(st->run.adopted, 0, sizeof(st->run.adopted));
    st->strategy.ranges->images->parts.report.spill_ms += clock.lap_ms();
}

void mp_image_ranges_spill_shared(MpSetOpState* st) {
    MpStopwatch clock;
    const MpPartitions* own = &st->strategy.ranges->images->parts;
    MpPartitions parts;
    mp_partitions_init(&parts, st->run.cxt, own->count, own->block_bytes, &st->files->fileset, kMpSharedChunksSlot);
    spill_chunks(st, &parts, &st->run.space, st->shared->queue.all, NULL);
    parts.report.spill_ms += clock.lap_ms();
    mp_partitions_export(&parts);
    SpinLockAcquire(&st->files->mutex);
    mp_spill_report_add(&st->files->report, &parts.report);
    SpinLockRelease(&st->files->mutex);
    pg_atomic_fetch_or_u64(&st->files->exported, uint64(1) << kMpSharedChunksSlot);
}

void mp_image_ranges_export(MpSetOpState* st) {
    mp_partitions_export(&st->strategy.ranges->images->parts);
    mp_image_ranges_report_shared(st);
}

void mp_image_ranges_report_shared(MpSetOpState* st) {
    MpPartitions* parts = &st->strategy.ranges->images->parts;
    MpSharedSpill* s = st->files;
    SpinLockAcquire(&s->mutex);
    mp_spill_report_add(&s->report, &parts->report);
    SpinLockRelease(&s->mutex);
    parts->report = MpSpillReport();
}

bool mp_image_ranges_next(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    close_current(ir);
    if (ir->pending_count > 0) {
        ir->current = ir->pending[--ir->pending_count];
        ir->has_current = true;
        return true;
    }
    uint64 exporters = 0;
    if (mp_setop_claims_ranges(st)) {
        if (leader_leaves_claims(st)) return false;
        int stream;
        if (!mp_shared_spill_claim(st->files, &stream, &r->range)) return false;
        exporters = pg_atomic_read_u64(&st->files->exported);
    } else if (++r->range >= r->range_count) {
        return false;
    }
    mp_piece_open_partition(&ir->parts, r->range, exporters, &ir->current);
    ir->has_current = true;
    return true;
}

bool mp_image_ranges_combine(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    mp_ranges_drop(r);  // the previous piece's
    // INTERSECT and EXCEPT of a piece with no A row: nothing
    if (ir->current.count[0] == 0 && !mp_setop_results_from_b(st)) return false;
    Loaded loaded = load_piece(st);
    if (!loaded.fits) {
        mp_ranges_drop(r);
        if (loaded.lo < loaded.hi) {
            split_current(st, loaded);
            return false;
        }
        r->spill.report.ranges++;
        r->spill.report.streamed++;
        r->streaming = true;
        r->copies_left = 0;
        ir->stream_mixed = loaded.lo;
        ir->stream_done = false;
        ir->has_group = false;
        return mp_image_ranges_streamed_batch(st);
    }
    r->spill.report.ranges++;
    if (loaded.rows == 0 || (loaded.a_rows == 0 && !mp_setop_results_from_b(st))) return false;  // nothing to emit
    memset(st->run.adopted, 0, sizeof(st->run.adopted));
    mp_ranges_run_stage(st, mergepath::SetOpShape::SortedSides, loaded.rows, adopt_images);
    double ms = mp_keep_image_results(st, r->range_cxt);
    st->stats.report.group_ms += ms;
    st->stats.report.combine_ms += ms;
    st->emitter.emit_pos = st->emitter.emit_end = 0;
    return mp_result_total(st) > 0;
}

bool mp_image_ranges_streamed_batch(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    MemoryContextReset(ir->batch_cxt);  // the last batch is emitted
    uint64* refs = (uint64*)r->batch;
    uint64 n = 0;
    while (n < r->batch_cap && (r->copies_left > 0 || next_streamed_group(st))) {
        uint64 ref = (uint64)(uintptr_t)copy_record(ir->batch_cxt, ir->group.data, ir->group.len);
        for (; r->copies_left > 0 && n < r->batch_cap; r->copies_left--) refs[n++] = ref;
        CHECK_FOR_INTERRUPTS();
    }
    r->batch_run = {r->batch, n};
    mp_ranges_set_results(st, int(MpKeyStream::Main), &r->batch_run);
    return n > 0;
}

void mp_image_ranges_restart(MpSetOpState* st) {
    MpSetOpRanges* r = st->strategy.ranges;
    MpImageRanges* ir = r->images;
    close_current(ir);
    while (ir->pending_count > 0) mp_piece_close(&ir->pending[--ir->pending_count]);
    ir->stream_done = ir->has_group = false;
    r->range = -1;
    r->range_count = ir->parts.count;
}

void mp_image_ranges_close(MpSetOpState* st) {
    MpImageRanges* ir = st->strategy.ranges->images;
    mp_image_ranges_restart(st);
    mp_partitions_close(&ir->parts);
}

void mp_image_ranges_report(const MpSetOpState* st, MpSpillReport* total) {
    if (st->strategy.ranges && st->strategy.ranges->images)
        mp_spill_report_add(total, &st->strategy.ranges->images->parts.report);
}
