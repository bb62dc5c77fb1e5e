// setop_input.cpp — step 1 of the MergePath SetOp node (see setop_exec.cpp): reading
// this process's share of both inputs into key chunks.
//
// Per row, read straight from the child's slot (the planner let setrefs drop the
// flag-column projection, setop_plan.cpp): lossless keys encode the values, into the
// main stream, or into the null-layout stream for a row with a NULL or, with ranged
// keys, a value outside its column's range (keys.h); image
// keys form the row's record (its canonical image, images.h) in this process's arena
// and put the image's hash with the record's reference; hashed keys store the row
// (row_store.h, in arrival order, which numbers the library's rows) and hash it. The hot loop does no allocation and calls no function per column beyond
// the child itself: the key goes straight into the current chunk. When a chunk fills,
// the combining process may adopt the chunks pushed so far (the GPU then sorts them
// while the input is still being read), or, over the memory limit, spill them
// (setop_ranges.cpp).
#include "setop_node.h"

#include "read_child.h"
#include "timing.h"

static bool row_has_null(const bool* isnull, int ncols) {
    for (int c = 0; c < ncols; c++)
        if (isnull[c]) return true;
    return false;
}

// Reads every row the child gives this process, with row_key(slot) putting its key
// into a chunk and returning whether a chunk was pushed. Returns the rows read.
template <class RowKey>
static uint64 read_side(MpSetOpState* st, PlanState* child, RowKey row_key) {
    return mp_read_child(child, st->node.ncols, [&](TupleTableSlot* slot) {
        if (unlikely(row_key(slot))) mp_after_chunk_pushed(st);
        return true;
    });
}

// One input, lossless keys of type K: a row with a NULL, or (ranged keys) a value
// outside its column's range, takes a null-layout key in the second stream.
template <class K>
static uint64 read_side_lossless(MpSetOpState* st, PlanState* child, int side, MpReadCounts* counts) {
    MpChunkWriter* main = &st->run.writers[int(MpKeyStream::Main)][side];
    MpChunkWriter* nulls = &st->run.writers[int(MpKeyStream::Nulls)][side];
    const MpKeyPlan* plan = &st->node.keys;
    const int ncols = st->node.ncols;
    uint64 null_rows = 0, outside_rows = 0;
    uint64 rows = read_side(st, child, [&](TupleTableSlot* slot) {
        if (unlikely(row_has_null(slot->tts_isnull, ncols))) {
            null_rows++;
            return mp_writer_put(nulls, mp_encode_null_row(plan, slot->tts_values, slot->tts_isnull));
        }
        K key;
        if (likely(mp_encode_row<K>(plan, slot->tts_values, &key))) return mp_writer_put(main, key);
        outside_rows++;
        return mp_writer_put(nulls, mp_encode_null_row(plan, slot->tts_values, slot->tts_isnull));
    });
    counts->null_rows += null_rows;
    counts->outside_rows += outside_rows;
    return rows;
}

// One input, hashed keys: store each row, hash it.
static uint64 read_side_hashed(MpSetOpState* st, PlanState* child, int side) {
    ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
    MpChunkWriter* main = &st->run.writers[int(MpKeyStream::Main)][side];
    return read_side(st, child, [&](TupleTableSlot* slot) {
        mp_row_store_add(&st->run.store[side], slot);
        MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
        uint64_t key = mp_hash_row(&st->node.keys, slot->tts_values, slot->tts_isnull);
        MemoryContextSwitchTo(old);
        ResetExprContext(econtext);
        return mp_writer_put(main, key);
    });
}

// One input, image keys: the row's record into the arena, its hash and reference into
// a chunk. A new block of records counts like a pushed chunk: the memory held grew.
static uint64 read_side_images(MpSetOpState* st, PlanState* child, int side) {
    MpChunkWriter* main = &st->run.writers[int(MpKeyStream::Main)][side];
    return read_side(st, child, [&](TupleTableSlot* slot) {
        uint64 bytes = mp_image_measure(&st->node.images, &st->run.image_scratch, slot);
        uint64 ref, held = st->run.image_arena.held_bytes;
        char* record = mp_arena_reserve(&st->run.image_arena, bytes, &ref);
        uint64 hash = mp_image_write_record(&st->node.images, &st->run.image_scratch, record, bytes);
        return mp_writer_put_ref(main, hash, ref) || st->run.image_arena.held_bytes != held;
    });
}

static uint64 read_one_side(MpSetOpState* st, PlanState* child, int side, MpReadCounts* counts) {
    if (st->node.info.keys.images) return read_side_images(st, child, side);
    if (!st->node.keys.lossless) return read_side_hashed(st, child, side);
    switch (st->node.keys.key_bits) {
        case 32: return read_side_lossless<uint32_t>(st, child, side, counts);
        case 64: return read_side_lossless<uint64_t>(st, child, side, counts);
        default: return read_side_lossless<mergepath::Key128>(st, child, side, counts);
    }
}

MpReadCounts mp_read_inputs(MpSetOpState* st) {
    MpStopwatch clock;
    MpReadCounts counts = {{0, 0}, 0, 0, 0};
    PlanState* children[2] = {outerPlanState(&st->css), innerPlanState(&st->css)};
    for (int side = 0; side < 2; side++) {
        counts.rows[side] = read_one_side(st, children[side], side, &counts);
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Main)][side]);
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Nulls)][side]);
        for (int stream = 0; stream < 2; stream++) counts.alloc_us += st->run.writers[stream][side].alloc_us;
    }
    if (mp_timing_on(st)) st->stats.read_ms += clock.lap_ms();
    return counts;
}
