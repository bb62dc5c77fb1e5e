// exact_setop.cpp — the set operation computed exactly inside the backend, the way
// nodeSetOp.c's hashed strategy does it: PostgreSQL's tuple hash table keyed by the
// grouping equality, one entry per group holding its first row and the count of left
// and right rows. Rows of one side (the left, or for a recomputed query the side the
// replaced plan reads first) create entries, the other side's rows only count in
// existing ones; output is each group's first row, min(L, R) / max(L - R, 0) / 0-or-1
// times.
//
// Used to recompute a whole query whose row hashes collided (rare: then it costs what
// HashSetOp costs, and like HashSetOp it does not spill).
#include "setop_node.h"

#include "mergepath/key_ranges.h"

struct MpGroupCounts {
    int64 left;
    int64 right;
};

static void exact_init(MpSetOpState* st) {
    // groups are made by the rows of one side only: right for INTERSECT and EXCEPT, not
    // for UNION (the planner never gives UNION hashed keys)
    if (mp_setop_results_from_b(st)) elog(ERROR, "pg_mergepath: UNION has no exact recompute");
    TupleDesc desc = st->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    MemoryContext old = MemoryContextSwitchTo(st->run.cxt);
    Oid* eqops = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    Oid* collations = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    AttrNumber* cols = (AttrNumber*)palloc(sizeof(AttrNumber) * st->node.ncols);
    for (int c = 0; c < st->node.ncols; c++) {
        eqops[c] = st->node.keys.cols[c].eqop;
        collations[c] = st->node.keys.cols[c].collation;
        cols[c] = AttrNumber(c + 1);
    }
    Oid* eqfuncs;
    FmgrInfo* hashfuncs;
    execTuplesHashPrepare(st->node.ncols, eqops, &eqfuncs, &hashfuncs);
    MpExactTable* ex = &st->run.exact;
    ex->table_cxt = AllocSetContextCreate(st->run.cxt, "pg_mergepath exact table", ALLOCSET_DEFAULT_SIZES);
    ex->temp_cxt = AllocSetContextCreate(st->run.cxt, "pg_mergepath exact temp", ALLOCSET_SMALL_SIZES);
    ex->table = mp_build_tuple_hash_table(&st->css.ss.ps, desc, st->node.ncols, cols, eqfuncs, hashfuncs, collations,
                                          1024, sizeof(MpGroupCounts), st->run.cxt, ex->table_cxt, ex->temp_cxt);
    MemoryContextSwitchTo(old);
}

// Counts one input row (slot) of side 0 (left) or 1 (right).
static void exact_add(MpSetOpState* st, TupleTableSlot* slot, int side) {
    MpExactTable* ex = &st->run.exact;
    if (ex->table == NULL) exact_init(st);
    TupleHashEntry entry;
    if (side == ex->entry_side) {
        bool isnew;
        entry = LookupTupleHashEntry(ex->table, slot, &isnew, NULL);
        if (isnew) {
            mp_tuple_hash_new_group(ex->table, entry, ex->table_cxt, sizeof(MpGroupCounts));
            ex->groups++;
        }
    } else {
        entry = LookupTupleHashEntry(ex->table, slot, NULL, NULL);
    }
    if (entry) {
        MpGroupCounts* counts = (MpGroupCounts*)mp_tuple_hash_group(ex->table, entry);
        (side == 0 ? counts->left : counts->right)++;
    }
    MemoryContextReset(ex->temp_cxt);
}

// Recomputes the whole operation from the stored rows (after a hash collision).
void mp_exact_recompute(MpSetOpState* st) {
    st->run.exact.entry_side = st->node.info.first_side;
    for (int i = 0; i < 2; i++) {
        int side = i == 0 ? st->node.info.first_side : 1 - st->node.info.first_side;
        for (uint64 row = 0; row < st->run.store[side].count; row++) {
            if ((row & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
            ExecStoreMinimalTuple(mp_row_store_get(&st->run.store[side], row), st->node.row_slot[0], false);
            exact_add(st, st->node.row_slot[0], side);
        }
    }
}

void mp_exact_start_emit(MpSetOpState* st) {
    MpExactTable* ex = &st->run.exact;
    ex->entry = NULL;
    ex->copies_left = 0;
    if (ex->table) InitTupleHashIterator(ex->table, &ex->iter);
}

// Output copies of a group with `left` and `right` rows (nodeSetOp.c's rules).
static int64 group_copies(const MpSetOpState* st, int64 left, int64 right) {
    return int64(mergepath::sql_setop_copies(st->node.op, st->node.all, uint64(left), uint64(right)));
}

// Stores the next output row of the exact table in out (virtual); false when done.
bool mp_exact_next(MpSetOpState* st, TupleTableSlot* out) {
    MpExactTable* ex = &st->run.exact;
    if (ex->table == NULL) return false;
    while (ex->copies_left == 0) {
        TupleHashEntry entry = ScanTupleHashTable(ex->table, &ex->iter);
        if (entry == NULL) return false;
        MpGroupCounts* counts = (MpGroupCounts*)mp_tuple_hash_group(ex->table, entry);
        ex->entry = entry;
        ex->copies_left = group_copies(st, counts->left, counts->right);
    }
    ex->copies_left--;
    ExecStoreMinimalTuple(ex->entry->firstTuple, st->node.row_slot[0], false);
    mp_copy_row(st->node.row_slot[0], st->node.ncols, out);
    return true;
}
