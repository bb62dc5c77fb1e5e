// setop.h — the executor state of a MergePath SetOp node and the functions its phases
// share: setop_exec.cpp (lifecycle), setop_input.cpp (reading the children into key
// batches), hash_verify.cpp (checking hashed results), exact_setop.cpp (the exact
// in-backend table), setop_output.cpp (emitting rows), explain.cpp.
#pragma once

#include "device.h"
#include "keys.h"
#include "mergepath/sql_setop.h"
#include "pipeline.h"

#include "pg_mergepath.h"

// The C++ objects of one execution, owned by the node's run_cxt (reset callback).
struct MpRunHolder {
    MpPipeline* pipeline;
    mergepath::Context* contexts[2];  // acquired: primary, and the CPU one of a redo
    MemoryContextCallback callback;
};

// The rows of one input (hashed keys only), in arrival order = the library's row numbers.
struct MpRowStore {
    MemoryContext cxt;  // holds the MinimalTuples
    MinimalTuple* rows;
    uint64 count;
    uint64 capacity;
};

// PostgreSQL's tuple hash table counting each group's rows per side, as HashSetOp does:
// used for the rows with NULLs (lossless keys) and to recompute a query whose hashes
// collided.
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

struct MpSetOpState {
    CustomScanState css;  // must be first

    // from the plan
    MpSetOpInfo info;
    int ncols;
    bool intersect;
    bool all;
    MpKeyPlan keys;
    MpDevice device;  // resolved at executor start

    // this execution (rescan resets run_cxt)
    MemoryContext run_cxt;
    MpRunHolder* holder;
    MpRowStore store[2];
    MpExactTable exact;
    bool exact_used;
    TupleTableSlot* row_slot[2];  // MinimalTuple slots over stored rows
    ExprState* row_equal;         // grouping equality of row_slot[0] vs row_slot[1]
    MpPhase phase;
    uint64 emit_pos;

    // the library's result arrays, valid while holder->pipeline lives (pipeline.h)
    const void* result_keys;  // lossless: K[result_count]
    const uint64_t* result_positions;  // hashed: positions in sorted A
    uint64 result_count;
    const uint64_t* sorted_rows[2];  // hashed: stored row of each sorted position, per side
    const void* sorted_keys[2];      // hashed: K[sorted_count[side]], the sorted hash keys
    uint64 sorted_count[2];
    uint64 run_start;                // hashed: sorted position (on info.first_side) of the
    bool run_start_valid;            // first row of the group emitted last

    // for EXPLAIN ANALYZE
    uint64 rows_read[2];
    uint64 null_rows;
    uint64 rows_emitted;
    bool hash_collision;
    bool oom_redo;
    double read_ms, verify_ms, emit_ms;
    mergepath::PipelineTimings timings;
};

// setop_input.cpp
void mp_read_inputs(MpSetOpState* st);
void mp_finish_pipeline(MpSetOpState* st);
void mp_create_run(MpSetOpState* st);
MinimalTuple mp_stored_row(MpSetOpState* st, int side, uint64 row);

// hash_verify.cpp
bool mp_verify_hashed(MpSetOpState* st);

// exact_setop.cpp
void mp_exact_init(MpSetOpState* st);
void mp_exact_add(MpSetOpState* st, TupleTableSlot* slot, int side);
void mp_exact_recompute(MpSetOpState* st);
void mp_exact_start_emit(MpSetOpState* st);
bool mp_exact_next(MpSetOpState* st, TupleTableSlot* out);

// setop_output.cpp
bool mp_emit_next(MpSetOpState* st, TupleTableSlot* out);
void mp_copy_row(MpSetOpState* st, TupleTableSlot* row, TupleTableSlot* out);

// explain.cpp
void mp_explain_setop(CustomScanState* node, List* ancestors, ExplainState* es);

// timing helper: milliseconds since `start` when instrumenting with timers
bool mp_timing_on(MpSetOpState* st);
