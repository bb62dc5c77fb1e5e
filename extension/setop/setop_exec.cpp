// setop_exec.cpp — the executor node "Custom Scan (MergePath SetOp)": INTERSECT [ALL]
// and EXCEPT [ALL] computed by sorting keys instead of hashing rows one by one.
//
// Data flow (one execution):
//   children -> key chunks -> sorted sides (device) -> result keys -> tuples
//   1. The node's two inputs are its plan's lefttree (the left query, side A) and
//      righttree (side B) — not an Append with a flag column: each side is read to
//      the end in turn (setop_input.cpp). Every row becomes a key (keys.cpp) written
//      into chunks (key_chunks.h).
//   2. The stage (stage.h; the library's SortedSides under SqlSetOp) adopts the
//      chunks — on the GPU while reading goes on, as runs that are copied and
//      radix-sorted there — merges each side's runs, keeps one key per run of A for
//      the DISTINCT forms, and runs the Balanced Path intersection / difference by key
//      and rank: min(m, n) copies for INTERSECT ALL, max(m - n, 0) for EXCEPT ALL, one
//      for INTERSECT / EXCEPT — exactly nodeSetOp.c's rules, NULLs equal to NULLs
//      (setop_combine.cpp).
//   3. Output, one row per ExecCustomScan call, straight from the result arrays
//      (setop_output.cpp): lossless keys are decoded back into the row; image keys
//      (images.h: a row's canonical bytes, hashed; equal hashes grouped by comparing
//      the bytes, image_groups.h) point at the result rows' records; hashed keys
//      point at the stored A rows, after hash_verify.cpp proved with the equality
//      operators that no two different rows shared a hash (else exact_setop.cpp
//      recomputes the query with PostgreSQL's tuple hash table, as HashSetOp would).
//
// A parallel-aware node (a partial path under a Gather) runs the same three steps
// with every participant reading its share in step 1, one of them running step 2 for
// all, and each emitting the result batches it claims in step 3 (setop_parallel.cpp).
//
// Memory: a node with lossless keys stays under pg_mergepath.memory_limit by spilling
// sorted runs and combining them key range by key range (setop_ranges.cpp), one with
// image keys by spilling hash partitions (image_ranges.cpp); hashed keys hold
// everything, as HashSetOp does (the planner does not offer them above the limit); a
// GPU out of memory moves the work to the CPU backend with a NOTICE (stage.cpp). The C++ objects belong to a per-execution memory context whose
// reset callback deletes them, so ERROR, cancel, rescan and end all free them.
#include "setop_node.h"
#include "scan_tlists.h"

static void mp_begin(CustomScanState* node, EState* estate, int eflags);
static TupleTableSlot* mp_exec(CustomScanState* node);
static void mp_end(CustomScanState* node);
static void mp_rescan(CustomScanState* node);

const CustomExecMethods mp_setop_exec_methods = {
    "MergePath SetOp",         mp_begin, mp_exec, mp_end, mp_rescan, NULL, NULL, mp_setop_estimate_dsm,
    mp_setop_initialize_dsm,   mp_setop_reinitialize_dsm,           mp_setop_initialize_worker,
    mp_setop_shutdown,         mp_explain_setop,
};

static Node* mp_create_state(CustomScan* cscan) {
    MpSetOpState* st = (MpSetOpState*)newNode(sizeof(MpSetOpState), T_CustomScanState);
    st->css.methods = &mp_setop_exec_methods;
    mp_setop_info_from_list(cscan->custom_private, &st->node.info);
    return (Node*)&st->css;
}

const CustomScanMethods mp_setop_scan_methods = {"MergePath SetOp", mp_create_state};

void mp_setop_install(void) {
    RegisterCustomScanMethods(&mp_setop_scan_methods);
    mp_install_setop_path_hook();
    mp_register_scan_tlist_fix(&mp_setop_scan_methods, mp_setop_fix_scan_tlist);
}

// The grouping equality of two stored rows (row_slot[0] vs row_slot[1]), NULL = NULL.
static ExprState* build_row_equal(MpSetOpState* st, TupleDesc desc) {
    AttrNumber* cols = (AttrNumber*)palloc(sizeof(AttrNumber) * st->node.ncols);
    Oid* eqfuncs = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    Oid* collations = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    for (int c = 0; c < st->node.ncols; c++) {
        cols[c] = AttrNumber(c + 1);
        eqfuncs[c] = get_opcode(st->node.keys.cols[c].eqop);
        collations[c] = st->node.keys.cols[c].collation;
    }
    return ExecBuildGroupingEqual(desc, desc, &TTSOpsMinimalTuple, &TTSOpsMinimalTuple, st->node.ncols, cols, eqfuncs,
                                  collations, &st->css.ss.ps);
}

static void init_keys(MpSetOpState* st, TupleDesc desc) {
    Oid* types = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    Oid* collations = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    Oid* eqops = (Oid*)palloc(sizeof(Oid) * st->node.ncols);
    int32* typmods = (int32*)palloc(sizeof(int32) * st->node.ncols);
    for (int c = 0; c < st->node.ncols; c++) {
        types[c] = TupleDescAttr(desc, c)->atttypid;
        typmods[c] = TupleDescAttr(desc, c)->atttypmod;
        collations[c] = list_nth_oid(st->node.info.collations, c);
        eqops[c] = list_nth_oid(st->node.info.eqops, c);
    }
    mp_keys_init(&st->node.keys, st->node.ncols, types, collations, eqops, &st->node.info.keys);
    if (st->node.info.keys.images) mp_images_init(&st->node.images, st->node.ncols, types, typmods, eqops, collations);
}

// ExecInitNode of both inputs; key plan, equality and slots for this node. The GPU
// starts now if it has not yet (it may still be starting while the input is read).
static void mp_begin(CustomScanState* node, EState* estate, int eflags) {
    MpSetOpState* st = (MpSetOpState*)node;
    Plan* plan = node->ss.ps.plan;
    int child_flags = eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
    outerPlanState(node) = ExecInitNode(outerPlan(plan), estate, child_flags);
    innerPlanState(node) = ExecInitNode(innerPlan(plan), estate, child_flags);

    TupleDesc desc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    st->node.ncols = list_length(st->node.info.eqops);
    st->node.op = st->node.info.op;
    st->node.all = st->node.info.all;
    init_keys(st, desc);
    st->node.row_slot[0] = ExecInitExtraTupleSlot(estate, desc, &TTSOpsMinimalTuple);
    st->node.row_slot[1] = ExecInitExtraTupleSlot(estate, desc, &TTSOpsMinimalTuple);
    if (mp_verified_hashes(st)) st->node.row_equal = build_row_equal(st, desc);
    st->node.uuid_bufs = (pg_uuid_t*)palloc0(sizeof(pg_uuid_t) * st->node.ncols);
    // EXPLAIN alone shows where the node would run (waiting for a GPU start under way)
    st->stats.report.device = (eflags & EXEC_FLAG_EXPLAIN_ONLY) ? mp_resolve_device() : mp_node_begin_device();
    st->stats.counts.combiner = -1;
    st->emitter.phase = MpPhase::Init;
}

// A serial execution: read everything, combine here, emit from the library's memory.
static void serial_compute(MpSetOpState* st) {
    MpReadCounts read = mp_read_inputs(st);
    st->stats.counts.rows_read[0] += read.rows[0];
    st->stats.counts.rows_read[1] += read.rows[1];
    st->stats.counts.null_rows += read.null_rows;
    st->stats.counts.outside_rows += read.outside_rows;
    st->stats.counts.alloc_us += read.alloc_us;
    st->stats.counts.participants = 1;
    if (mp_ranges_due_after_read(st)) return mp_ranges_finish_read(st);
    mp_combine(st, read.rows[0] + read.rows[1]);
    if (st->node.info.keys.images) return mp_put_image_results(st);
    if (!st->node.keys.lossless) return mp_keep_hashed_results(st);
    mp_keep_local_results(st);
}

// Reads both inputs, runs the set operation, and checks hashed results.
static void mp_compute(MpSetOpState* st) {
    mp_setop_choose_way(st);
    mp_start_run(st);
    if (mp_setop_way_shared(st->strategy.way))
        mp_parallel_compute(st);
    else serial_compute(st);
    if (mp_setop_way_in_memory(st->strategy.way) && st->run.stage->report.ran) st->stats.report = st->run.stage->report;
    st->emitter.phase = MpPhase::EmitLibrary;
    if (mp_verified_hashes(st) && !mp_verify_hashed(st)) {
        st->emitter.hash_collision = true;
        mp_stage_release(st->run.stage);
        mp_exact_recompute(st);
        mp_exact_start_emit(st);
        st->emitter.phase = MpPhase::EmitExact;
    }
}

// Returns the next result row, computing everything on the first call.
static TupleTableSlot* mp_exec(CustomScanState* node) {
    MpSetOpState* st = (MpSetOpState*)node;
    if (st->emitter.phase == MpPhase::Init) mp_compute(st);

    ExprContext* econtext = node->ss.ps.ps_ExprContext;
    if (node->ss.ps.ps_ProjInfo) ResetExprContext(econtext);  // only a projection allocates there
    TupleTableSlot* slot = node->ss.ss_ScanTupleSlot;
    bool timing = mp_timing_on(st);
    instr_time start, elapsed;
    if (timing) INSTR_TIME_SET_CURRENT(start);
    bool got = mp_emit_next(st, slot);
    if (timing) {
        INSTR_TIME_SET_CURRENT(elapsed);
        INSTR_TIME_SUBTRACT(elapsed, start);
        st->stats.emit_ms += INSTR_TIME_GET_MILLISEC(elapsed);
    }
    if (!got) return NULL;
    st->stats.counts.rows_emitted++;
    if (node->ss.ps.ps_ProjInfo == NULL) return slot;
    econtext->ecxt_scantuple = slot;
    return ExecProject(node->ss.ps.ps_ProjInfo);
}

// Frees this execution's C++ objects, chunks and stored rows (the reset callback runs).
static void mp_reset_run(MpSetOpState* st) {
    mp_ranges_close(st);
    st->strategy.way = MpSetOpWay::Unchosen;  // the next execution chooses again
    if (st->run.space.segments) mp_segments_detach_all(st->run.space.segments);
    st->run.space.segments = NULL;
    if (st->run.cxt) MemoryContextReset(st->run.cxt);
    st->run.stage = NULL;
    memset(st->run.store, 0, sizeof(st->run.store));
    memset(&st->run.image_scratch, 0, sizeof(st->run.image_scratch));
    memset(&st->run.image_arena, 0, sizeof(st->run.image_arena));
    memset(st->run.adopted, 0, sizeof(st->run.adopted));
    memset(&st->run.exact, 0, sizeof(st->run.exact));
    memset(st->run.writers, 0, sizeof(st->run.writers));
    st->emitter.hash_collision = false;
    st->emitter.silent = false;
    st->emitter.emit_pos = st->emitter.emit_end = 0;
    for (int s = 0; s < 2; ++s) {
        st->emitter.runs[s] = NULL;
        st->emitter.run_count[s] = 0;
        st->emitter.result_count[s] = 0;
        st->emitter.sorted_rows[s] = NULL;
        st->emitter.sorted_keys[s] = NULL;
        st->emitter.sorted_count[s] = 0;
    }
    st->emitter.result_positions = NULL;
    st->emitter.run_start_valid = false;
    st->emitter.phase = MpPhase::Init;
}

static void mp_end(CustomScanState* node) {
    MpSetOpState* st = (MpSetOpState*)node;
    mp_reset_run(st);
    if (st->run.cxt) MemoryContextDelete(st->run.cxt);
    st->run.cxt = NULL;
    ExecEndNode(outerPlanState(node));
    ExecEndNode(innerPlanState(node));
}

// Same inputs (no changed parameters): emit the results again — a serial node only; a
// parallel node's shared state is reset (ReInitializeDSM) and it computes again.
// Otherwise drop them; inputs with changed parameters are rescanned by their next
// ExecProcNode.
static void mp_rescan(CustomScanState* node) {
    MpSetOpState* st = (MpSetOpState*)node;
    PlanState* outer = outerPlanState(node);
    PlanState* inner = innerPlanState(node);
    if (st->emitter.phase == MpPhase::Init) return;
    if (!mp_setop_way_shared(st->strategy.way) && outer->chgParam == NULL && inner->chgParam == NULL)
        return mp_restart_emit(st);
    mp_reset_run(st);
    if (outer->chgParam == NULL) ExecReScan(outer);
    if (inner->chgParam == NULL) ExecReScan(inner);
}
