// setop_path.cpp — the planner side: offers a MergePath SetOp path next to the native
// plan of every INTERSECT [ALL] / EXCEPT [ALL] / UNION node of a set-operation tree.
//
// What the native plan is, its inputs and columns: setop_native.cpp. Our path's
// children are two inputs: the left one and the right one (a UNION of more inputs: the
// first, and an Append of the others, read in order), and a group's emitted row is the
// one the native plan would emit (first_side). Nested set operations work level by
// level: a child set operation is planned first, so the parent's input may already be
// our node; a projection over the native paths goes over ours too.
//
// Lossless keys are narrowed to the ranges the planner's statistics show for the
// inputs' columns when that makes them narrower (ranged keys, keys.h; the statistics
// only decide the width: rows outside take a key of their own, never a wrong answer).
//
// The path is offered only when the result is exact (keys.cpp decides: lossless keys,
// or hash + equality support; no nondeterministic collations) and the estimated input
// is at least pg_mergepath.min_rows; keys that need hashing (text, numeric, floats...)
// only with pg_mergepath.hashed_keys, as that path is measured no faster than the
// native one. Every reason not to is logged at DEBUG1.
//
// Parallel: when every input has a partial path (a Parallel Seq Scan of each leaf, say)
// and the keys are lossless, a partial path is offered too, with a Gather over it:
// every participant reads its share of both inputs and encodes keys into shared
// memory, the leader (which holds the GPU) combines, and every participant emits the
// result batches it claims (setop_parallel.cpp), so that a Partial Aggregate above can
// run in every process (or, in key order, only the combiner emits: one_emitter_gather).
// Its workers: the two inputs' workers together (the node reads both inputs in full),
// up to max_parallel_workers_per_gather. The rel is marked
// consider_parallel so that an outer query level can put its own Gather or Partial
// Aggregate over the partial path (grouping_planner copies a subquery's partial paths
// only then). Hashed keys keep the serial node (their rows live in one process).
//
// Cost: both inputs are read anyway (their total cost); then per input row our tuple
// handling (what the native plan charges for it: read_tuple_units) plus key work in units of
// cpu_operator_cost, the unit the native SetOp is charged per column and row
// (cpu_operator_cost * numCols, a hash probe or a comparison). Our units are
// calibrated against that native charge from measured speed ratios:
//   encoding    0.05 per column (lossless) / 0.4 per column (hashing + verification)
//               + 0.1 per row to store the row (hashed);
//   device      per 64-bit key word (a 32-bit key: half a word, half the radix passes
//               and bytes): GPU 0.1 (transfer + radix sort + merge, linear);
//               CPU 0.1 + 0.4 / threads (parallel sort).
// A partial path divides the inputs' and the encoding's cost by PostgreSQL's parallel
// divisor (get_parallel_divisor's formula); the device work is done once. Work in a
// partial input that every participant repeats (a private hash table's inner side) is
// charged once per participant, and each input is the partial path cheapest with that
// charge (plan/replicated_work.h).
// Fixed costs (device context, launches) are not in the path cost: min_rows is the
// floor below which they dominate, so tiny inputs keep the native SetOp (ten times it
// for image keys on the CPU backend: min_input_rows). Image keys use the hashed
// encoding units; they are not calibrated beyond that floor.
// Startup cost: INTERSECT / EXCEPT copy the SetOpPath's (PostgreSQL charges a hashed set
// operation as if it streamed) so that LIMIT above compares like with like; UNION's
// native paths charge their input before the first row (HashAggregate, Sort) except a
// Unique over sorted inputs, so ours charges its total, which is what it does.
//
// Ordered output: lossless columns at full width, every one after the first proven never
// NULL in every input (not_null.h), come out in key order in every way of running
// (mp_setop_keys_ordered), so those paths have pathkeys (the columns in order, ASC
// NULLS LAST) and a Sort above goes: serial; partial (each participant's batches in
// order, for a Gather Merge); and a Gather over the one-emitter variant
// (one_emitter_gather).
#include <algorithm>

#include "input_rows.h"
#include "not_null.h"
#include "partial_paths.h"
#include "replicated_work.h"
#include "setop_native.h"
#include "column_ranges.h"  // after setop.h: it brings PostgreSQL's headers

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
}

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;
static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

namespace {

// Our cost per input row (see the file comment): reading it (tuple handling) and
// encoding it, which the participants of a parallel node share, and the device work,
// done once.
struct RowCost {
    Cost tuple;
    Cost encode;
    Cost device;
};

// Our tuple handling per input row, in cpu_tuple_cost: what the native plan charges for
// reading the same rows. UNION, and INTERSECT / EXCEPT on 15 and 17: an Append under the
// set operation, cpu_tuple_cost / 2 a row; 18's SetOp reads both inputs itself and
// charges nothing for that, only its cpu_operator_cost per column.
double read_tuple_units(mergepath::SetOp op) {
#if PG_VERSION_NUM >= 180000
    if (op != mergepath::SetOp::Union) return 0.0;
#endif
    return 0.5;
}

RowCost cost_per_row(const MpNativeSetOp& native, const MpKeyChoice* keys) {
    MpDevice device = mp_planning_device();
    double words = std::max(0.5, keys->key_bits / 64.0);
    double device_units = device == MpDevice::Gpu ? 0.1 : 0.1 + 0.4 / mp_cpu_thread_count();
    double encode_units = keys->lossless ? 0.05 * native.cols.ncols : 0.4 * native.cols.ncols + 0.1;
    return {cpu_tuple_cost * read_tuple_units(native.op), cpu_operator_cost * encode_units,
            cpu_operator_cost * words * device_units};
}

// The fewest estimated input rows (both sides) for which the node is offered:
// pg_mergepath.min_rows, ten times that for image keys on the CPU backend. Measured on
// 2 cores (bench/RESULTS.md): text INTERSECT ALL / EXCEPT over images were 0.61x /
// 1.15x stock at 2 x 200k rows (stock's hash table stays in cache), 1.77x / 2.13x at
// 2 x 1M.
double min_input_rows(const MpKeyChoice* keys) {
    bool cpu_images = keys->images && mp_planning_device() == MpDevice::Cpu;
    return cpu_images ? 10.0 * mp_min_rows : double(mp_min_rows);
}

List* oid_list(const Oid* oids, int n) {
    List* list = NIL;
    for (int i = 0; i < n; i++) list = lappend_oid(list, oids[i]);
    return list;
}

// The inputs of a path: the paths read and the rows they give (all participants').
struct Inputs {
    Path* left;
    Path* right;
    double rows;
    double appended_rows;  // rows of the inputs our own Append reads (its cost has their tuple handling)
    int workers;       // 0: a serial path
    bool spill;        // a partial path whose participants spill (over half of the memory limit)
    bool one_emitter;  // a partial path whose combiner emits every result (under a Gather
                       // that keeps its order: one_emitter_gather)
    bool later_not_null;  // every column after the first proven never NULL in every input
                          // (later_columns_not_null): keys in the columns' order give it
};

// The right side of our node over `inputs` (all but the first): the second input, or
// an Append of the others, read one after the other (partial: every participant runs
// each one's share, as a non-parallel-aware Append over partial paths does).
Path* right_side(PlannerInfo* root, RelOptInfo* rel, List* inputs, int workers) {
    if (list_length(inputs) == 2) return (Path*)lsecond(inputs);
    List* rest = list_copy_tail(inputs, 1);
    if (workers == 0) return &create_append_path(root, rel, rest, NIL, NIL, NULL, 0, false, -1)->path;
    int rest_workers = 0;
    ListCell* lc;
    foreach (lc, rest) rest_workers = Max(rest_workers, ((Path*)lfirst(lc))->parallel_workers);
    return &create_append_path(root, rel, NIL, rest, NIL, NULL, rest_workers, false, -1)->path;
}

// Rows of all inputs.
double input_rows(List* inputs) {
    double rows = 0;
    ListCell* lc;
    foreach (lc, inputs) rows += ((Path*)lfirst(lc))->rows;
    return rows;
}

CustomPath* make_path(RelOptInfo* rel, const MpNativeSetOp& native, const Inputs& in, const MpKeyChoice* keys,
                      List* pathkeys) {
    CustomPath* cp = makeNode(CustomPath);
    double divisor = in.workers > 0 ? mp_parallel_divisor(in.workers) : 1.0;
    RowCost row = cost_per_row(native, keys);
    const MpSetOpColumns* cols = &native.cols;
    cp->path.pathtype = T_CustomScan;
    cp->path.parent = rel;
    cp->path.pathtarget = native.target;
    cp->path.param_info = NULL;
    cp->path.parallel_aware = in.workers > 0;
    cp->path.parallel_safe = in.workers > 0 || native.native->parallel_safe;
    cp->path.parallel_workers = in.workers;
    cp->path.rows = native.rows / divisor;
    cp->path.total_cost = in.left->total_cost + in.right->total_cost +
                          (in.rows - in.appended_rows) / divisor * row.tuple + in.rows / divisor * row.encode +
                          in.rows * row.device + mp_replicated_charge(in.left, in.right, in.workers);
    cp->path.startup_cost = native.op == mergepath::SetOp::Union
                                ? cp->path.total_cost
                                : Min(native.native->startup_cost, cp->path.total_cost);
    mp_inherit_disabled_nodes(&cp->path, in.left, in.right);
    cp->path.pathkeys = pathkeys;
    cp->flags = 0;
    cp->custom_paths = list_make2(in.left, in.right);
    MpSetOpInfo info = {native.op,
                        native.all,
                        *keys,
                        oid_list(cols->eqops, cols->ncols),
                        oid_list(cols->collations, cols->ncols),
                        native.first_side,
                        in.workers > 0,
                        in.spill,
                        pathkeys != NIL,
                        in.one_emitter};
    cp->custom_private = mp_setop_info_to_list(&info);
    cp->methods = &mp_setop_path_methods;
    return cp;
}

// Whether every column after the first is proven never NULL in every input (the
// columns of each input path's target come first, in order).
bool later_columns_not_null(PlannerInfo* root, const MpNativeSetOp& native) {
    ListCell* lc;
    foreach (lc, native.inputs) {
        List* exprs = ((Path*)lfirst(lc))->pathtarget->exprs;
        if (list_length(exprs) < native.cols.ncols) return false;
        for (int c = 1; c < native.cols.ncols; c++)
            if (!mp_expr_proven_not_null(root, (Expr*)list_nth(exprs, c))) return false;
    }
    return true;
}

// Whether these keys give the output in the columns' order (mp_setop_keys_ordered).
bool keys_ordered(const MpNativeSetOp& native, const Inputs& in, const MpKeyChoice* keys) {
    return mp_setop_keys_ordered(keys, native.cols.ncols, in.later_not_null);
}

// The pathkeys of our output in key order (see mp_setop_keys_ordered), or NIL: each
// column's sort operator, ASC NULLS LAST, over the set operation's output columns.
List* key_order_pathkeys(PlannerInfo* root, const MpNativeSetOp& native, const Inputs& in, const MpKeyChoice* keys) {
    if (!keys_ordered(native, in, keys)) return NIL;
    List *clauses = NIL, *tlist = NIL;
    for (int c = 0; c < native.cols.ncols; c++) {
        if (!OidIsValid(native.cols.sortops[c])) return NIL;
        SortGroupClause* sgc = makeNode(SortGroupClause);
        sgc->tleSortGroupRef = Index(c + 1);
        sgc->eqop = native.cols.eqops[c];
        sgc->sortop = native.cols.sortops[c];
        sgc->nulls_first = false;
        sgc->hashable = native.cols.hashable[c];
        TargetEntry* tle = makeTargetEntry((Expr*)list_nth(native.target->exprs, c), AttrNumber(c + 1), NULL, false);
        tle->ressortgroupref = Index(c + 1);
        clauses = lappend(clauses, sgc);
        tlist = lappend(tlist, tle);
    }
    return make_pathkeys_for_sortclauses(root, clauses, tlist);
}

// Our path over the given inputs, projected like the native one when it is; in key
// order (pathkeys) when its keys allow (a partial path: each participant's rows).
Path* setop_path(PlannerInfo* root, RelOptInfo* rel, const MpNativeSetOp& native, const Inputs& in,
                 const MpKeyChoice* keys) {
    List* pathkeys = key_order_pathkeys(root, native, in, keys);
    Path* path = &make_path(rel, native, in, keys, pathkeys)->path;
    if (!native.projected) return path;
    return &create_projection_path(root, rel, path, native.projected)->path;
}

// Estimated bytes the node holds for its inputs: keys (lossless), or records and
// hashes (image keys), or stored rows and hashes (hashed keys). Checked against
// pg_mergepath.memory_limit: lossless keys spill sorted runs (setop_ranges.cpp), image
// keys hash partitions (image_ranges.cpp); hashed keys do not spill, so they are not
// offered above the limit. A parallel node above half of it is planned to spill from
// every participant (info.spill); so is a parallel node over image keys above
// kMpImagePartitionedBytes, within a budget of its own (mp_image_spill_budget).
double estimated_input_bytes(const Inputs& in, const MpKeyChoice* keys) {
    // ranged keys: planned at full width, as stale statistics may widen every key
    double per_row = keys->lossless ? keys->full_bits / 8.0 : Max(in.left->pathtarget->width, 1) + 24.0;
    return in.rows * per_row;
}

// The partial path, or NULL (with the reason at DEBUG1); one_emitter: the variant whose
// combiner emits every result.
Path* partial_setop_path(PlannerInfo* root, RelOptInfo* rel, const MpNativeSetOp& native, const Inputs& serial,
                         const MpKeyChoice* keys, const char* op, bool one_emitter = false) {
    const char* why_not = NULL;
    List* partial_inputs = NIL;
    ListCell* lc;
    foreach (lc, native.inputs) {
        RelOptInfo* input_rel = ((Path*)lfirst(lc))->parent;
        Path* partial = input_rel ? mp_partial_input(input_rel) : NULL;
        if (!partial) break;
        partial_inputs = lappend(partial_inputs, partial);
    }
    if (max_parallel_workers_per_gather <= 0) why_not = "max_parallel_workers_per_gather is 0";
    else if (native.op == mergepath::SetOp::Union && native.all && !rel->consider_parallel)
        why_not = "the UNION ALL is not parallel-safe";
    else if (!keys->lossless && !keys->images)
        why_not = "its keys need hashing and verification (their rows stay in one process)";
    else if (list_length(partial_inputs) != list_length(native.inputs))
        why_not = "an input has no partial path";
    const double bytes = estimated_input_bytes(serial, keys);
    bool over_limit = mp_memory_limit_bytes() > 0 && 2 * bytes > mp_memory_limit_bytes();
    // image keys: hash partitions are faster than holding the records in shared memory
    // once the input is large, and hold a fraction of it (bench/RESULTS.md)
    bool partitioned = keys->images && mp_memory_limit_bytes() > 0 && bytes > kMpImagePartitionedBytes;
    if (why_not) {
        elog(DEBUG1, "pg_mergepath: %s: no parallel MergePath SetOp: %s", op, why_not);
        return NULL;
    }
    Inputs in = serial;
    in.one_emitter = one_emitter;
    in.left = (Path*)linitial(partial_inputs);
    in.right = right_side(root, rel, partial_inputs, 1);
    in.workers = mp_partial_workers(in.left, in.right);
    in.spill = over_limit || (partitioned && in.workers < kMpMaxSpillParticipants);
    if (in.spill && in.workers >= kMpMaxSpillParticipants) {
        elog(DEBUG1, "pg_mergepath: %s: no parallel MergePath SetOp: more than %d workers would spill", op,
             kMpMaxSpillParticipants - 1);
        return NULL;
    }
    return setop_path(root, rel, native, in, keys);
}

// Adds the partial paths, then a Gather over each one add_partial_path kept (not when
// ordered_only: a UNION ALL's, which an Append always beats unordered), and a Gather
// Merge too when it is in key order (the partial paths stay for an outer query
// level's own Gather or Partial Aggregate). All are added before any Gather is made: a
// later partial path may push out (and free) an earlier one.
void add_parallel_paths(PlannerInfo* root, RelOptInfo* rel, Path* const* partials, int n, bool ordered_only) {
    for (int i = 0; i < n; i++) {
        if (!partials[i]) continue;
        rel->consider_parallel = true;
        add_partial_path(rel, partials[i]);
    }
    for (int i = 0; i < n; i++) {
        Path* partial = partials[i];
        if (!partial || !list_member_ptr(rel->partial_pathlist, partial)) continue;  // rejected (and freed)
        if (!ordered_only) add_path(rel, &create_gather_path(root, rel, partial, partial->pathtarget, NULL, NULL)->path);
        if (partial->pathkeys == NIL) continue;
        GatherMergePath* merge =
            create_gather_merge_path(root, rel, partial, partial->pathtarget, partial->pathkeys, NULL, NULL);
        add_path(rel, &merge->path);
    }
}

// Read in parallel, emitted in key order by one process: a Gather over the one-emitter
// variant of an ordered partial path, with the partial path's pathkeys. Only the
// combiner emits (the others stop once it has their chunks), so the Gather gets every
// row from one source, in order; with the leader taking part (it combines, as it holds
// the GPU) the rows do not cross a tuple queue either. A Gather Merge over the partial
// path (every participant emits its batches) pays the queues and the merge in the
// leader for every row. Cost: the Gather's, but per row what emitting costs in the
// leader (cpu_tuple_cost), or a tuple queue's (parallel_tuple_cost) when a worker
// combines because the leader does not take part.
Path* one_emitter_gather(PlannerInfo* root, RelOptInfo* rel, Path* partial) {
    if (!partial || partial->pathkeys == NIL) return NULL;
    GatherPath* gather = create_gather_path(root, rel, partial, partial->pathtarget, NULL, NULL);
    Cost per_row = parallel_leader_participation ? cpu_tuple_cost : parallel_tuple_cost;
    gather->path.total_cost += (per_row - parallel_tuple_cost) * gather->path.rows;
    gather->path.pathkeys = partial->pathkeys;
    return &gather->path;
}

// Ranged keys: each column's expected values in every input (statistics of the table
// columns the inputs read), and the key narrowed to them when that pays.
void narrow_to_statistics(PlannerInfo* root, List* inputs, const MpSetOpColumns* cols, MpKeyChoice* keys,
                          const char* op) {
    MpExpectedRange* expected = (MpExpectedRange*)palloc(sizeof(MpExpectedRange) * cols->ncols);
    for (int c = 0; c < cols->ncols; c++) {
        MpCodec codec = mp_lossless_codec(cols->types[c], cols->eqops[c]);
        ListCell* lc;
        expected[c] = {true, 0, 0};
        bool first = true;
        foreach (lc, inputs) {
            MpExpectedRange r = mp_column_expected_range(root, ((Path*)lfirst(lc))->parent, AttrNumber(c + 1),
                                                         cols->types[c], cols->collations[c], codec);
            expected[c] = {expected[c].known && r.known, first ? r.lo : Min(expected[c].lo, r.lo),
                           first ? r.hi : Max(expected[c].hi, r.hi)};
            first = false;
        }
    }
    int wide = keys->key_bits;
    if (mp_keys_narrow(keys, cols->ncols, cols->types, cols->eqops, expected))
        elog(DEBUG1, "pg_mergepath: %s: %d-bit keys narrowed to %d bits by the columns' statistics", op, wide,
             keys->key_bits);
    pfree(expected);
}

void consider_setop(PlannerInfo* root, RelOptInfo* rel, const MpNativeSetOp& native) {
    const char* op = mp_setop_name(native.op, native.all);
    const MpSetOpColumns& cols = native.cols;
    MpKeyChoice keys;
    char* why_not;
    if (!mp_keys_choose(cols.ncols, cols.types, cols.collations, cols.eqops, cols.hashable, &keys, &why_not)) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: %s", op, why_not);
        return;
    }
    if (!keys.lossless && !keys.images && native.op == mergepath::SetOp::Union) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: its keys need hashing, which UNION does not use", op);
        return;
    }
    if (!keys.lossless && !keys.images && !mp_hashed_keys) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: its keys need hashing and pg_mergepath.hashed_keys is off", op);
        return;
    }
    const bool union_all = native.op == mergepath::SetOp::Union && native.all;
    // proved once per set operation (before 17 each proof reads the catalog)
    const bool later_not_null = native.cols.ncols > 1 && later_columns_not_null(root, native);
    if (union_all && !mp_setop_keys_ordered(&keys, native.cols.ncols, later_not_null)) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: ours only in key order (lossless keys, the columns after the "
             "first proven never NULL)", op);
        return;
    }
    if (keys.images)
        for (int c = 0; c < cols.ncols; c++) mp_image_plan_depends(root, cols.types[c]);
    const MpKeyChoice full_keys = keys;  // before narrowing: keys in the columns' order keep it
    if (keys.lossless && mp_ranged_keys && !union_all) narrow_to_statistics(root, native.inputs, &cols, &keys, op);
    // with more than two inputs, the ones after the first are read through our own Append
    const double rows = input_rows(native.inputs);
    const double appended = list_length(native.inputs) > 2 ? rows - ((Path*)linitial(native.inputs))->rows : 0.0;
    Inputs serial = {(Path*)linitial(native.inputs), right_side(root, rel, native.inputs, 0), rows, appended, 0, false,
                     false, later_not_null};
    double min_rows = min_input_rows(&keys);
    if (serial.rows < min_rows) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: %.0f estimated input rows < %spg_mergepath.min_rows (%d)%s", op,
             serial.rows, min_rows > mp_min_rows ? "10 x " : "", mp_min_rows,
             min_rows > mp_min_rows ? " for image keys on the CPU backend" : "");
        return;
    }
    double bytes = estimated_input_bytes(serial, &keys);
    if (!keys.lossless && !keys.images && mp_memory_limit_bytes() > 0 && bytes > mp_memory_limit_bytes()) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: its estimated input (%.0f kB) exceeds pg_mergepath.memory_limit "
             "and hashed keys do not spill", op, bytes / 1024);
        return;
    }
    // All paths are made before any is added: add_path may free the native paths. A
    // key narrowed from one in the columns' order is also offered at full width, in that order.
    Path* path = setop_path(root, rel, native, serial, &keys);
    Path* partial = partial_setop_path(root, rel, native, serial, &keys, op);
    const bool narrowed = keys.ranges != NULL && keys_ordered(native, serial, &full_keys);
    Path* ordered = narrowed ? setop_path(root, rel, native, serial, &full_keys) : NULL;
    Path* ordered_partial = narrowed ? partial_setop_path(root, rel, native, serial, &full_keys, op) : NULL;
    const MpKeyChoice* ordered_keys = keys_ordered(native, serial, &keys) ? &keys : narrowed ? &full_keys : NULL;
    Path* in_order = ordered_keys && (partial || ordered_partial)
                         ? one_emitter_gather(root, rel,
                                              partial_setop_path(root, rel, native, serial, ordered_keys, op, true))
                         : NULL;
    elog(DEBUG1, "pg_mergepath: %s: offering MergePath SetOp (%d-bit %s keys), cost %.2f vs %.2f%s", op, keys.key_bits,
         keys.lossless ? "lossless"
         : keys.images ? "image"
                       : "hashed",
         path->total_cost, native.native->total_cost,
         partial ? psprintf(", parallel with %d workers %.2f per participant", partial->parallel_workers,
                            partial->total_cost)
                 : "");
    if (mp_debug_replace_native) rel->pathlist = NIL;  // tests: ours however close the costs
    add_path(rel, path);
    if (ordered) add_path(rel, ordered);
    if (in_order) add_path(rel, in_order);
    Path* partials[2] = {partial, ordered_partial};
    add_parallel_paths(root, rel, partials, 2, union_all);
}

// A UNION ALL that PostgreSQL flattened into an appendrel: our path in key order. (First
// the tests' scan rows setting, input_rows.h.)
void mp_set_rel_pathlist(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (prev_set_rel_pathlist_hook) prev_set_rel_pathlist_hook(root, rel, rti, rte);
    mp_debug_claim_scan_rows(rel, rte);
    if (!mp_enabled) return;
    MpNativeSetOp native;
    const char* why_not;
    if (mp_native_union_all(root, rel, rte, &native, &why_not)) consider_setop(root, rel, native);
    else if (why_not) elog(DEBUG1, "pg_mergepath: Union All not replaced: %s", why_not);
}

void mp_create_upper_paths(PlannerInfo* root, UpperRelationKind stage, RelOptInfo* input_rel,
                           RelOptInfo* output_rel, void* extra) {
    if (prev_create_upper_paths_hook) prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
    if (stage != UPPERREL_SETOP || !mp_enabled) return;
    MpNativeSetOp native;
    const char* why_not;
    if (mp_native_setop(root, output_rel, &native, &why_not))
        consider_setop(root, output_rel, native);
    else if (why_not)
        elog(DEBUG1, "pg_mergepath: a set operation not replaced: %s", why_not);
}

}  // namespace

void mp_install_setop_path_hook(void) {
    prev_create_upper_paths_hook = create_upper_paths_hook;
    create_upper_paths_hook = mp_create_upper_paths;
    prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
    set_rel_pathlist_hook = mp_set_rel_pathlist;
}
