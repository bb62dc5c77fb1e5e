// join_spill.cpp — a serial MergePath Join over pg_mergepath.memory_limit (the planner
// marks it: join_path.cpp). Instead of holding both inputs, each side's rows go, with
// their join key appended as one or two int8 columns, into a PostgreSQL tuplesort by
// that key (bounded by its share of the limit, spilling to temporary files that count
// against temp_file_limit and go away at end, ERROR or cancel). Then the two sorted
// streams are walked together in key order, and the rows of the keys met so far are
// put into a fresh stage exactly as read rows would be, until about a third of the
// limit is loaded: one key range, which the usual combine and emission handle (equal
// keys never straddle two ranges, so every pair and every unmatched row of a range is
// found inside it). Rows whose key has a NULL sort last and make the last ranges (kept
// only for the outer joins, as when reading).
// One key's rows on both sides are loaded together even past the range's size (a key
// repeated past the limit on both sides holds them all).
#include "join.h"

#include "timing.h"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
}

namespace {

constexpr uint64 kSignBit = uint64(1) << 63;

// An unsigned key word as an int8 that sorts the same way.
Datum word_datum(uint64 word) { return Int64GetDatum(int64(word ^ kSignBit)); }

void key_words(uint32_t key, uint64* words) { words[0] = key; }
void key_words(uint64_t key, uint64* words) { words[0] = key; }
void key_words(const mergepath::Key128& key, uint64* words) {
    words[0] = key.hi;
    words[1] = key.lo;
}

// The side's sort: the child's first read_columns columns, then the key word(s).
void begin_sort(MpJoinState* st, int side, TupleDesc child_desc, int work_kb) {
    MpJoinSpill* sp = &st->spill;
    const int ncols = st->read_columns[side];
    TupleDesc desc = CreateTemplateTupleDesc(ncols + sp->key_words);
    for (int c = 0; c < ncols; c++) TupleDescCopyEntry(desc, AttrNumber(c + 1), child_desc, AttrNumber(c + 1));
    AttrNumber attrs[2];
    Oid ops[2] = {Int8LessOperator, Int8LessOperator}, collations[2] = {InvalidOid, InvalidOid};
    bool nulls_first[2] = {false, false};  // rows with a NULL key last
    for (int w = 0; w < sp->key_words; w++) {
        attrs[w] = AttrNumber(ncols + w + 1);
        TupleDescInitEntry(desc, attrs[w], NULL, INT8OID, -1, 0);
    }
    sp->desc[side] = desc;
    sp->in[side] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
    sp->slot[side] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    sp->sort[side] = tuplesort_begin_heap(desc, sp->key_words, attrs, ops, collations, nulls_first, work_kb, NULL,
                                          TUPLESORT_NONE);
}

// One child row into its side's sort, with its key (NULLs for a key with a NULL).
template <class K>
void put_row(MpJoinState* st, int side, TupleTableSlot* row, bool null_key) {
    MpJoinSpill* sp = &st->spill;
    TupleTableSlot* in = sp->in[side];
    const int ncols = st->read_columns[side];
    ExecClearTuple(in);
    memcpy(in->tts_values, row->tts_values, sizeof(Datum) * ncols);
    memcpy(in->tts_isnull, row->tts_isnull, sizeof(bool) * ncols);
    uint64 words[2] = {0, 0};
    if (!null_key) key_words(mp_encode_join_key<K>(&st->key_side[side], row->tts_values), words);
    for (int w = 0; w < sp->key_words; w++) {
        in->tts_values[ncols + w] = word_datum(words[w]);
        in->tts_isnull[ncols + w] = null_key;
    }
    ExecStoreVirtualTuple(in);
    tuplesort_puttupleslot(sp->sort[side], in);
}

// Reads one child into its sort; returns its rows.
template <class K>
uint64 read_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    const MpJoinKeySide* keys = &st->key_side[side];
    uint64 rows = 0;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        TupleTableSlot* slot = ExecProcNode(child);
        if (TupIsNull(slot)) break;
        rows++;
        slot_getsomeattrs(slot, st->read_columns[side]);
        bool null_key = mp_join_key_has_null(keys, slot->tts_isnull);
        *null_key_rows += null_key;
        if (null_key && !st->outer_side[side]) continue;  // never matches, never emitted
        put_row<K>(st, side, slot, null_key);
    }
    return rows;
}

uint64 read_one_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    switch (st->info.key_bits) {
        case 32: return read_side<uint32_t>(st, child, side, null_key_rows);
        case 64: return read_side<uint64_t>(st, child, side, null_key_rows);
        default: return read_side<mergepath::Key128>(st, child, side, null_key_rows);
    }
}

// The side's next row out of its sort, as its head.
void advance(MpJoinSpill* sp, int side) {
    TupleTableSlot* slot = sp->slot[side];
    sp->head[side] = tuplesort_gettupleslot(sp->sort[side], true, false, slot, NULL);
    if (!sp->head[side]) return;
    const int first = slot->tts_tupleDescriptor->natts - sp->key_words;
    slot_getallattrs(slot);
    sp->head_keyed[side] = !slot->tts_isnull[first];
    for (int w = 0; w < sp->key_words; w++) sp->head_key[side][w] = DatumGetInt64(slot->tts_values[first + w]);
}

int compare_heads(const MpJoinSpill* sp, int a, int b) {
    for (int w = 0; w < sp->key_words; w++)
        if (sp->head_key[a][w] != sp->head_key[b][w]) return sp->head_key[a][w] < sp->head_key[b][w] ? -1 : 1;
    return 0;
}

// The side's head row into this range's writers and arena, as join_input.cpp puts a
// row it reads; returns the bytes it holds there. Then the next head.
template <class K>
uint64 load_head(MpJoinState* st, int side) {
    MpJoinSpill* sp = &st->spill;
    TupleTableSlot* slot = sp->slot[side];
    const bool stores = st->nstored[side] > 0;
    MpRowArena* arena = &st->arena[side];
    uint64 bytes = sizeof(uint64) + (stores ? ((MinimalTupleTableSlot*)slot)->mintuple->t_len : 0);
    bool pushed;
    if (!sp->head_keyed[side]) {
        pushed = mp_writer_put(&st->writers[int(MpKeyStream::Nulls)][side], stores ? mp_arena_put(arena, slot) : 0);
    } else {
        MpChunkWriter* main = &st->writers[int(MpKeyStream::Main)][side];
        K key = mp_encode_join_key<K>(&st->key_side[side], slot->tts_values);
        pushed = stores ? mp_writer_put_ref(main, key, mp_arena_put(arena, slot)) : mp_writer_put(main, key);
        bytes += sizeof(K);
    }
    if (unlikely(pushed)) mp_join_adopt_pending(st);
    advance(sp, side);
    return bytes;
}

// The next range: every row of the smallest keys left on either side, key after key,
// until `target` bytes are loaded; then rows with a NULL key. Returns the rows loaded.
template <class K>
uint64 load_range(MpJoinState* st, uint64 target) {
    MpJoinSpill* sp = &st->spill;
    uint64 bytes = 0, rows = 0;
    while (bytes < target && (sp->head[0] || sp->head[1])) {
        CHECK_FOR_INTERRUPTS();
        bool keyed[2] = {sp->head[0] && sp->head_keyed[0], sp->head[1] && sp->head_keyed[1]};
        if (!keyed[0] && !keyed[1]) {  // only rows with a NULL key are left
            int side = sp->head[0] ? 0 : 1;
            bytes += load_head<K>(st, side);
            rows++;
            continue;
        }
        int first = !keyed[0] ? 1 : !keyed[1] ? 0 : compare_heads(sp, 0, 1) <= 0 ? 0 : 1;
        int64 key[2] = {sp->head_key[first][0], sp->key_words > 1 ? sp->head_key[first][1] : 0};
        for (int side = 0; side < 2; side++)
            while (sp->head[side] && sp->head_keyed[side] && sp->head_key[side][0] == key[0] &&
                   (sp->key_words == 1 || sp->head_key[side][1] == key[1])) {
                bytes += load_head<K>(st, side);
                rows++;
            }
    }
    return rows;
}

}  // namespace

// A third of the limit for each side's sort, a third for the range being combined.
int mp_join_spill_sort_kb(void) {
    return int(Max(uint64(64), Min(mp_memory_limit_bytes() / 3 / 1024, uint64(MAX_KILOBYTES))));
}

void mp_join_spill_read(MpJoinState* st) {
    MpJoinSpill* sp = &st->spill;
    MpStopwatch clock;
    sp->key_words = st->info.key_bits > 64 ? 2 : 1;
    int work_kb = mp_join_spill_sort_kb();
    PlanState* children[2] = {outerPlanState(&st->css), innerPlanState(&st->css)};
    uint64 null_key_rows = 0;
    for (int side = 0; side < 2; side++) {
        begin_sort(st, side, ExecGetResultType(children[side]), work_kb);
        st->counts.stage.rows_read[side] += read_one_side(st, children[side], side, &null_key_rows);
        tuplesort_performsort(sp->sort[side]);
        TuplesortInstrumentation stats;
        tuplesort_get_stats(sp->sort[side], &stats);
        if (stats.spaceType == SORT_SPACE_TYPE_DISK) sp->disk_kb += uint64(stats.spaceUsed);
        advance(sp, side);
    }
    st->counts.stage.null_rows += null_key_rows;
    sp->sorted = true;
    if (mp_join_timing_on(st)) st->read_ms += clock.lap_ms();
}

uint64 mp_join_spill_load_range(MpJoinState* st) {
    MpStopwatch clock;
    uint64 target = Max(mp_memory_limit_bytes() / 3, uint64(1) << 16);
    uint64 rows;
    switch (st->info.key_bits) {
        case 32: rows = load_range<uint32_t>(st, target); break;
        case 64: rows = load_range<uint64_t>(st, target); break;
        default: rows = load_range<mergepath::Key128>(st, target); break;
    }
    for (int side = 0; side < 2; side++) {
        mp_writer_flush(&st->writers[int(MpKeyStream::Main)][side]);
        mp_writer_flush(&st->writers[int(MpKeyStream::Nulls)][side]);
    }
    if (rows > 0) st->spill.ranges++;
    if (mp_join_timing_on(st)) st->read_ms += clock.lap_ms();
    return rows;
}

bool mp_join_spill_more(const MpJoinState* st) { return st->spill.head[0] || st->spill.head[1]; }

void mp_join_spill_end(MpJoinState* st) {
    MpJoinSpill* sp = &st->spill;
    for (int side = 0; side < 2; side++) {
        if (sp->sort[side]) tuplesort_end(sp->sort[side]);
        if (sp->in[side]) ExecDropSingleTupleTableSlot(sp->in[side]);
        if (sp->slot[side]) ExecDropSingleTupleTableSlot(sp->slot[side]);
        if (sp->desc[side]) FreeTupleDesc(sp->desc[side]);
        sp->sort[side] = NULL;
        sp->desc[side] = NULL;
        sp->in[side] = sp->slot[side] = NULL;
        sp->head[side] = false;
    }
    sp->sorted = false;
}
