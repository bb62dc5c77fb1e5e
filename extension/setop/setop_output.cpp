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
// The scan tuple is the set operation's columns plus the resjunk flag column (0).
#include "setop_node.h"

// The next range of results for this process: a serial node's is all of them.
static bool next_range(MpSetOpState* st) {
    if (st->way == MpSetOpWay::SharedInMemory) {
        if (!mp_shared_claim(st->shared, mp_result_total(st), &st->emit_pos, &st->emit_end)) return false;
        mp_shared_wait_ready(st->shared, st->emit_end);  // the combiner may still be copying them in
        return true;
    }
    while (st->emit_end == mp_result_total(st))  // all emitted: a spilled node has more ranges
        if (mp_setop_way_in_memory(st->way) || !mp_ranges_next_results(st)) return false;
    st->emit_pos = 0;
    st->emit_end = mp_result_total(st);
    return true;
}

// Puts the cursor on position pos of stream 0 ++ stream 1.
static void seek(MpSetOpState* st, uint64 pos) {
    int stream = pos < st->result_count[0] ? 0 : 1;
    uint64 offset = stream == 0 ? pos : pos - st->result_count[0];
    int run = 0;
    while (offset >= st->runs[stream][run].count) offset -= st->runs[stream][run++].count;
    st->cursor_stream = stream;
    st->cursor_run = run;
    st->cursor_offset = offset;
}

// Moves the cursor on by one result.
static void advance_cursor(MpSetOpState* st) {
    const MpResultRun& run = st->runs[st->cursor_stream][st->cursor_run];
    if (++st->cursor_offset < run.count) return;
    st->cursor_offset = 0;
    if (++st->cursor_run < st->run_count[st->cursor_stream]) return;
    st->cursor_run = 0;
    st->cursor_stream++;
}

// Decodes the key at the cursor into out's values.
template <class K>
static void decode_at_cursor(MpSetOpState* st, TupleTableSlot* out) {
    const MpResultRun& run = st->runs[st->cursor_stream][st->cursor_run];
    if (st->cursor_stream == 0)
        mp_decode_row<K>(&st->keys, ((const K*)run.keys)[st->cursor_offset], out->tts_values, out->tts_isnull,
                         st->uuid_bufs);
    else
        mp_decode_null_row(&st->keys, ((const mergepath::Key128*)run.keys)[st->cursor_offset], out->tts_values,
                           out->tts_isnull, st->uuid_bufs);
}

// Puts the row of the record at the cursor into out's values.
static void record_at_cursor(MpSetOpState* st, TupleTableSlot* out) {
    const MpResultRun& run = st->runs[st->cursor_stream][st->cursor_run];
    const char* record = (const char*)mp_space_at(&st->space, ((const uint64*)run.keys)[st->cursor_offset]);
    mp_image_output(&st->images, &st->image_scratch, record, out);
}

// The next result row from the runs, put into out by row_at_cursor.
template <class RowAtCursor>
static bool next_from_runs(MpSetOpState* st, TupleTableSlot* out, RowAtCursor row_at_cursor) {
    if (st->emit_pos == st->emit_end) {
        if (!next_range(st)) return false;
        seek(st, st->emit_pos);
    }
    ExecClearTuple(out);
    row_at_cursor(st, out);
    advance_cursor(st);
    st->emit_pos++;
    out->tts_values[st->ncols] = Int32GetDatum(0);
    out->tts_isnull[st->ncols] = false;
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
    const K* a = (const K*)st->sorted_keys[0];
    const K* keys = (const K*)st->sorted_keys[st->info.first_side];
    const K& key = a[pos_a];
    if (st->run_start_valid && keys[st->run_start] == key) return st->run_start;
    uint64_t start;
    if (st->info.first_side == 0) {
        for (start = pos_a; start > 0 && a[start - 1] == key; --start)
            if (((pos_a - start) & 0xffff) == 0xffff) CHECK_FOR_INTERRUPTS();
    } else {
        start = st->run_start_valid ? st->run_start : 0;
        while (start < st->sorted_count[1] && keys[start] < key)
            if ((++start & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        if (start >= st->sorted_count[1] || !(keys[start] == key))
            elog(ERROR, "pg_mergepath: INTERSECT result key missing from the right input");
    }
    st->run_start = start;
    st->run_start_valid = true;
    return start;
}

template <class K>
static bool next_hashed(MpSetOpState* st, TupleTableSlot* out) {
    if (st->emit_pos >= st->result_count[0]) return false;
    uint64_t pos = st->result_positions[st->emit_pos++];
    if (pos >= st->sorted_count[0]) elog(ERROR, "pg_mergepath: result position out of range");
    int side = st->info.first_side;
    uint64_t first = group_first_position<K>(st, pos);
    ExecStoreMinimalTuple(mp_row_store_get(&st->store[side], st->sorted_rows[side][first]), st->row_slot[0], false);
    mp_copy_row(st->row_slot[0], st->ncols, out);
    return true;
}

template <class K>
static bool next_of_width(MpSetOpState* st, TupleTableSlot* out) {
    return st->keys.lossless ? next_from_runs(st, out, decode_at_cursor<K>) : next_hashed<K>(st, out);
}

static bool next_from_library(MpSetOpState* st, TupleTableSlot* out) {
    if (st->info.keys.images) return next_from_runs(st, out, record_at_cursor);
    switch (st->keys.key_bits) {
        case 32: return next_of_width<uint32_t>(st, out);
        case 64: return next_of_width<uint64_t>(st, out);
        default: return next_of_width<mergepath::Key128>(st, out);
    }
}

// Points the state at the library's with-rows results of hashed keys (no copy).
void mp_keep_hashed_results(MpSetOpState* st) {
    MpResults<uint64_t> r = mp_stage_results<uint64_t>(st->stage);
    st->result_positions = r.result_positions;
    st->result_count[0] = r.position_count;
    st->result_count[1] = 0;
    for (int side = 0; side < 2; ++side) {
        st->sorted_rows[side] = r.sorted_rows[side];
        st->sorted_keys[side] = r.sorted_keys[side];
        st->sorted_count[side] = r.side_count[side];
    }
    st->run_start_valid = false;
}

// Emits the same results again from the start (a rescan with unchanged inputs).
void mp_restart_emit(MpSetOpState* st) {
    st->emit_pos = st->emit_end = 0;
    st->run_start_valid = false;  // the emit cursor of the hashed keys starts over
    st->phase = st->hash_collision ? MpPhase::EmitExact : MpPhase::EmitLibrary;
    if (st->hash_collision) mp_exact_start_emit(st);
    if (!mp_setop_way_in_memory(st->way)) mp_ranges_restart(st);
}

bool mp_emit_next(MpSetOpState* st, TupleTableSlot* out) {
    for (;;) {
        switch (st->phase) {
            case MpPhase::EmitLibrary:
                if (next_from_library(st, out)) return true;
                st->phase = MpPhase::Done;
                break;
            case MpPhase::EmitExact:
                if (mp_exact_next(st, out)) return true;
                st->phase = MpPhase::Done;
                break;
            case MpPhase::Done:
                return false;
            case MpPhase::Init:
                elog(ERROR, "pg_mergepath: emitting before the set operation ran");
        }
    }
}
