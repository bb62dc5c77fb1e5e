// join_spill_key.cpp — one key of a spilled join (join_spill.cpp) whose rows may not fit
// one range: a join that checks no pair (no filter, no key recheck) pairs every A row of a
// key with every B row of it (an inner join that checks them judges each pair alone), so a key's pairs can be cut into
// cells, A chunk x B chunk, each loaded into a range (the key's first and last cells may
// share theirs with neighbouring keys), combined and emitted, and memory stays bounded by
// the range whatever the key's repetition.
//   - A's rows of the key are spooled first (a tuplestore holding half a range in memory,
//     as it counts: about twice the bytes the rows hold once loaded). When they fit a
//     quarter of a range (StreamB: their spool stays in memory), each range holds all of
//     them and B's next rows of the key straight from B's sort, up to the range's size:
//     cells A x B chunk j.
//   - When they do not (Grid), B's rows of the key are spooled too (a quarter of a range
//     in memory, the rest in a temporary file, as A's), and the cells run B chunk by B
//     chunk (half a range each), each with a pass over A's chunks (half a range each; a
//     second read pointer marks where the B chunk starts).
// Memory: the sorts a third of the limit each, a range up to half of it, the spools a
// sixth and a twelfth.
// Every pair comes out of exactly one cell, and no row of the key is unmatched unless the
// other side has none (then a side's rows are loaded once, alone). Semi and anti joins
// emit A's rows once: their cells use only B's first row of the key (a semi join emits
// each A row once; an anti join none, as every A row of the key matches).
#include "join_node.h"

extern "C" {
#include "utils/guc.h"
}

namespace {

// (a semi or anti join here checks no pair: join_spill.cpp's splits_keys)
bool emits_a_once(const MpJoinState* st) { return mp_join_first_match_decides(st->node.info.jointype); }

uint64 chunk_budget(uint64 target) { return Max(target / 2, uint64(1)); }
uint64 a_fits_budget(uint64 target) { return target / 4; }  // A's rows stream with B's

// A side's spool memory (kB): half a range for A's, a quarter for B's.
int spool_kb(const MpJoinState* st, int side) {
    uint64 target = mp_join_spill_range_bytes(st);
    return int(Max(uint64(64), Min((side == 0 ? target / 2 : target / 4) / 1024, uint64(MAX_KILOBYTES))));
}

// The bytes a row of the side's sort holds once loaded (as load_row counts them).
uint64 loaded_bytes(const MpJoinState* st, int side, TupleTableSlot* slot) {
    uint64 stored = st->node.nstored[side] > 0 ? ((MinimalTupleTableSlot*)slot)->mintuple->t_len : 0;
    return sizeof(uint64) + stored + st->node.info.key_bits / 8;
}

// A side's spool, in the query's context, in the sort's layout (B's with a second read
// pointer: its chunk's start).
void make_spool(MpJoinState* st, int side) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    MemoryContext old = MemoryContextSwitchTo(st->css.ss.ps.state->es_query_cxt);
    ks->rows[side] = tuplestore_begin_heap(false, false, spool_kb(st, side));
    if (side == 1) tuplestore_alloc_read_pointer(ks->rows[1], EXEC_FLAG_REWIND);  // copied onto pointer 0, which rescans
    if (!ks->slot[side]) ks->slot[side] = MakeSingleTupleTableSlot(st->strategy.spill.desc[side], &TTSOpsMinimalTuple);
    MemoryContextSwitchTo(old);
}

// Made on first use and kept, cleared, for later keys; one that went to disk is made
// again (a cleared tuplestore keeps counting the memory of its grown tuple array, and
// would go to disk, a new file, at once for every later key).
void empty_spool(MpJoinState* st, int side) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    if (ks->rows[side] && tuplestore_in_memory(ks->rows[side])) {
        tuplestore_clear(ks->rows[side]);
    } else {
        if (ks->rows[side]) tuplestore_end(ks->rows[side]);
        make_spool(st, side);
    }
    ks->count[side] = ks->bytes[side] = 0;
}

// The side's head rows of the key into its spool (at most max_rows; the rest skipped).
void spool_side(MpJoinState* st, int side, uint64 max_rows) {
    MpJoinSpill* sp = &st->strategy.spill;
    MpKeySpool* ks = &sp->spool;
    for (; mp_join_spill_same_key(sp, side, ks->key); mp_join_spill_advance(sp, side)) {
        CHECK_FOR_INTERRUPTS();
        if (ks->count[side] >= max_rows) continue;
        tuplestore_puttupleslot(ks->rows[side], sp->slot[side]);
        ks->count[side]++;
        ks->bytes[side] += loaded_bytes(st, side, sp->slot[side]);
    }
}


// StreamB: all of A's rows of the key, then B's next ones from its sort up to the range's
// size, or past it until they hold half a range (a key is split only when its B rows are
// that many, and a range holds at most one and a half times its size). Returns the rows
// loaded.
uint64 stream_b(MpJoinState* st, uint64 target, uint64* bytes) {
    MpJoinSpill* sp = &st->strategy.spill;
    MpKeySpool* ks = &sp->spool;
    uint64 rows = 0, b_bytes = 0;
    ks->key_ranges++;
    tuplestore_rescan(ks->rows[0]);
    for (uint64 i = 0; i < ks->count[0]; i++, rows++) *bytes += mp_key_spool_load_next(st, 0);
    while (mp_join_spill_same_key(sp, 1, ks->key) && (*bytes < target || b_bytes < chunk_budget(target))) {
        CHECK_FOR_INTERRUPTS();
        uint64 loaded = mp_join_spill_load_head(st, 1);
        b_bytes += loaded;
        *bytes += loaded;
        rows++;
    }
    const bool more_b = mp_join_spill_same_key(sp, 1, ks->key);
    if (more_b && !emits_a_once(st)) return rows;
    if (more_b) spool_side(st, 1, 0);  // a semi or anti join has its answer for the key: skip B's rest
    mp_key_spool_finish(st);
    return rows;
}

// Grid: the next cell, this pass's B chunk (cut on the pass's first cell: up to half a
// range, at least one row) and A's next chunk. Returns the rows loaded.
uint64 grid_cell(MpJoinState* st, uint64 target, uint64* bytes) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    const uint64 budget = chunk_budget(target);
    uint64 rows = 0;
    ks->key_ranges++;
    Tuplestorestate* b = ks->rows[1];
    tuplestore_copy_read_pointer(b, 1, 0);  // the chunk's start
    const bool cut = ks->b_chunk_rows == 0;
    for (uint64 chunk_bytes = 0; cut ? ks->b_chunk_start + ks->b_chunk_rows < ks->count[1] &&
                                           (chunk_bytes < budget || ks->b_chunk_rows == 0)
                                     : rows < ks->b_chunk_rows;
         rows++) {
        CHECK_FOR_INTERRUPTS();
        uint64 loaded = mp_key_spool_load_next(st, 1);
        chunk_bytes += loaded;
        *bytes += loaded;
        if (cut) ks->b_chunk_rows++;
    }
    for (uint64 a_bytes = 0, a_rows = 0; ks->a_read < ks->count[0] && (a_bytes < budget || a_rows == 0);
         a_rows++, rows++, ks->a_read++) {
        CHECK_FOR_INTERRUPTS();
        uint64 loaded = mp_key_spool_load_next(st, 0);
        a_bytes += loaded;
        *bytes += loaded;
    }
    if (ks->a_read == ks->count[0]) {  // the pass over A is done: the next B chunk
        ks->a_read = 0;
        tuplestore_rescan(ks->rows[0]);
        ks->b_chunk_start += ks->b_chunk_rows;
        ks->b_chunk_rows = 0;
        tuplestore_copy_read_pointer(b, 0, 1);  // pointer 0 stands after the chunk
        if (ks->b_chunk_start >= ks->count[1]) mp_key_spool_finish(st);
    }
    return rows;
}

}  // namespace

uint64 mp_key_spool_load(MpJoinState* st, const int64* key, uint64 target, uint64* bytes) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    if (!ks->rows[0]) mp_key_spool_finish(st);  // the spools' first use
    ks->key[0] = key[0];
    ks->key[1] = key[1];
    spool_side(st, 0, UINT64_MAX);
    if (ks->bytes[0] > a_fits_budget(target)) {  // A's rows alone pass a quarter of a range
        spool_side(st, 1, emits_a_once(st) ? 1 : UINT64_MAX);
        ks->phase = MpKeySpoolPhase::Grid;
        ks->a_read = ks->b_chunk_start = ks->b_chunk_rows = 0;
        tuplestore_rescan(ks->rows[0]);
        tuplestore_select_read_pointer(ks->rows[1], 0);
        tuplestore_rescan(ks->rows[1]);
        tuplestore_copy_read_pointer(ks->rows[1], 0, 1);
        return *bytes > 0 ? 0 : grid_cell(st, target, bytes);  // the range so far closes first
    }
    ks->phase = MpKeySpoolPhase::StreamB;
    if (*bytes > 0 && *bytes + ks->bytes[0] > target) return 0;  // the next range starts with the key
    return stream_b(st, target, bytes);
}

bool mp_key_spool_active(const MpJoinState* st) { return st->strategy.spill.spool.phase != MpKeySpoolPhase::None; }

uint64 mp_key_spool_next(MpJoinState* st, uint64 target, uint64* bytes) {
    if (st->strategy.spill.spool.phase == MpKeySpoolPhase::Grid) return grid_cell(st, target, bytes);
    if (st->strategy.spill.spool.phase == MpKeySpoolPhase::Loop) {
        mp_key_loop_start(st);
        return 0;
    }
    if (st->strategy.spill.spool.phase == MpKeySpoolPhase::Whole) return mp_key_loop_load_whole(st, bytes);
    return stream_b(st, target, bytes);
}

void mp_key_spool_fill(MpJoinState* st, const int64* key) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    for (int side = 0; side < 2; side++) empty_spool(st, side);  // made on first use
    ks->key[0] = key[0];
    ks->key[1] = key[1];
    for (int side = 0; side < 2; side++) spool_side(st, side, UINT64_MAX);
}

uint64 mp_key_spool_load_next(MpJoinState* st, int side) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    if (!tuplestore_gettupleslot(ks->rows[side], true, false, ks->slot[side]))
        elog(ERROR, "pg_mergepath: a spooled key has fewer rows than counted");
    return mp_join_spill_load_row(st, side, ks->slot[side], ks->key);
}

void mp_key_spool_finish(MpJoinState* st) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    for (int side = 0; side < 2; side++) empty_spool(st, side);
    if (ks->key_ranges > 1) ks->keys_split++;
    ks->key_ranges = 0;
    ks->phase = MpKeySpoolPhase::None;
    if (ks->b_matched) pfree(ks->b_matched);
    ks->b_matched = NULL;
    ks->loop_running = ks->a_loaded = ks->b_extras = false;
}

void mp_key_spool_end(MpJoinState* st) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    for (int side = 0; side < 2; side++) {
        if (ks->rows[side]) tuplestore_end(ks->rows[side]);
        if (ks->slot[side]) ExecDropSingleTupleTableSlot(ks->slot[side]);
        ks->rows[side] = NULL;
        ks->slot[side] = NULL;
        ks->count[side] = ks->bytes[side] = 0;
    }
    ks->key_ranges = 0;
    ks->phase = MpKeySpoolPhase::None;
    if (ks->b_matched) pfree(ks->b_matched);
    ks->b_matched = NULL;
    ks->loop_running = ks->a_loaded = ks->b_extras = false;
}
