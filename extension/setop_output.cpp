// setop_output.cpp — step 3 of the MergePath SetOp node (see setop_exec.cpp): one
// result row per call, read straight from the library's result arrays, nothing
// materialised again:
//  - lossless keys: result_keys() are the output rows; each is decoded into the
//    scan slot (by-reference values in the per-tuple memory);
//  - hashed keys: result_positions() index sorted A, whose row numbers index the
//    stored left rows (MinimalTuples, referenced, not copied);
//  - then the exact table's groups (rows with NULLs, or the whole query after a hash
//    collision).
// The scan tuple is the set operation's columns plus the resjunk flag column (0).
#include "setop.h"

// Copies the key columns of a stored row into the virtual output slot.
void mp_copy_row(MpSetOpState* st, TupleTableSlot* row, TupleTableSlot* out) {
    slot_getsomeattrs(row, st->ncols);
    ExecClearTuple(out);
    for (int c = 0; c < st->ncols; c++) {
        out->tts_values[c] = row->tts_values[c];
        out->tts_isnull[c] = row->tts_isnull[c];
    }
    out->tts_values[st->ncols] = Int32GetDatum(0);
    out->tts_isnull[st->ncols] = false;
    ExecStoreVirtualTuple(out);
}

template <class K>
static bool next_lossless(MpSetOpState* st, TupleTableSlot* out) {
    if (st->emit_pos >= st->result_count) return false;
    const K* keys = (const K*)st->result_keys;
    ExecClearTuple(out);
    mp_decode_row<K>(&st->keys, keys[st->emit_pos++], out->tts_values, out->tts_isnull);
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
    if (st->emit_pos >= st->result_count) return false;
    uint64_t pos = st->result_positions[st->emit_pos++];
    if (pos >= st->sorted_count[0]) elog(ERROR, "pg_mergepath: result position out of range");
    int side = st->info.first_side;
    uint64_t first = group_first_position<K>(st, pos);
    ExecStoreMinimalTuple(mp_stored_row(st, side, st->sorted_rows[side][first]), st->row_slot[0], false);
    mp_copy_row(st, st->row_slot[0], out);
    return true;
}

template <class K>
static bool next_of_width(MpSetOpState* st, TupleTableSlot* out) {
    return st->keys.lossless ? next_lossless<K>(st, out) : next_hashed<K>(st, out);
}

static bool next_from_library(MpSetOpState* st, TupleTableSlot* out) {
    switch (st->keys.key_bits) {
        case 32: return next_of_width<uint32_t>(st, out);
        case 64: return next_of_width<uint64_t>(st, out);
        default: return next_of_width<mergepath::Key128>(st, out);
    }
}

bool mp_emit_next(MpSetOpState* st, TupleTableSlot* out) {
    for (;;) {
        switch (st->phase) {
            case MpPhase::EmitLibrary:
                if (next_from_library(st, out)) return true;
                st->phase = st->exact_used ? MpPhase::EmitExact : MpPhase::Done;
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
