// join_path.cpp — the planner side of the MergePath Join: set_join_pathlist_hook offers
// a CustomPath next to PostgreSQL's hash, merge and nested-loop paths of every join rel
// whose join is an equi-join we can key exactly.
//
// Which joins: INNER, LEFT, RIGHT, FULL, SEMI and ANTI (the unique-ified forms of a
// semi-join are left to PostgreSQL: it also offers JOIN_SEMI itself). The keys are the
// hashable equality clauses between the two sides (PostgreSQL's hash clauses); each
// must have plain columns as operands (an equality of expressions is checked per pair,
// in the filter) and a key encoding on both sides (join_keys.h): lossless (integers of
// any width mix, floats, the fixed-width types) or the hash of a canonical byte image
// (text, numeric, ... of the same type on both sides, deterministic collations), whose
// clause is then rechecked per pair; together they fit 128 bits. A join with no such
// clause, or with one we cannot encode, keeps the native plans. Other clauses become the join filter (outer joins: the clauses of the join
// itself), or the node's qual (outer joins: the pushed-down WHERE clauses), exactly as
// create_hashjoin_plan splits them. Never a parameterized path: not when either input
// needs LATERAL parameters, nor pseudoconstant clauses (their gating plan is made for
// join paths only), nor placeholder variables. Above pg_mergepath.memory_limit
// (estimated keys, row references and stored rows) the paths spill (join_spill.cpp:
// both inputs sorted into runs of rows, then key range by key range), charged as well
// for sorting both inputs (what cost_sort charges a sort within a third of the limit:
// our runs are written and merged as an external sort's are); the partial one
// writes each participant's share into hash partitions of the keys, which the
// participants then claim and join as the serial path does (join_spill_parallel.cpp):
// charged a participant's share of the sorting, within its part of the limit, and the
// writing and reading back of its share.
// Every reason is logged at DEBUG1.
//
// A streamed outer side (join_probe.cpp): an INNER, LEFT, SEMI or ANTI join whose inner
// input is estimated at a quarter of the outer one or less (and whose inner side alone
// fits the memory limit) sorts only the inner side; the outer rows stream past it, never
// stored (pg_mergepath.stream_outer, on). So does such a join of any two sides whose
// inputs together would pass the memory limit while the inner side alone fits it: in
// place of spilling (serial, into sorted runs), it stays in memory and parallel. Then
// only the inner side's rows are on the device, each outer row costs what reading a row
// that stores nothing costs (its copy into the batch and its lookup in the sorted inner
// keys replace sending its key to the device: measured on 2 cores, 10M x 100k, the
// streamed join takes 1.1 s where sorting both sides takes 2.5 s), and an output row
// 0.5 for the outer side's columns (from the batch) and 1 for the inner side's (a small
// side: mostly in the cache) instead of 2 each. Besides the parallel-aware path
// (participants share the inner side's reading and one sorts it), such a join has a
// partial path over the outer side's partial path and the whole inner side, which every
// participant reads and sorts itself on its CPU (the node is then not parallel-aware, as
// a hash join over a private hash table): the only parallel plan when the inner table is
// too small for a parallel scan, offered only when all the participants' copies of the
// inner side fit the memory limit together.
//
// Cost, in cpu_operator_cost units per row, calibrated against what PostgreSQL charges
// its hash join (per inner row cpu_operator_cost + cpu_tuple_cost to build, per outer
// row cpu_operator_cost to probe, per output row cpu_tuple_cost) with the speeds
// measured on the H100 host and on 2 cores (bench/RESULTS.md: 10M x 10M, 16 workers: 3-5x
// the parallel hash join; serial, CPU backend, 2M x 2M: 1.0-1.7x the hash join):
//   reading a row: 0.5 plus 0.05 per key column (0.55 for an image column: detoasted
//     and hashed), plus 0.5 when the side stores columns (forming its tuple; image keys:
//     both sides store their key columns for the recheck) — where the hash join pays 5
//     per inner row and 1 per outer;
//   the device, per row and 64-bit key word: GPU 0.1 (in a partial path divided like
//     the reading: runs ship and sort on the GPU while the participants read); CPU
//     0.1 + 0.4 / threads (sorting, after the reading), and with image keys 1.6 more
//     per row (its sort carries each key's row number, the combine turns every B row
//     number into a reference: bench/RESULTS.md, 10M x 10M text on 16 cores, the CPU
//     backend's combine 1.1 s against the GPU's 0.26 s; its semi join 0.81x and inner
//     join 1.06x the best stock plan, so there such joins stay native);
//   per output row cpu_tuple_cost / 2 (a row made from two positions, no probe), plus 2
//     per side whose stored columns it carries (a tuple fetched by reference from
//     anywhere in the blocks and deformed: cache misses), plus the filter's cost (with
//     the rechecked key clauses).
// Reading and emitting are shared by the participants of a partial path (divided by
// PostgreSQL's parallel divisor), the device work is done once. Work in a partial input
// that every participant repeats in full (a private hash table's inner side) is charged
// once per participant, and of an input's partial paths the one cheapest with that
// charge is read (plan/replicated_work.h); so is the input of a whole inner side that
// every participant reads (not our sort of it, bounded by the memory limit).
// Output rows of a parallel-aware path are charged as PostgreSQL charges its parallel
// hash join's (final_cost_hashjoin's approx_tuple_count over both sides' rows per
// participant: the join's rows divided by the parallel divisor twice), although each
// participant emits the join's rows divided by it once: charged honestly, the output of
// a join with many pairs per row made the planner keep a parallel hash join that runs
// 2x-3x slower (bench/RESULTS.md: the fact x dimension join and the 1e9-pair join),
// only because its own output is charged at a sixteenth with 16 workers. Comparing
// both under the same estimate leaves the choice to the rest of the costs.
// All of it is linear in the estimated rows of each side, as the native hash join's
// cost is: an estimate that is 10x off scales both the same way, so it changes which
// join wins only where the native plan's cost is not linear (a nested loop over an
// index on a side estimated tiny, which PostgreSQL then prefers for either estimate).
// pg_mergepath.min_rows (both inputs' estimated rows) keeps tiny joins native, where
// the fixed costs (device start, launches, shared memory) dominate. Every decision from
// an input's size (min_rows, streaming the outer side, the memory limit) takes the
// larger of its relation's estimate and its cheapest path's rows (mp_input_rows: Citus
// corrects the path only).
#include "join_node.h"
#include "images.h"
#include "input_rows.h"
#include "partial_paths.h"
#include "replicated_work.h"

extern "C" {
#include "catalog/pg_class.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
}

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

namespace {

// What the restriction list of a join becomes.
struct JoinClauses {
    List* outer_keys;  // key expressions of the outer side, per key
    List* inner_keys;
    int nkeys;
    MpJoinKeyColumn* columns;
    List* filter;      // bare clauses: the join filter
    List* qual;        // bare clauses: the node's qual
    List* recheck;     // bare clauses: the key clauses keyed by image hash, checked per pair
    int image_keys() const { return list_length(recheck); }
};

// A hashable equality clause between the two sides; sets which operand is the outer one.
bool is_key_clause(RestrictInfo* rinfo, RelOptInfo* outerrel, RelOptInfo* innerrel, bool* outer_is_left) {
    if (!rinfo->can_join || !OidIsValid(rinfo->hashjoinoperator)) return false;
    if (!IsA(rinfo->clause, OpExpr) || list_length(((OpExpr*)rinfo->clause)->args) != 2) return false;
    if (bms_is_subset(rinfo->left_relids, outerrel->relids) && bms_is_subset(rinfo->right_relids, innerrel->relids))
        *outer_is_left = true;
    else if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
             bms_is_subset(rinfo->right_relids, outerrel->relids))
        *outer_is_left = false;
    else return false;
    return true;
}

// Whether relation relid's rows are stored by PostgreSQL itself: a table, a partitioned
// table or a materialized view, and so are those of every child it is expanded into
// (a foreign table among them, its wrapper's rows, need not keep the modifiers).
bool stored_by_postgres(PlannerInfo* root, Index relid) {
    RangeTblEntry* rte = planner_rt_fetch(relid, root);
    if (rte->rtekind != RTE_RELATION) return false;
    if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_PARTITIONED_TABLE && rte->relkind != RELKIND_MATVIEW)
        return false;
    if (!rte->inh) return true;
    ListCell* lc;
    foreach (lc, root->append_rel_list) {
        AppendRelInfo* child = (AppendRelInfo*)lfirst(lc);
        if (child->parent_relid == relid && child->child_relid != relid && !stored_by_postgres(root, child->child_relid))
            return false;
    }
    return true;
}

// The type modifier every value of a key operand keeps: a stored column's (a table's,
// a partitioned table's or a materialized view's, whose rows were coerced to it when
// written; a domain's, when the column's type is one), else -1 (a foreign table's
// wrapper, a subquery's or a function's output need not coerce its values).
int32 kept_typmod(PlannerInfo* root, Node* expr) {
    Var* var = (Var*)mp_strip_relabel(expr);
    if (!IsA(var, Var) || var->varlevelsup != 0 || var->varattno <= 0) return -1;
    // a binary-compatible cast to another type: the column's modifier is not the operand's
    if (getBaseType(var->vartype) != getBaseType(exprType(expr))) return -1;
    if (!stored_by_postgres(root, var->varno)) return -1;
    int32 typmod = var->vartypmod;
    if (typmod < 0) (void)getBaseTypeAndTypmod(var->vartype, &typmod);
    return typmod;
}

// Adds one key clause (an equality of expressions rather than columns goes to the
// filter); false with *why_not when its columns cannot be keyed.
bool add_key(PlannerInfo* root, JoinClauses* jc, RestrictInfo* rinfo, bool outer_is_left, char** why_not) {
    OpExpr* op = (OpExpr*)rinfo->clause;
    Node* outer_expr = (Node*)(outer_is_left ? linitial(op->args) : lsecond(op->args));
    Node* inner_expr = (Node*)(outer_is_left ? lsecond(op->args) : linitial(op->args));
    if (!IsA(mp_join_key_operand(outer_expr), Var) || !IsA(mp_join_key_operand(inner_expr), Var)) {
        jc->filter = lappend(jc->filter, rinfo->clause);  // an expression: checked per pair
        return true;
    }
    MpJoinKeyColumn col;
    const Oid types[2] = {exprType(outer_expr), exprType(inner_expr)};
    const int32 typmods[2] = {kept_typmod(root, outer_expr), kept_typmod(root, inner_expr)};
    const Oid casts[2] = {mp_integer_cast_to_numeric(outer_expr), mp_integer_cast_to_numeric(inner_expr)};
    if (!mp_join_key_column(op->opno, types, typmods, op->inputcollid, &col, why_not, casts)) {
        if (!OidIsValid(casts[0]) && !OidIsValid(casts[1])) return false;
        *why_not = NULL;  // not a reason to refuse the join: the clause is an expression,
        jc->filter = lappend(jc->filter, rinfo->clause);  // checked per pair in the filter
        return true;
    }
    if (col.codec[0] == MpCodec::ImageHash) {  // a hash: equal hashes are checked by the clause itself
        jc->recheck = lappend(jc->recheck, rinfo->clause);
        mp_image_plan_depends(root, col.image_type);
    }
    jc->columns[jc->nkeys++] = col;
    jc->outer_keys = lappend(jc->outer_keys, outer_expr);
    jc->inner_keys = lappend(jc->inner_keys, inner_expr);
    return true;
}

// Whether a hashable equality clause of the join itself (not a pushed-down one of an
// outer join) is between the sides: with no key, it compares an expression.
bool has_expression_key(List* restrictlist, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                        bool outer_join) {
    ListCell* lc;
    foreach (lc, restrictlist) {
        RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
        bool outer_is_left;
        if (!(outer_join && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids)) &&
            is_key_clause(rinfo, outerrel, innerrel, &outer_is_left))
            return true;
    }
    return false;
}

// Splits the restriction list; false with *why_not when the join is not ours.
bool split_clauses(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                   JoinType jointype, List* restrictlist, JoinClauses* jc, char** why_not) {
    memset(jc, 0, sizeof(*jc));
    jc->columns = (MpJoinKeyColumn*)palloc(sizeof(MpJoinKeyColumn) * Max(1, list_length(restrictlist)));
    bool outer_join = IS_OUTER_JOIN(jointype);
    ListCell* lc;
    foreach (lc, restrictlist) {
        RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
        bool pushed_down = outer_join && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids);
        bool outer_is_left;
        if (rinfo->pseudoconstant) {
            *why_not = pstrdup("it has a pseudoconstant clause");
            return false;
        }
        if (!pushed_down && is_key_clause(rinfo, outerrel, innerrel, &outer_is_left)) {
            if (!add_key(root, jc, rinfo, outer_is_left, why_not)) return false;
            continue;
        }
        if (pushed_down) jc->qual = lappend(jc->qual, rinfo->clause);
        else jc->filter = lappend(jc->filter, rinfo->clause);
    }
    if (jc->nkeys == 0) {
        *why_not = pstrdup(jc->filter != NIL && has_expression_key(restrictlist, joinrel, outerrel, innerrel, outer_join)
                               ? "its equality clauses compare expressions, not columns"
                               : "it has no hashable equality clause");
        return false;
    }
    if (mp_join_key_bits(jc->columns, jc->nkeys) == 0) {
        *why_not = pstrdup("its keys need more than 128 bits");
        return false;
    }
    return true;
}

bool has_placeholders(List* exprs) {
    List* vars = pull_var_clause((Node*)exprs, PVC_INCLUDE_PLACEHOLDERS);
    ListCell* lc;
    foreach (lc, vars)
        if (IsA(lfirst(lc), PlaceHolderVar)) return true;
    return false;
}

#ifdef USE_ASSERT_CHECKING
bool has_row_identity_vars(List* exprs) {
    ListCell* lc;
    foreach (lc, exprs)
        if (IsA(lfirst(lc), Var) && ((Var*)lfirst(lc))->varno == ROWID_VAR) return true;
    return false;
}
#endif

// Why the join is not ours before looking at its clauses, or NULL.
const char* refuse_early(RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel, JoinType jointype,
                         List* restrictlist) {
    if (jointype != JOIN_INNER && jointype != JOIN_LEFT && jointype != JOIN_RIGHT && jointype != JOIN_FULL &&
        jointype != JOIN_SEMI && jointype != JOIN_ANTI)
        return "a unique-ified join or a right semi / anti join (16+: the semi or anti join with the sides "
               "swapped; ours is offered for the semi or anti join itself)";
    if (!bms_is_empty(joinrel->lateral_relids)) return "it needs LATERAL parameters";
    if (!outerrel->cheapest_total_path || !innerrel->cheapest_total_path) return "an input has no path";
    if (outerrel->cheapest_total_path->param_info || innerrel->cheapest_total_path->param_info)
        return "an input needs parameters (LATERAL)";
    if (has_placeholders(joinrel->reltarget->exprs)) return "it computes placeholder variables";
#ifdef USE_ASSERT_CHECKING
    // setrefs asserts that a scan's own tuple has no row-identity Var, which ours then
    // holds (join_plan.cpp); release builds pass them through correctly
    if (has_row_identity_vars(joinrel->reltarget->exprs))
        return "it carries UPDATE / DELETE / MERGE row-identity columns (an assert-enabled build)";
#endif
    ListCell* lc;
    foreach (lc, restrictlist)
        if (has_placeholders(list_make1(lfirst_node(RestrictInfo, lc)->clause)))
            return "a clause has placeholder variables";
    return NULL;
}

// The inputs of a path and its parallelism.
struct Inputs {
    Path* outer;
    Path* inner;
    int workers;  // 0: a serial path
    bool spill;   // over the memory limit: both inputs sorted into runs first
    bool probe;   // the outer side streams past the sorted inner one (join_probe.cpp)
    bool own_inner;  // a partial outer path over a whole inner one: every participant reads
                     // and sorts all of the inner side itself (a streamed outer side only;
                     // the node is not parallel-aware, like a hash join over a private hash)
};

// Whether an input emits this Var: one of its relations' columns, or a row-identity
// column of UPDATE / DELETE / MERGE (varno ROWID_VAR) that its target carries.
bool input_emits(RelOptInfo* input, Var* var) {
    if (var->varno == ROWID_VAR) return list_member(input->reltarget->exprs, var);
    return !IS_SPECIAL_VARNO(var->varno) && bms_is_member(var->varno, input->relids);
}

// Whether the join emits or filters on a column of this input (its rows are stored):
// some Var the input emits is in the join's target, or the pairs are rechecked (image
// keys: the key columns of both sides).
bool side_stores(RelOptInfo* joinrel, RelOptInfo* input, const JoinClauses* jc) {
    if (jc->image_keys() > 0) return true;
    List* vars = pull_var_clause((Node*)joinrel->reltarget->exprs, PVC_RECURSE_PLACEHOLDERS);
    ListCell* lc;
    foreach (lc, vars)
        if (IsA(lfirst(lc), Var) && input_emits(input, (Var*)lfirst(lc))) return true;
    return false;
}

// Cost of reading one row of a side (see the file comment).
Cost read_cost(const JoinClauses* jc, bool stores) {
    return cpu_operator_cost * (0.5 + 0.05 * jc->nkeys + 0.5 * jc->image_keys() + (stores ? 0.5 : 0.0));
}

// The path's total cost; *startup what is spent before the first row: everything, but
// for a streamed outer side only the inner side's reading and sorting.
Cost path_cost(PlannerInfo* root, RelOptInfo* joinrel, const Inputs& in, const JoinClauses* jc, int key_bits,
               Cost* startup) {
    double divisor = in.workers > 0 ? mp_parallel_divisor(in.workers) : 1.0;
    double scale = in.workers > 0 ? divisor : 1.0;  // partial inputs' rows are per participant
    double rows[2] = {in.outer->rows * scale, in.inner->rows * (in.own_inner ? 1.0 : scale)};
    bool stores[2] = {side_stores(joinrel, in.outer->parent, jc), side_stores(joinrel, in.inner->parent, jc)};
    double words = Max(1.0, key_bits / 64.0);
    bool gpu = mp_planning_device() == MpDevice::Gpu;
    double device_units = gpu ? 0.1 : 0.1 + 0.4 / mp_cpu_thread_count();
    QualCost filter;
    cost_qual_eval(&filter, list_concat_copy(jc->recheck, jc->filter), root);
    // a streamed outer side stores nothing and its pairs' columns cost less (file comment)
    Cost per_output = cpu_tuple_cost * 0.5 + filter.per_tuple +
                      cpu_operator_cost * (in.probe ? 0.5 * stores[0] + 1.0 * stores[1] : 2.0 * (stores[0] + stores[1]));
    Cost outer_read = rows[0] * read_cost(jc, stores[0] && !in.probe);
    Cost inner_read = rows[1] * read_cost(jc, stores[1]);
    const Cost inputs = in.outer->total_cost + in.inner->total_cost + filter.startup;
    if (in.own_inner) {  // all of the inner side in every participant, sorted on its CPU
        Cost inner = inner_read + rows[1] * cpu_operator_cost * (words * (0.1 + 0.4) + (jc->image_keys() > 0 ? 1.6 : 0.0));
        Cost repeated = mp_replicated_charge(in.outer, in.inner, in.workers, true);
        *startup = in.outer->startup_cost + in.inner->total_cost + inner + filter.startup + repeated;
        return inputs + inner + outer_read / divisor + joinrel->rows / divisor * per_output + repeated;
    }
    if (!gpu && jc->image_keys() > 0) device_units += 1.6 / words;  // per row, whatever the key's width
    Cost device = (in.probe ? rows[1] : rows[0] + rows[1]) * cpu_operator_cost * words * device_units;
    if (gpu) device /= divisor;  // runs ship and sort while the participants read
    // a parallel-aware path's output as PostgreSQL charges its parallel hash join's (see
    // the file comment): per-participant rows of both sides
    double out_rows = joinrel->rows / divisor / (in.workers > 0 ? divisor : 1.0);
    Cost repeated = mp_replicated_charge(in.outer, in.inner, in.workers);
    Cost total = inputs + (outer_read + inner_read) / divisor + device + out_rows * per_output + repeated;
    *startup = in.probe ? in.outer->startup_cost + in.inner->total_cost + inner_read / divisor + device + filter.startup +
                                    repeated
                        : total;
    return total;
}

// A join that spills also sorts both inputs (rows with their keys) into runs, each
// within a third of the memory limit: what PostgreSQL charges such a sort.
// Each sorted row: the stored columns (when the side stores any) and the key's words.
// A partial path's inputs are a participant's share (its rows), sorted within its part of
// that third, and written to and read back from its partition files first.
Cost sort_cost(PlannerInfo* root, RelOptInfo* joinrel, const Inputs& in, const JoinClauses* jc, int key_bits) {
    const int participants = in.workers > 0 ? in.workers + 1 : 1;
    Cost total = 0;
    for (Path* input : {in.outer, in.inner}) {
        Path sort;
        int width = (side_stores(joinrel, input->parent, jc) ? input->pathtarget->width : 0) + (key_bits > 64 ? 16 : 8);
        mp_cost_sort(&sort, root, input->rows, width, Max(64, mp_join_spill_sort_kb() / participants));
        total += sort.total_cost;
        if (participants > 1) total += 2.0 * seq_page_cost * input->rows * (width + 16.0) / BLCKSZ;
    }
    return total;
}

// Per key column: the type, operator and collation of an image column (0s for a
// lossless one), for the executor's image plan.
List* image_key_oids(const JoinClauses* jc) {
    List* oids = NIL;
    for (int k = 0; k < jc->nkeys; k++) {
        const MpJoinKeyColumn& col = jc->columns[k];
        bool image = col.codec[0] == MpCodec::ImageHash;
        oids = lappend_oid(lappend_oid(lappend_oid(oids, image ? col.image_type : InvalidOid),
                                       image ? col.eqop : InvalidOid),
                           image ? col.collation : InvalidOid);
    }
    return oids;
}

CustomPath* make_path(PlannerInfo* root, RelOptInfo* joinrel, JoinType jointype, const Inputs& in,
                      const JoinClauses* jc) {
    int key_bits = mp_join_key_bits(jc->columns, jc->nkeys);
    CustomPath* cp = makeNode(CustomPath);
    double divisor = in.workers > 0 ? mp_parallel_divisor(in.workers) : 1.0;
    cp->path.pathtype = T_CustomScan;
    cp->path.parent = joinrel;
    cp->path.pathtarget = joinrel->reltarget;
    cp->path.param_info = NULL;
    cp->path.parallel_aware = in.workers > 0 && !in.own_inner;
    cp->path.parallel_safe = joinrel->consider_parallel && in.outer->parallel_safe && in.inner->parallel_safe;
    cp->path.parallel_workers = in.workers;
    cp->path.rows = clamp_row_est(joinrel->rows / divisor);
    cp->path.total_cost = path_cost(root, joinrel, in, jc, key_bits, &cp->path.startup_cost);
    if (in.spill) cp->path.total_cost += sort_cost(root, joinrel, in, jc, key_bits);
    if (in.spill) cp->path.startup_cost = cp->path.total_cost;  // nothing comes out before both are sorted
    mp_inherit_disabled_nodes(&cp->path, in.outer, in.inner);
    cp->path.pathkeys = NIL;
    cp->flags = CUSTOMPATH_SUPPORT_PROJECTION;  // the node projects its scan tuple itself
    cp->custom_paths = list_make2(in.outer, in.inner);
    List *codecs[2] = {NIL, NIL}, *widths = NIL, *scales = NIL;
    for (int k = 0; k < jc->nkeys; k++) {
        codecs[0] = lappend_int(codecs[0], int(jc->columns[k].codec[0]));
        codecs[1] = lappend_int(codecs[1], int(jc->columns[k].codec[1]));
        widths = lappend_int(widths, jc->columns[k].bits);
        scales = lappend_int(scales, jc->columns[k].scale);
    }
    MpJoinInfo flags = {};
    flags.jointype = jointype;
    flags.key_bits = key_bits;
    flags.parallel = cp->path.parallel_aware;
    flags.nkeys = jc->nkeys;
    flags.spill = in.spill;
    flags.probe = in.probe;
    flags.own_inner = in.own_inner;
    flags.nrecheck = list_length(jc->recheck);
    cp->custom_private = list_make5(mp_join_flags_to_list(&flags), codecs[0], codecs[1], widths, jc->outer_keys);
    cp->custom_private = lappend(lappend(lappend(cp->custom_private, jc->inner_keys), jc->filter), jc->qual);
    cp->custom_private = lappend(lappend(cp->custom_private, jc->recheck), image_key_oids(jc));
    cp->custom_private = lappend(cp->custom_private, scales);
    cp->methods = &mp_join_path_methods;
    return cp;
}

// The partial path over both inputs' cheapest partial paths, or NULL (reason at DEBUG1).
CustomPath* partial_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                         JoinType jointype, const JoinClauses* jc, bool spill, bool probe, const char* what) {
    const char* why_not = NULL;
    if (max_parallel_workers_per_gather <= 0) why_not = "max_parallel_workers_per_gather is 0";
    else if (!joinrel->consider_parallel) why_not = "the join is not parallel safe";
    else if (outerrel->partial_pathlist == NIL || innerrel->partial_pathlist == NIL)
        why_not = "an input has no partial path";
    if (why_not) {
        elog(DEBUG1, "pg_mergepath: %s: no parallel MergePath Join: %s", what, why_not);
        return NULL;
    }
    Inputs in = {mp_partial_input(outerrel), mp_partial_input(innerrel), 0, spill, probe, false};
    if (!in.outer || !in.inner) return NULL;
    in.workers = mp_partial_workers(in.outer, in.inner);
    // under a memory limit its participants may spill: their writer numbers are bounded
    if (mp_memory_limit_bytes() > 0) in.workers = Min(in.workers, kMpMaxJoinSpillParticipants - 1);
    return make_path(root, joinrel, jointype, in, jc);
}

// A streamed outer side's partial path over the outer side's partial path and the whole
// inner one (every participant sorts all of it), or NULL: where the inner side has no
// partial path (a table too small for a parallel scan), or as the cheaper choice.
CustomPath* own_inner_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                           JoinType jointype, const JoinClauses* jc) {
    if (max_parallel_workers_per_gather <= 0 || !joinrel->consider_parallel || outerrel->partial_pathlist == NIL)
        return NULL;
    Path* inner = innerrel->cheapest_total_path;
    Inputs in = {mp_partial_input(outerrel), inner, 0, false, true, true};
    if (!in.outer || inner->param_info || !inner->parallel_safe) return NULL;
    in.workers = Max(1, Min(max_parallel_workers_per_gather, in.outer->parallel_workers));
    return make_path(root, joinrel, jointype, in, jc);
}

// Estimated bytes the node holds for its inputs: per row its key and row reference,
// and the stored row of a side whose columns it emits or filters on (its width and a
// header). Above pg_mergepath.memory_limit the node spills.
double estimated_input_bytes(RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                             const JoinClauses* jc) {
    const double per_row = mp_join_key_bits(jc->columns, jc->nkeys) / 8.0 + sizeof(uint64);
    double bytes = mp_input_rows(outerrel) * kMpRangeSize;  // each A key's room for its B range
    for (RelOptInfo* side : {outerrel, innerrel})
        bytes += mp_input_rows(side) * (per_row + (side_stores(joinrel, side, jc) ? side->reltarget->width + 16.0 : 0.0));
    return bytes;
}

// The same when the outer side streams: the inner side's rows, their sorted keys kept
// and the directory over them (up to two words per key), and one batch of outer rows;
// the outer side is never held.
double estimated_probe_bytes(RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                             const JoinClauses* jc) {
    const double key_bytes = mp_join_key_bits(jc->columns, jc->nkeys) / 8.0;
    double per_row = 2.0 * key_bytes + sizeof(uint64) + 2.0 * sizeof(uint64);
    if (side_stores(joinrel, innerrel, jc)) per_row += innerrel->reltarget->width + 16.0;
    return mp_input_rows(innerrel) * per_row + kMpProbeBatch * (outerrel->reltarget->width + 16.0);
}

// Whether the outer side may stream past the sorted inner one (see the file comment):
// the inner side a quarter of the outer one or less, or, when both sides held would pass
// the memory limit (over_limit), any inner side that fits it alone.
bool may_stream_outer(JoinType jointype, RelOptInfo* outerrel, RelOptInfo* innerrel, bool over_limit) {
    bool per_outer_row = jointype == JOIN_INNER || jointype == JOIN_LEFT || jointype == JOIN_SEMI ||
                         jointype == JOIN_ANTI;
    return mp_stream_outer && per_outer_row && (over_limit || mp_input_rows(innerrel) * 4.0 <= mp_input_rows(outerrel));
}

void consider_join(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                   JoinType jointype, JoinPathExtraData* extra) {
    const char* what = psprintf("%s join", mp_join_type_name(jointype));
    const char* early = refuse_early(joinrel, outerrel, innerrel, jointype, extra->restrictlist);
    JoinClauses jc;
    char* why_not = NULL;
    bool over_limit = false, probe = false;
    double probe_bytes = 0;
    if (early) why_not = pstrdup(early);
    else if (split_clauses(root, joinrel, outerrel, innerrel, jointype, extra->restrictlist, &jc, &why_not)) {
        double rows = mp_input_rows(outerrel) + mp_input_rows(innerrel);
        double bytes = estimated_input_bytes(joinrel, outerrel, innerrel, &jc);
        const double limit = mp_memory_limit_bytes() > 0 ? double(mp_memory_limit_bytes()) : -1;
        if (rows < mp_min_rows)
            why_not = psprintf("%.0f estimated input rows < pg_mergepath.min_rows (%d)", rows, mp_min_rows);
        over_limit = limit >= 0 && bytes > limit;
        probe_bytes = estimated_probe_bytes(joinrel, outerrel, innerrel, &jc);
        probe = may_stream_outer(jointype, outerrel, innerrel, over_limit) && (limit < 0 || probe_bytes <= limit);
        over_limit = over_limit && !probe;
    }
    if (why_not) {
        elog(DEBUG1, "pg_mergepath: %s not replaced: %s", what, why_not);
        return;
    }
    Inputs serial = {outerrel->cheapest_total_path, innerrel->cheapest_total_path, 0, over_limit, probe};
    CustomPath* path = make_path(root, joinrel, jointype, serial, &jc);
    CustomPath* partial = partial_path(root, joinrel, outerrel, innerrel, jointype, &jc, over_limit, probe, what);
    CustomPath* own_inner = probe ? own_inner_path(root, joinrel, outerrel, innerrel, jointype, &jc) : NULL;
    // every participant of that path holds all of the inner side: within the limit only
    // if all of them together fit it
    if (own_inner && mp_memory_limit_bytes() > 0 &&
        probe_bytes * (own_inner->path.parallel_workers + 1) > double(mp_memory_limit_bytes())) {
        elog(DEBUG1, "pg_mergepath: %s: no partial path over a whole inner side: %d participants would each "
             "hold it past pg_mergepath.memory_limit", what, own_inner->path.parallel_workers + 1);
        own_inner = NULL;
    }
    elog(DEBUG1, "pg_mergepath: %s: offering MergePath Join (%d keys%s, %d-bit%s), cost %.2f%s", what, jc.nkeys,
         jc.image_keys() > 0 ? psprintf(", %d by image hash", jc.image_keys()) : "", mp_join_key_bits(jc.columns, jc.nkeys),
         over_limit ? ", spilling" : probe ? ", outer side streamed" : "",
         path->path.total_cost,
         partial ? psprintf(", parallel with %d workers %.2f per participant", partial->path.parallel_workers,
                            partial->path.total_cost)
                 : "");
    if (own_inner)
        elog(DEBUG1, "pg_mergepath: %s: offering MergePath Join over a partial outer side, inner side whole in "
             "every participant, %d workers %.2f per participant", what, own_inner->path.parallel_workers,
             own_inner->path.total_cost);
    for (CustomPath* p : {partial, own_inner}) {
        if (!p || !message_level_is_interesting(DEBUG1)) continue;
        Cost charge = mp_replicated_charge((Path*)linitial(p->custom_paths), (Path*)lsecond(p->custom_paths),
                                           p->path.parallel_workers, p == own_inner);
        if (charge > 0)
            elog(DEBUG1, "pg_mergepath: %s: its partial input repeats work in every participant, charged %.2f "
                 "for the %d copies beyond the first", what, charge, p->path.parallel_workers);
    }
    add_path(joinrel, &path->path);
    if (partial) add_partial_path(joinrel, &partial->path);
    if (own_inner) add_partial_path(joinrel, &own_inner->path);
}

void mp_set_join_pathlist(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel, RelOptInfo* innerrel,
                          JoinType jointype, JoinPathExtraData* extra) {
    if (prev_set_join_pathlist_hook) prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
    if (!mp_enabled || !mp_enable_join) return;
    consider_join(root, joinrel, outerrel, innerrel, jointype, extra);
}

}  // namespace

void mp_install_join_path_hook(void) {
    prev_set_join_pathlist_hook = set_join_pathlist_hook;
    set_join_pathlist_hook = mp_set_join_pathlist;
}
