// join_emit.cpp — step 3 of the MergePath Join (see join_exec.cpp): the joined rows, one
// per call, expanded from the ranges the sorted search gave, with nothing materialised
// and nothing allocated per row.
//
// Pairs: each emitter claims batches of A rows, in the order A's rows were stored (a
// serial node is the only emitter of its own cursor; in a parallel one a batch is
// claimed before its ranges may be in place, and waited for); A row a pairs with sorted
// B positions [lower, lower + count) of its range (next to its key, join_combine.cpp) —
// the load-balancing expansion done lazily, row by row, so memory stays constant
// whatever the number of pairs. A's stored rows are read in sequence, B's at random. A row's stored
// columns are put into the scan tuple once per A row and once per pair for B. Then
// PostgreSQL's join rules (nodeHashjoin.c's), with the join filter evaluated per pair:
//   INNER    every pair that passes;
//   LEFT     and an A row none of whose pairs passed, with NULLs for B (ANTI: only those);
//   SEMI     an A row once, at its first pair that passes;
//   RIGHT    every pair that passes, marking its B row; FULL: LEFT and RIGHT.
// Without a filter, SEMI and ANTI need no pairs at all: the range's count says it.
// ("The filter" in this file is every check of a pair: the recheck of the keys keyed by
// image hash, then the join filter; mp_join_checks_pairs says whether there is one. An A
// row whose numeric key is exact, numeric_keys.h, skips the recheck, and a side whose
// columns only the recheck reads is then not read at all: MpJoinNode.reads_side.)
//
// Unmatched B rows (RIGHT, FULL): without a filter the sorted search's match flags say
// which they are, so batches of B positions are claimed after the A batches, by every
// emitter. With a filter they are known only when every pair is done: then, like the
// other extras — rows of an outer side whose key has a NULL (A: LEFT, FULL, ANTI; B:
// RIGHT, FULL) — the last emitter to run out of batches emits them (no one waits for
// anyone: a participant that finds batches gone and others still busy just stops, and
// the last of those takes the extras).
//
// A join whose outer side streams (join_probe.cpp) claims the next batch of outer rows
// it read and searched instead: its rows are A rows 0..n of the cursor, their ranges and
// stored columns in the batch.
#include "join_node.h"

#include "images.h"
#include "prefetch.h"

// ---- the scan tuple -----------------------------------------------------------------

// Deforms a stored row into values / isnull: the descriptor's columns (a side's, or its
// first few: heap_deform_tuple stops there). Where only the first is wanted (a row that
// is a key kept for its recheck, say) it is read where heap_fill_tuple put it: at the
// start of the row's data, which is maximally aligned.
void mp_join_deform_stored(TupleDesc desc, MinimalTuple tuple, Datum* values, bool* isnull) {
    if (desc->natts == 1) {
        isnull[0] = (tuple->t_infomask & HEAP_HASNULL) && att_isnull(0, tuple->t_bits);
        values[0] = isnull[0] ? Datum(0) : fetchatt(TupleDescAttr(desc, 0), (char*)tuple + tuple->t_hoff - MINIMAL_TUPLE_OFFSET);
        return;
    }
    HeapTupleData heap;
    heap.t_len = tuple->t_len + MINIMAL_TUPLE_OFFSET;
    heap.t_data = (HeapTupleHeader)((char*)tuple - MINIMAL_TUPLE_OFFSET);
    heap_deform_tuple(&heap, desc, values, isnull);
}

// A stored row straight into the side's columns of the scan tuple.
static void fill_side(MpJoinState* st, TupleTableSlot* scan, int side, MinimalTuple tuple) {
    int at = mp_join_scan_offset(st, side);
    mp_join_deform_stored(st->node.stored_desc[side], tuple, scan->tts_values + at, scan->tts_isnull + at);
}

// Resolves A's references for row numbers [lo, hi) (see MpRowWindow): first where each
// is kept (prefetched), then the references (their tuples prefetched).
static void resolve_a_window(MpJoinState* st, uint64 lo, uint64 hi) {
    MpRowWindow* w = &st->emitter.a_window;
    for (uint64 p = lo; p < hi; p++) {
        const uint64* slot = mp_row_ref_slot(&st->emitter.a_dir, p, &st->emitter.a_dir_near);
        __builtin_prefetch(slot);
        w->refs[p - lo] = (uint64)(uintptr_t)slot;
    }
    for (uint64 i = 0; i < hi - lo; i++) {
        w->refs[i] = *(const uint64*)(uintptr_t)w->refs[i];
        mp_prefetch_record(mp_space_at(&st->run.space, w->refs[i]));
    }
    w->lo = lo;
    w->hi = hi;
}

// The B range of A row a: in its chunk, or in the outer batch (a streamed outer side);
// *exact: a's pairs need no recheck (its key is an exact numeric, MpJoinNode.exact_keys,
// or the batch's proof found them equal: join_batch_proof.cpp).
static const mergepath::JoinRange* a_range(MpJoinState* st, uint64 a, bool* exact = nullptr) {
    if (st->strategy.way == MpJoinWay::StreamOuter) {
        if (exact) *exact = st->strategy.probe.exact[a];
        return mp_join_probe_range(st, a);
    }
    if (exact && mp_join_row_proven(st, a)) *exact = true;
    return mp_join_a_range(&st->emitter.a_dir, a, &st->emitter.a_dir_near, st->node.exact_keys ? exact : nullptr);
}

// Whether a pair of A row a's range reads B's stored row: unless a's key is exact and
// nothing but the key recheck reads B's columns.
static bool pairs_read_b(const MpJoinState* st, bool exact) {
    return st->node.nstored[1] > 0 && (!exact || st->node.reads_side[1]);
}

// How far ahead of its use a B row's tuple is prefetched: enough misses in flight to
// cover the memory's latency, few enough to stay in the cache.
constexpr uint32 kMpPrefetchAhead = 16;
// How far ahead a window's B references are prefetched while the window is resolved: its
// loop does little per entry, so it needs more in flight than an emitter's use of them.
constexpr uint32 kMpRefsAhead = 64;

// The candidates of an A row a window holds ahead of its walk (upcoming_b_positions):
// every pair, unless the row's first passing pair decides it (SEMI, ANTI). Then, without
// a join filter, the first: only a hash collision (a recheck failing) makes the row look
// further; with one, the first few.
static uint64 candidates_ahead(const MpJoinState* st) {
    if (!mp_join_first_match_decides(st->node.info.jointype)) return kMpEmitBatch;
    return mp_join_first_candidate_decides(st) ? 1 : kMpPrefetchAhead;
}

// The sorted B positions the next B rows will be asked for, from j on (see
// MpPairWindow): while expanding pairs, the rest of the current A row's range and then
// the ranges of the batch's next A rows (all in place: the batch was waited for);
// while emitting unmatched B rows, the run of positions from j.
// SEMI and ANTI stop at a row's first passing pair: only the first candidates of each
// range (candidates_ahead), unless the current row's walk is already past them (a join
// filter rejecting its first candidates, as on a heavy key; a hash collision): then
// twice as far as it has walked, and no other row's, else every few pairs of such a row
// would make a new window.
static uint32 upcoming_b_positions(MpJoinState* st, uint64 j, bool in_pairs, uint64* out, uint32* block_end) {
    const MpJoinCursor* cur = &st->emitter.cur;
    const uint64 per_row = in_pairs ? candidates_ahead(st) : kMpEmitBatch;
    // the current row: per_row from j, or, walked past that already, twice what it has
    // walked (a long walk costs a few windows, and none holds much it will not use)
    uint64 ahead = per_row;
    if (in_pairs && per_row < kMpEmitBatch) ahead = Min(uint64(kMpEmitBatch), Max(per_row, 2 * (j - a_range(st, cur->a)->lower)));
    uint32 n = 0;
    auto add_block = [&](uint64 from, uint64 to) {  // positions [from, to), as far as they fit
        const uint32 start = n;
        for (uint64 p = from; p < to && n < kMpEmitBatch; p++) out[n++] = p;
        for (uint32 i = start; i < n; i++) block_end[i] = n;
    };
    add_block(j, in_pairs ? Min(cur->b_end, j + ahead) : cur->b_pos_end);
    for (uint64 a = cur->a + 1; in_pairs && ahead == per_row && a < cur->a_end && n < kMpEmitBatch; a++) {
        bool exact = false;
        const mergepath::JoinRange* r = a_range(st, a, &exact);
        if (pairs_read_b(st, exact)) add_block(r->lower, r->lower + Min(r->count, per_row));
    }
    return n;
}

// The tuples of the window's positions (their references prefetched ahead).
static void resolve_b_window(MpJoinState* st, MpPairWindow* w, uint64 j, bool in_pairs) {
    w->count = upcoming_b_positions(st, j, in_pairs, w->pos, w->block_end);
    w->next = 0;
    for (uint32 i = 0; i < Min(kMpRefsAhead, w->count); i++) __builtin_prefetch(&st->emitter.b_refs[w->pos[i]]);
    for (uint32 i = 0; i < w->count; i++) {
        if (i + kMpRefsAhead < w->count) __builtin_prefetch(&st->emitter.b_refs[w->pos[i + kMpRefsAhead]]);
        w->tuples[i] = mp_arena_row(&st->run.space, st->emitter.b_refs[w->pos[i]]);
    }
    for (uint32 i = 1; i < Min(kMpPrefetchAhead, w->count); i++) mp_prefetch_record(w->tuples[i]);
}

// Points w->next at sorted B position j, looking from entry `from` on; false when the
// window does not hold it. Positions run consecutively within a block, so j is found by
// arithmetic within the block of `from` or a later one (jumping from block to block),
// never by a walk over the entries.
static bool seek_b_window(MpPairWindow* w, uint64 j, uint32 from) {
    for (uint32 i = from; i < w->count;) {
        const uint64 p = w->pos[i];
        const uint32 end = w->block_end[i];
        if (j >= p && j - p < end - i) {
            w->next = i + uint32(j - p);
            return true;
        }
        i = end;
    }
    return false;
}

// The stored row of sorted B position j: from the window in use (any entry for j is
// right, as a position's row never changes; entries the walk skipped, after a SEMI row's
// first match or a matched B row, are passed over), else from the other window, else
// from a new one. A SEMI or ANTI row that walks past the candidates the window holds of
// it (candidates_ahead: a join filter rejecting them, as on a heavy key; a hash
// collision) walks in a window of its own (b_walk), so that the next rows' candidates
// stay where the batch's window put them: rebuilding that window after every deep row
// read thousands of references for a few pairs each. The tuple kMpPrefetchAhead
// entries on is prefetched.
static MinimalTuple b_tuple(MpJoinState* st, uint64 j, bool in_pairs) {
    MpPairWindow* w = st->emitter.b_active;
    if (!seek_b_window(w, j, w->next)) {
        MpPairWindow* other = w == &st->emitter.b_window ? &st->emitter.b_walk : &st->emitter.b_window;
        if (seek_b_window(other, j, 0)) {
            w = other;
        } else {
            const MpJoinCursor* cur = &st->emitter.cur;
            bool deep = in_pairs && mp_join_first_match_decides(st->node.info.jointype) &&
                        j - a_range(st, cur->a)->lower >= candidates_ahead(st);
            w = deep ? &st->emitter.b_walk : &st->emitter.b_window;
            resolve_b_window(st, w, j, in_pairs);
        }
        st->emitter.b_active = w;
    }
    if (w->next + kMpPrefetchAhead < w->count) mp_prefetch_record(w->tuples[w->next + kMpPrefetchAhead]);
    return w->tuples[w->next++];
}

MinimalTuple mp_join_a_tuple(MpJoinState* st, uint64 a) {
    MpRowWindow* w = &st->emitter.a_window;
    if (a < w->lo || a >= w->hi) resolve_a_window(st, a, Min(a + kMpEmitBatch, mp_join_shared(st)->results.rows[0]));
    return mp_arena_row(&st->run.space, w->refs[a - w->lo]);
}

// A's stored row number a into the node's own copy (put_a), as one A row goes with many
// pairs and the scan tuple's values may be materialised and freed by the consumer
// between two of them.
static void fill_a_row(MpJoinState* st, uint64 a) {
    if (st->node.nstored[0] == 0) return;
    if (st->strategy.way == MpJoinWay::StreamOuter) return mp_join_probe_a_row(st, a);
    mp_join_deform_stored(st->node.stored_desc[0], mp_join_a_tuple(st, a), st->emitter.a_values, st->emitter.a_isnull);
}

// A row a's stored columns, unless its key is exact and nothing but the key recheck
// reads them: then NULLs, which nothing reads.
static void load_a_row(MpJoinState* st, uint64 a, bool exact) {
    if (!exact || st->node.reads_side[0]) return fill_a_row(st, a);
    for (int c = 0; c < st->node.nstored[0]; c++) st->emitter.a_isnull[c] = true;
}

// B's stored row at sorted position j straight into the scan tuple.
static void fill_b_row(MpJoinState* st, TupleTableSlot* scan, uint64 j, bool in_pairs) {
    if (st->node.nstored[1] > 0) fill_side(st, scan, 1, b_tuple(st, j, in_pairs));
}

// The current A row's columns into the scan tuple.
static void put_a(MpJoinState* st, TupleTableSlot* scan) {
    int n = st->node.nstored[0];
    memcpy(scan->tts_values, st->emitter.a_values, sizeof(Datum) * n);  // A's columns come first
    memcpy(scan->tts_isnull, st->emitter.a_isnull, sizeof(bool) * n);
}

static void null_side(MpJoinState* st, TupleTableSlot* scan, int side) {
    for (int c = 0; c < st->node.nstored[side]; c++) scan->tts_isnull[mp_join_scan_offset(st, side) + c] = true;
}

void mp_join_store_scan(TupleTableSlot* scan) {
    ExecClearTuple(scan);  // keeps the values just written (a virtual slot)
    ExecStoreVirtualTuple(scan);
}


// Whether a key clause's two values are equal: bytes compared in place where they may
// be, else its function, in the per-pair memory (reset first: a detoasted copy of the
// last pair's is freed then).
static bool key_values_equal(const MpKeyRecheck* check, Datum a, Datum b, ExprContext* econtext) {
    if (check->bytewise) {  // (stored rows keep TOAST pointers: not in line)
        const varlena* va = (const varlena*)DatumGetPointer(a);
        const varlena* vb = (const varlena*)DatumGetPointer(b);
        if (mp_varlena_in_place(va) && mp_varlena_in_place(vb)) return mp_varlena_bytes_equal(va, vb);
    }
    ResetExprContext(econtext);
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    bool equal = DatumGetBool(FunctionCall2Coll(const_cast<FmgrInfo*>(&check->eq), check->collation, a, b));
    MemoryContextSwitchTo(old);
    return equal;
}

// The key clauses rechecked (unless the keys are exact), then the join filter (a pair
// failing either is counted).
bool mp_join_passes_filter(MpJoinState* st, TupleTableSlot* scan, bool keys_exact) {
    if (!mp_join_checks_pairs(st) || (keys_exact && !st->node.filter)) return true;
    ExprContext* econtext = st->css.ss.ps.ps_ExprContext;  // reset where something allocates in it
    for (int i = 0; i < st->node.info.nrecheck && !keys_exact; i++) {
        const MpKeyRecheck* check = &st->node.recheck[i];
        if (scan->tts_isnull[check->a_col] || scan->tts_isnull[check->b_col] ||
            !key_values_equal(check, scan->tts_values[check->a_col], scan->tts_values[check->b_col], econtext)) {
            st->stats.counts.filtered++;
            return false;
        }
    }
    if (!st->node.filter) return true;
    ResetExprContext(econtext);
    econtext->ecxt_scantuple = scan;
    if (ExecQual(st->node.filter, econtext)) return true;
    st->stats.counts.filtered++;
    return false;
}

// ---- emitters -------------------------------------------------------------------------

void mp_join_start_emit(MpJoinState* st) {
    MpJoinShared* sh = mp_join_shared(st);
    SpinLockAcquire(&sh->parallel.mutex);
    sh->emitters++;
    SpinLockRelease(&sh->parallel.mutex);
    st->emitter.emitting = true;
    memset(&st->emitter.cur, 0, sizeof(st->emitter.cur));
    st->emitter.step = MpJoinStep::Claim;
}

// Leaves the emitters; true when this one is the last and takes the extras.
static bool leave_emitters(MpJoinState* st, bool may_take_extras) {
    MpJoinShared* sh = mp_join_shared(st);
    SpinLockAcquire(&sh->parallel.mutex);
    bool last = --sh->emitters == 0 && may_take_extras && !sh->extras_claimed;
    if (last) sh->extras_claimed = true;
    SpinLockRelease(&sh->parallel.mutex);
    st->emitter.emitting = false;
    return last;
}

void mp_join_stop_emit(MpJoinState* st) {
    if (st->emitter.emitting) leave_emitters(st, false);
}

void mp_join_restart_emit(MpJoinState* st) {
    MpJoinShared* sh = mp_join_shared(st);
    mp_join_stop_emit(st);
    pg_atomic_write_u64(&sh->parallel.next_emit, 0);
    sh->emitters = 0;
    sh->extras_claimed = false;
    if (st->emitter.b_matched && !st->node.library_match) memset(st->emitter.b_matched, 0, sh->results.rows[1]);
    mp_join_start_emit(st);
}

// ---- pairs ----------------------------------------------------------------------------

// SEMI / ANTI without a join filter, A position a with nothing to recheck (keys not
// keyed by image hash, an exact key, or no candidate): whether it is emitted follows from
// its count. A SEMI row carries its first match's B columns, as PostgreSQL's semi joins
// do (B's columns are in the output only as row marks, which EvalPlanQual reads back).
static bool decide_without_pairs(MpJoinState* st, TupleTableSlot* scan, uint64 a, const mergepath::JoinRange* range,
                                 bool exact) {
    const JoinType jt = st->node.info.jointype;
    MpJoinRowStep step{false};
    bool row_done;  // (always: these join types decide at the first pair)
    if (!(range->count > 0 ? step.pair_passed(jt, &row_done) : step.emits_unmatched(jt))) return false;
    load_a_row(st, a, exact);
    put_a(st, scan);
    if (step.matched && pairs_read_b(st, exact))
        fill_side(st, scan, 1, mp_arena_row(&st->run.space, st->emitter.b_refs[range->lower]));
    else null_side(st, scan, 1);
    mp_join_store_scan(scan);
    return true;
}

// The next pair of the current A row that passes the filter, into scan.
static bool next_passing_pair(MpJoinState* st, TupleTableSlot* scan) {
    MpJoinCursor* cur = &st->emitter.cur;
    while (cur->b < cur->b_end) {
        uint64 j = cur->b++;
        if ((++st->stats.counts.pairs & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();  // one A row may have millions
        if (pairs_read_b(st, cur->a_exact)) fill_b_row(st, scan, j, true);
        else null_side(st, scan, 1);
        put_a(st, scan);
        mp_join_store_scan(scan);
        if (!mp_join_passes_filter(st, scan, cur->a_exact)) continue;
        if (st->emitter.b_matched && !st->node.library_match) st->emitter.b_matched[j] = 1;
        bool row_done;
        bool emitted = cur->a_step.pair_passed(st->node.info.jointype, &row_done);
        if (row_done) cur->b = cur->b_end;
        return emitted;
    }
    return false;
}

static void start_a_row(MpJoinState* st, TupleTableSlot* scan) {
    MpJoinCursor* cur = &st->emitter.cur;
    cur->a_exact = false;
    const mergepath::JoinRange* range = a_range(st, cur->a, &cur->a_exact);
    cur->b = range->lower;
    cur->b_end = range->lower + range->count;
    cur->a_step = MpJoinRowStep{false};
    cur->a_started = true;
    load_a_row(st, cur->a, cur->a_exact);
}

// The next row from the claimed batch of A positions, or false when it is done.
static bool next_in_batch(MpJoinState* st, TupleTableSlot* scan) {
    MpJoinCursor* cur = &st->emitter.cur;
    const bool quick = mp_join_first_candidate_decides(st);
    while (cur->a < cur->a_end) {
        if (quick && !cur->a_started) {
            bool exact = false;
            const mergepath::JoinRange* range = a_range(st, cur->a, &exact);
            if (st->node.info.nrecheck == 0 || exact || range->count == 0) {  // decided by the count alone
                if (decide_without_pairs(st, scan, cur->a++, range, exact)) return true;
                continue;
            }
        }
        if (!cur->a_started) start_a_row(st, scan);
        if (next_passing_pair(st, scan)) return true;
        cur->a_started = false;
        cur->a++;
        if (cur->a_step.emits_unmatched(st->node.info.jointype)) {
            put_a(st, scan);
            null_side(st, scan, 1);
            mp_join_store_scan(scan);
            return true;
        }
    }
    return false;
}

// ---- extras ---------------------------------------------------------------------------

// The next kept row of `side` whose key has a NULL (the chunks of the other stream).
static bool next_null_key_row(MpJoinState* st, TupleTableSlot* scan, int side) {
    MpJoinCursor* cur = &st->emitter.cur;
    while (cur->chunk != kNoChunk) {
        MpChunk* c = mp_chunk_at(&st->run.space, cur->chunk);
        if (c->stream == uint32(MpKeyStream::Nulls) && c->side == uint32(side) && cur->in_chunk < c->count) {
            uint64 ref = ((const uint64*)mp_chunk_keys(c))[cur->in_chunk++];
            if (st->node.nstored[side] > 0) fill_side(st, scan, side, mp_arena_row(&st->run.space, ref));
            null_side(st, scan, 1 - side);
            mp_join_store_scan(scan);
            return true;
        }
        cur->chunk = c->next_all;
        cur->in_chunk = 0;
    }
    return false;
}

static bool next_unmatched_b(MpJoinState* st, TupleTableSlot* scan) {
    MpJoinCursor* cur = &st->emitter.cur;
    while (cur->b_pos < cur->b_pos_end) {
        uint64 j = cur->b_pos++;
        if (st->emitter.b_matched[j]) continue;
        if (st->node.reads_side[1]) fill_b_row(st, scan, j, false);
        else null_side(st, scan, 1);  // (only a key recheck reads B's columns: none runs here)
        null_side(st, scan, 0);
        mp_join_store_scan(scan);
        return true;
    }
    return false;
}

static void next_part(MpJoinState* st, MpExtrasPart part) {
    st->emitter.cur.part = part;
    st->emitter.cur.b_pos = 0;
    st->emitter.cur.b_pos_end = mp_join_shared(st)->results.rows[1];
    st->emitter.cur.chunk = mp_join_shared(st)->parallel.queue.all;
    st->emitter.cur.in_chunk = 0;
}

static bool next_extra(MpJoinState* st, TupleTableSlot* scan) {
    for (;;) {
        switch (st->emitter.cur.part) {
            case MpExtrasPart::ANulls:
                if (st->node.outer_side[0] && next_null_key_row(st, scan, 0)) return true;
                next_part(st, MpExtrasPart::BUnmatched);
                break;
            case MpExtrasPart::BUnmatched:
                if (st->node.outer_side[1] && !st->node.library_match && next_unmatched_b(st, scan)) return true;
                next_part(st, MpExtrasPart::BNulls);
                break;
            case MpExtrasPart::BNulls:
                if (st->node.outer_side[1] && next_null_key_row(st, scan, 1)) return true;
                next_part(st, MpExtrasPart::Done);
                break;
            case MpExtrasPart::Done: return false;
        }
    }
}

// ---- the walk -------------------------------------------------------------------------

// Claims the next batch of positions: A rows [0, rows[0]), then, when the unmatched B
// rows are known from the start (right / full joins without a filter: the library's
// match flags), sorted B positions, so that those rows are emitted by every
// participant too rather than by the last one alone. In a parallel node the combiner
// may still be putting A's ranges in place: a batch of A rows waits for its own.
static bool claim_batch(MpJoinState* st) {
    MpJoinShared* sh = mp_join_shared(st);
    MpJoinCursor* cur = &st->emitter.cur;
    if (st->strategy.way == MpJoinWay::StreamOuter) {  // this participant's next outer rows, whatever the others do
        if (!mp_join_probe_fill(st)) return false;
        cur->a = 0;
        cur->a_end = uint64(st->strategy.probe.rows);
        cur->a_started = false;
        cur->b_pos = cur->b_pos_end = 0;
        return true;
    }
    const uint64 rows_a = sh->results.rows[0];
    const uint64 total = rows_a + (st->node.library_match ? sh->results.rows[1] : 0);
    uint64 begin, end;
    if (!mp_shared_claim(&sh->parallel, total, &begin, &end)) return false;
    cur->a = Min(begin, rows_a);
    cur->a_end = Min(end, rows_a);
    cur->a_started = false;
    cur->b_pos = Max(begin, rows_a) - rows_a;
    cur->b_pos_end = Max(end, rows_a) - rows_a;
    if (mp_join_runs_shared(st) && cur->a < cur->a_end) mp_shared_wait_ready(&sh->parallel, cur->a_end);
    mp_join_prove_batch(st, cur->a, cur->a_end);
    return true;
}

bool mp_join_next(MpJoinState* st, TupleTableSlot* scan) {
    if (st->strategy.spill.spool.loop_running) return mp_key_loop_next(st, scan);  // a key joined row by row
    for (;;) {
        switch (st->emitter.step) {
            case MpJoinStep::Claim: {
                CHECK_FOR_INTERRUPTS();
                if (claim_batch(st)) {
                    st->emitter.step = MpJoinStep::Pairs;
                    break;
                }
                bool extras = leave_emitters(st, st->node.outer_side[0] || st->node.outer_side[1]);
                if (extras) next_part(st, MpExtrasPart::ANulls);
                st->emitter.step = extras ? MpJoinStep::Extras : MpJoinStep::Done;
                break;
            }
            case MpJoinStep::Pairs:
                if (next_in_batch(st, scan) || next_unmatched_b(st, scan)) return true;
                st->emitter.step = MpJoinStep::Claim;
                break;
            case MpJoinStep::Extras:
                if (next_extra(st, scan)) return true;
                st->emitter.step = MpJoinStep::Done;
                break;
            case MpJoinStep::Init:
            case MpJoinStep::Done: return false;
        }
    }
}
