// join_node.h — the MergePath Join node: its plan information (planner -> executor), its
// executor state, and what its files share:
//   join_path.cpp      planner: which joins qualify, the serial and the partial path, costs
//   join_plan.cpp      path -> CustomScan plan (children, scan tuple, key columns)
//   join_exec.cpp      executor lifecycle: begin, exec, end, rescan (the data flow)
//   join_way.cpp       the way an execution runs (MpJoinWay): chosen once, switched once
//   join_input.cpp     step 1: reading the children into keys and stored rows
//   join_combine.cpp   step 2: the stage sorts both sides and searches A in B; the
//                      ranges and the row directory are put where every emitter reads them
//   join_emit.cpp      step 3: expanding ranges into pairs, filters, outer-join rows
//   join_parallel.cpp  the parallel-aware callbacks and a participant's way through
//   join_spill.cpp     a serial join over pg_mergepath.memory_limit: both inputs sorted
//                      by key into runs of rows (spill_runs.h), combined key range by key range
//   join_spill_key.cpp ... a key whose rows pass a range: spooled, split over ranges
//   join_spill_loop.cpp ... or, with a filter in an outer, semi or anti join, joined row by row
//   join_spill_parallel.cpp ... a parallel join: each participant writes its share into
//                      hash partitions, then joins the partitions it claims
//   join_probe.cpp     a join whose inner side is much smaller: only it goes through the
//                      stage; the outer side streams past it in small batches
//   join_explain.cpp   EXPLAIN
// Calls go down: exec -> input / combine / parallel / emit -> extension/spill,
// extension/parallel (the protocol), extension/stage (the sorted sides), extension/store.
#pragma once

#include "join.h"

#include "device.h"
#include "hash_partitions.h"
#include "join_keys.h"
#include "key_chunks.h"
#include "parallel_protocol.h"
#include "row_arena.h"
#include "row_directory.h"
#include "spill_runs.h"
#include "stage.h"

#include "pg_mergepath.h"

// ---- plan information (join_plan.cpp) ----------------------------------------------

// The plan information of one MergePath Join node (CustomScan.custom_private). Side 0
// is the outer input (A, the plan's lefttree), side 1 the inner one (B, righttree).
struct MpJoinInfo {
    JoinType jointype;    // INNER, LEFT, RIGHT, FULL, SEMI, ANTI
    int key_bits;         // 32, 64, 128
    bool parallel;        // a partial path: every participant reads, one combines, all emit
    bool spill;           // over pg_mergepath.memory_limit: sorted into runs of rows, combined
                          // key range by key range (join_spill.cpp; parallel: in hash partitions
                          // the participants claim: join_spill_parallel.cpp)
    bool probe;           // the outer side streams past sorted B (join_probe.cpp): INNER, LEFT,
                          // SEMI, ANTI with an inner side much smaller than the outer one
    bool own_inner;       // ... under a Gather, not parallel-aware: every participant reads
                          // and sorts all of B itself, and streams its share of A
    int nkeys;
    int nrecheck;         // the first nrecheck clauses of the join filter (custom_exprs)
                          // are key clauses keyed by image hash, checked per pair
    List* key_columns[2];  // int list: the child's tlist column (0-based) of each key
    List* codecs[2];       // int list: MpCodec of each key column on each side
    List* key_widths;      // int list: bits of each key column
    List* stored[2];       // int list: child columns kept for output and filters; the
                           // scan tuple is stored[0] ++ stored[1]
    List* image_keys;      // oid list, three per key: an image column's type, operator
                           // and collation (InvalidOid for a lossless one)
    List* key_scales;      // int list: each key column's decimal scale (numeric(p, s)
                           // keys: numeric_keys.h), else 0
};

List* mp_join_info_to_list(const MpJoinInfo* info);
// Its scalar fields (join type, key bits, the flags) as an integer list: the first
// element of both the path's and the plan's custom_private.
List* mp_join_flags_to_list(const MpJoinInfo* info);
void mp_join_info_from_list(List* list, MpJoinInfo* info);
const char* mp_join_type_name(JoinType jointype);  // "Inner", "Left", ...

void mp_join_fix_scan_tlist(CustomScan* cscan);  // after planning (scan_tlists.h)
void mp_install_join_path_hook(void);
extern const CustomPathMethods mp_join_path_methods;
extern const CustomScanMethods mp_join_scan_methods;
extern const CustomExecMethods mp_join_exec_methods;

// ---- shared state ---------------------------------------------------------------------

// Where the combined results live (shared memory for a parallel node, the backend's for
// a serial one): refs of the chunk space. The range of equal keys in sorted B of each
// A row is next to that row's key, in its chunk (mp_chunk_ranges), found through the
// directory; A rows are emitted in row order (the order they were stored in).
struct MpJoinResults {
    uint64 rows[2];           // keyed rows of each side (A: row numbers; B: sorted positions)
    MpChunkRef b_refs;        // uint64[rows[1]]: each sorted B key's stored row, when an emitter reads
                              // one (join_combine.cpp: emitters_read_b_rows)
    MpChunkRef b_matched;     // uint8[rows[1]]: right / full joins: a pair with it passed
    MpChunkRef a_dir_first;   // uint64[a_dir_count]: first row number of each A key chunk
    MpChunkRef a_dir_chunk;   // MpChunkRef[a_dir_count]: the chunk (its ranges and references)
    uint64 a_dir_count;
    MpChunkRef b_keys;        // a streamed outer side: sorted B's keys (key_bits / 8 bytes each)
    MpChunkRef b_dir;         // ... and their directory (key_directory.h): uint64[b_dir_buckets + 1]
    uint64 b_dir_buckets;
};

// A parallel join spills with at most this many participants (their numbers stay below
// the writer number of the rows the combiner finds in shared memory).
constexpr int kMpMaxJoinSpillParticipants = kMpSharedChunksSlot;

// A parallel join's spill (join_spill_parallel.cpp): a file set in the node's DSM, where
// each participant writes its rows hash-partitioned by key (hash_partitions.h: a file per
// side and an index per writer); then the participants claim the partitions.
struct MpJoinSharedSpill {
    SharedFileSet fileset;     // the partition files (made when a limit is set: has_files)
    dsm_handle segment;        // the parallel query's segment (workers attach the file set to it)
    bool has_files;
    int participants;          // planned, the leader included: they share the limit
    int partitions;            // hash partitions of the keys (a power of two)
    pg_atomic_uint32 switched;        // a join planned in memory passed the limit: everyone partitions
    pg_atomic_uint32 partitioners;    // participants that wrote partitions
    pg_atomic_uint64 exported;        // a bit per writer whose partition files are complete
    pg_atomic_uint32 next_partition;  // the partitions' claims
    pg_atomic_uint64 held_bytes;  // stored-row blocks of every participant (their chunks:
                                  // the queue's used_bytes)
    pg_atomic_uint64 disk_kb;     // EXPLAIN: partition files and sorts of every participant,
    pg_atomic_uint64 ranges;      // the workers' ranges and split keys
    pg_atomic_uint64 keys_split;
    pg_atomic_uint64 keys_looped;
};

struct MpJoinShared {
    MpParallelState parallel;  // phases, the chunk queue, the claims of A batches, counters
    MpJoinSharedSpill spill;
    MpJoinResults results;
    int emitters;         // participants expanding pairs (under parallel.mutex)
    bool extras_claimed;  // the rows without a match (outer joins) are someone's
    pg_atomic_uint64 pairs;
    pg_atomic_uint64 filtered;
    pg_atomic_uint64 proven;
};

// ---- the join rules ------------------------------------------------------------------

// The join types' rules, the one statement of them every way of emitting follows
// (join_emit.cpp over ranges, join_spill_loop.cpp over spools):
// which join types emit the rows of a side that have no match (with the other side's
// columns NULL) ...
inline bool mp_join_outer_side(JoinType jt, int side) {
    if (side == 0) return jt == JOIN_LEFT || jt == JOIN_FULL || jt == JOIN_ANTI;
    return jt == JOIN_RIGHT || jt == JOIN_FULL;
}
// ... whose A row's answer is known at its first passing pair (SEMI: emitted with that
// pair's B columns, the row marks EvalPlanQual reads; ANTI: dropped) ...
inline bool mp_join_first_match_decides(JoinType jt) { return jt == JOIN_SEMI || jt == JOIN_ANTI; }
// ... and which emit an A row's passing pairs (all but ANTI; SEMI only the first).
inline bool mp_join_emits_pairs(JoinType jt) { return jt != JOIN_ANTI; }

// The serial step both emitters take for one A row, whatever feeds it its pairs (a B
// range, a spooled key's rows): a pair passed the filter. The row is matched; returns
// whether the pair is emitted, and *row_done when the row's answer is known, so that its
// other pairs are skipped.
struct MpJoinRowStep {
    bool matched;  // a pair of the row passed
    bool pair_passed(JoinType jt, bool* row_done) {
        matched = true;
        *row_done = mp_join_first_match_decides(jt);
        return mp_join_emits_pairs(jt);
    }
    // After the row's pairs: whether it is emitted alone, B's columns NULL.
    bool emits_unmatched(JoinType jt) const { return !matched && mp_join_outer_side(jt, 0); }
};

// ---- executor state ------------------------------------------------------------------

// The way one execution runs, and where it is on that way: the node's one state machine
// of strategies. join_way.cpp chooses the first state and makes the run-time switch at
// the limit; the partition steps of a parallel join advance it where they happen
// (join_spill_parallel.cpp: begin, finish, claims; join_parallel.cpp: joining the
// partitions); join_spill.cpp marks SortInput sorted. Every other question of "which
// way" asks this, never a flag. The ways' own data is the strategy part of the state:
// MpJoinProbe (StreamOuter), MpJoinSpill (the spilled ways); the parallel query's
// MpJoinShared serves every way but JoinPartitions and Finished of a parallel participant.
//
//   InMemory ------------+-> SortInput -> SortedRanges            (a serial node)
//   StreamOuter ---------+
//              limit passed while reading: the rows held move into the sorts
//   InMemory / StreamOuter -> WritePartitions -> PartitionsWritten -> JoinPartitions -> Finished
//              (a parallel participant: its share into hash partitions, then the ones it claims;
//              one that finished reading before the switch goes from InMemory / StreamOuter
//              straight to JoinPartitions, its rows written by the combiner, which passes
//              WritePartitions -> PartitionsWritten once more for them)
//   SortInput and WritePartitions are also chosen at the start (planned over the limit).
enum class MpJoinWay : uint8_t {
    Unchosen,           // before an execution's first row
    InMemory,           // both sides into chunks, combined once, emitted by A row
    StreamOuter,        // B into chunks, combined; A streams past sorted B (join_probe.cpp)
    SortInput,          // over the limit, this process alone: rows go into sorted runs
    SortedRanges,       // ... both sorted: key ranges loaded and combined one by one (join_spill.cpp)
    WritePartitions,    // a parallel participant over the limit: its rows into hash partitions
    PartitionsWritten,  // ... its files closed: it waits for the others, then claims partitions
    JoinPartitions,     // ... each partition it claims sorted, then as SortedRanges, alone
    Finished,           // ... no partition left to claim: nothing more to emit
};

// A spilled join's key whose rows may not fit one range (join_spill_key.cpp): A's rows of
// the key spooled (and, when they pass a quarter of a range, B's too), then loaded over
// several ranges, each holding a cell of A's rows x B's rows of the key.
enum class MpKeySpoolPhase : uint8_t {
    None,     // no key spooled
    StreamB,  // A's rows fit a quarter of a range: each range holds them all and B's next rows
    Grid,     // A's rows pass it: ranges over A chunk x B chunk, both spooled
    Loop,     // an outer, semi or anti join with a filter: both sides' rows of a key past a
              // range spooled, then joined row by row (join_spill_loop.cpp)
    Whole,    // ... a key that fits a range, spooled: the next range starts with it
};
struct MpKeySpool {
    MpKeySpoolPhase phase;
    int64 key[2];                // the key's words, as the sorts hold them
    Tuplestorestate* rows[2];    // the key's rows of A (and, Grid, of B), in the sort's layout
    TupleTableSlot* slot[2];
    uint64 count[2];             // rows spooled
    uint64 bytes[2];             // ... and what they hold once loaded
    uint64 key_ranges;           // ranges that held rows of the key so far
    uint64 a_read;               // Grid: A rows read in this pass over A (one pass per B chunk)
    uint64 b_chunk_start, b_chunk_rows;  // Grid: the B chunk of this pass (rows: 0 = not yet cut)
    uint64 keys_split;           // keys loaded over more than one range, every execution (EXPLAIN)
    // Loop: the current A row against B's rows of the key, then B's rows without a match
    bool loop_running;           // emitting the loop (its range holds no row)
    bool a_loaded;               // slot[0] holds the current A row ...
    MpJoinRowStep a_step;        // ... and its pairs so far
    bool b_extras;               // emitting B's rows without a match (right, full joins)
    uint64 b_index;              // B rows of the key gone through for the current A row
    uint8* b_matched;            // a bit per B row of the key (right, full joins)
    uint64 keys_looped;          // keys joined row by row, every execution (EXPLAIN)
};

// A join that spills (join_spill.cpp): each side's rows with their keys appended, in
// sorted runs by key (spill_runs.h, row runs); `head` is the side's next row (in `slot`),
// not yet put in a range.
struct MpJoinSpill {
    MpSpill runs;                // both sides' rows (in runs_cxt)
    MemoryContext runs_cxt;      // NULL: no runs open
    MpKeyStream head_stream[2];  // the stream of the head row (handed out at the next advance)
    TupleDesc desc[2];         // the side's stored columns, then the key as int8 word(s)
    TupleTableSlot* in[2];     // virtual: a row on its way into the runs
    TupleTableSlot* slot[2];   // minimal: the side's head row out of the runs
    bool head[2];              // slot holds a row
    bool head_keyed[2];        // ... whose key has no NULL
    int64 head_key[2][2];      // ... and its key words (hi, lo)
    int key_words;             // 1 or 2 int8 columns
    uint64 ranges;             // ranges combined, every execution (EXPLAIN)
    uint64 run_ranges;         // ... this execution
    uint64 disk_kb;            // runs' temporary files (EXPLAIN)
    bool budget_full;          // a range found no room in the shared GPU budget: the rest use the CPU
    // a parallel join (join_spill_parallel.cpp)
    bool switched;             // planned in memory, it partitioned at run time (EXPLAIN)
    int sharing;               // processes sharing the limit (1: a serial join)
    int partitions;            // EXPLAIN
    MpPartitions parts;        // the partitions this participant writes (in parts_cxt)
    MemoryContext parts_cxt;   // NULL: none open
    char* tuple;               // a row read back from a partition
    uint32 tuple_cap;
    uint64 arena_reported;     // a parallel participant's stored-row blocks added to held_bytes
    int joined;                // partitions this participant joined, this execution
    bool report_shared;        // ... and its stage's report added to the node's
    MpKeySpool spool;
};

// A join whose outer side streams (join_probe.cpp): a batch of outer rows read at a time,
// their keys found in sorted B, then emitted like a claimed batch of A rows.
constexpr int kMpProbeBatch = 256;
struct MpJoinProbe {
    const void* b_keys;        // sorted B's keys and their directory (the results)
    const uint64* b_dir;
    uint64 b_dir_buckets;
    MemoryContext batch_cxt;   // the batch's values passed by reference, reset per batch:
    char* bytes;               // copied one after another into blocks of it
    uint64 bytes_used, bytes_capacity;
    Datum* values;             // [kMpProbeBatch][nstored[0]]: the batch's stored columns
    bool* isnull;
    mergepath::JoinRange ranges[kMpProbeBatch];  // each row's equal keys in sorted B
    bool exact[kMpProbeBatch];                   // ... and whether its key is exact (exact_keys)
    int rows;                  // in the batch
    bool done;                 // the outer input has ended
    bool spilled;              // an execution found B past the memory limit: both sides spilled (EXPLAIN)
    uint64 b_keys_held;        // B's keys read so far (the memory limit counts their copies)
    // the directory's view (mergepath::KeyDirectory<K> of the node's key type), made once
    alignas(8) char directory[64];  // 8, not more: the node is palloc'd (MAXALIGN)
    double probe_ms;           // reading the outer rows and finding their keys (EXPLAIN)
};

enum class MpJoinStep { Init, Claim, Pairs, Extras, Done };
enum class MpExtrasPart { ANulls, BUnmatched, BNulls, Done };

// A participant's place in its claimed batch of A rows, or in the extras.
struct MpJoinCursor {
    uint64 a, a_end;  // A row numbers of the batch
    uint64 b, b_end;  // sorted B positions still to pair with A position a
    bool a_started;   // b, b_end are a's
    bool a_exact;     // ... and its key is exact (MpJoinNode.exact_keys): no recheck
    MpJoinRowStep a_step;  // a's pairs so far
    MpExtrasPart part;
    MpChunkRef chunk;  // null-key rows: the chunk being walked (the queue's all list)
    uint64 in_chunk;
    uint64 b_pos, b_pos_end;  // unmatched B: sorted positions still to look at
};

// The B range of A row `row` (in its chunk, next to its key); *near: the emitter's
// cursor over the directory (mp_row_chunk_near); *exact (when asked, 64-bit keys): the
// key has numeric_keys.h's exact bit.
inline const mergepath::JoinRange* mp_join_a_range(const MpRowDirectory* dir, uint64 row, uint64* near,
                                                   bool* exact = nullptr) {
    uint64 c = mp_row_chunk_near(dir, row, near);
    if (exact) *exact = mp_numeric_key_is_exact(((const uint64*)dir->keys[c])[row - dir->first[c]]);
    return &dir->ranges[c][row - dir->first[c]];
}

// A's references for row numbers [lo, hi), resolved ahead of use in one pass (the loads
// overlap, and the rows' tuples are prefetched) instead of one dependent chain of cache
// misses per row.
struct MpRowWindow {
    uint64 lo, hi;
    uint64* refs;  // kMpEmitBatch
};

// The key recheck of a claimed batch of A rows, done before their pairs
// (join_batch_proof.cpp): which rows' pairs are proven to hold equal keys, so that
// their pairs are treated as those of an exact key (no recheck, no stored row read of a
// side that only the recheck reads).
struct MpBatchProof {
    uint64 first, count;        // the batch's A rows [first, first + count) (count 0: none proven)
    bool* proven;               // kMpEmitBatch: per row of the batch
    const void** b_rows;        // the candidates' stored rows, a group of A rows at a time
    TupleDesc key_desc[2];      // each side's stored columns as far as the last key compared
    Datum* values[2];           // ... a row's, while it is compared
    bool* isnull[2];
};

// B's stored rows in the order the next pairs will ask for them (A rows come in the order
// they were read, so their B ranges lie anywhere): the rest of the current A row's range,
// then the ranges of the batch's next A rows — or a run of sorted positions, for the
// unmatched B rows — resolved in one pass, prefetched a few rows ahead of their use.
struct MpPairWindow {
    uint64* pos;           // kMpEmitBatch sorted B positions, in blocks of consecutive ones
    uint32* block_end;     // ... where the block of each entry ends (the next block's start)
    MinimalTuple* tuples;  // their stored rows
    uint32 count, next;
};

// What EXPLAIN ANALYZE counts, over every participant and execution.
struct MpJoinCounts {
    MpNodeCounts node;  // rows read, rows with a NULL key, rows emitted, who took part
    uint64 pairs;
    uint64 filtered;
    uint64 proven;      // A rows whose pairs a batch's proof found equal (join_batch_proof.cpp)
};

// An image key clause, checked per pair of equal hashes before the join filter (two
// different values may share a hash): its operands' columns in the scan tuple and how
// they are compared.
struct MpKeyRecheck {
    int a_col, b_col;
    bool bytewise;   // text, varchar, bytea (deterministic collations): equal exactly when
                     // their bytes are, compared in place unless compressed or out of line
    FmgrInfo eq;     // else, and then: the clause's function under its collation
    Oid collation;
};

// The node's state, in the parts the executor's steps own:
// what begin sets from the plan and the children, the same for every execution ...
struct MpJoinNode {
    MpJoinInfo info;
    MpJoinKeySide key_side[2];
    int read_columns[2];      // deform each child's tuple this far
    int nstored[2];
    int* stored_columns[2];
    TupleDesc stored_desc[2];
    bool outer_side[2];       // rows of this side without a match are emitted
    bool reads_side[2];       // the output, the filter or the qual reads a column of this side
                              // (else only the key recheck does). Every reader of stored
                              // columns must count here: a row of exact key on a side
                              // this says nothing reads keeps NULLs (mp_join_row_unread)
    bool exact_keys;          // a numeric key: where exact (numeric_keys.h) no recheck, and no
                              // stored row read of a side that reads_side says nothing reads
    bool library_match;       // b_matched comes from the library (right / full, nothing checked per pair)
    bool proves_batches;      // every key clause is rechecked bytewise: an emitter proves the
                              // pairs of each batch it claims first (join_batch_proof.cpp)
    MpKeyRecheck* recheck;    // the plan's first info.nrecheck join filter clauses (custom_exprs) ...
    ExprState* filter;        // ... and the rest, or NULL
};

// ... one run's memory: the stage, the chunks and stored rows (a rescan, and each key
// range or partition of a spilled join, resets cxt) ...
struct MpJoinRun {
    MemoryContext cxt;
    MpStage* stage;
    MpChunkSpace space;
    MpChunkWriter writers[2][2];  // [stream][side]; stream 1: rows whose key has a NULL
    MpRowArena arena[2];
    MpAdoptedChunks adopted[2];
};

// ... the emitter's place in the results (join_emit.cpp) ...
struct MpJoinEmitter {
    MpJoinStep step;
    MpJoinCursor cur;
    bool emitting;  // counted in the shared emitters
    const uint64* b_refs;
    uint8* b_matched;
    MpRowDirectory a_dir;
    uint64 a_dir_near;      // a_dir's chunk of the last A row looked up (a batch goes in order;
                            // its window of references runs ahead and back: any value is safe)
    MpRowWindow a_window;
    MpPairWindow b_window;  // the batch's rows' candidates, or a run of unmatched B rows
    MpPairWindow b_walk;    // a SEMI / ANTI row's walk past its first candidates
    MpPairWindow* b_active;  // the one b_tuple last read from
    MpBatchProof proof;      // the claimed batch's rows whose pairs need no recheck
    Datum* a_values;  // the current A row's stored columns (join_emit.cpp: put_a)
    bool* a_isnull;
};

// ... the one strategy: the way this execution runs (join_way.cpp) and the data of the
// ways that need their own (a streamed outer side; the spilled ways) ...
struct MpJoinStrategy {
    MpJoinWay way;
    MpJoinProbe probe;  // StreamOuter
    MpJoinSpill spill;  // SortInput, SortedRanges, the partition ways
};

// ... and what EXPLAIN ANALYZE shows.
// pg_mergepath.debug_timeline: when this process's part of the last execution began,
// finished reading, had its results (combined them, or found them published) and
// finished emitting; wall-clock ms (timing.h), 0 where not reached.
struct MpJoinTimeline {
    double begin, read, results, emitted;
};

struct MpJoinStats {
    MpJoinCounts counts;
    MpStageReport report;
    double read_ms, expand_ms, emit_ms;
    MpJoinTimeline timeline;
    bool b_rows_unread;  // this process combined without B's references (join_combine.cpp:
                         // emitters_read_b_rows), in some execution
};

struct MpJoinState {
    CustomScanState css;  // must be first
    MpJoinNode node;
    MpJoinShared* dsm;          // the parallel query's (DSM), or NULL: counters, the spill's files
    MpJoinShared local_shared;  // a serial node's results (and those of a partition joined alone)
    MpJoinRun run;
    MpJoinEmitter emitter;
    MpJoinStrategy strategy;
    MpJoinStats stats;
};

// Whether a pair of equal keys may still fail: a key clause to recheck, or a join filter.
inline bool mp_join_checks_pairs(const MpJoinState* st) { return st->node.filter || st->node.info.nrecheck > 0; }
// Whether an A row is decided by its first candidate whose keys are equal: SEMI and ANTI
// without a join filter (no pairs are walked past it).
inline bool mp_join_first_candidate_decides(const MpJoinState* st) {
    return !st->node.filter && mp_join_first_match_decides(st->node.info.jointype);
}

// Where a side's stored columns start in the scan tuple (outer side's first).
inline int mp_join_scan_offset(const MpJoinState* st, int side) { return side == 0 ? 0 : st->node.nstored[0]; }

// The ways that read rows into sorts or partition files instead of chunks ...
inline bool mp_join_way_sorts_input(MpJoinWay way) {
    return way == MpJoinWay::SortInput || way == MpJoinWay::WritePartitions;
}
// ... and those that combine sorted key ranges one after another.
inline bool mp_join_way_sorted(MpJoinWay way) {
    return way == MpJoinWay::SortedRanges || way == MpJoinWay::JoinPartitions;
}
// This execution's stage, results and claims live in the parallel query's shared memory
// (every participant of a parallel node until it joins partitions alone).
inline bool mp_join_runs_shared(const MpJoinState* st) {
    return st->dsm != NULL && st->strategy.way != MpJoinWay::JoinPartitions && st->strategy.way != MpJoinWay::Finished;
}
inline MpJoinShared* mp_join_shared(MpJoinState* st) {
    return mp_join_runs_shared(st) ? st->dsm : &st->local_shared;
}

inline bool mp_join_timing_on(MpJoinState* st) {
    Instrumentation* instr = st->css.ss.ps.instrument;
    return instr != NULL && instr->need_timer;
}

// join_input.cpp
struct MpJoinReadCounts {
    uint64 rows[2];
    uint64 null_key_rows;
};
MpJoinReadCounts mp_join_read_inputs(MpJoinState* st);

// join_combine.cpp
void mp_join_start_run(MpJoinState* st);     // run context, stage, chunk space, writers, arenas
void mp_join_free_run(MpJoinState* st);      // ... all freed (the C++ objects by the context's reset callback)
void mp_join_adopt_pending(MpJoinState* st);  // early: ships chunks while reading (GPU)
void mp_join_combine(MpJoinState* st, uint64 keys);  // opens, adopts the rest, finishes, B's results in place
void mp_join_put_ranges(MpJoinState* st);  // then A's ranges into A's chunks, announced piece by piece
void mp_join_take_results(MpJoinState* st);          // every emitter: this process's view of them

// A row into this run's writers: its key (with its stored row's reference when the
// side stores columns), or, for a key with a NULL (key == NULL), its reference alone in
// the other stream. Returns whether a chunk was pushed, after letting the combiner
// adopt the chunks pushed so far.
template <class K>
inline bool mp_join_put_row(MpJoinState* st, int side, const K* key, uint64 ref) {
    bool pushed;
    if (!key)
        pushed = mp_writer_put(&st->run.writers[int(MpKeyStream::Nulls)][side], ref);
    else if (st->node.nstored[side] > 0)
        pushed = mp_writer_put_ref(&st->run.writers[int(MpKeyStream::Main)][side], *key, ref);
    else
        pushed = mp_writer_put(&st->run.writers[int(MpKeyStream::Main)][side], *key);
    if (unlikely(pushed)) mp_join_adopt_pending(st);
    return pushed;
}

// Whether a row of `side` keyed `key` keeps no columns of its own: its key is exact
// (numeric_keys.h: a pair of exact keys is never rechecked) and nothing but the recheck
// reads the side's columns (MpJoinNode.reads_side). Such a row's reference is its arena's
// one row of NULLs (mp_arena_put_all_null), so every reader still finds a row, and its
// columns go into a sort as NULLs.
template <class K>
inline bool mp_join_row_unread(const MpJoinState* st, int side, const K& key) {
    if constexpr (sizeof(K) == sizeof(uint64))
        return st->node.exact_keys && !st->node.reads_side[side] && mp_numeric_key_is_exact(uint64(key));
    else
        return false;
}

// Whether a spilled key is exact (its pairs need no recheck), its word as the sorts hold
// it (join_spill.cpp: top bit flipped).
inline bool mp_join_sorted_key_exact(const MpJoinState* st, const int64* words) {
    return st->node.exact_keys && mp_numeric_key_is_exact(uint64(words[0]) ^ (uint64(1) << 63));
}

// join_way.cpp
void mp_join_choose_way(MpJoinState* st);  // an execution's first state (st->strategy.way)
// A join reading in memory passed the limit (mp_join_spill_due): the rows it reads next go
// into new sorts (a parallel participant's: into hash partitions); a serial join's rows
// held so far too (and are freed), a parallel participant's stay in shared memory, which
// the combiner writes into partitions.
void mp_join_switch_way(MpJoinState* st);
void mp_join_end_way(MpJoinState* st);  // the execution's spill closed, its way Unchosen (end, rescan)

// join_spill.cpp
int mp_join_spill_sort_kb(void);            // each side's sort memory (kB)
bool mp_join_spill_planned(const MpJoinState* st);  // planned to spill, and a limit is set now
void mp_join_spill_begin(MpJoinState* st);  // the way's sorts or partition files, before its rows
bool mp_join_spill_due(MpJoinState* st);    // a join reading in memory holds the limit
// Both sides' sorts (work_kb 0: only their rows' layout and slots, to write partitions);
// sharing: the processes sorting at the same time.
void mp_join_spill_open_sorts(MpJoinState* st, int work_kb, int sharing = 1);
// A row in the sorts' layout (a partition's, in `slot` as the MinimalTuple `row`) into its sort.
void mp_join_spill_put_sorted(MpJoinState* st, int side, TupleTableSlot* slot, MinimalTuple row);
void mp_join_spill_close_sorts(MpJoinState* st);
void mp_join_spill_move_held(MpJoinState* st);  // the rows held in chunks into the spill
void mp_join_spill_perform(MpJoinState* st);    // both sorted, their files counted, first rows out
// the rest of a child into its sort
uint64 mp_join_spill_read_side(MpJoinState* st, PlanState* child, int side, uint64* null_key_rows);
void mp_join_spill_finish_read(MpJoinState* st);   // both sorts sorted, their first rows out
uint64 mp_join_spill_load_range(MpJoinState* st);  // the next key range into the writers; its rows
bool mp_join_spill_more(const MpJoinState* st);    // rows left for another range
void mp_join_spill_end(MpJoinState* st);           // the sorts and files closed (mp_join_end_way)
// for join_spill_key.cpp: the side's head row into the range (then the next head), a row
// of the key `key` from `slot` into the range (its bytes), the side's next head
uint64 mp_join_spill_load_head(MpJoinState* st, int side);
uint64 mp_join_spill_load_row(MpJoinState* st, int side, TupleTableSlot* slot, const int64* key);
void mp_join_spill_advance(MpJoinSpill* sp, int side);
bool mp_join_spill_same_key(const MpJoinSpill* sp, int side, const int64* key);  // the head has `key`
// what a range loads (a third of the limit, or of this participant's part; 64 kB at least)
uint64 mp_join_spill_range_bytes(const MpJoinState* st);

// join_spill_parallel.cpp
void mp_join_spill_share_init(MpJoinShared* sh, ParallelContext* pcxt);  // the leader, first execution
void mp_join_spill_share_reset(MpJoinShared* sh);             // the leader, a rescan: the files deleted
void mp_join_spill_share_attach(MpJoinShared* sh);            // a worker
bool mp_join_spill_share_planned(const MpJoinState* st);      // the file set exists
bool mp_join_spill_share_due(MpJoinState* st, uint64 limit);  // the participants hold the limit
void mp_join_spill_share_begin(MpJoinState* st);              // this participant partitions its rows
// One row (the sort's layout, in a virtual slot) into its partition (words NULL: a NULL key).
void mp_join_spill_partition_row(MpJoinState* st, int side, TupleTableSlot* row, const uint64* words);
void mp_join_spill_share_finish(MpJoinState* st);             // its partition files complete, exported
void mp_join_spill_share_close(MpJoinState* st);              // its partitions closed (an early end)
bool mp_join_spill_partitioned(const MpJoinState* st);        // someone partitioned (reading is over)
void mp_join_spill_move_shared(MpJoinState* st);  // the combiner: rows in shared memory into partitions
// The next partition claimed, sorted, its first rows out; false when none is left (the way
// is Finished then) or the way is not JoinPartitions.
bool mp_join_spill_next_partition(MpJoinState* st);
void mp_join_spill_share_counts(MpJoinState* st);  // a participant's EXPLAIN counts into the DSM
void mp_join_spill_harvest(MpJoinState* st);       // the leader takes them

// join_spill_key.cpp
// Loads the key `key` (both sides' smallest) into the range holding `*bytes` of `target`
// (a join without a filter): all of it, or its first cell, or none (the range must close
// first); returns the rows loaded.
uint64 mp_key_spool_load(MpJoinState* st, const int64* key, uint64 target, uint64* bytes);
bool mp_key_spool_active(const MpJoinState* st);  // a key spooled has rows for more ranges
// Both sides' rows of the key `key` into the spools (emptied first; counts and bytes).
void mp_key_spool_fill(MpJoinState* st, const int64* key);
// The side's spool's next row into the range (its active read pointer); its bytes.
uint64 mp_key_spool_load_next(MpJoinState* st, int side);
void mp_key_spool_finish(MpJoinState* st);  // the key is done: spools emptied, phase None

// join_spill_loop.cpp
// An outer, semi or anti join with a filter: the key `key` (both sides' smallest) into the
// range holding `*bytes` of `target` when its rows fit a range, else spooled for the loop
// (run once the range so far is emitted). Returns the rows loaded.
uint64 mp_key_loop_load(MpJoinState* st, const int64* key, uint64 target, uint64* bytes);
void mp_key_loop_start(MpJoinState* st);                  // the spooled key's loop, in an empty range
uint64 mp_key_loop_load_whole(MpJoinState* st, uint64* bytes);  // the spooled key into the range
bool mp_key_loop_next(MpJoinState* st, TupleTableSlot* scan);  // its next row; false at its end
uint64 mp_key_spool_next(MpJoinState* st, uint64 target, uint64* bytes);  // its next range
void mp_key_spool_end(MpJoinState* st);           // spools freed (end, rescan)

// join_probe.cpp
void mp_join_probe_start(MpJoinState* st);    // a StreamOuter run's batch memory
void mp_join_probe_put_b(MpJoinState* st);    // the combiner: sorted B's keys and their directory
void mp_join_probe_take(MpJoinState* st);     // every emitter: this process's view of them
bool mp_join_probe_fill(MpJoinState* st);     // the next batch of outer rows, searched; false at the end
void mp_join_probe_restart(MpJoinState* st);  // a rescan: the outer side streams again
// The range of equal B keys of batch row a, and its stored columns into st->emitter.a_values.
inline const mergepath::JoinRange* mp_join_probe_range(const MpJoinState* st, uint64 a) {
    return &st->strategy.probe.ranges[a];
}
void mp_join_probe_a_row(MpJoinState* st, uint64 a);

// join_parallel.cpp
void mp_join_shared_init(MpJoinShared* sh);  // a new execution's (a serial node's own too)
// A participant's parallel steps: afterwards it emits its claims of the shared results,
// or (way JoinPartitions) joins alone the first partition of a spilled join it claimed,
// or (Finished) has nothing to emit.
void mp_join_parallel_compute(MpJoinState* st);
Size mp_join_estimate_dsm(CustomScanState* node, ParallelContext* pcxt);
void mp_join_initialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate);
void mp_join_reinitialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate);
void mp_join_initialize_worker(CustomScanState* node, shm_toc* toc, void* coordinate);
void mp_join_shutdown(CustomScanState* node);

// join_emit.cpp
void mp_join_start_emit(MpJoinState* st);
bool mp_join_next(MpJoinState* st, TupleTableSlot* scan);  // the next joined row (before the qual)
void mp_join_stop_emit(MpJoinState* st);                   // leaves the emitters (an early end)
void mp_join_restart_emit(MpJoinState* st);                // a serial rescan: the same results again
void mp_join_store_scan(TupleTableSlot* scan);  // the values written into the scan tuple, stored
// The key recheck (unless keys_exact) and the join filter (a pair failing is counted).
bool mp_join_passes_filter(MpJoinState* st, TupleTableSlot* scan, bool keys_exact);
// A stored row into values / isnull: the columns of desc (a side's stored_desc, or its
// first few).
void mp_join_deform_stored(TupleDesc desc, MinimalTuple tuple, Datum* values, bool* isnull);
// A row's stored row (a claimed batch's, read through A's window of references).
MinimalTuple mp_join_a_tuple(MpJoinState* st, uint64 a);

// join_batch_proof.cpp: whether the node's emitters prove their batches (at begin), their
// memory (with the results), and the proof of a claimed batch [a, a_end) of A rows.
bool mp_join_may_prove_batches(const MpJoinState* st);
void mp_join_proof_alloc(MpJoinState* st);
void mp_join_prove_batch(MpJoinState* st, uint64 a, uint64 a_end);
// Whether A row a's pairs were proven (a row of the batch last proven).
inline bool mp_join_row_proven(const MpJoinState* st, uint64 a) {
    const MpBatchProof* p = &st->emitter.proof;
    return a - p->first < p->count && p->proven[a - p->first];
}

// join_explain.cpp
void mp_explain_join(CustomScanState* node, List* ancestors, ExplainState* es);
