// join_spill_parallel.cpp — a parallel MergePath Join over pg_mergepath.memory_limit:
// planned so (its estimated input passes the limit), or planned in memory and passing
// the limit while its participants read.
//
// Partitioned by a hash of the key, then each partition joined as a serial spilled join
// (join_spill.cpp), so that every step runs in every participant:
//   1. Each participant writes its share's rows - as join_spill.cpp sorts them: stored
//      columns with the key words appended, MinimalTuples - into hash partitions of its
//      own in the file set the participants share, in the format of both nodes'
//      partitions (hash_partitions.h: a file per side, blocks of a partition listed in an
//      index; a key's rows all land in one partition, rows with a NULL key spread by
//      writer), and exports them.
//   2. Once every reader is done, the participants claim partitions from a shared cursor.
//      A partition is read back from every writer's blocks of it into sorted runs of rows
//      and joined key range by key range, as a serial spilled join, within this
//      participant's part of the limit (the limit divided among the planned participants);
//      then the next partition. Every pair and unmatched row of a key is found inside the
//      key's partition, so every participant emits what it joins.
// A join planned in memory switches when the shared chunks and blocks of stored rows of
// all participants reach the limit: a shared flag makes every participant, at its next
// chunk or block, write the rest of its share into partitions (a join whose outer side
// was to stream past sorted B: the rest of B, then all of A, read by the participants
// that switched, the parallel scan handing A's blocks out among them). The rows already in shared
// memory stay there until the combining participant (parallel_protocol.h) has written them
// into partition files of its own (under a number no participant has); then it publishes
// and everyone claims partitions.
//
// The file set lives in the node's DSM (made on the first execution when a limit is set,
// its files deleted by the leader before a rescan, as PostgreSQL's parallel hash join
// does); its files are deleted when the last process detaches from the parallel query's
// segment (at ERROR or cancel too). Files are PostgreSQL BufFiles: in temp_tablespaces,
// counted against temp_file_limit.
#include "join_node.h"

#include "spill_runs.h"

extern "C" {
#include "common/hashfn.h"
#include "storage/dsm.h"
}

namespace {

MpJoinSharedSpill* shared_spill(const MpJoinState* st) { return &st->dsm->spill; }

// A writer's number: a participant's (mp_spill_participant()), or, for the rows the
// combiner found in shared memory, the slot no participant has.
constexpr int kSharedRowsWriter = kMpSharedChunksSlot;

// A partition buffer's size: a participant holds one per side and partition
// (mp_join_spill_share_init bounds their count by its part of the limit).
constexpr uint32 kPartitionBlockBytes = BLCKSZ;

// The partitions closed (this process's files and those of others it opened) and freed.
void close_parts(MpJoinSpill* sp) {
    if (!sp->parts_cxt) return;
    mp_partitions_close(&sp->parts);
    MemoryContextDelete(sp->parts_cxt);
    sp->parts_cxt = NULL;
}

// Starts writing this participant's partitions (files are made at their first row).
void begin_partitions(MpJoinState* st, int writer) {
    MpJoinSpill* sp = &st->strategy.spill;
    MpJoinSharedSpill* ss = shared_spill(st);
    mp_join_spill_open_sorts(st, 0);  // the rows' layout
    close_parts(sp);
    sp->parts_cxt = AllocSetContextCreate(st->css.ss.ps.state->es_query_cxt, "pg_mergepath Join partitions",
                                          ALLOCSET_DEFAULT_SIZES);
    mp_partitions_init(&sp->parts, sp->parts_cxt, ss->partitions, kPartitionBlockBytes, &ss->fileset, writer);
    st->strategy.way = MpJoinWay::WritePartitions;
    pg_atomic_fetch_add_u32(&ss->partitioners, 1);
}

void damaged_file(void) {
    ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a join partition file")));
}

// Every row of the side in the piece (a partition of every writer) into the side's runs.
void load_side(MpJoinState* st, MpPieceReader* piece, int side) {
    MpJoinSpill* sp = &st->strategy.spill;
    MpPartitionRow row;
    while (mp_piece_next(piece, side, &row)) {
        CHECK_FOR_INTERRUPTS();
        if (row.len < SizeofMinimalTupleHeader) damaged_file();
        if (row.len > sp->tuple_cap) {
            if (sp->tuple) pfree(sp->tuple);
            sp->tuple_cap = Max(row.len, 2 * sp->tuple_cap);
            sp->tuple = (char*)MemoryContextAlloc(st->css.ss.ps.state->es_query_cxt, sp->tuple_cap);
        }
        mp_piece_read_record(piece, side, sp->tuple, row.len);
        if (((MinimalTuple)sp->tuple)->t_len != row.len) damaged_file();  // a MinimalTuple starts with its length
        ExecStoreMinimalTuple((MinimalTuple)sp->tuple, sp->slot[side], false);
        mp_join_spill_put_sorted(st, side, sp->slot[side], (MinimalTuple)sp->tuple);
    }
}

// One partition read back from every writer's blocks of it into the sorts. The writers'
// files are open only meanwhile (three BufFiles of each, with their buffers).
void load_partition(MpJoinState* st, int partition) {
    MpJoinSharedSpill* ss = shared_spill(st);
    MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "pg_mergepath Join partition", ALLOCSET_DEFAULT_SIZES);
    MpPartitions writers;
    mp_partitions_init(&writers, cxt, ss->partitions, kPartitionBlockBytes, &ss->fileset, mp_spill_participant());
    MpPieceReader piece;
    mp_piece_open_partition(&writers, partition, pg_atomic_read_u64(&ss->exported), &piece);
    for (int side = 0; side < 2; side++) load_side(st, &piece, side);
    mp_piece_close(&piece);
    mp_partitions_close(&writers);
    MemoryContextDelete(cxt);
}

// Claims partitions until one has rows: read back, sorted, its first rows out.
bool claim_partition(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    MpJoinSharedSpill* ss = shared_spill(st);
    const int work_kb = Max(64, mp_join_spill_sort_kb() / Max(1, ss->participants));
    for (;;) {
        uint32 partition = pg_atomic_fetch_add_u32(&ss->next_partition, 1);
        if (partition >= uint32(ss->partitions)) return false;
        mp_join_spill_open_sorts(st, work_kb, Max(1, ss->participants));
        load_partition(st, int(partition));
        mp_join_spill_perform(st);
        if (sp->head[0] || sp->head[1]) {
            sp->joined++;
            return true;
        }
        mp_join_spill_close_sorts(st);
    }
}

}  // namespace

// The file set, and how many partitions: about four per planned participant (a power of
// two), so that claims even out the work and each partition's sorts rarely need many
// merge passes, but no more than lets a participant's partition buffers (two per
// partition, a block each) take a quarter of its part of the limit, and at least two.
// No file set (the join stays in memory) when a participant's number would reach the
// slot of the rows in shared memory: join_path.cpp plans at most that many workers when
// a limit is set, so only a Gather above with more (another node's) gets there.
void mp_join_spill_share_init(MpJoinShared* sh, ParallelContext* pcxt) {
    MpJoinSharedSpill* ss = &sh->spill;
    const uint64 limit = mp_memory_limit_bytes();
    ss->participants = pcxt->nworkers + 1;
    uint64 by_buffers = limit / (8 * uint64(ss->participants) * kPartitionBlockBytes);
    uint64 wanted = Max(uint64(2), Min(by_buffers, uint64(Min(4 * ss->participants, 256))));
    ss->partitions = int(pg_prevpower2_32(uint32(wanted)));
    ss->has_files = limit > 0 && ss->participants <= kMpMaxJoinSpillParticipants;
    if (!ss->has_files) return;
    SharedFileSetInit(&ss->fileset, pcxt->seg);
    ss->segment = dsm_segment_handle(pcxt->seg);
}

void mp_join_spill_share_reset(MpJoinShared* sh) {
    if (sh->spill.has_files) SharedFileSetDeleteAll(&sh->spill.fileset);
}

void mp_join_spill_share_attach(MpJoinShared* sh) {
    MpJoinSharedSpill* ss = &sh->spill;
    if (!ss->has_files) return;
    dsm_segment* segment = dsm_find_mapping(ss->segment);
    if (!segment) elog(ERROR, "pg_mergepath: the parallel query's shared memory is not mapped in this worker");
    SharedFileSetAttach(&ss->fileset, segment);
}

bool mp_join_spill_share_planned(const MpJoinState* st) { return st->dsm && shared_spill(st)->has_files; }

// The participants' chunks (the queue's used bytes) and blocks of stored rows together
// reach the limit, as a serial join's rows (join_spill.cpp: mp_join_spill_due). Every
// participant adds what its blocks grew by; the first to find the limit reached sets the
// flag that switches everyone.
bool mp_join_spill_share_due(MpJoinState* st, uint64 limit) {
    MpJoinSharedSpill* ss = shared_spill(st);
    if (!ss->has_files) return false;
    const uint64 blocks = st->run.arena[0].held_bytes + st->run.arena[1].held_bytes;
    uint64 all_blocks = pg_atomic_add_fetch_u64(&ss->held_bytes, blocks - st->strategy.spill.arena_reported);
    st->strategy.spill.arena_reported = blocks;
    if (pg_atomic_read_u32(&ss->switched)) return true;
    uint64 held = st->dsm->parallel.queue.used_bytes + all_blocks + mp_writers_used_bytes(st->run.writers);
    if (held < limit) return false;
    pg_atomic_write_u32(&ss->switched, 1);
    return true;
}

void mp_join_spill_share_begin(MpJoinState* st) { begin_partitions(st, mp_spill_participant()); }

void mp_join_spill_partition_row(MpJoinState* st, int side, TupleTableSlot* row, const uint64* words) {
    MpJoinSpill* sp = &st->strategy.spill;
    // a key's rows in one partition; rows with a NULL key (never matched) spread by writer
    uint64 hash = words ? DatumGetUInt64(hash_bytes_extended((const unsigned char*)words, 8 * sp->key_words, 0))
                        : uint64(sp->parts.participant);
    bool should_free;
    MinimalTuple tuple = ExecFetchSlotMinimalTuple(row, &should_free);
    mp_partitions_write(&sp->parts, side, hash, (const char*)tuple, tuple->t_len);
    if (should_free) pfree(tuple);
}

void mp_join_spill_share_finish(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    if (st->strategy.way != MpJoinWay::WritePartitions) return;
    mp_partitions_export(&sp->parts);
    pg_atomic_fetch_or_u64(&shared_spill(st)->exported, uint64(1) << sp->parts.participant);
    sp->disk_kb += sp->parts.report.bytes / 1024;
    close_parts(sp);
    st->strategy.way = MpJoinWay::PartitionsWritten;
    mp_join_spill_close_sorts(st);  // the layout
}

void mp_join_spill_share_close(MpJoinState* st) { close_parts(&st->strategy.spill); }

bool mp_join_spill_partitioned(const MpJoinState* st) {
    return st->dsm && pg_atomic_read_u32(&shared_spill(st)->partitioners) > 0;
}

// The combiner, once every reader is done and every participant's segments are attached
// here: the rows still in shared memory (a join that switched while reading) into
// partition files of its own.
void mp_join_spill_move_shared(MpJoinState* st) {
    begin_partitions(st, kSharedRowsWriter);  // files made at their first row: none when no row was held
    mp_join_spill_move_held(st);
    mp_join_spill_share_finish(st);
}

// A participant out of partitions: what its stage did joins the others' (EXPLAIN), once.
static void share_report(MpJoinState* st) {
    MpParallelState* s = &st->dsm->parallel;
    if (st->strategy.spill.joined == 0 || !st->stats.report.ran || st->strategy.spill.report_shared) return;
    SpinLockAcquire(&s->mutex);
    mp_stage_report_add(&s->report, &st->stats.report);
    SpinLockRelease(&s->mutex);
    st->strategy.spill.report_shared = true;
}

bool mp_join_spill_next_partition(MpJoinState* st) {
    MpJoinSpill* sp = &st->strategy.spill;
    if (st->strategy.way != MpJoinWay::JoinPartitions) return false;
    mp_join_spill_close_sorts(st);
    sp->sharing = shared_spill(st)->participants;
    if (claim_partition(st)) return true;
    st->strategy.way = MpJoinWay::Finished;
    share_report(st);
    return false;
}

// A participant's counts for EXPLAIN into the DSM, once its work is done: its files, and
// a worker's ranges and split keys (the leader's stay in its own state).
void mp_join_spill_share_counts(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    pg_atomic_fetch_add_u64(&ss->disk_kb, st->strategy.spill.disk_kb);
    st->strategy.spill.disk_kb = 0;
    if (!IsParallelWorker()) return;
    pg_atomic_fetch_add_u64(&ss->ranges, st->strategy.spill.ranges);
    pg_atomic_fetch_add_u64(&ss->keys_split, st->strategy.spill.spool.keys_split);
    pg_atomic_fetch_add_u64(&ss->keys_looped, st->strategy.spill.spool.keys_looped);
    st->strategy.spill.ranges = st->strategy.spill.spool.keys_split = st->strategy.spill.spool.keys_looped = 0;
}

void mp_join_spill_harvest(MpJoinState* st) {
    MpJoinSharedSpill* ss = shared_spill(st);
    st->strategy.spill.disk_kb += pg_atomic_exchange_u64(&ss->disk_kb, 0);
    st->strategy.spill.ranges += pg_atomic_exchange_u64(&ss->ranges, 0);
    st->strategy.spill.spool.keys_split += pg_atomic_exchange_u64(&ss->keys_split, 0);
    st->strategy.spill.spool.keys_looped += pg_atomic_exchange_u64(&ss->keys_looped, 0);
    st->strategy.spill.switched = st->strategy.spill.switched || pg_atomic_read_u32(&ss->switched) != 0;
    if (st->strategy.spill.switched && st->node.info.probe) st->strategy.probe.spilled = true;  // EXPLAIN's Outer Side
    if (pg_atomic_read_u32(&ss->partitioners) > 0) st->strategy.spill.partitions = ss->partitions;
}
