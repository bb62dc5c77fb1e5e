// setop_native.cpp — reads what PostgreSQL planned for one set-operation rel (see
// setop_native.h), at create_upper_paths_hook with UPPERREL_SETOP, which runs for every
// node of a set-operation tree (and for its leaf queries, which we skip).
//
// INTERSECT [ALL] / EXCEPT [ALL] (generate_nonunion_paths, prepunion.c): a SetOpPath;
// its inputs are where the versions differ:
//  - 15 and 17: one SetOpPath over an Append of the two inputs (each with a resjunk
//    int4 "flag" column, 0 = left, 1 = right; for a hashed INTERSECT the smaller input
//    may come first, see firstFlag), optionally sorted. We take the two inputs out of
//    the Append (its subpaths, which add_path does not free when it discards the
//    SetOpPath).
//  - 18: SetOp reads two inputs itself (leftpath / rightpath; for INTERSECT the planner
//    puts the input with fewer groups on the left), in a hashed SetOpPath over the
//    cheapest inputs and a sorted one over sorted inputs. We take the cheapest inputs.
// A group's emitted row is the one the native SetOp would emit (first_side).
//
// UNION (generate_union_paths): the children of nested UNIONs of the same kind are
// flattened into one list, appended, and made distinct by a HashAggregate or a Sort +
// Unique over that Append (17 and 18 also: a Unique over a MergeAppend of sorted inputs;
// all versions: the same over a Gather of a Parallel Append, which reorders its
// inputs). The rel's paths are what add_path kept of those, so the inputs come from the
// query's SetOperationStmt for this rel (the UNION node whose leaves are the rel's
// relids): its children, flattened as generate_union_paths does, each child rel's
// cheapest path, in order; and its grouping columns are the parser's SortGroupClauses,
// one per column. HashAggregate emits a group's
// first row in Append order, so the first input's row when it has one (first_side 0);
// Sort + Unique emits whichever row the sort puts first. UNION ALL is an Append, not
// ours here; a recursive UNION neither.
//
// UNION ALL (simple ones: flatten_simple_union_all makes them an appendrel, a subquery
// rel whose children are the inputs; set_rel_pathlist_hook): ours only in key order
// (lossless columns, setop_path.cpp), where it replaces a Sort over the Append, or a Merge Append of
// sorted inputs, by a sort of each input on the device and Merge Path merges. Its
// inputs: each live child's cheapest path, in the Append's order; its columns: each
// type's default btree operators, as the parser gives a set operation's columns.
//
// A set operation under another one has its paths projected (15, 17: the flag column of
// the parent level; any version: coerced column types) before the hook runs, by a
// Result over them or (a HashAggregate, a Unique) in their own targets: then we offer
// the same projection over our path.
#include "setop_native.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/typcache.h"
}

bool mp_setop_columns(List* groups, List* exprs, MpSetOpColumns* cols) {
    cols->ncols = list_length(groups);
    if (cols->ncols == 0 || list_length(exprs) < cols->ncols) return false;
    cols->types = (Oid*)palloc(sizeof(Oid) * cols->ncols);
    cols->collations = (Oid*)palloc(sizeof(Oid) * cols->ncols);
    cols->eqops = (Oid*)palloc(sizeof(Oid) * cols->ncols);
    cols->sortops = (Oid*)palloc(sizeof(Oid) * cols->ncols);
    cols->hashable = (bool*)palloc(sizeof(bool) * cols->ncols);
    for (int c = 0; c < cols->ncols; c++) {
        SortGroupClause* sgc = (SortGroupClause*)list_nth(groups, c);
        Node* expr = (Node*)list_nth(exprs, c);
        cols->types[c] = exprType(expr);
        cols->collations[c] = exprCollation(expr);
        cols->eqops[c] = sgc->eqop;
        cols->sortops[c] = sgc->sortop;
        cols->hashable[c] = sgc->hashable;
    }
    return true;
}

namespace {

// A path with the projection over it (if any) taken off.
Path* under_projection(Path* path, ProjectionPath** projection) {
    *projection = NULL;
    if (IsA(path, ProjectionPath)) {
        *projection = (ProjectionPath*)path;
        return ((ProjectionPath*)path)->subpath;
    }
    return path;
}

// ---- INTERSECT / EXCEPT ------------------------------------------------------------

// The rel's SetOpPath (on 18, the hashed one when there is one) and the projection over it.
SetOpPath* find_setop_path(RelOptInfo* rel, ProjectionPath** projection) {
    ListCell* lc;
    SetOpPath* found = NULL;
    *projection = NULL;
    foreach (lc, rel->pathlist) {
        ProjectionPath* over;
        Path* path = under_projection((Path*)lfirst(lc), &over);
        if (!IsA(path, SetOpPath)) continue;
        if (found == NULL || ((SetOpPath*)path)->strategy == SETOP_HASHED) {
            found = (SetOpPath*)path;
            *projection = over;
        }
    }
    return found;
}

// The inputs of the native SetOp and the grouping clauses of its columns.
struct SetOpInputs {
    Path* left;
    Path* right;
    List* groups;    // SortGroupClauses of the columns
    int flag_cols;   // resjunk flag columns after them in the output (15, 17: 1)
    int first_side;  // the input whose first row of a group the native SetOp emits
};

#if PG_VERSION_NUM >= 180000
bool setop_inputs(SetOpPath* sp, SetOpInputs* in) {
    // generate_nonunion_paths reads each input rel's cheapest path, which the hashed SetOp
    // takes as it is and the sorted one in sorted form; nodeSetOp.c emits a group's first
    // row of the left (outer) input either way
    Path* left = sp->leftpath->parent->cheapest_total_path;
    Path* right = sp->rightpath->parent->cheapest_total_path;
    if (!left || !right) return false;
    *in = {left, right, sp->groupList, 0, 0};
    return true;
}
#else
bool setop_inputs(SetOpPath* sp, SetOpInputs* in) {
    Path* sub = sp->subpath;
    if (IsA(sub, SortPath)) sub = ((SortPath*)sub)->subpath;
    if (!IsA(sub, AppendPath) || list_length(((AppendPath*)sub)->subpaths) != 2) return false;
    List* inputs = ((AppendPath*)sub)->subpaths;
    if (sp->flagColIdx != list_length(sp->distinctList) + 1) return false;
    // firstFlag 1: the right input was put first (hashed INTERSECT, smaller input first).
    // nodeSetOp.c emits a group's first row as read: with hashing that row comes from the
    // input read first; sorted, from the left input (flag 0 sorts first).
    const bool swapped = sp->firstFlag == 1;
    in->left = (Path*)(swapped ? lsecond(inputs) : linitial(inputs));
    in->right = (Path*)(swapped ? linitial(inputs) : lsecond(inputs));
    in->groups = sp->distinctList;
    in->flag_cols = 1;
    in->first_side = (sp->strategy == SETOP_HASHED && swapped) ? 1 : 0;
    return true;
}
#endif

bool setop_columns(SetOpPath* sp, const SetOpInputs* in, MpSetOpColumns* cols) {
    List* exprs = sp->path.pathtarget->exprs;
    if (list_length(exprs) != list_length(in->groups) + in->flag_cols) return false;
    return mp_setop_columns(in->groups, exprs, cols);
}

bool native_intersect_except(SetOpPath* sp, ProjectionPath* projection, MpNativeSetOp* out, const char** why_not) {
    SetOpInputs in;
    if (!setop_inputs(sp, &in) || !setop_columns(sp, &in, &out->cols)) {
        *why_not = "unexpected input paths";
        return false;
    }
    const bool intersect = sp->cmd == SETOPCMD_INTERSECT || sp->cmd == SETOPCMD_INTERSECT_ALL;
    out->op = intersect ? mergepath::SetOp::Intersection : mergepath::SetOp::Difference;
    out->all = sp->cmd == SETOPCMD_INTERSECT_ALL || sp->cmd == SETOPCMD_EXCEPT_ALL;
    out->native = projection ? &projection->path : &sp->path;
    out->target = sp->path.pathtarget;
    out->projected = projection ? projection->path.pathtarget : NULL;
    out->rows = sp->path.rows;
    out->inputs = list_make2(in.left, in.right);
    out->first_side = in.first_side;
    return true;
}

// ---- UNION -------------------------------------------------------------------------

// The leaves (range-table indexes) of a set-operation subtree, and the UNION node among
// its nodes whose leaves are `relids` (NULL if none).
Relids tree_leaves(Node* node, Relids relids, SetOperationStmt** found) {
    if (IsA(node, RangeTblRef)) return bms_make_singleton(((RangeTblRef*)node)->rtindex);
    if (!IsA(node, SetOperationStmt)) return NULL;
    SetOperationStmt* op = (SetOperationStmt*)node;
    Relids leaves = bms_union(tree_leaves(op->larg, relids, found), tree_leaves(op->rarg, relids, found));
    if (op->op == SETOP_UNION && *found == NULL && bms_equal(leaves, relids)) *found = op;
    return leaves;
}

// The rel of one node of the set-operation tree: a leaf query's, or a set operation's
// (UPPERREL_SETOP, keyed by its leaves), or NULL when it has none.
RelOptInfo* tree_node_rel(PlannerInfo* root, Node* node) {
    if (IsA(node, RangeTblRef)) return find_base_rel(root, ((RangeTblRef*)node)->rtindex);
    SetOperationStmt* none = NULL;
    Relids leaves = tree_leaves(node, NULL, &none);
    ListCell* lc;
    foreach (lc, root->upper_rels[UPPERREL_SETOP])
        if (bms_equal(((RelOptInfo*)lfirst(lc))->relids, leaves)) return (RelOptInfo*)lfirst(lc);
    return NULL;
}

// The inputs of a UNION node as generate_union_paths appends them: its children, where
// a child UNION of the same kind or a UNION ALL (and the same column types and
// collations: the test of plan_union_children) gives its own children instead, in order.
void union_children(PlannerInfo* root, SetOperationStmt* top, Node* node, List** rels) {
    if (IsA(node, SetOperationStmt)) {
        SetOperationStmt* op = (SetOperationStmt*)node;
        if (op->op == top->op && (op->all == top->all || op->all) && equal(op->colTypes, top->colTypes) &&
            equal(op->colCollations, top->colCollations)) {
            union_children(root, top, op->larg, rels);
            union_children(root, top, op->rarg, rels);
            return;
        }
    }
    *rels = lappend(*rels, tree_node_rel(root, node));
}

bool union_columns(SetOperationStmt* op, PathTarget* target, MpSetOpColumns* cols) {
    if (list_length(op->colTypes) != list_length(target->exprs)) return false;
    for (int c = 0; c < list_length(op->colTypes); c++)
        if (exprType((Node*)list_nth(target->exprs, c)) != list_nth_oid(op->colTypes, c)) return false;
    return mp_setop_columns(op->groupClauses, target->exprs, cols);
}

bool native_union(PlannerInfo* root, RelOptInfo* rel, MpNativeSetOp* out, const char** why_not) {
    *why_not = NULL;
    if (root->parse->setOperations == NULL || rel->pathlist == NIL) return false;
    SetOperationStmt* op = NULL;
    tree_leaves(root->parse->setOperations, rel->relids, &op);
    if (op == NULL || op->all) return false;  // a leaf query, or UNION ALL
    // a recursive CTE's own UNION (its non-recursive term's set operations are ours)
    if (root->hasRecursion && op == (SetOperationStmt*)root->parse->setOperations) return false;
    // the cheapest native path, and the projection over the rel's paths
    out->native = NULL;
    ListCell* lc;
    foreach (lc, rel->pathlist)
        if (out->native == NULL || ((Path*)lfirst(lc))->total_cost < out->native->total_cost)
            out->native = (Path*)lfirst(lc);
    // 15, 17: a UNION under another set operation has the parent's flag column added to
    // its paths' targets (apply_projection_to_path changes a HashAggregate's or a Unique's
    // own target; others get a Result)
    ProjectionPath* projection;
    Path* unprojected = under_projection(out->native, &projection);
    out->target = rel->reltarget;
    out->projected = NULL;
    if (projection)
        out->projected = projection->path.pathtarget;
    else if (!equal(unprojected->pathtarget->exprs, rel->reltarget->exprs))
        out->projected = unprojected->pathtarget;
    out->rows = unprojected->rows;
    // the inputs: each child's cheapest path, as the native Append reads them
    List* child_rels = NIL;
    union_children(root, op, op->larg, &child_rels);
    union_children(root, op, op->rarg, &child_rels);
    out->inputs = NIL;
    foreach (lc, child_rels) {
        RelOptInfo* child = (RelOptInfo*)lfirst(lc);
        if (child == NULL || child->cheapest_total_path == NULL) {
            *why_not = "unexpected input paths";
            return false;
        }
        out->inputs = lappend(out->inputs, child->cheapest_total_path);
    }
    if (!union_columns(op, out->target, &out->cols)) {
        *why_not = "unexpected output columns";
        return false;
    }
    out->op = mergepath::SetOp::Union;
    out->all = false;
    out->first_side = 0;
    return true;
}

}  // namespace

bool mp_native_union_all(PlannerInfo* root, RelOptInfo* rel, RangeTblEntry* rte, MpNativeSetOp* out,
                         const char** why_not) {
    *why_not = NULL;
    if (rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_SUBQUERY || !rte->inh || rel->pathlist == NIL)
        return false;
    if (rel->baserestrictinfo != NIL || !bms_is_empty(rel->lateral_relids)) {
        *why_not = "UNION ALL with restriction clauses or lateral references";
        return false;
    }
    ListCell* lc;
    out->inputs = NIL;
    foreach (lc, root->append_rel_list) {
        AppendRelInfo* appinfo = (AppendRelInfo*)lfirst(lc);
        if (appinfo->parent_relid != rel->relid) continue;
        RelOptInfo* child = root->simple_rel_array[appinfo->child_relid];
        if (child == NULL || IS_DUMMY_REL(child)) continue;  // excluded, as the Append skips it
        if (child->cheapest_total_path == NULL) {
            *why_not = "unexpected input paths";
            return false;
        }
        out->inputs = lappend(out->inputs, child->cheapest_total_path);
    }
    if (list_length(out->inputs) < 2) return false;
    // the grouping columns the parser would make: each type's default btree operators
    List* groups = NIL;
    foreach (lc, rel->reltarget->exprs) {
        TypeCacheEntry* tc = lookup_type_cache(exprType((Node*)lfirst(lc)),
                                               TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR | TYPECACHE_HASH_PROC);
        if (!OidIsValid(tc->eq_opr) || !OidIsValid(tc->lt_opr)) {
            *why_not = "a column of the UNION ALL has no default ordering";
            return false;
        }
        SortGroupClause* sgc = makeNode(SortGroupClause);
        sgc->tleSortGroupRef = Index(list_length(groups) + 1);
        sgc->eqop = tc->eq_opr;
        sgc->sortop = tc->lt_opr;
        sgc->nulls_first = false;
        sgc->hashable = OidIsValid(tc->hash_proc);
        groups = lappend(groups, sgc);
    }
    if (groups == NIL || !mp_setop_columns(groups, rel->reltarget->exprs, &out->cols)) {
        *why_not = "unexpected UNION ALL columns";
        return false;
    }
    out->op = mergepath::SetOp::Union;
    out->all = true;
    out->native = rel->cheapest_total_path ? rel->cheapest_total_path : (Path*)linitial(rel->pathlist);
    foreach (lc, rel->pathlist)
        if (((Path*)lfirst(lc))->total_cost < out->native->total_cost) out->native = (Path*)lfirst(lc);
    out->target = rel->reltarget;
    out->projected = NULL;
    out->rows = rel->rows;
    out->first_side = 0;
    return true;
}

bool mp_native_setop(PlannerInfo* root, RelOptInfo* rel, MpNativeSetOp* native, const char** why_not) {
    ProjectionPath* projection;
    *why_not = NULL;
    if (SetOpPath* sp = find_setop_path(rel, &projection))
        return native_intersect_except(sp, projection, native, why_not);
    return native_union(root, rel, native, why_not);
}
