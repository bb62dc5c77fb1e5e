// join_input.cpp — step 1 of the MergePath Join (see join_exec.cpp): reading this
// process's share of both inputs into key chunks and stored rows.
//
// Per row, straight from the child's slot, deformed only as far as the key and stored
// columns reach: the row's stored columns are formed into the side's arena (when the
// join emits, filters on or rechecks any column of that side; a row whose exact key
// needs no recheck, on a side nothing else reads, shares the arena's one row of NULLs:
// mp_join_row_unread) and its key goes into the main stream's chunk with the row's
// reference. A row with a NULL in a key column never matches: it is kept (its
// reference, in the other stream) only when its side's unmatched rows are emitted
// (outer joins), else dropped. Nothing is allocated per row. When a chunk fills, the
// combining process may adopt the chunks pushed so far (the GPU then sorts them while
// the input is still being read). A join over the memory limit reads into sorts instead
// (join_spill.cpp): from the start when it was planned so, or from the chunk or block of
// stored rows that takes a serial join to the limit.
// A join whose outer side streams (join_probe.cpp) reads only B here.
#include "join_node.h"

#include "read_child.h"
#include "timing.h"

// One side, keys of type K. Returns the rows read.
template <class K>
static uint64 read_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    MpRowArena* arena = &st->run.arena[side];
    const MpJoinKeySide* keys = &st->node.key_side[side];
    const bool stores = st->node.nstored[side] > 0, keeps_nulls = st->node.outer_side[side];
    uint64 null_keys = 0, keyed = 0, arena_held = arena->held_bytes;
    bool over_limit = false;
    uint64 rows = mp_read_child(child, st->node.read_columns[side], [&](TupleTableSlot* slot) {
        bool null_key = mp_join_key_has_null(keys, slot->tts_isnull);
        if (unlikely(null_key)) {
            null_keys++;
            if (!keeps_nulls) return true;
        }
        K key;
        if (likely(!null_key)) {
            key = mp_encode_join_key<K>(keys, slot->tts_values);
            keyed++;
        }
        uint64 ref = 0;
        if (stores)
            ref = !null_key && mp_join_row_unread(st, side, key) ? mp_arena_put_all_null(arena) : mp_arena_put(arena, slot);
        bool pushed = mp_join_put_row(st, side, null_key ? NULL : &key, ref);
        // what the node holds grows by chunks and by blocks of stored rows: checked at each
        if (likely(!pushed && arena->held_bytes == arena_held)) return true;
        arena_held = arena->held_bytes;
        if (side == 1) st->strategy.probe.b_keys_held = keyed;
        over_limit = mp_join_spill_due(st);
        return !over_limit;
    });
    *null_key_rows += null_keys;
    if (!over_limit) return rows;
    mp_join_switch_way(st);  // the rows held so far, and the rest, go through the sorts (join_way.cpp)
    return rows + mp_join_spill_read_side(st, child, side, null_key_rows);
}

static uint64 read_one_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows) {
    return mp_with_key_type(st->node.info.key_bits / 8,
                            [&](auto k) { return read_side<decltype(k)>(st, child, side, null_key_rows); });
}

MpJoinReadCounts mp_join_read_inputs(MpJoinState* st) {
    MpStopwatch clock;
    MpJoinReadCounts counts = {{0, 0}, 0};
    PlanState* children[2] = {outerPlanState(&st->css), innerPlanState(&st->css)};
    if (mp_join_way_sorts_input(st->strategy.way)) mp_join_spill_begin(st);  // planned over the limit
    // A streams past sorted B later (join_probe.cpp)
    const bool streams_a = st->strategy.way == MpJoinWay::StreamOuter;
    for (int side = 0; side < 2; side++) {
        if (side == 0 && streams_a) continue;
        if (mp_join_way_sorts_input(st->strategy.way)) {
            counts.rows[side] = mp_join_spill_read_side(st, children[side], side, &counts.null_key_rows);
            continue;
        }
        counts.rows[side] = read_one_side(st, children[side], side, &counts.null_key_rows);  // may switch
        if (mp_join_way_sorts_input(st->strategy.way)) continue;
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Main)][side]);
        mp_writer_flush(&st->run.writers[int(MpKeyStream::Nulls)][side]);
    }
    if (streams_a && mp_join_way_sorts_input(st->strategy.way)) {  // B reached the limit: A goes into its sort too
        st->strategy.probe.spilled = true;
        counts.rows[0] = mp_join_spill_read_side(st, children[0], 0, &counts.null_key_rows);
    }
    if (mp_join_way_sorts_input(st->strategy.way)) mp_join_spill_finish_read(st);
    if (mp_join_timing_on(st)) st->stats.read_ms += clock.lap_ms();
    if (mp_debug_timeline) st->stats.timeline.read = mp_wall_ms();
    return counts;
}
