// image_combine.cpp — step 2 of the MergePath SetOp node for image keys, after the stage
// sorted both sides by the hash of each row's image (setop_combine.cpp): every sorted
// row's record is found from its row number (row_directory.h, on threads), the groups
// of equal images give the result rows (image_groups.h), and those land where the
// emitters read them: one array of |A| (UNION: |A| + |B|) record references, in the node's memory or (a
// parallel node) in the query's shared memory, read as one run per part.
#include "image_groups.h"

#include "prefault.h"
#include "timing.h"

// Sorted row numbers of one side -> the references of their records, in place: the
// stage's host array of sorted row numbers is not read again (it goes with
// mp_stage_release), so no second array of 8 bytes a row is needed.
static const uint64* sorted_refs(MpSetOpState* st, MemoryContext cxt, int side, const uint64* rows, uint64 n) {
    const MpAdoptedChunks* a = &st->run.adopted[side];
    if (a->rows != n)
        elog(ERROR, "pg_mergepath: %llu sorted rows for %llu adopted image keys", (unsigned long long)n,
             (unsigned long long)a->rows);
    MpRowDirectory dir;
    mp_directory_fill(cxt, &st->run.space, &dir, a->first, a->chunk, a->count, false);
    uint64* refs = const_cast<uint64*>(rows);
    mp_rows_to_refs(&dir, rows, refs, n);
    return refs;
}

// Helper threads may resolve references only where that is plain arithmetic: the node's
// own memory, or participants' segments (all attached by now), not the query's area.
static bool threads_may_resolve(const MpSetOpState* st) {
    return !st->run.space.dsa || mp_setop_queue(st)->area == kNoChunk;
}

static void keep_local(MpSetOpState* st, MemoryContext cxt, const MpImageParts& parts, uint64* out) {
    st->emitter.runs[0] = (MpResultRun*)MemoryContextAlloc(cxt, sizeof(MpResultRun) * parts.count);
    st->emitter.run_count[0] = 0;
    st->emitter.result_count[0] = 0;
    for (int p = 0; p < parts.count; p++) {
        if (parts.results[p] == 0) continue;
        st->emitter.runs[0][st->emitter.run_count[0]++] = {(const char*)(out + parts.out_begin[p]), parts.results[p]};
        st->emitter.result_count[0] += parts.results[p];
    }
}

static void publish_shared(MpSetOpState* st, const MpImageParts& parts, MpChunkRef out_ref) {
    MpSharedResult* r = &st->shared->results[0];
    void* address;
    r->runs = mp_space_alloc(&st->run.space, sizeof(MpSharedRun) * parts.count, &address);
    MpSharedRun* runs = (MpSharedRun*)address;
    r->run_count = r->count = 0;
    for (int p = 0; p < parts.count; p++) {
        if (parts.results[p] == 0) continue;
        runs[r->run_count++] = {out_ref + parts.out_begin[p] * sizeof(uint64), parts.results[p]};
        r->count += parts.results[p];
    }
    st->shared->results[1] = {kNoChunk, 0, 0};
    mp_shared_results_ready(st->shared, r->count);
}

// The stage's sorted sides grouped into result references at `out` (result_slots).
static MpImageParts group_sorted(MpSetOpState* st, MemoryContext cxt, uint64* out) {
    MpResults<uint64_t> r = mp_stage_results<uint64_t>(st->run.stage);
    MpImageSides sides;
    for (int side = 0; side < 2; side++) {
        sides.hashes[side] = r.sorted_keys[side];
        sides.count[side] = r.side_count[side];
        sides.refs[side] = sorted_refs(st, cxt, side, r.sorted_rows[side], r.side_count[side]);
    }
    MemoryContext old = MemoryContextSwitchTo(cxt);
    MpImageParts parts = mp_image_groups(st, sides, threads_may_resolve(st), out);
    MemoryContextSwitchTo(old);
    mp_stage_release(st->run.stage);  // the sorted hashes and references are no longer needed
    return parts;
}

// The result array's slots (image_groups.h) for the stage's sorted sides.
static uint64 result_slots(MpSetOpState* st) {
    MpResults<uint64_t> r = mp_stage_results<uint64_t>(st->run.stage);
    return mp_image_result_slots(st, r.side_count[0], r.side_count[1]);
}

void mp_put_image_results(MpSetOpState* st) {
    MpStopwatch clock;
    const size_t bytes = sizeof(uint64) * Max(result_slots(st), 1);
    void* address;
    MpChunkRef out_ref = kNoChunk;
    if (st->shared) {
        out_ref = mp_space_alloc_kept(&st->run.space, mp_setop_queue(st), bytes, &address, 0);
        mp_prefault_block(address, bytes);
    } else {
        address = MemoryContextAllocHuge(st->run.cxt, bytes);
    }
    MpImageParts parts = group_sorted(st, st->run.cxt, (uint64*)address);
    if (st->shared) publish_shared(st, parts, out_ref);
    else
        keep_local(st, st->run.cxt, parts, (uint64*)address);
    double ms = clock.lap_ms();
    st->run.stage->report.group_ms = ms;
    st->run.stage->report.combine_ms += ms;
}

double mp_keep_image_results(MpSetOpState* st, MemoryContext cxt) {
    MpStopwatch clock;
    uint64* out = (uint64*)MemoryContextAllocHuge(cxt, sizeof(uint64) * Max(result_slots(st), 1));
    keep_local(st, cxt, group_sorted(st, cxt, out), out);
    return clock.lap_ms();
}
