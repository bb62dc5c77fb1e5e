// join_spill_parallel.cpp — a parallel MergePath Join over pg_mergepath.memory_limit:
// planned so (its estimated input passes the limit), or planned in memory and passing
// the limit while its participants read.
//
// The model is PostgreSQL's parallel index build (nbtsort.c) on its shared tuplesort:
// each participant sorts its share of both inputs - rows as join_spill.cpp sorts them,
// stored columns with the key words appended - in a worker sort of one shared sort per
// side, within its part of the limit (a third of it per side, divided among the planned
// participants); tuplesort writes each sorted share to the shared sort's file set. Once
// every reader is done, the combining participant (parallel_stage.h: the leader when it
// read, which holds the GPU) begins both sorts' merging ("leader") sorts, which merge the
// shares, and runs the serial spilled join's key ranges over them alone (join_spill.cpp),
// emitting every row; the other participants emit nothing. The reading and sorting, most
// of a spilled join's time, are shared; merging, joining and emitting are not.
//
// A join planned in memory switches at run time: when the shared chunks and blocks of
// stored rows of all participants reach the limit, a shared flag makes every participant,
// at its next chunk or block, go on into worker sorts. The rows already in shared memory
// stay there; the merger attaches every participant's segments (so they outlive their
// writers), lets the others go, puts those rows into a worker sort of its own, then merges.
//
// The shared sorts live in a DSM segment of their own that the leader makes for each
// execution (a shared sort cannot be reset for a rescan), and detaches when the node
// ends or rescans; their files are deleted when the last process detaches (at ERROR or
// cancel, by the resource owners). The node's DSM (MpJoinShared) holds its handle.
#include "join.h"

extern "C" {
#include "storage/dsm.h"
}

namespace {

MpJoinSharedSpill* shared_spill(const MpJoinState* st) { return &st->dsm->spill; }

Sharedsort* side_sort(const MpJoinState* st, int side) {
    char* base = (char*)dsm_segment_address(st->sort_segment);
    return (Sharedsort*)(base + side * shared_spill(st)->sort_bytes);
}

// Each side's sort parameters: a worker sort (any participant, nParticipants -1) or the
// merging sort of `merged` worker sorts.
void coordinates(const MpJoinState* st, bool worker, int merged, SortCoordinate* out) {
    for (int side = 0; side < 2; side++) {
        out[side] = (SortCoordinate)palloc0(sizeof(SortCoordinateData));
        out[side]->isWorker = worker;
        out[side]->nParticipants = worker ? -1 : merged;
        out[side]->sharedsort = side_sort(st, side);
    }
}

// Opens a worker sort per side (counted: the merger merges that many).
void begin_worker_sorts(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    SortCoordinate coords[2];
    coordinates(st, true, -1, coords);
    pg_atomic_fetch_add_u32(&ss->sorts, 1);
    int work_kb = Max(64, mp_join_spill_sort_kb() / Max(1, ss->participants));
    mp_join_spill_open_sorts(st, work_kb, coords);
    st->spill.coordinated = true;
}

// Whether a key chunk of any participant holds rows (a join that switched while reading).
bool shared_chunks_hold_rows(MpJoinState* st) {
    for (MpChunk* c = mp_chunk_at(&st->space, st->shared->stage.queue.all); c;
         c = mp_chunk_at(&st->space, c->next_all))
        if (c->stream <= uint32(MpKeyStream::Nulls) && c->count > 0) return true;
    return false;
}

}  // namespace

void mp_join_spill_share_detach(MpJoinState* st) {
    if (st->sort_segment) dsm_detach(st->sort_segment);
    st->sort_segment = NULL;
}

// A segment of two shared sorts, each with room for every participant's worker sort and
// the merger's sort of the rows in shared memory.
void mp_join_spill_share_init(MpJoinState* st, int workers) {
    MpJoinSharedSpill* ss = shared_spill(st);
    mp_join_spill_share_detach(st);  // the last execution's (its workers have exited)
    ss->segment = DSM_HANDLE_INVALID;
    ss->participants = workers + 1;
    if (mp_memory_limit_bytes() == 0 || st->info.probe) return;  // no limit; a streamed outer side holds B only
    const int sorts = workers + 2;
    ss->sort_bytes = MAXALIGN(tuplesort_estimate_shared(sorts));
    dsm_segment* seg = dsm_create(2 * ss->sort_bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
    if (!seg) {  // none left: the join holds its input (it never fails for want of a segment)
        elog(DEBUG1, "pg_mergepath: no DSM segment left for a parallel MergePath Join's sorts: it will not spill");
        return;
    }
    st->sort_segment = seg;
    for (int side = 0; side < 2; side++) tuplesort_initialize_shared(side_sort(st, side), sorts, seg);
    ss->segment = dsm_segment_handle(seg);
}

void mp_join_spill_share_attach(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    if (ss->segment == DSM_HANDLE_INVALID) return;
    st->sort_segment = dsm_attach(ss->segment);
    if (!st->sort_segment) elog(ERROR, "pg_mergepath: a parallel MergePath Join's shared sorts are gone");
    for (int side = 0; side < 2; side++) tuplesort_attach_shared(side_sort(st, side), st->sort_segment);
}

bool mp_join_spill_share_planned(const MpJoinState* st) { return st->sort_segment != NULL; }

// The participants' chunks (the queue's used bytes) and blocks of stored rows together
// reach the limit, as a serial join's rows (join_spill.cpp: mp_join_spill_due). Every
// participant adds what its blocks grew by; the first to find the limit reached sets the
// flag that switches everyone.
bool mp_join_spill_share_due(MpJoinState* st, uint64 limit) {
    MpJoinSharedSpill* ss = shared_spill(st);
    if (!st->sort_segment || st->probe.on) return false;
    const uint64 blocks = st->arena[0].held_bytes + st->arena[1].held_bytes;
    uint64 all_blocks = pg_atomic_add_fetch_u64(&ss->held_bytes, blocks - st->spill.arena_reported);
    st->spill.arena_reported = blocks;
    if (pg_atomic_read_u32(&ss->switched)) return true;
    uint64 held = st->shared->stage.queue.used_bytes + all_blocks + mp_writers_used_bytes(st->writers);
    if (held < limit) return false;
    pg_atomic_write_u32(&ss->switched, 1);
    return true;
}

void mp_join_spill_share_begin(MpJoinState* st) { begin_worker_sorts(st); }

bool mp_join_spill_shares_sorted(const MpJoinState* st) {
    return st->dsm && pg_atomic_read_u32(&shared_spill(st)->sorts) > 0;
}

// The merger, once every reader is done and every participant's segments are attached
// here: the rows still in shared memory (a join that switched while reading) into a
// worker sort of its own; then both sides' merging sorts over every worker sort.
void mp_join_spill_merge(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    if (shared_chunks_hold_rows(st)) {
        begin_worker_sorts(st);
        mp_join_spill_move_held(st);
        mp_join_spill_perform(st, true, false);
        pg_atomic_write_u32(&ss->switched, 1);
    }
    pg_atomic_fetch_add_u64(&ss->disk_kb, st->spill.disk_kb);
    st->spill.disk_kb = 0;
    st->spill.switched = pg_atomic_read_u32(&ss->switched) != 0;
    SortCoordinate coords[2];
    coordinates(st, false, int(pg_atomic_read_u32(&ss->sorts)), coords);
    mp_join_spill_open_sorts(st, mp_join_spill_sort_kb(), coords);
    mp_join_spill_perform(st, false, true);  // the merge; its files are the workers' (counted)
}

// A participant's counts for EXPLAIN into the DSM, once its work is done: its sorts'
// files, and a worker's ranges and split keys when it was the merger (the leader's stay
// in its own state).
void mp_join_spill_share_counts(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    pg_atomic_fetch_add_u64(&ss->disk_kb, st->spill.disk_kb);
    st->spill.disk_kb = 0;
    if (!IsParallelWorker()) return;
    pg_atomic_fetch_add_u64(&ss->ranges, st->spill.ranges);
    pg_atomic_fetch_add_u64(&ss->keys_split, st->spill.spool.keys_split);
    st->spill.ranges = st->spill.spool.keys_split = 0;
}

void mp_join_spill_harvest(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    st->spill.disk_kb += pg_atomic_exchange_u64(&ss->disk_kb, 0);
    st->spill.ranges += pg_atomic_exchange_u64(&ss->ranges, 0);
    st->spill.spool.keys_split += pg_atomic_exchange_u64(&ss->keys_split, 0);
    st->spill.switched = st->spill.switched || pg_atomic_read_u32(&ss->switched) != 0;
}
