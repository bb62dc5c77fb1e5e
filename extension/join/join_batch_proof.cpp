// join_batch_proof.cpp — the key recheck of a claimed batch of A rows, done for the
// whole batch before its pairs are expanded (join_emit.cpp), when every key clause keyed
// by image hash is decided by its values' bytes (text, varchar, bytea under
// deterministic collations: MpKeyRecheck.bytewise).
//
// The sorted search gives each A row the run of sorted B positions whose 64-bit hash
// equals its own; two different values may share a hash, so a pair counts only once its
// key clauses hold. Expanded pair by pair, that check reads a B row at random in the
// middle of each pair's work, one cache miss after another. Here the batch's rows are
// taken a group at a time, in three passes, so that each pass's random reads are in
// flight together: the rows' ranges (and their first B references asked for), the
// candidates' stored rows asked for, then the comparisons. A row is proven when every
// candidate the emitter will look at holds equal bytes: with SEMI or ANTI and no join
// filter its first (the first passing pair decides the row), else all of them, up to
// kMpLongestProvenRange (a heavy key's long range is left to the per-pair recheck, which
// spreads it over the emitters). A proven row's pairs are then those of an exact key:
// no recheck, and no stored row read of a side whose columns only the recheck reads
// (join_emit.cpp: a_range). A row not proven (a hash collision, a value compressed or
// out of line, which only the clause's function compares, a NULL) is rechecked pair by
// pair as before; the answer never depends on the proof, only the work.
#include "join_node.h"

#include "images.h"
#include "prefetch.h"

namespace {

// Candidates a proven row may have (all of them compared).
constexpr uint64 kMpLongestProvenRange = 64;
// A rows whose reads are put in flight together, at most.
constexpr uint64 kMpProofGroup = 256;

// The candidates of a row compared: its first (a SEMI or ANTI row without a join
// filter), else all of them when there are few enough, else none (not proven).
uint64 candidates_compared(const MpJoinState* st, uint64 count) {
    if (mp_join_first_candidate_decides(st)) return Min(count, uint64(1));
    return count <= kMpLongestProvenRange ? count : 0;
}

// Whether the key clauses hold between A's columns and B's, each decided by its bytes in
// place (the clause's function decides the rest: not proven then).
bool keys_equal_in_place(const MpJoinState* st, const Datum* a, const bool* a_null, const Datum* b,
                         const bool* b_null) {
    const int b_at = mp_join_scan_offset(st, 1);
    for (int i = 0; i < st->node.info.nrecheck; i++) {
        const MpKeyRecheck* check = &st->node.recheck[i];
        const int ac = check->a_col, bc = check->b_col - b_at;
        if (a_null[ac] || b_null[bc]) return false;
        const varlena* va = (const varlena*)DatumGetPointer(a[ac]);
        const varlena* vb = (const varlena*)DatumGetPointer(b[bc]);
        if (!mp_varlena_in_place(va) || !mp_varlena_in_place(vb) || !mp_varlena_bytes_equal(va, vb)) return false;
    }
    return true;
}

// Proves rows [a, a + n) of the batch (n <= kMpProofGroup): their ranges read and
// their candidates' references asked for, then the candidates' rows asked for, then
// compared with the A row.
void prove_group(MpJoinState* st, uint64 a, uint64 n) {
    MpBatchProof* p = &st->emitter.proof;
    const MpChunkSpace* space = &st->run.space;
    const uint64* b_refs = st->emitter.b_refs;
    uint64 lower[kMpProofGroup], compared[kMpProofGroup];
    for (uint64 i = 0; i < n; i++) {
        const mergepath::JoinRange* r = mp_join_a_range(&st->emitter.a_dir, a + i, &st->emitter.a_dir_near);
        lower[i] = r->lower;
        compared[i] = candidates_compared(st, r->count);
        if (compared[i] > 0) __builtin_prefetch(&b_refs[r->lower]);
    }
    uint64 at = 0;  // the group's candidates, one after another in p->b_rows
    for (uint64 i = 0; i < n; i++)
        for (uint64 k = 0; k < compared[i]; k++) {
            const void* row = mp_arena_row(space, b_refs[lower[i] + k]);
            mp_prefetch_record(row);
            p->b_rows[at++] = row;
        }
    const void* const* rows = p->b_rows;  // row i's candidates, then row i + 1's
    for (uint64 i = 0; i < n; rows += compared[i++]) {
        bool proven = compared[i] > 0;
        if (proven) mp_join_deform_stored(p->key_desc[0], mp_join_a_tuple(st, a + i), p->values[0], p->isnull[0]);
        for (uint64 k = 0; proven && k < compared[i]; k++) {
            mp_join_deform_stored(p->key_desc[1], (MinimalTuple)rows[k], p->values[1], p->isnull[1]);
            proven = keys_equal_in_place(st, p->values[0], p->isnull[0], p->values[1], p->isnull[1]);
        }
        p->proven[a + i - p->first] = proven;
        st->stats.counts.proven += proven;
    }
}

}  // namespace

bool mp_join_may_prove_batches(const MpJoinState* st) {
    if (st->node.info.nrecheck == 0 || st->node.exact_keys) return false;
    if (st->node.nstored[0] == 0 || st->node.nstored[1] == 0) return false;
    for (int i = 0; i < st->node.info.nrecheck; i++)
        if (!st->node.recheck[i].bytewise) return false;
    return true;
}

// A side's stored columns as far as its last key column compared (a row is deformed no
// further: its other columns are the output's).
static TupleDesc key_columns_desc(const MpJoinState* st, int side) {
    int last = 0;
    for (int i = 0; i < st->node.info.nrecheck; i++) {
        const MpKeyRecheck* check = &st->node.recheck[i];
        last = Max(last, side == 0 ? check->a_col : check->b_col - mp_join_scan_offset(st, 1));
    }
    // a descriptor of its own (18 finds the attributes through natts: never cut a copy's)
    TupleDesc desc = CreateTemplateTupleDesc(last + 1);
    for (int c = 0; c <= last; c++) TupleDescCopyEntry(desc, AttrNumber(c + 1), st->node.stored_desc[side], AttrNumber(c + 1));
    return desc;
}

void mp_join_proof_alloc(MpJoinState* st) {
    MpBatchProof* p = &st->emitter.proof;
    p->first = p->count = 0;
    p->proven = NULL;  // (none: mp_join_prove_batch proves nothing)
    if (!st->node.proves_batches || st->strategy.way == MpJoinWay::StreamOuter) return;
    MemoryContext old = MemoryContextSwitchTo(st->run.cxt);
    p->proven = (bool*)palloc(sizeof(bool) * kMpEmitBatch);
    p->b_rows = (const void**)palloc(sizeof(void*) * kMpProofGroup * kMpLongestProvenRange);
    for (int side = 0; side < 2; side++) {
        p->key_desc[side] = key_columns_desc(st, side);
        p->values[side] = (Datum*)palloc(sizeof(Datum) * p->key_desc[side]->natts);
        p->isnull[side] = (bool*)palloc(sizeof(bool) * p->key_desc[side]->natts);
    }
    MemoryContextSwitchTo(old);
}

void mp_join_prove_batch(MpJoinState* st, uint64 a, uint64 a_end) {
    MpBatchProof* p = &st->emitter.proof;
    p->first = a;
    p->count = 0;
    if (!p->proven || a >= a_end) return;  // (allocated where this execution proves)
    Assert(a_end - a <= kMpEmitBatch);
    for (uint64 at = a; at < a_end; at += kMpProofGroup) prove_group(st, at, Min(kMpProofGroup, a_end - at));
    p->count = a_end - a;
}
