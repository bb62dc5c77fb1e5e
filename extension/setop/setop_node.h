// setop_node.h — the MergePath SetOp node: its plan information (planner -> executor), its
// executor state, and what its files share:
//   setop_path.cpp      planner: the serial path and the partial (parallel) path
//   setop_plan.cpp      path -> CustomScan plan, and the plan-tree fix-ups
//   setop_exec.cpp      executor lifecycle: begin, exec, end, rescan (the data flow)
//   setop_way.cpp       the way an execution runs (MpSetOpWay): chosen once, switched once
//   setop_input.cpp     step 1: reading the children into key chunks
//   setop_combine.cpp   step 2: the stage sorts and combines; results put in place
//   setop_parallel.cpp  the parallel-aware callbacks and a participant's way through
//   setop_ranges.cpp    a node over pg_mergepath.memory_limit: spilled runs,
//                       combined key range by key range (setop_ranges.h)
//   image_ranges.cpp    ... image keys: hash partitions, combined piece by piece
//   setop_output.cpp    step 3: emitting result rows
//   image_combine.cpp   image keys: sorted rows -> records, groups, results in place
//   image_groups.cpp    image keys: groups of equal images and their result rows
//   hash_verify.cpp     hashed keys: equal hashes proved to be equal rows
//   exact_setop.cpp     the exact in-backend recompute after a hash collision
//   setop_explain.cpp   EXPLAIN
// Calls go down this list's dependency order (exec -> input / combine / parallel /
// output -> verify / exact -> the stage and the row store), never back up.
#pragma once

#include "setop.h"

#include "device.h"
#include "images.h"
#include "keys.h"
#include "key_chunks.h"
#include "parallel_protocol.h"
#include "row_arena.h"
#include "row_directory.h"
#include "row_store.h"
#include "spill_runs.h"
#include "stage.h"

#include "pg_mergepath.h"

// ---- plan information (setop_plan.cpp) ---------------------------------------------

// The plan information of one MergePath SetOp node (CustomScan.custom_private).
struct MpSetOpInfo {
    mergepath::SetOp op;  // Intersection, Difference or Union (SQL INTERSECT / EXCEPT / UNION)
    bool all;             // ... ALL (UNION ALL: ours only in key order)
    MpKeyChoice keys;
    List* eqops;        // OID list: the grouping equality operator of each column
    List* collations;   // OID list: the collation of each column
    int first_side;     // 0 / 1: the input whose first row of a group is emitted, as the
                        // replaced plan does (a hashed INTERSECT may read the right input first)
    bool parallel;      // a partial path: every participant reads, one combines, all emit
    bool spill;         // a partial path over half of pg_mergepath.memory_limit: every
                        // participant spills sorted runs (or hash partitions), one plans the
                        // ranges, and every participant claims, combines and emits ranges
    bool ordered;       // planned with pathkeys: its rows come out in key order, which
                        // every way of running gives for the keys mp_setop_keys_ordered
                        // accepts (a parallel node: each participant's rows, for a
                        // Gather Merge)
    bool one_emitter;   // a partial path under a Gather that keeps its order: the
                        // combiner emits every result, the others only read
};

List* mp_setop_info_to_list(const MpSetOpInfo* info);
void mp_setop_info_from_list(List* list, MpSetOpInfo* info);
const char* mp_setop_name(mergepath::SetOp op, bool all);  // "Intersect All", "Union", ...

void mp_install_setop_path_hook(void);
void mp_setop_fix_scan_tlist(CustomScan* cscan);  // after planning (scan_tlists.h)

extern const CustomPathMethods mp_setop_path_methods;
extern const CustomScanMethods mp_setop_scan_methods;
extern const CustomExecMethods mp_setop_exec_methods;

// ---- executor state ------------------------------------------------------------------

// PostgreSQL's tuple hash table counting each group's rows per side, as HashSetOp does:
// used to recompute a query whose hashes collided.
struct MpExactTable {
    TupleHashTable table;
    MemoryContext table_cxt;
    MemoryContext temp_cxt;
    TupleHashIterator iter;
    TupleHashEntry entry;  // being emitted
    int64 copies_left;     // of entry
    uint64 groups;
    int entry_side;        // rows of this side create groups (holding their first row),
                           // rows of the other side only count in existing ones
};

enum class MpPhase { Init, EmitLibrary, EmitExact, Done };

// A run of result keys in this process's address space.
struct MpResultRun {
    const char* keys;
    uint64 count;
};

using MpSetOpCounts = MpNodeCounts;  // parallel_protocol.h

struct MpSetOpRanges;  // setop_ranges.cpp

// The way one execution runs: the node's one state of strategies (setop_way.cpp chooses
// it at the start; a limit passed while reading switches it once). Every "which way"
// question asks this, never which pointer is set. What a way holds: the parallel state
// (st->shared, the Shared ways), the spill (st->strategy.ranges, once a spilling way wrote its
// first run), the query's file set (st->files).
//   InMemory -> KeyRanges                        (a serial node: past a third of the limit)
//   SharedInMemory -> SharedSwitched             (a parallel node planned in memory: its
//                                                 participants passed half the limit)
//   SharedRanges                                 (a parallel node planned over the limit)
enum class MpSetOpWay : uint8_t {
    Unchosen,        // before an execution's first row
    InMemory,        // a serial node: its chunks in its memory, combined once
    KeyRanges,       // ... which spilled: sorted runs (image keys: hash partitions) in
                     // files, combined key range by key range (setop_ranges.cpp)
    SharedInMemory,  // a parallel participant: chunks in the query's shared memory, one
                     // participant combines, all emit batches they claim
    SharedSwitched,  // ... passed half the limit while reading: its chunks from then on in
                     // its own memory and spilled; then every participant claims ranges
    SharedRanges,    // a parallel node planned over the limit: each participant spills its
                     // own share; the combiner plans the ranges; all claim them
};

// The node's state, in the parts the executor's steps own:
// what begin sets from the plan and the children, the same for every execution ...
struct MpSetOpNode {
    MpSetOpInfo info;
    int ncols;
    mergepath::SetOp op;  // info.op, info.all
    bool all;
    MpKeyPlan keys;
    MpImagePlan images;           // image keys: how rows become records
    TupleTableSlot* row_slot[2];  // MinimalTuple slots over stored rows
    ExprState* row_equal;         // grouping equality of row_slot[0] vs row_slot[1]
    pg_uuid_t* uuid_bufs;         // decoded uuid values of the current output row
};

// ... one execution's memory: the stage, the chunks, stored rows or records (a rescan
// resets cxt) ...
struct MpSetOpRun {
    MemoryContext cxt;
    MpStage* stage;               // the library side, in the combining process
    MpChunkSpace space;           // where key chunks and shared results live
    MpChunkQueue local_queue;     // full chunks of every way but SharedInMemory (mp_setop_queue)
    MpChunkSpace own_space;       // SharedSwitched: where its chunks go since (mp_setop_chunk_space)
    uint64 records_reported;      // image keys, switchable: arena bytes added to the shared count
    MpChunkWriter writers[2][2];  // [MpKeyStream][side]
    MpRowStore store[2];          // hashed keys: the input rows
    MpImageScratch image_scratch;
    MpRowArena image_arena;       // image keys: this process's records
    MpAdoptedChunks adopted[2];   // image keys, the combiner: row numbers -> records
    MpExactTable exact;           // hashed keys: the recompute after a collision
};

// ... the results and the emitter's place in them (setop_output.cpp): main keys
// (key_bits) and null-layout keys (Key128), each as runs, in the library's host memory
// or in shared memory. [emit_pos, emit_end) of stream 0 ++ stream 1 is this process's
// current range; the cursor says where emit_pos is ...
struct MpSetOpEmitter {
    MpPhase phase;
    bool silent;  // a participant of a one-emitter node that did not combine: emits nothing
    bool hash_collision;
    MpResultRun* runs[2];
    int run_count[2];
    uint64 result_count[2];
    uint64 emit_pos, emit_end;
    int cursor_stream, cursor_run;
    uint64 cursor_offset;
    const mergepath::HostSpan* result_spans[2];  // the combiner: where each stream's results go
    int result_span_count[2];
    // hashed keys: the library's with-rows results (while the stage lives)
    const uint64_t* result_positions;  // positions in sorted A
    const uint64_t* sorted_rows[2];    // stored row of each sorted position, per side
    const void* sorted_keys[2];        // K[sorted_count[side]], the sorted hash keys
    uint64 sorted_count[2];
    uint64 run_start;                  // sorted position (on info.first_side) of the
    bool run_start_valid;              // first row of the group emitted last
};

// ... the one strategy: the way this execution runs (setop_way.cpp) and the spill's
// data once a spilling way wrote its first run ...
struct MpSetOpStrategy {
    MpSetOpWay way;
    MpSetOpRanges* ranges;  // setop_ranges.cpp, image_ranges.cpp; NULL before
};

// ... and what EXPLAIN ANALYZE shows.
struct MpSetOpStats {
    MpSetOpCounts counts;
    MpStageReport report;
    MpSpillReport spilled;  // what earlier executions (rescans) spilled; a parallel node's:
                            // what the combiner spilled (harvested)
    double read_ms, verify_ms, emit_ms;
};

struct MpSetOpState {
    CustomScanState css;  // must be first
    MpSetOpNode node;
    MpParallelState* shared;  // parallel: the state all participants share (DSM)
    MpSharedSpill* files;   // ... and its file set (DSM): a node planned to spill, or one
                            // planned in memory that may switch ...
    bool switchable;        // ... (kept here: EXPLAIN asks after the DSM is gone)
    MpSetOpRun run;
    MpSetOpEmitter emitter;
    MpSetOpStrategy strategy;
    MpSetOpStats stats;
};

inline bool mp_timing_on(MpSetOpState* st) {
    Instrumentation* instr = st->css.ss.ps.instrument;
    return instr != NULL && instr->need_timer;
}

// Keys whose order is the output's order under the columns' sort operators (ASC NULLS
// LAST, column by column): lossless columns at full width, where every column after the
// first is proven never NULL (later_not_null; not_null.h). The codecs keep the types'
// order and pack the first column most significant, so the main stream's keys order the
// rows as ORDER BY does; it holds every row without a NULL and is emitted first, the
// rows whose first column is NULL after it (their null-layout keys: one mask, then the
// other columns in order). A NULL in a later column would put its row there too, out of
// order. Every way of running emits results in key order (ranges in order, a
// participant's batches in order). Ranged keys do not: a value outside its range takes
// the second stream.
inline bool mp_setop_keys_ordered(const MpKeyChoice* keys, int ncols, bool later_not_null) {
    return keys->lossless && keys->ranges == NULL && (ncols == 1 || later_not_null);
}

// Whether a key found in B alone gives result rows (UNION), not only keys of A.
inline bool mp_setop_results_from_b(const MpSetOpState* st) { return st->node.op == mergepath::SetOp::Union; }

// Keys that are 64-bit hashes verified with the equality operators (not images).
inline bool mp_verified_hashes(const MpSetOpState* st) { return !st->node.keys.lossless && !st->node.info.keys.images; }

// The ways that run on the parallel query's shared state ...
inline bool mp_setop_way_shared(MpSetOpWay way) {
    return way == MpSetOpWay::SharedInMemory || way == MpSetOpWay::SharedSwitched || way == MpSetOpWay::SharedRanges;
}
// ... those whose results come from one combine of everything read (not key ranges) ...
inline bool mp_setop_way_in_memory(MpSetOpWay way) {
    return way == MpSetOpWay::InMemory || way == MpSetOpWay::SharedInMemory;
}
// ... and those whose participants spill into the query's file set and claim ranges.
inline bool mp_setop_claims_ranges(const MpSetOpState* st) {
    return st->strategy.way == MpSetOpWay::SharedSwitched || st->strategy.way == MpSetOpWay::SharedRanges;
}
// The query's file set this execution spills into, or NULL.
inline MpSharedSpill* mp_setop_spill_files(const MpSetOpState* st) { return mp_setop_claims_ranges(st) ? st->files : NULL; }
// A parallel node planned in memory that switches to spilling when its input passes the limit.
inline bool mp_setop_switchable(const MpSetOpState* st) { return st->files != NULL && st->switchable; }
// Where this process's full chunks go (the shared queue only while in shared memory) ...
inline MpChunkQueue* mp_setop_queue(MpSetOpState* st) {
    return st->strategy.way == MpSetOpWay::SharedInMemory ? &st->shared->queue : &st->run.local_queue;
}
inline const MpChunkQueue* mp_setop_queue(const MpSetOpState* st) {
    return st->strategy.way == MpSetOpWay::SharedInMemory ? &st->shared->queue : &st->run.local_queue;
}
// ... and where its chunks and records are allocated.
inline const MpChunkSpace* mp_setop_chunk_space(const MpSetOpState* st) {
    return st->strategy.way == MpSetOpWay::SharedSwitched ? &st->run.own_space : &st->run.space;
}

inline uint64 mp_result_total(const MpSetOpState* st) {
    return st->emitter.result_count[0] + st->emitter.result_count[1];
}

// Bytes of one key of a stream (MpKeyStream): the main keys' width, or a null-layout key.
inline uint32 mp_stream_key_bytes(const MpSetOpState* st, int stream) {
    return stream == int(MpKeyStream::Main) ? uint32(st->node.keys.key_bits / 8) : uint32(sizeof(mergepath::Key128));
}

// setop_input.cpp: reads this process's share of both inputs into key chunks
struct MpReadCounts {
    uint64 rows[2];
    uint64 null_rows;
    uint64 outside_rows;  // ranged keys: rows with a value outside its column's range
    uint64 alloc_us;  // chunk allocation (key_chunks.h)
};
MpReadCounts mp_read_inputs(MpSetOpState* st);

// setop_combine.cpp
void mp_start_run(MpSetOpState* st);                // run context, stage, chunk space and writers
void mp_adopt_pending(MpSetOpState* st);            // early: ships chunks while reading (GPU)
void mp_combine(MpSetOpState* st, uint64 keys);     // opens, adopts the rest, finishes
void mp_keep_local_results(MpSetOpState* st);       // serial: emit from the library's memory
void mp_lay_out_shared_results(MpSetOpState* st);   // parallel combiner: where results go in DSM
void mp_put_shared_results(MpSetOpState* st);       // ... then copies them there, piece by piece
void mp_take_shared_results(MpSetOpState* st);      // parallel: emit from DSM

// image_combine.cpp (the combiner, after mp_combine): the result rows' records,
// where the emitters read them (a parallel node's: announced ready)
void mp_put_image_results(MpSetOpState* st);
// ... or kept in `cxt` for this process alone (a key range of a node that spills);
// returns the milliseconds grouping took
double mp_keep_image_results(MpSetOpState* st, MemoryContext cxt);

// setop_ranges.cpp: a node with lossless or image keys over pg_mergepath.memory_limit
void mp_after_chunk_pushed(MpSetOpState* st);   // while reading: spill when due, else ship early
bool mp_ranges_due_after_read(MpSetOpState* st);  // spilled, or (what it holds at the end) spills now
void mp_ranges_finish_read(MpSetOpState* st);   // spilled: the rest written, the first results
bool mp_ranges_next_results(MpSetOpState* st);  // the next results, range by range (false: done)
void mp_ranges_restart(MpSetOpState* st);       // emit again from the first range (rescan)
void mp_ranges_close(MpSetOpState* st);         // the files deleted (end, rescan)
MpSpillReport mp_ranges_report(const MpSetOpState* st);
void mp_ranges_export(MpSetOpState* st);  // a parallel participant: its runs into the file set
void mp_ranges_plan_shared(MpSetOpState* st);  // the combiner: every participant's runs, ranges planned
void mp_ranges_join_shared(MpSetOpState* st);  // the others: the combiner's plan; then all claim ranges
// A parallel node planned in memory whose input passes the limit while it reads
// (setop_parallel.cpp): whether the participants switched to spilling; a participant
// switching (its writers then fill chunks of its own memory); the combiner writing out
// the chunks every participant pushed into shared memory before (their runs exported).
bool mp_spill_switched(const MpSetOpState* st);
bool mp_switch_due_after_read(MpSetOpState* st);  // the combiner: switched, or holds too much now
void mp_ranges_spill_shared_chunks(MpSetOpState* st);
void mp_image_ranges_spill_shared(MpSetOpState* st);  // image_ranges.cpp: the same, as partitions
void mp_report_shared_records(MpSetOpState* st);      // image keys: its records to the shared count
void mp_writers_to_own_memory(MpSetOpState* st);  // setop_combine.cpp

// setop_way.cpp
void mp_setop_choose_way(MpSetOpState* st);   // an execution's first way
void mp_switch_to_spilling(MpSetOpState* st);  // SharedInMemory -> SharedSwitched (once)

// image_ranges.cpp: a parallel node over image keys whose estimated input exceeds this
// is planned to partition (info.spill) even below pg_mergepath.memory_limit, and then
// works within mp_image_spill_budget
constexpr double kMpImagePartitionedBytes = 256.0 * 1024 * 1024;
uint64 mp_image_spill_budget(const MpSetOpState* st, uint64 limit_bytes);

// setop_parallel.cpp
void mp_parallel_compute(MpSetOpState* st);
Size mp_setop_estimate_dsm(CustomScanState* node, ParallelContext* pcxt);
void mp_setop_initialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate);
void mp_setop_reinitialize_dsm(CustomScanState* node, ParallelContext* pcxt, void* coordinate);
void mp_setop_initialize_worker(CustomScanState* node, shm_toc* toc, void* coordinate);
void mp_setop_shutdown(CustomScanState* node);

// hash_verify.cpp
bool mp_verify_hashed(MpSetOpState* st);

// exact_setop.cpp
void mp_exact_recompute(MpSetOpState* st);
void mp_exact_start_emit(MpSetOpState* st);
bool mp_exact_next(MpSetOpState* st, TupleTableSlot* out);

// setop_output.cpp
void mp_keep_hashed_results(MpSetOpState* st);
bool mp_emit_next(MpSetOpState* st, TupleTableSlot* out);
void mp_restart_emit(MpSetOpState* st);

// setop_explain.cpp
void mp_explain_setop(CustomScanState* node, List* ancestors, ExplainState* es);
