// setop_output.cpp — step 3 of the MergePath SetOp node (see setop_exec.cpp): one
// result row per call, read straight from the result arrays, nothing materialised
// again and nothing allocated per row:
//  - lossless keys: the runs of main keys, then those of null-layout keys, are the
//    output rows; each is decoded into the scan slot (uuids into per-column buffers).
//    A serial node walks them all; each participant of a parallel node walks the
//    batches it claims from the shared cursor;
//  - image keys: the runs hold the references of the result rows' records, whose
//    image (or original columns) is put into the scan slot;
//  - hashed keys (serial only): result positions index sorted A, whose row numbers
//    index the stored left rows (referenced, not copied);
//  - after a hash collision, the exact table's groups.
// The scan tuple is the set operation's columns, plus (before 18, where the native SetOp
// reads an Append of flagged inputs) the resjunk flag column (0).
#include "setop_node.h"

// The next range of results for this process: a serial node's is all of them, and so
// is a one-emitter node's combiner's (claimed batch by batch, or range by range, in
// key order, with no one else claiming).
static bool next_range(MpSetOpState* st) {
    if (st->emitter.silent) return false;  // the combiner emits every result (one_emitter)
    if (st->strategy.way == MpSetOpWay::SharedInMemory) {
        if (!mp_shared_claim(st->shared, mp_result_total(st), &st->emitter.emit_pos, &st->emitter.emit_end))
            return false;
        mp_shared_wait_ready(st->shared, st->emitter.emit_end);  // the combiner may still be copying them in
        return true;
    }
    while (st->emitter.emit_end == mp_result_total(st))  // all emitted: a spilled node has more ranges
        if (mp_setop_way_in_memory(st->strategy.way) || !mp_ranges_next_results(st)) return false;
    st->emitter.emit_pos = 0;
    st->emitter.emit_end = mp_result_total(st);
    return true;
}

// Puts the cursor on position pos of stream 0 ++ stream 1.
static void seek(MpSetOpState* st, uint64 pos) {
    int stream = pos < st->emitter.result_count[0] ? 0 : 1;
    uint64 offset = stream == 0 ? pos : pos - st->emitter.result_count[0];
    int run = 0;
    while (offset >= st->emitter.runs[stream][run].count) offset -= st->emitter.runs[stream][run++].count;
    st->emitter.cursor_stream = stream;
    st->emitter.cursor_run = run;
    st->emitter.cursor_offset = offset;
}

// Moves the cursor on by one result.
static inline void advance_cursor(MpSetOpState* st) {
    const MpResultRun& run = st->emitter.runs[st->emitter.cursor_stream][st->emitter.cursor_run];
    if (++st->emitter.cursor_offset < run.count) return;
    st->emitter.cursor_offset = 0;
    if (++st->emitter.cursor_run < st->emitter.run_count[st->emitter.cursor_stream]) return;
    st->emitter.cursor_run = 0;
    st->emitter.cursor_stream++;
}

// Decodes the key at the cursor into out's values.
template <class K>
static void decode_at_cursor(MpSetOpState* st, TupleTableSlot* out) {
    const MpResultRun& run = st->emitter.runs[st->emitter.cursor_stream][st->emitter.cursor_run];
    if (st->emitter.cursor_stream == 0)
        mp_decode_row<K>(&st->node.keys, ((const K*)run.keys)[st->emitter.cursor_offset], out->tts_values,
                         out->tts_isnull, st->node.uuid_bufs);
    else
        mp_decode_null_row(&st->node.keys, ((const mergepath::Key128*)run.keys)[st->emitter.cursor_offset],
                           out->tts_values, out->tts_isnull, st->node.uuid_bufs);
}

// Puts the row of the record at the cursor into out's values.
static void record_at_cursor(MpSetOpState* st, TupleTableSlot* out) {
    const MpResultRun& run = st->emitter.runs[st->emitter.cursor_stream][st->emitter.cursor_run];
    const char* record = (const char*)mp_space_at(&st->run.space, ((const uint64*)run.keys)[st->emitter.cursor_offset]);
    mp_image_output(&st->node.images, &st->run.image_scratch, record, out);
}

// The next result row from the runs, put into out by row_at_cursor.
template <class RowAtCursor>
static bool next_from_runs(MpSetOpState* st, TupleTableSlot* out, RowAtCursor row_at_cursor) {
    if (st->emitter.emit_pos == st->emitter.emit_end) {
        if (!next_range(st)) return false;
        seek(st, st->emitter.emit_pos);
    }
    ExecClearTuple(out);
    row_at_cursor(st, out);
    advance_cursor(st);
    st->emitter.emit_pos++;
    mp_put_flag_column(out, st->node.ncols);
    ExecStoreVirtualTuple(out);
    return true;
}

// Like nodeSetOp.c, every copy of a group is emitted as the group's first row read
// (equal rows may print differently: 1.0 and 1.00, -0 and 0), from the input the
// replaced plan reads first (info.first_side). The sorts are stable, so that row is
// at the first sorted position of the key's run on that side (hash_verify.cpp proved
// all rows of a run equal). Result positions ascend, so each run is found once: by
// walking back in A, or forward in B (an INTERSECT result key is always in B).
template <class K>
static uint64_t group_first_position(MpSetOpState* st, uint64_t pos_a) {
    const K* a = (const K*)st->emitter.sorted_keys[0];
    const K* keys = (const K*)st->emitter.sorted_keys[st->node.info.first_side];
    const K& key = a[pos_a];
    if (st->emitter.run_start_valid && keys[st->emitter.run_start] == key) return st->emitter.run_start;
    uint64_t start;
    if (st->node.info.first_side == 0) {
        for (start = pos_a; start > 0 && a[start - 1] == key; --start)
            if (((pos_a - start) & 0xffff) == 0xffff) CHECK_FOR_INTERRUPTS();
    } else {
        start = st->emitter.run_start_valid ? st->emitter.run_start : 0;
        while (start < st->emitter.sorted_count[1] && keys[start] < key)
            if ((++start & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        if (start >= st->emitter.sorted_count[1] || !(keys[start] == key))
            elog(ERROR, "pg_mergepath: INTERSECT result key missing from the right input");
    }
    st->emitter.run_start = start;
    st->emitter.run_start_valid = true;
    return start;
}

template <class K>
static bool next_hashed(MpSetOpState* st, TupleTableSlot* out) {
    if (st->emitter.emit_pos >= st->emitter.result_count[0]) return false;
    uint64_t pos = st->emitter.result_positions[st->emitter.emit_pos++];
    if (pos >= st->emitter.sorted_count[0]) elog(ERROR, "pg_mergepath: result position out of range");
    int side = st->node.info.first_side;
    uint64_t first = group_first_position<K>(st, pos);
    ExecStoreMinimalTuple(mp_row_store_get(&st->run.store[side], st->emitter.sorted_rows[side][first]),
                          st->node.row_slot[0], false);
    mp_copy_row(st->node.row_slot[0], st->node.ncols, out);
    return true;
}

template <class K>
static bool next_of_width(MpSetOpState* st, TupleTableSlot* out) {
    // a lambda, not the function's address: the decoding is inlined into the row loop
    auto decode = [](MpSetOpState* s, TupleTableSlot* o) { decode_at_cursor<K>(s, o); };
    return st->node.keys.lossless ? next_from_runs(st, out, decode) : next_hashed<K>(st, out);
}

static bool next_from_library(MpSetOpState* st, TupleTableSlot* out) {
    if (st->node.info.keys.images) return next_from_runs(st, out, record_at_cursor);
    switch (st->node.keys.key_bits) {
        case 32: return next_of_width<uint32_t>(st, out);
        case 64: return next_of_width<uint64_t>(st, out);
        default: return next_of_width<mergepath::Key128>(st, out);
    }
}

// Points the state at the library's with-rows results of hashed keys (no copy).
void mp_keep_hashed_results(MpSetOpState* st) {
    MpResults<uint64_t> r = mp_stage_results<uint64_t>(st->run.stage);
    st->emitter.result_positions = r.result_positions;
    st->emitter.result_count[0] = r.position_count;
    st->emitter.result_count[1] = 0;
    for (int side = 0; side < 2; ++side) {
        st->emitter.sorted_rows[side] = r.sorted_rows[side];
        st->emitter.sorted_keys[side] = r.sorted_keys[side];
        st->emitter.sorted_count[side] = r.side_count[side];
    }
    st->emitter.run_start_valid = false;
}

// Emits the same results again from the start (a rescan with unchanged inputs).
void mp_restart_emit(MpSetOpState* st) {
    st->emitter.emit_pos = st->emitter.emit_end = 0;
    st->emitter.run_start_valid = false;  // the emit cursor of the hashed keys starts over
    st->emitter.phase = st->emitter.hash_collision ? MpPhase::EmitExact : MpPhase::EmitLibrary;
    if (st->emitter.hash_collision) mp_exact_start_emit(st);
    if (!mp_setop_way_in_memory(st->strategy.way)) mp_ranges_restart(st);
}

bool mp_emit_next(MpSetOpState* st, TupleTableSlot* out) {
    for (;;) {
        switch (st->emitter.phase) {
            case MpPhase::EmitLibrary:
                if (next_from_library(st, out)) return true;
                st->emitter.phase = MpPhase::Done;
                break;
            case MpPhase::EmitExact:
                if (mp_exact_next(st, out)) return true;
                st->emitter.phase = MpPhase::Done;
                break;
            case MpPhase::Done:
                return false;
            case MpPhase::Init:
                elog(ERROR, "pg_mergepath: emitting before the set operation ran");
        }
    }
}
