// join_spill.cpp — a MergePath Join over pg_mergepath.memory_limit. The planner marks a
// join whose estimated input exceeds the limit (join_path.cpp); a join planned within it
// switches here when what it holds reaches the limit while reading (join_input.cpp): a
// serial join's rows held so far move into the sorts and are freed (while they move, the
// node holds them and the sorts' first memory, up to 5/3 of the limit).
// Each side's rows, as their stored columns (NULLs for a row whose exact key nothing
// reads it for: mp_join_row_unread) with the join key appended (one or two
// int8 words that sort like the key), go into sorted runs of rows by that key
// (spill_runs.h: a side's rows wait in memory up to a third of the limit, then are
// sorted and written as a run, temporary files counted against temp_file_limit,
// removed at end, ERROR or cancel), read back merged in key order. Then the two sorted streams are
// walked together in key order and the rows of the keys met so far are put into a
// fresh stage exactly as read rows would be, until about a third of the limit is
// loaded: one key range, which the usual combine and emission handle (equal keys never
// straddle two ranges, so every pair and every unmatched row of a range is found
// inside it). Rows whose key has a NULL sort last and make the last ranges (kept only
// for the outer joins, as when reading).
// A key whose rows pass the range is split over several (join_spill_key.cpp), unless an
// outer, semi or anti join has a filter: then its rows on both sides are spooled and
// joined row by row (join_spill_loop.cpp).
// A parallel join's participants write their rows into hash partitions of the keys instead,
// then each claims partitions and runs them here, one after another, within its part of
// the limit (join_spill_parallel.cpp).
#include "join_node.h"

#include "read_child.h"
#include "timing.h"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "utils/guc.h"
}

namespace {

constexpr uint64 kSignBit = uint64(1) << 63;

void key_words(uint32_t key, uint64* words) { words[0] = key; }
void key_words(uint64_t key, uint64* words) { words[0] = key; }
void key_words(const mergepath::Key128& key, uint64* words) {
    words[0] = key.hi;
    words[1] = key.lo;
}
void key_of(const uint64* words, uint32_t* key) { *key = uint32_t(words[0]); }
void key_of(const uint64* words, uint64_t* key) { *key = words[0]; }
void key_of(const uint64* words, mergepath::Key128* key) {
    key->hi = words[0];
    key->lo = words[1];
}

// The side's sort: its stored columns, then the key word(s) as int8s that sort like them.
void begin_sort(MpJoinState* st, int side) {
    MpJoinSpill* sp = &st->strategy.spill;
    const int ncols = st->node.nstored[side];
    TupleDesc desc = CreateTemplateTupleDesc(ncols + sp->key_words);
    for (int c = 0; c < ncols; c++)
        TupleDescCopyEntry(desc, AttrNumber(c + 1), st->node.stored_desc[side], AttrNumber(c + 1));
    for (int w = 0; w < sp->key_words; w++) TupleDescInitEntry(desc, AttrNumber(ncols + w + 1), NULL, INT8OID, -1, 0);
    sp->desc[side] = desc;
    sp->in[side] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
    sp->slot[side] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
}

// The key of the width the runs sort, from its words.
struct RunKey {
    char bytes[sizeof(mergepath::Key128)];
};
RunKey run_key(const MpJoinState* st, const uint64* words) {
    RunKey k;
    mp_with_key_type(st->node.info.key_bits / 8, [&](auto key) {
        key_of(words, &key);
        memcpy(k.bytes, &key, sizeof(key));
        return 0;
    });
    return k;
}

// The runs' key of a row of the sorts' layout (keyed: its key words end it).
template <class K>
void row_key(const char* row_end, void* key) {
    constexpr int words = sizeof(K) > sizeof(uint64) ? 2 : 1;
    uint64 w[2] = {0, 0};
    for (int i = 0; i < words; i++) {
        memcpy(&w[i], row_end - sizeof(uint64) * (words - i), sizeof(uint64));
        w[i] ^= kSignBit;
    }
    K k;
    key_of(w, &k);
    memcpy(key, &k, sizeof(K));
}

// Room for a row of the sorts' layout in the side's runs (words NULL: a key with a NULL).
char* add_sorted(MpJoinState* st, int side, uint32 bytes, const uint64* words) {
    MpJoinSpill* sp = &st->strategy.spill;
    if (!words) return mp_spill_add_row(&sp->runs, int(MpKeyStream::Nulls), side, NULL, bytes);
    RunKey key = run_key(st, words);
    return mp_spill_add_row(&sp->runs, int(MpKeyStream::Main), side, key.bytes, bytes);
}

// One row into its side's sort, or its partition (a parallel join): its stored columns and
// key words (NULL: a key with a NULL).
void put_row(MpJoinState* st, int side, const Datum* values, const bool* isnull, const uint64* words) {
    MpJoinSpill* sp = &st->strategy.spill;
    TupleTableSlot* in = sp->in[side];
    const int ncols = st->node.nstored[side];
    ExecClearTuple(in);
    if (ncols > 0) {
        memcpy(in->tts_values, values, sizeof(Datum) * ncols);
        memcpy(in->tts_isnull, isnull, sizeof(bool) * ncols);
    }
    for (int w = 0; w < sp->key_words; w++) {
        in->tts_values[ncols + w] = words ? Int64GetDatum(int64(words[w] ^ kSignBit)) : (Datum)0;
        in->tts_isnull[ncols + w] = words == NULL;
    }
    ExecStoreVirtualTuple(in);
    if (st->strategy.way == MpJoinWay::WritePartitions) return mp_join_spill_partition_row(st, side, in, words);
    uint64 hoff, data_len;  // formed in place, as the arena forms its rows
    uint64 bytes = mp_tuple_measure(sp->desc[side], in->tts_values, in->tts_isnull, &hoff, &data_len);
    mp_tuple_form_at(add_sorted(st, side, uint32(bytes), words), sp->desc[side], in->tts_values, in->tts_isnull, hoff,
                     data_len);
}

// Reads the rest of one child into its sort; returns its rows.
template <class K>
uint64 read_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    const MpJoinKeySide* keys = &st->node.key_side[side];
    MpRowArena* arena = &st->run.arena[side];  // its scratch gathers the stored columns
    return mp_read_child(child, st->node.read_columns[side], [&](TupleTableSlot* slot) {
        bool null_key = mp_join_key_has_null(keys, slot->tts_isnull);
        *null_key_rows += null_key;
        if (null_key && !st->node.outer_side[side]) return true;  // never matches, never emitted
        mp_arena_gather(arena, slot);
        uint64 words[2] = {0, 0};
        if (!null_key) {
            K key = mp_encode_join_key<K>(keys, slot->tts_values);
            key_words(key, words);
            if (mp_join_row_unread(st, side, key))  // its columns go in as NULLs
                for (int c = 0; c < arena->ncols; c++) arena->isnull[c] = true;
        }
        put_row(st, side, arena->values, arena->isnull, null_key ? NULL : words);
        return true;
    });
}

// The rows held in chunks so far (a join that passed the limit while reading) into the
// sorts: each key with its stored row, read back from the arena.
template <class K>
void move_held_rows(MpJoinState* st) {
    TupleTableSlot* row[2] = {MakeSingleTupleTableSlot(st->node.stored_desc[0], &TTSOpsMinimalTuple),
                              MakeSingleTupleTableSlot(st->node.stored_desc[1], &TTSOpsMinimalTuple)};
    for (MpChunk* c = mp_chunk_at(&st->run.space, mp_join_shared(st)->parallel.queue.all); c;
         c = mp_chunk_at(&st->run.space, c->next_all)) {
        if (c->stream > uint32(MpKeyStream::Nulls)) continue;  // a block of stored rows
        const int side = int(c->side);
        const bool keyed = c->stream == uint32(MpKeyStream::Main), stores = st->node.nstored[side] > 0;
        for (uint64 i = 0; i < c->count; i++) {
            CHECK_FOR_INTERRUPTS();
            uint64 ref = keyed ? (stores ? mp_chunk_refs(c)[i] : 0) : ((const uint64*)mp_chunk_keys(c))[i];
            const Datum* values = NULL;  // a side that stores no columns: none to put
            const bool* isnull = NULL;
            if (stores) {
                ExecStoreMinimalTuple(mp_arena_row(&st->run.space, ref), row[side], false);
                slot_getallattrs(row[side]);
                values = row[side]->tts_values;
                isnull = row[side]->tts_isnull;
            }
            uint64 words[2] = {0, 0};
            if (keyed) key_words(((const K*)mp_chunk_keys(c))[i], words);
            put_row(st, side, values, isnull, keyed ? words : NULL);
        }
    }
    ExecDropSingleTupleTableSlot(row[0]);
    ExecDropSingleTupleTableSlot(row[1]);
}

// The side's head row into this range's writers and arena, as join_input.cpp puts a
// row it reads; returns the bytes it holds there. `key`: the row's key words as the sort
// holds them, or NULL (a key with a NULL).
template <class K>
uint64 load_row(MpJoinState* st, int side, TupleTableSlot* slot, const int64* key) {
    MpJoinSpill* sp = &st->strategy.spill;
    const bool stores = st->node.nstored[side] > 0;
    MpRowArena* arena = &st->run.arena[side];
    slot_getallattrs(slot);
    uint64 bytes = sizeof(uint64) + (stores ? ((MinimalTupleTableSlot*)slot)->mintuple->t_len : 0);
    uint64 ref = stores ? mp_arena_put_values(arena, slot->tts_values, slot->tts_isnull) : 0;
    K k;
    if (key) {
        uint64 words[2];
        for (int w = 0; w < sp->key_words; w++) words[w] = uint64(key[w]) ^ kSignBit;
        key_of(words, &k);
        bytes += sizeof(K);
    }
    mp_join_put_row(st, side, key ? &k : NULL, ref);
    return bytes;
}

// The smallest key among the heads, both keyed.
int smaller_head(const MpJoinSpill* sp) {
    for (int w = 0; w < sp->key_words; w++)
        if (sp->head_key[0][w] != sp->head_key[1][w]) return sp->head_key[0][w] < sp->head_key[1][w] ? 0 : 1;
    return 0;
}

// A key's rows may be split over ranges (join_spill_key.cpp) when every pair of them can
// be judged alone: a join that checks no pair (all pairs match: no filter, no key
// recheck), or an inner join (its checks judge each pair; no row is emitted for being
// unmatched). An outer, semi or
// anti join that checks pairs loads a key's rows on both sides together, or, past a range,
// joins them row by row (join_spill_loop.cpp): whether a row is emitted depends on every
// row of the other side.
bool splits_keys(const MpJoinState* st) { return !mp_join_checks_pairs(st) || st->node.info.jointype == JOIN_INNER; }

// The next range: every row of the smallest keys left on either side, key after key,
// until `target` bytes are loaded; then rows with a NULL key. Returns the rows loaded.
uint64 load_range(MpJoinState* st, uint64 target) {
    MpJoinSpill* sp = &st->strategy.spill;
    uint64 bytes = 0, rows = 0;
    if (mp_key_spool_active(st)) {
        rows = mp_key_spool_next(st, target, &bytes);
        if (mp_key_spool_active(st)) return rows;  // the key goes on in the next range too
    }
    while (bytes < target && (sp->head[0] || sp->head[1])) {
        CHECK_FOR_INTERRUPTS();
        bool keyed[2] = {sp->head[0] && sp->head_keyed[0], sp->head[1] && sp->head_keyed[1]};
        if (!keyed[0] && !keyed[1]) {  // only rows with a NULL key are left
            bytes += mp_join_spill_load_head(st, sp->head[0] ? 0 : 1);
            rows++;
            continue;
        }
        int first = !keyed[0] ? 1 : !keyed[1] ? 0 : smaller_head(sp);
        int64 key[2] = {sp->head_key[first][0], sp->key_words > 1 ? sp->head_key[first][1] : 0};
        rows += splits_keys(st) ? mp_key_spool_load(st, key, target, &bytes) : mp_key_loop_load(st, key, target, &bytes);
        if (mp_key_spool_active(st)) break;  // the key goes on in the next ranges, or row by row
    }
    return rows;
}

}  // namespace

uint64 mp_join_spill_load_row(MpJoinState* st, int side, TupleTableSlot* slot, const int64* key) {
    return mp_with_key_type(st->node.info.key_bits / 8,
                            [&](auto k) { return load_row<decltype(k)>(st, side, slot, key); });
}

uint64 mp_join_spill_load_head(MpJoinState* st, int side) {
    MpJoinSpill* sp = &st->strategy.spill;
    uint64 bytes = mp_join_spill_load_row(st, side, sp->slot[side], sp->head_keyed[side] ? sp->head_key[side] : NULL);
    mp_join_spill_advance(sp, side);
    return bytes;
}

void mp_join_spill_advance(MpJoinSpill* sp, int side) {
    if (sp->head[side]) mp_spill_row_advance(&sp->runs, int(sp->head_stream[side]), side);  // handed out
    TupleTableSlot* slot = sp->slot[side];
    MinimalTuple row = NULL;
    for (MpKeyStream stream : {MpKeyStream::Main, MpKeyStream::Nulls}) {  // rows with a NULL key last
        row = mp_spill_row_head(&sp->runs, int(stream), side);
        sp->head_stream[side] = stream;
        if (row) break;
    }
    sp->head[side] = row != NULL;
    if (!row) {
        ExecClearTuple(slot);
        return;
    }
    ExecStoreMinimalTuple(row, slot, false);  // valid until the side advances
    const int first = slot->tts_tupleDescriptor->natts - sp->key_words;
    slot_getallattrs(slot);
    sp->head_keyed[side] = !slot->tts_isnull[first];
    for (int w = 0; w < sp->key_words; w++) sp->head_key[side][w] = DatumGetInt64(slot->tts_values[first + w]);
}

void mp_join_spill_put_sorted(MpJoinState* st, int side, TupleTableSlot* slot, MinimalTuple row) {
    MpJoinSpill* sp = &st->strategy.spill;
    const int first = slot->tts_tupleDescriptor->natts - sp->key_words;
    slot_getallattrs(slot);
    uint64 words[2] = {0, 0};
    for (int w = 0; w < sp->key_words; w++) words[w] = uint64(DatumGetInt64(slot->tts_values[first + w])) ^ kSignBit;
    memcpy(add_sorted(st, side, row->t_len, slot->tts_isnull[first] ? NULL : words), row, row->t_len);
}

bool mp_join_spill_same_key(const MpJoinSpill* sp, int side, const int64* key) {
    return sp->head[side] && sp->head_keyed[side] && sp->head_key[side][0] == key[0] &&
           (sp->key_words == 1 || sp->head_key[side][1] == key[1]);
}

// Both sides' sorts closed, with their slots and descriptors (and the key spools, whose
// slots are over those descriptors).
void mp_join_spill_close_sorts(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    mp_key_spool_end(st);
    if (sp->runs_cxt) {
        mp_spill_close(&sp->runs);
        MemoryContextDelete(sp->runs_cxt);
        sp->runs_cxt = NULL;
    }
    for (int side = 0; side < 2; side++) {
        if (sp->in[side]) ExecDropSingleTupleTableSlot(sp->in[side]);
        if (sp->slot[side]) ExecDropSingleTupleTableSlot(sp->slot[side]);
        if (sp->desc[side]) FreeTupleDesc(sp->desc[side]);
        sp->desc[side] = NULL;
        sp->in[side] = sp->slot[side] = NULL;
        sp->head[side] = false;
    }
}

// A third of the limit for each side's sort, a third for the range being combined (up to
// half of it with a key's rows, and the key spools besides: join_spill_key.cpp).
int mp_join_spill_sort_kb(void) {
    return int(Max(uint64(64), Min(mp_memory_limit_bytes() / 3 / 1024, uint64(MAX_KILOBYTES))));
}

void mp_join_spill_open_sorts(MpJoinState* st, int work_kb, int sharing) {
    MpJoinSpill* sp = &st->strategy.spill;
    sp->key_words = st->node.info.key_bits > 64 ? 2 : 1;
    MemoryContext query = st->css.ss.ps.state->es_query_cxt;
    MemoryContext old = MemoryContextSwitchTo(query);
    for (int side = 0; side < 2; side++) begin_sort(st, side);
    MemoryContextSwitchTo(old);
    if (work_kb == 0) return;  // only the layout: rows written into partitions (a parallel join)
    sp->runs_cxt = AllocSetContextCreate(query, "pg_mergepath Join runs", ALLOCSET_DEFAULT_SIZES);
    MpRowKeyFn key_fn =
        mp_with_key_type(st->node.info.key_bits / 8, [](auto k) -> MpRowKeyFn { return row_key<decltype(k)>; });
    mp_spill_init_rows(&sp->runs, sp->runs_cxt, st->node.info.key_bits / 8, key_fn, uint64(work_kb) * 1024,
                       mp_memory_limit_bytes() / uint64(Max(1, sharing)), sharing);
}

void mp_join_spill_begin(MpJoinState* st) {
    if (st->strategy.way == MpJoinWay::WritePartitions)
        mp_join_spill_share_begin(st);  // join_spill_parallel.cpp
    else mp_join_spill_open_sorts(st, mp_join_spill_sort_kb());
}

bool mp_join_spill_planned(const MpJoinState* st) {
    return st->node.info.spill && mp_memory_limit_bytes() > 0 && (!st->dsm || mp_join_spill_share_planned(st));
}

bool mp_join_spill_due(MpJoinState* st) {
    uint64 limit = mp_memory_limit_bytes();
    if (limit == 0 || mp_join_way_sorts_input(st->strategy.way)) return false;
    if (mp_join_runs_shared(st)) return mp_join_spill_share_due(st, limit);
    uint64 held = mp_join_shared(st)->parallel.queue.used_bytes + mp_writers_used_bytes(st->run.writers) +
                  st->run.arena[0].held_bytes + st->run.arena[1].held_bytes;
    // a streamed outer side keeps B's sorted keys and a directory over them (up to two
    // words per key) besides
    if (st->strategy.way == MpJoinWay::StreamOuter)
        held += st->strategy.probe.b_keys_held * (st->node.info.key_bits / 8 + 2 * sizeof(uint64));
    return held >= limit;
}

void mp_join_spill_move_held(MpJoinState* st) {
    mp_with_key_type(st->node.info.key_bits / 8, [&](auto k) {
        move_held_rows<decltype(k)>(st);
        return 0;
    });
}

uint64 mp_join_spill_read_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    return mp_with_key_type(st->node.info.key_bits / 8,
                            [&](auto k) { return read_side<decltype(k)>(st, child, side, null_key_rows); });
}

void mp_join_spill_perform(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    mp_spill_finish_rows(&sp->runs);
    sp->disk_kb += sp->runs.report.bytes / 1024;
    for (int side = 0; side < 2; side++) mp_join_spill_advance(sp, side);
    // (a claimed partition's way stays JoinPartitions)
    if (st->strategy.way == MpJoinWay::SortInput) st->strategy.way = MpJoinWay::SortedRanges;
}

// A parallel participant's rows wait in its partition files until partitions are claimed.
void mp_join_spill_finish_read(MpJoinState* st) {
    if (st->strategy.way == MpJoinWay::WritePartitions)
        mp_join_spill_share_finish(st);
    else mp_join_spill_perform(st);
}

uint64 mp_join_spill_load_range(MpJoinState* st) {
    MpStopwatch clock;
    uint64 target = mp_join_spill_range_bytes(st);
    uint64 rows = load_range(st, target);
    for (int side = 0; side < 2; side++) {
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Main)][side]);
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Nulls)][side]);
    }
    if (rows > 0) {
        st->strategy.spill.ranges++;
        st->strategy.spill.run_ranges++;
    }
    if (mp_join_timing_on(st)) st->stats.read_ms += clock.lap_ms();
    return rows;
}

uint64 mp_join_spill_range_bytes(const MpJoinState* st) {
    return Max(mp_memory_limit_bytes() / 3 / uint64(Max(1, st->strategy.spill.sharing)), uint64(1) << 16);
}

bool mp_join_spill_more(const MpJoinState* st) {
    return st->strategy.spill.head[0] || st->strategy.spill.head[1] || mp_key_spool_active(st);
}

void mp_join_spill_end(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    mp_join_spill_close_sorts(st);
    mp_join_spill_share_finish(st);  // a parallel participant's partition files, if open
    mp_join_spill_share_close(st);
    sp->budget_full = false;
    sp->run_ranges = 0;
    sp->arena_reported = 0;
    sp->sharing = 1;
    sp->joined = 0;
    sp->report_shared = false;
}
