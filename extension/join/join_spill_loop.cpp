// join_spill_loop.cpp — one key of a spilled join (join_spill.cpp) whose rows on both
// sides pass a range, in an outer, semi or anti join with a join filter. Such a key
// cannot be cut into cells as join_spill_key.cpp cuts the others: whether a row is
// emitted unmatched depends on every row of the other side. So its rows are spooled
// (tuplestores: in memory up to their share of a range, the rest in temporary files)
// and joined row by row, a nested loop over the two spools: each A row against every B
// row of the key, the filter judging each pair; then, for right and full joins, the B
// rows no pair of which passed (a bit per B row of the key). Memory stays bounded by the
// spools' share and the bits, whatever the key's repetition.
//   left, full:  each passing pair; an A row with none, with B's columns NULL
//   right:       each passing pair; then the B rows without one
//   semi:        an A row at its first passing pair
//   anti:        an A row with no passing pair
// (the rules as join_node.h states them for every way of emitting, taken as one serial
// step per A row, MpJoinRowStep, as join_emit.cpp takes them over a B range)
// A key whose rows fit a range is loaded from the spools into it (or into the next range,
// when this one has no room left for it).
#include "join_node.h"

namespace {

// The side's spooled row (in its slot) into the scan tuple, or its columns NULL.
void put_side(MpJoinState* st, TupleTableSlot* scan, int side, TupleTableSlot* row) {
    const int at = mp_join_scan_offset(st, side), n = st->node.nstored[side];
    for (int c = 0; c < n; c++) {
        scan->tts_values[at + c] = row ? row->tts_values[c] : (Datum)0;
        scan->tts_isnull[at + c] = row ? row->tts_isnull[c] : true;
    }
}


// The next A row of the key into slot[0], B's spool back at its start.
bool next_a(MpJoinState* st) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    if (!tuplestore_gettupleslot(ks->rows[0], true, false, ks->slot[0])) return false;
    slot_getallattrs(ks->slot[0]);
    tuplestore_rescan(ks->rows[1]);
    ks->b_index = 0;
    ks->a_loaded = true;
    ks->a_step = MpJoinRowStep{false};
    return true;
}

bool next_b(MpJoinState* st) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    if (!tuplestore_gettupleslot(ks->rows[1], true, false, ks->slot[1])) return false;
    slot_getallattrs(ks->slot[1]);
    ks->b_index++;
    return true;
}

bool b_matched(const MpKeySpool* ks, uint64 i) { return (ks->b_matched[i / 8] >> (i % 8)) & 1; }

// Right and full joins, after every A row: the next B row without a passing pair.
bool next_unmatched_b(MpJoinState* st, TupleTableSlot* scan) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    while (next_b(st)) {
        CHECK_FOR_INTERRUPTS();
        if (b_matched(ks, ks->b_index - 1)) continue;
        put_side(st, scan, 0, NULL);
        put_side(st, scan, 1, ks->slot[1]);
        mp_join_store_scan(scan);
        return true;
    }
    return false;
}

// The current A row against B's next rows: true with a row to emit in the scan tuple;
// false when B's rows are done for it (its unmatched row, if any, is the caller's).
bool next_pair(MpJoinState* st, TupleTableSlot* scan) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    const JoinType jt = st->node.info.jointype;
    while (next_b(st)) {
        CHECK_FOR_INTERRUPTS();
        put_side(st, scan, 0, ks->slot[0]);
        put_side(st, scan, 1, ks->slot[1]);
        mp_join_store_scan(scan);  // stored before the filter reads it
        st->stats.counts.pairs++;
        if (!mp_join_passes_filter(st, scan, mp_join_sorted_key_exact(st, ks->key))) continue;
        if (ks->b_matched) ks->b_matched[(ks->b_index - 1) / 8] |= uint8(1 << ((ks->b_index - 1) % 8));
        bool row_done;
        bool emitted = ks->a_step.pair_passed(jt, &row_done);
        if (row_done) ks->a_loaded = false;  // the A row's answer is known
        return emitted;
    }
    ks->a_loaded = false;
    return false;
}

}  // namespace

uint64 mp_key_loop_load_whole(MpJoinState* st, uint64* bytes) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    uint64 rows = 0;
    for (int side = 0; side < 2; side++) {
        tuplestore_rescan(ks->rows[side]);
        for (uint64 i = 0; i < ks->count[side]; i++, rows++) *bytes += mp_key_spool_load_next(st, side);
    }
    mp_key_spool_finish(st);
    return rows;
}

uint64 mp_key_loop_load(MpJoinState* st, const int64* key, uint64 target, uint64* bytes) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    mp_key_spool_fill(st, key);
    const uint64 key_bytes = ks->bytes[0] + ks->bytes[1];
    if (key_bytes <= target) {  // it fits a range: loaded whole, into this one if it has room
        if (*bytes == 0 || *bytes + key_bytes <= target) return mp_key_loop_load_whole(st, bytes);
        ks->phase = MpKeySpoolPhase::Whole;  // the next range starts with it
        return 0;
    }
    ks->phase = MpKeySpoolPhase::Loop;
    ks->keys_looped++;
    if (*bytes == 0) mp_key_loop_start(st);  // else the range so far is emitted first
    return 0;
}

void mp_key_loop_start(MpJoinState* st) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    tuplestore_rescan(ks->rows[0]);
    ks->a_loaded = ks->b_extras = false;
    if (st->node.outer_side[1])
        ks->b_matched = (uint8*)MemoryContextAllocZero(st->css.ss.ps.state->es_query_cxt, ks->count[1] / 8 + 1);
    ks->loop_running = true;
}

bool mp_key_loop_next(MpJoinState* st, TupleTableSlot* scan) {
    MpKeySpool* ks = &st->strategy.spill.spool;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        if (ks->b_extras) {
            if (next_unmatched_b(st, scan)) return true;
            mp_key_spool_finish(st);
            return false;
        }
        if (!ks->a_loaded && !next_a(st)) {  // every A row done
            if (!st->node.outer_side[1]) {
                mp_key_spool_finish(st);
                return false;
            }
            ks->b_extras = true;
            tuplestore_rescan(ks->rows[1]);
            ks->b_index = 0;
            continue;
        }
        if (next_pair(st, scan)) return true;
        if (!ks->a_step.emits_unmatched(st->node.info.jointype)) continue;
        put_side(st, scan, 0, ks->slot[0]);
        put_side(st, scan, 1, NULL);
        mp_join_store_scan(scan);
        return true;
    }
}
