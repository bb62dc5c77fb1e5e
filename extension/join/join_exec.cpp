// join_exec.cpp — the executor node "Custom Scan (MergePath Join)": an equi-join computed
// by sorting both inputs' keys and searching one sorted side in the other, instead of
// hashing or merging row by row.
//
// Data flow (one execution):
//   children -> keys + stored rows -> sorted sides (device) -> B ranges of A -> rows
//   1. Both inputs are read to the end, outer (A, lefttree) then inner (B, righttree)
//      (join_input.cpp). Each row's key columns become one key (join_keys.h) written
//      into chunks with the reference of the row's stored columns (row_arena.h); rows
//      with a NULL key never match and are kept aside only for the outer joins.
//   2. The stage (stage.h; the library's SqlJoin on SortedSides) adopts the chunks —
//      on the GPU while reading goes on — sorts both sides with their row numbers and
//      runs the vectorized sorted search of every A key in sorted B: the first equal
//      B position and the count of equal keys, and for right / full joins which B
//      keys matched (join_combine.cpp). These ranges, not the pairs, are the result.
//   3. Output (join_emit.cpp): batches of sorted A positions are expanded against
//      their B ranges, pair by pair, straight into the scan tuple, with the join
//      filter and PostgreSQL's outer-join rules; then the rows without a match. The
//      pair list is never built, so a billion-row result streams in constant memory.
//   A join whose inner side is much smaller (a dimension) reads only B in step 1; in
//   step 3 each participant streams its share of A past sorted B in small batches,
//   never storing it (join_probe.cpp).
//
// A parallel-aware node runs the same steps with every participant reading its share
// in step 1, one of them running step 2 for all, and each expanding the batches it
// claims in step 3 (join_parallel.cpp); over the memory limit each participant writes its
// share into hash partitions of the keys and joins the partitions it claims, each as a
// serial spilled join (join_spill_parallel.cpp). The C++ objects belong to a per-execution
// memory context whose reset callback deletes them, so ERROR, cancel, rescan and end
// all free them; a GPU out of memory moves the work to the CPU backend (stage.cpp).
#include "join_node.h"
#include "images.h"
#include "scan_tlists.h"

#include "timing.h"

#include <cmath>

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
}

static void mp_join_begin(CustomScanState* node, EState* estate, int eflags);
static TupleTableSlot* mp_join_exec(CustomScanState* node);
static void mp_join_end(CustomScanState* node);
static void mp_join_rescan(CustomScanState* node);

const CustomExecMethods mp_join_exec_methods = {
    "MergePath Join",        mp_join_begin, mp_join_exec, mp_join_end, mp_join_rescan, NULL, NULL,
    mp_join_estimate_dsm,    mp_join_initialize_dsm,      mp_join_reinitialize_dsm,     mp_join_initialize_worker,
    mp_join_shutdown,        mp_explain_join,
};

static Node* mp_join_create_state(CustomScan* cscan) {
    MpJoinState* st = (MpJoinState*)newNode(sizeof(MpJoinState), T_CustomScanState);
    st->css.methods = &mp_join_exec_methods;
    mp_join_info_from_list(cscan->custom_private, &st->node.info);
    return (Node*)&st->css;
}

const CustomScanMethods mp_join_scan_methods = {"MergePath Join", mp_join_create_state};

void mp_join_install(void) {
    RegisterCustomScanMethods(&mp_join_scan_methods);
    mp_install_join_path_hook();
    mp_register_scan_tlist_fix(&mp_join_scan_methods, mp_join_fix_scan_tlist);
}

static int* int_array(List* list) {
    int* out = (int*)palloc(sizeof(int) * Max(1, list_length(list)));
    for (int i = 0; i < list_length(list); i++) out[i] = list_nth_int(list, i);
    return out;
}

// The image plan of a side's image key columns (and its scratch), or leaves them NULL.
static void init_images(MpJoinKeySide* keys, const MpJoinInfo* info) {
    int n = 0, *image_column = (int*)palloc(sizeof(int) * Max(1, info->nkeys));
    Oid *types = (Oid*)palloc(sizeof(Oid) * Max(1, info->nkeys)), *eqops = (Oid*)palloc(sizeof(Oid) * Max(1, info->nkeys));
    Oid* collations = (Oid*)palloc(sizeof(Oid) * Max(1, info->nkeys));
    int32* typmods = (int32*)palloc(sizeof(int32) * Max(1, info->nkeys));
    for (int k = 0; k < info->nkeys; k++) {
        image_column[k] = -1;
        if (keys->codecs[k] != MpCodec::ImageHash) continue;
        types[n] = list_nth_oid(info->image_keys, 3 * k);
        eqops[n] = list_nth_oid(info->image_keys, 3 * k + 1);
        collations[n] = list_nth_oid(info->image_keys, 3 * k + 2);
        typmods[n] = -1;  // only hashed: nothing is printed from the image
        image_column[k] = n++;
    }
    if (n == 0) return;
    MpImagePlan* plan = (MpImagePlan*)palloc0(sizeof(MpImagePlan));
    mp_images_init(plan, n, types, typmods, eqops, collations);
    MpImageScratch* scratch = (MpImageScratch*)palloc0(sizeof(MpImageScratch));
    mp_image_scratch_init(scratch, plan);
    keys->images = plan;
    keys->scratch = scratch;
    keys->image_column = image_column;
}

// One side's key columns and codecs, its stored columns, and how far to deform it.
static void init_side(MpJoinState* st, int side, TupleDesc child_desc) {
    MpJoinInfo* info = &st->node.info;
    MpCodec* codecs = (MpCodec*)palloc(sizeof(MpCodec) * info->nkeys);
    for (int k = 0; k < info->nkeys; k++) codecs[k] = MpCodec(list_nth_int(info->codecs[side], k));
    st->node.key_side[side] = {info->nkeys, int_array(info->key_columns[side]), codecs, int_array(info->key_widths),
                               NULL, NULL, NULL, int_array(info->key_scales)};
    init_images(&st->node.key_side[side], info);
    st->node.nstored[side] = list_length(info->stored[side]);
    st->node.stored_columns[side] = int_array(info->stored[side]);
    TupleDesc desc = CreateTemplateTupleDesc(st->node.nstored[side]);
    int last = 0;
    for (int c = 0; c < st->node.nstored[side]; c++) {
        TupleDescCopyEntry(desc, AttrNumber(c + 1), child_desc, AttrNumber(st->node.stored_columns[side][c] + 1));
        last = Max(last, st->node.stored_columns[side][c] + 1);
    }
    for (int k = 0; k < info->nkeys; k++) last = Max(last, st->node.key_side[side].columns[k] + 1);
    st->node.stored_desc[side] = desc;
    st->node.read_columns[side] = last;
    st->node.outer_side[side] = mp_join_outer_side(info->jointype, side);
}

// The scan tuple's column of a recheck clause's operand (an INDEX_VAR after setrefs,
// through binary-compatible casts), or -1.
static int recheck_column(Node* operand) {
    Node* expr = mp_strip_relabel(operand);
    if (!IsA(expr, Var) || ((Var*)expr)->varno != INDEX_VAR) return -1;
    return ((Var*)expr)->varattno - 1;
}

// The per-pair checks: the key clauses keyed by image hash (the first nrecheck join filter
// clauses) compared directly, and the rest of the join filter as an ExprState. A recheck
// clause of another shape (none is planned) stays in the filter.
static void init_checks(MpJoinState* st, CustomScan* cscan) {
    int n = st->node.info.nrecheck;
    List* clauses = cscan->custom_exprs;
    st->node.recheck = n > 0 ? (MpKeyRecheck*)palloc0(sizeof(MpKeyRecheck) * n) : NULL;
    for (int i = 0; i < n; i++) {
        MpKeyRecheck* check = &st->node.recheck[i];
        OpExpr* op = (OpExpr*)list_nth(clauses, i);
        int cols[2] = {-1, -1};
        if (IsA(op, OpExpr) && list_length(op->args) == 2) {
            cols[0] = recheck_column((Node*)linitial(op->args));
            cols[1] = recheck_column((Node*)lsecond(op->args));
        }
        if (cols[0] < 0 || cols[1] < 0) {  // all of them checked by the filter then
            st->node.info.nrecheck = 0;
            st->node.recheck = NULL;
            break;
        }
        bool first_is_a = cols[0] < st->node.nstored[0];
        check->a_col = first_is_a ? cols[0] : cols[1];
        check->b_col = first_is_a ? cols[1] : cols[0];
        Assert(check->a_col < st->node.nstored[0] && check->b_col >= st->node.nstored[0]);  // one operand per side
        set_opfuncid(op);
        mp_check_function_execute(op->opfuncid);  // as ExecInitQual would for the clause
        fmgr_info(op->opfuncid, &check->eq);
        check->collation = op->inputcollid;
        check->bytewise = op->opfuncid == F_TEXTEQ || op->opfuncid == F_BYTEAEQ;
    }
    st->node.filter = ExecInitQual(list_copy_tail(clauses, st->node.info.nrecheck), &st->css.ss.ps);
}

// Which sides' stored columns anything but the key recheck reads: the output, the qual,
// the join filter (join_emit.cpp: a pair whose key is exact reads no stored row of a side
// no one else reads). Their Vars are INDEX_VARs after setrefs; one the walk cannot place
// marks both.
static void init_sides_read(MpJoinState* st, CustomScan* cscan) {
    List* readers = list_concat(list_concat(list_copy(cscan->scan.plan.targetlist), list_copy(cscan->scan.plan.qual)),
                                list_copy_tail(cscan->custom_exprs, st->node.info.nrecheck));
    List* vars = pull_var_clause((Node*)readers, PVC_RECURSE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
                                                     PVC_RECURSE_PLACEHOLDERS);
    const int nouter = st->node.nstored[0];
    st->node.reads_side[0] = st->node.reads_side[1] = false;
    ListCell* lc;
    foreach (lc, vars) {
        const Var* var = (const Var*)lfirst(lc);
        const int column = var->varattno - 1;
        if (var->varno != INDEX_VAR || column < 0 || column >= nouter + st->node.nstored[1])
            st->node.reads_side[0] = st->node.reads_side[1] = true;
        else
            st->node.reads_side[column < nouter ? 0 : 1] = true;
    }
}

// One numeric key column without a declared scale, in 64 bits, its clause the only one
// rechecked: a key with the exact bit (numeric_keys.h) needs no recheck.
static bool exact_keys(const MpJoinState* st) {
    const MpJoinKeySide* keys = &st->node.key_side[0];
    return st->node.info.nkeys == 1 && st->node.info.key_bits == 64 && st->node.info.nrecheck == 1 &&
           keys->codecs[0] == MpCodec::ImageHash &&
           keys->images->cols[keys->image_column[0]].rule == MpImageRule::Numeric;
}

static void mp_join_begin(CustomScanState* node, EState* estate, int eflags) {
    MpJoinState* st = (MpJoinState*)node;
    CustomScan* cscan = (CustomScan*)node->ss.ps.plan;
    int child_flags = eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
    outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, child_flags);
    innerPlanState(node) = ExecInitNode(innerPlan(cscan), estate, child_flags);
    init_side(st, 0, ExecGetResultType(outerPlanState(node)));
    init_side(st, 1, ExecGetResultType(innerPlanState(node)));
    st->emitter.a_values = (Datum*)palloc0(sizeof(Datum) * Max(1, st->node.nstored[0]));
    st->emitter.a_isnull = (bool*)palloc0(sizeof(bool) * Max(1, st->node.nstored[0]));
    init_checks(st, cscan);
    init_sides_read(st, cscan);
    st->node.exact_keys = exact_keys(st);
    st->node.proves_batches = mp_join_may_prove_batches(st);
    st->node.library_match = st->node.outer_side[1] && !mp_join_checks_pairs(st);
    st->stats.report.device = (eflags & EXEC_FLAG_EXPLAIN_ONLY) ? mp_resolve_device() : mp_node_begin_device();
    st->stats.counts.node.combiner = -1;
    st->emitter.step = MpJoinStep::Init;
}

static void count_read(MpJoinState* st, const MpJoinReadCounts& read) {
    st->stats.counts.node.rows_read[0] += read.rows[0];
    st->stats.counts.node.rows_read[1] += read.rows[1];
    st->stats.counts.node.null_rows += read.null_key_rows;
    st->stats.counts.node.participants = 1;
}

static void reset_run(MpJoinState* st);

// Over the memory limit: both inputs read into sorts first (once), then the next key
// range loaded and combined like a whole input (join_spill.cpp).
static void spill_compute(MpJoinState* st) {
    if (!mp_join_way_sorted(st->strategy.way)) count_read(st, mp_join_read_inputs(st));
    // once a range found no room in the shared GPU budget (NOTICE), the later ones run
    // on the CPU backend at once: not one wait and one NOTICE per range
    st->run.stage->budget_full = st->strategy.spill.budget_full;
    uint64 rows = mp_join_spill_load_range(st);
    mp_join_combine(st, rows);
    st->strategy.spill.budget_full = st->strategy.spill.budget_full || st->run.stage->report.budget_fallback;
    mp_join_put_ranges(st);
}

static void serial_compute(MpJoinState* st) {
    MpJoinReadCounts read = mp_join_read_inputs(st);
    count_read(st, read);
    if (st->strategy.way == MpJoinWay::SortedRanges) return spill_compute(st);  // it reached the limit while reading
    mp_join_combine(st, read.rows[0] + read.rows[1]);
    mp_join_put_ranges(st);
}

// One execution's results, or a spilled one's next key range, by the way it runs
// (join_way.cpp): a parallel node's participant takes its part of the parallel steps,
// after which it emits its claims of the shared results, or joins alone the partitions
// of a spilled join it claims (JoinPartitions), or has nothing to emit (Finished).
static void compute(MpJoinState* st) {
    if (mp_debug_timeline && st->stats.timeline.begin == 0) st->stats.timeline = {mp_wall_ms(), 0, 0, 0};
    if (st->strategy.way == MpJoinWay::Unchosen) mp_join_choose_way(st);
    mp_join_start_run(st);
    if (mp_join_runs_shared(st)) mp_join_parallel_compute(st);
    switch (st->strategy.way) {
        case MpJoinWay::Finished:
            st->emitter.step = MpJoinStep::Done;
            return;
        case MpJoinWay::SortInput:
        case MpJoinWay::SortedRanges:
        case MpJoinWay::JoinPartitions: spill_compute(st); break;
        case MpJoinWay::InMemory:
        case MpJoinWay::StreamOuter:
            if (!mp_join_runs_shared(st)) serial_compute(st);
            break;
        case MpJoinWay::Unchosen:
        case MpJoinWay::WritePartitions:
        case MpJoinWay::PartitionsWritten:
            elog(ERROR, "pg_mergepath: a MergePath Join computes in state %d", int(st->strategy.way));
    }
    // (a key joined row by row ran an empty stage)
    MpStageReport* ran = &st->run.stage->report;
    if (ran->ran && !st->strategy.spill.spool.loop_running) {
        if (st->strategy.spill.run_ranges > 1)
            mp_stage_report_add(&st->stats.report, ran);
        else
            st->stats.report = *ran;
    }
    if (mp_debug_timeline) st->stats.timeline.results = mp_wall_ms();
    mp_join_take_results(st);
    mp_join_start_emit(st);
}

// pg_mergepath.debug_timeline: this process's points of the execution that just
// finished emitting, as milliseconds after its beginning (LOG), once.
static void log_timeline(MpJoinState* st) {
    MpJoinTimeline* t = &st->stats.timeline;
    if (!mp_debug_timeline || t->begin == 0) return;
    t->emitted = mp_wall_ms();
    auto after = [t](double at) { return at > 0 ? at - t->begin : -1.0; };
    elog(LOG, "pg_mergepath timeline: %s %d began at %.3f, read +%.3f, results +%.3f, emitted +%.3f ms",
         IsParallelWorker() ? "worker" : "leader", MyProcPid, fmod(t->begin, 1e6), after(t->read), after(t->results),
         after(t->emitted));
    t->begin = 0;
}

// A join that spills has emitted a key range: the next one, if rows are left (a parallel
// participant's: in the next partition it claims).
static bool next_range(MpJoinState* st) {
    if (!mp_join_way_sorted(st->strategy.way)) return false;
    if (!mp_join_spill_more(st) && !mp_join_spill_next_partition(st)) return false;
    reset_run(st);
    compute(st);
    return true;
}

static bool timed_next(MpJoinState* st, TupleTableSlot* scan) {
    MpStopwatch clock;
    bool got = mp_join_next(st, scan);
    st->stats.expand_ms += clock.lap_ms();
    return got;
}

static TupleTableSlot* timed_project(MpJoinState* st, ProjectionInfo* projection) {
    MpStopwatch clock;
    TupleTableSlot* out = ExecProject(projection);
    st->stats.emit_ms += clock.lap_ms();
    return out;
}

// A row of no columns (a count(*) above the join, say): its projection computes
// nothing, so the result slot is stored once and then returned as it is.
static TupleTableSlot* columnless_row(ProjectionInfo* projection) {
    TupleTableSlot* out = projection->pi_state.resultslot;
    if (TTS_EMPTY(out)) ExecStoreVirtualTuple(out);
    return out;
}

// The next joined row that passes the qual, projected. The clock is read only under
// EXPLAIN ANALYZE with timing (it costs as much as a row's expansion).
static TupleTableSlot* mp_join_exec(CustomScanState* node) {
    MpJoinState* st = (MpJoinState*)node;
    if (st->emitter.step == MpJoinStep::Init) compute(st);
    ExprContext* econtext = node->ss.ps.ps_ExprContext;
    ExprState* qual = node->ss.ps.qual;
    ProjectionInfo* projection = node->ss.ps.ps_ProjInfo;
    TupleTableSlot* scan = node->ss.ss_ScanTupleSlot;
    bool timing = mp_join_timing_on(st);
    const bool columnless = projection && projection->pi_state.resultslot->tts_tupleDescriptor->natts == 0;
    for (;;) {
        ResetExprContext(econtext);
        if (!(timing ? timed_next(st, scan) : mp_join_next(st, scan))) {
            if (next_range(st)) continue;
            log_timeline(st);
            return NULL;
        }
        econtext->ecxt_scantuple = scan;
        if (qual && !ExecQual(qual, econtext)) {
            InstrCountFiltered1(node, 1);
            continue;
        }
        st->stats.counts.node.rows_emitted++;
        if (!projection) return scan;
        if (columnless) return columnless_row(projection);
        return timing ? timed_project(st, projection) : ExecProject(projection);
    }
}

// Ends emitting and frees this execution's run (join_combine.cpp).
static void reset_run(MpJoinState* st) {
    mp_join_stop_emit(st);
    mp_join_free_run(st);
    st->emitter.step = MpJoinStep::Init;
}

static void mp_join_end(CustomScanState* node) {
    MpJoinState* st = (MpJoinState*)node;
    reset_run(st);
    mp_join_end_way(st);
    if (st->run.cxt) MemoryContextDelete(st->run.cxt);
    st->run.cxt = NULL;
    ExecEndNode(outerPlanState(node));
    ExecEndNode(innerPlanState(node));
}

// Same inputs (no changed parameters): a serial node emits its results again (one that
// spilled reads and sorts its inputs again: it keeps only its last range; one whose
// outer side streams keeps sorted B and reads A again, as it does when only A's
// parameters changed); a parallel node's shared state is reset (ReInitializeDSM) and it
// computes again, as does a node whose inputs' parameters changed (they rescan on their
// next ExecProcNode).
static void mp_join_rescan(CustomScanState* node) {
    MpJoinState* st = (MpJoinState*)node;
    st->stats.timeline.begin = 0;  // (an execution cut short logged nothing: the next starts its own)
    PlanState* outer = outerPlanState(node);
    PlanState* inner = innerPlanState(node);
    if (st->emitter.step == MpJoinStep::Init) return;
    // (a parallel node - st->dsm - computes again even where this participant's part ran
    // in its own memory: its next execution is a new parallel one)
    // sorted B stays; A streams again
    if (st->strategy.way == MpJoinWay::StreamOuter && !st->dsm && inner->chgParam == NULL) {
        if (outer->chgParam == NULL) ExecReScan(outer);
        mp_join_probe_restart(st);
        return mp_join_restart_emit(st);
    }
    if (!st->dsm && st->strategy.way == MpJoinWay::InMemory && outer->chgParam == NULL && inner->chgParam == NULL)
        return mp_join_restart_emit(st);
    reset_run(st);
    mp_join_end_way(st);
    if (outer->chgParam == NULL) ExecReScan(outer);
    if (inner->chgParam == NULL) ExecReScan(inner);
}
