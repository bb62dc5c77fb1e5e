// join_plan.cpp — from the chosen CustomPath to the CustomScan plan of a MergePath Join,
// and the plan information the executor needs (custom_private).
//
// Plan shape: the outer input is the plan's lefttree, the inner one its righttree
// (custom_plans stays empty), so setrefs, parameters, EXPLAIN, rescans and the parallel
// DSM setup of the scans below treat them as ordinary children. The children's target
// lists are exact (CP_EXACT_TLIST): the key columns and the stored columns are
// positions in them.
//
// The scan tuple (custom_scan_tlist) is the Vars the node's output needs — those of the
// target list, the join filter (custom_exprs) and the qual — outer ones first, then
// inner ones; these are the columns each side stores per row (row_arena.h). setrefs
// turns the target list, qual and filter into INDEX_VAR references to it. After
// planning, each of its entries becomes the OUTER_VAR / INNER_VAR reference to the child
// column the node copies into it (scan_tlists.cpp), so that EXPLAIN deparses the node's
// expressions through its children, as it does a hash join's.
//
// Row-identity columns of UPDATE / DELETE / MERGE on an inherited or partitioned target
// (varno ROWID_VAR: ctid, tableoid, wholerow, as the ModifyTable needs them) are
// columns like any other: the target's input (an Append) emits them, the node stores
// and passes them.
#include "join_node.h"
#include "scan_tlists.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
}

static Plan* mp_plan_join_path(PlannerInfo* root, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                               List* clauses, List* custom_plans);

const CustomPathMethods mp_join_path_methods = {"MergePath Join", mp_plan_join_path, NULL};

const char* mp_join_type_name(JoinType jointype) {
    switch (jointype) {
        case JOIN_INNER: return "Inner";
        case JOIN_LEFT: return "Left";
        case JOIN_RIGHT: return "Right";
        case JOIN_FULL: return "Full";
        case JOIN_SEMI: return "Semi";
        case JOIN_ANTI: return "Anti";
        default: return "???";
    }
}

List* mp_join_flags_to_list(const MpJoinInfo* info) {
    List* ints = list_make5(makeInteger(int(info->jointype)), makeInteger(info->key_bits),
                            makeInteger(info->parallel ? 1 : 0), makeInteger(info->nkeys),
                            makeInteger(info->spill ? 1 : 0));
    ints = lappend(lappend(ints, makeInteger(info->probe ? 1 : 0)), makeInteger(info->own_inner ? 1 : 0));
    return lappend(ints, makeInteger(info->nrecheck));
}

// The scalar fields back from mp_join_flags_to_list's list.
static void flags_from_list(List* ints, MpJoinInfo* info) {
    info->jointype = JoinType(intVal(list_nth(ints, 0)));
    info->key_bits = intVal(list_nth(ints, 1));
    info->parallel = intVal(list_nth(ints, 2)) != 0;
    info->nkeys = intVal(list_nth(ints, 3));
    info->spill = intVal(list_nth(ints, 4)) != 0;
    info->probe = intVal(list_nth(ints, 5)) != 0;
    info->own_inner = intVal(list_nth(ints, 6)) != 0;
    info->nrecheck = intVal(list_nth(ints, 7));
}

List* mp_join_info_to_list(const MpJoinInfo* info) {
    return lappend(list_make5(mp_join_flags_to_list(info), info->key_columns[0], info->key_columns[1],
                              info->codecs[0], info->codecs[1]),
                   list_make5(info->key_widths, info->stored[0], info->stored[1], info->image_keys,
                              info->key_scales));
}

void mp_join_info_from_list(List* list, MpJoinInfo* info) {
    List* rest = (List*)list_nth(list, 5);
    flags_from_list((List*)linitial(list), info);
    for (int s = 0; s < 2; s++) {
        info->key_columns[s] = (List*)list_nth(list, 1 + s);
        info->codecs[s] = (List*)list_nth(list, 3 + s);
        info->stored[s] = (List*)list_nth(rest, 1 + s);
    }
    info->key_widths = (List*)linitial(rest);
    info->image_keys = (List*)list_nth(rest, 3);
    info->key_scales = (List*)list_nth(rest, 4);
}

// The 0-based column of `expr` (a Var, maybe under a RelabelType, or a key's integer
// under its cast to numeric: mp_join_key_operand) in a child's target list, or -1.
static int child_column(List* child_tlist, Node* expr) {
    expr = mp_join_key_operand(expr);
    if (!IsA(expr, Var)) return -1;
    Var* var = (Var*)expr;
    ListCell* lc;
    foreach (lc, child_tlist) {
        TargetEntry* tle = (TargetEntry*)lfirst(lc);
        Var* v = (Var*)tle->expr;
        if (IsA(v, Var) && v->varno == var->varno && v->varattno == var->varattno && v->varlevelsup == 0)
            return tle->resno - 1;
    }
    return -1;
}

static List* key_column_list(List* child_tlist, List* exprs) {
    List* columns = NIL;
    ListCell* lc;
    foreach (lc, exprs) {
        int col = child_column(child_tlist, (Node*)lfirst(lc));
        if (col < 0) elog(ERROR, "pg_mergepath: a join key is not a column of its input");
        columns = lappend_int(columns, col);
    }
    return columns;
}

// The Vars the node's output needs, as the scan tuple (outer side's first), and the
// child columns each side stores.
static List* make_scan_tlist(List* needed, List* child_tlists[2], List* stored[2]) {
    List* scan_tlist = NIL;
    stored[0] = stored[1] = NIL;
    for (int s = 0; s < 2; s++) {
        ListCell* lc;
        foreach (lc, needed) {
            int col = child_column(child_tlists[s], (Node*)lfirst(lc));
            if (col < 0 || list_member_int(stored[s], col)) continue;
            stored[s] = lappend_int(stored[s], col);
            scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr*)copyObjectImpl(lfirst(lc)),
                                                             AttrNumber(list_length(scan_tlist) + 1), NULL, false));
        }
    }
    ListCell* lc;
    foreach (lc, needed) {
        List* sides[2] = {child_tlists[0], child_tlists[1]};
        if (child_column(sides[0], (Node*)lfirst(lc)) < 0 && child_column(sides[1], (Node*)lfirst(lc)) < 0)
            elog(ERROR, "pg_mergepath: a column the join emits is in neither input");
    }
    return scan_tlist;
}

// The join filter is evaluated before the node null-extends a row, so its Vars do not
// carry the join among their nulling outer joins (16+: varnullingrels), while the scan
// tuple's column, taken from the target list first, may. setrefs.c matches Vars to the
// scan tuple exactly, so copies of the filter and qual whose Vars carry their scan
// tuple column's marks are what the plan keeps (the executor reads the same column).
static List* with_scan_nullingrels(List* exprs, List* scan_tlist) {
    exprs = (List*)copyObjectImpl(exprs);
    List* vars = pull_var_clause((Node*)exprs, PVC_RECURSE_PLACEHOLDERS);
    ListCell* lc;
    foreach (lc, vars) {
        Var* var = (Var*)lfirst(lc);
        ListCell* sc;
        foreach (sc, scan_tlist) {
            Var* column = (Var*)((TargetEntry*)lfirst(sc))->expr;
            if (column->varno == var->varno && column->varattno == var->varattno) {
                mp_copy_nullingrels(var, column);
                break;
            }
        }
    }
    return exprs;
}

// Path custom_private (join_path.cpp): [mp_join_flags_to_list], codecs of each side, key
// widths, outer key exprs, inner key exprs, join filter, qual, the key clauses rechecked
// per pair, the image keys' oids, the key columns' decimal scales. The plan's join
// filter is the rechecked clauses, then the filter: every pair of equal keys passes
// both, the recheck first.
static Plan* mp_plan_join_path(PlannerInfo*, RelOptInfo* rel, CustomPath* best_path, List* tlist, List* clauses,
                               List* custom_plans) {
    if (clauses != NIL) elog(ERROR, "pg_mergepath: a join with restriction clauses of its own");
    List* priv = best_path->custom_private;
    List* recheck = (List*)list_nth(priv, 8);
    List* filter = list_concat_copy(recheck, (List*)list_nth(priv, 6));
    List* qual = (List*)list_nth(priv, 7);
    Plan* children[2] = {(Plan*)linitial(custom_plans), (Plan*)lsecond(custom_plans)};
    List* child_tlists[2] = {children[0]->targetlist, children[1]->targetlist};

    MpJoinInfo info;
    flags_from_list((List*)linitial(priv), &info);
    info.codecs[0] = (List*)list_nth(priv, 1);
    info.codecs[1] = (List*)list_nth(priv, 2);
    info.key_widths = (List*)list_nth(priv, 3);
    info.nrecheck = list_length(recheck);
    info.image_keys = (List*)list_nth(priv, 9);
    info.key_scales = (List*)list_nth(priv, 10);
    info.key_columns[0] = key_column_list(child_tlists[0], (List*)list_nth(priv, 4));
    info.key_columns[1] = key_column_list(child_tlists[1], (List*)list_nth(priv, 5));
    // With CP_IGNORE_TLIST (a projection above will replace our target list) tlist is
    // NIL: the scan tuple then holds every column of the path's target.
    if (tlist == NIL) tlist = make_tlist_from_pathtarget(best_path->path.pathtarget);
    List* needed = pull_var_clause((Node*)list_concat(list_concat(list_copy(tlist), filter), qual),
                                   PVC_RECURSE_PLACEHOLDERS);
    CustomScan* cscan = makeNode(CustomScan);
    cscan->custom_scan_tlist = make_scan_tlist(needed, child_tlists, info.stored);
    cscan->scan.plan.targetlist = tlist;
    cscan->scan.plan.qual = with_scan_nullingrels(qual, cscan->custom_scan_tlist);
    cscan->scan.plan.lefttree = children[0];
    cscan->scan.plan.righttree = children[1];
    cscan->scan.plan.parallel_aware = best_path->path.parallel_aware;
    cscan->scan.scanrelid = 0;
    cscan->flags = best_path->flags;
    cscan->custom_plans = NIL;
    cscan->custom_exprs = with_scan_nullingrels(filter, cscan->custom_scan_tlist);
    cscan->custom_private = mp_join_info_to_list(&info);
    cscan->custom_relids = bms_copy(rel->relids);
    cscan->methods = &mp_join_scan_methods;
    mp_note_planned_node();
    return &cscan->scan.plan;
}

// The scan tuple's columns as the child columns they are copied from: the outer side's
// stored columns first, then the inner side's (make_scan_tlist's order).
void mp_join_fix_scan_tlist(CustomScan* cscan) {
    MpJoinInfo info;
    mp_join_info_from_list(cscan->custom_private, &info);
    int nouter = list_length(info.stored[0]);
    ListCell* lc;
    foreach (lc, cscan->custom_scan_tlist) {
        TargetEntry* tle = (TargetEntry*)lfirst(lc);
        int i = tle->resno - 1, side = i < nouter ? 0 : 1;
        int col = list_nth_int(info.stored[side], side == 0 ? i : i - nouter);
        tle->expr = (Expr*)mp_child_column_var(side, AttrNumber(col + 1), (Node*)tle->expr);
    }
}
