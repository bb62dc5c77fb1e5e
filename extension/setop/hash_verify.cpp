// hash_verify.cpp — proves that a set operation computed on 64-bit row hashes is the
// set operation on the rows themselves.
//
// The library worked on hashes: it grouped rows whose hashes are equal. That equals
// grouping by value exactly when every group of equal hashes holds equal rows (equal
// rows always hash equal: the hash support function agrees with the equality operator).
// So, walking sorted A and sorted B together one hash value at a time, every row of
// the run in A must equal the run's first row, likewise in B, and when the hash occurs
// on both sides the first A row must equal the first B row — all by the set
// operation's grouping equality (NULL = NULL). Any failure is a collision, and the
// caller recomputes the query exactly (exact_setop.cpp). Checking every run, not only
// emitted ones, matters: a collision can also hide a row that should be emitted
// (EXCEPT) or inflate a count (ALL).
#include "setop_node.h"

#include "timing.h"

// Grouping equality of stored rows (side_a, row_a) and (side_b, row_b).
static bool rows_equal(MpSetOpState* st, int side_a, uint64 row_a, int side_b, uint64 row_b) {
    ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
    ExecStoreMinimalTuple(mp_row_store_get(&st->run.store[side_a], row_a), st->node.row_slot[0], false);
    ExecStoreMinimalTuple(mp_row_store_get(&st->run.store[side_b], row_b), st->node.row_slot[1], false);
    econtext->ecxt_outertuple = st->node.row_slot[0];
    econtext->ecxt_innertuple = st->node.row_slot[1];
    return ExecQualAndReset(st->node.row_equal, econtext);
}

// All rows of sorted positions [begin, end) of one side equal the first one.
static bool run_is_uniform(MpSetOpState* st, int side, const uint64_t* rows, size_t begin, size_t end) {
    for (size_t i = begin + 1; i < end; i++) {
        if (((i - begin) & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        if (!rows_equal(st, side, rows[begin], side, rows[i])) return false;
    }
    return true;
}

// Walks both sorted sides run by run; false at the first collision.
static bool runs_hold_equal_rows(MpSetOpState* st, const MpResults<uint64_t>& r) {
    const uint64_t *ka = r.sorted_keys[0], *kb = r.sorted_keys[1];
    const uint64_t *ra = r.sorted_rows[0], *rb = r.sorted_rows[1];
    size_t na = r.side_count[0], nb = r.side_count[1], i = 0, j = 0, runs = 0;
    while (i < na || j < nb) {
        if ((++runs & 0xffff) == 0) CHECK_FOR_INTERRUPTS();
        uint64_t key = (j >= nb || (i < na && ka[i] <= kb[j])) ? ka[i] : kb[j];
        size_t ie = i, je = j;
        while (ie < na && ka[ie] == key) ie++;
        while (je < nb && kb[je] == key) je++;
        if (!run_is_uniform(st, 0, ra, i, ie) || !run_is_uniform(st, 1, rb, j, je)) return false;
        if (i < ie && j < je && !rows_equal(st, 0, ra[i], 1, rb[j])) return false;
        i = ie;
        j = je;
    }
    return true;
}

bool mp_verify_hashed(MpSetOpState* st) {
    MpResults<uint64_t> r = mp_stage_results<uint64_t>(st->run.stage);
    for (int s = 0; s < 2; s++)
        if (r.side_count[s] != st->run.store[s].count)
            elog(ERROR, "pg_mergepath: the library returned %zu sorted rows for %llu input rows", r.side_count[s],
                 (unsigned long long)st->run.store[s].count);
    MpStopwatch clock;
    bool ok = runs_hold_equal_rows(st, r);
    if (mp_timing_on(st)) st->stats.verify_ms += clock.lap_ms();
    return ok;
}
