// setop_plan.cpp — from the chosen CustomPath to the CustomScan plan node, and the
// plan information the executor needs (custom_private).
//
// Plan shape: the left input becomes the plan's lefttree (outer) and the right input
// its righttree (inner); custom_plans stays empty. That makes the children ordinary
// plan children for every tree walker (setrefs, parameters, EXPLAIN, rescans, and the
// parallel DSM setup of a Parallel Seq Scan below a parallel-aware node).
//
// The node reads only the set operation's columns of each input, never the flag
// column a leaf query's Subquery Scan adds (a constant per side): that column is cut
// from the Subquery Scan's target list, which then usually is trivial (its columns are
// the subquery's, in order), and setrefs.c removes the Subquery Scan, so the node
// reads its rows straight from the scan below without a projection per row.
//
// Target lists: the set-op rel's target list is PostgreSQL's "varno 0" Vars (plus the
// flag column), which the parent plan matches by Var when setrefs.c fixes it, so our
// plan keeps exactly that tlist. custom_scan_tlist (describing our scan tuple) starts as
// a copy so that setrefs turns the tlist into INDEX_VAR references; setrefs then adds
// the range-table offset to its Vars, leaving references to nothing, which EXPLAIN
// VERBOSE cannot print. So after standard_planner (scan_tlists.cpp) each of our
// custom_scan_tlist Vars becomes OUTER_VAR k — column k of the left input — which
// EXPLAIN deparses the way it deparses SetOp's own output ("*SELECT* 1".a), and the
// flag column (the last) the constant 0 that the node emits. The executor never
// evaluates custom_scan_tlist; only its types matter there.
#include "setop_node.h"
#include "scan_tlists.h"

extern "C" {
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/tlist.h"
}

static Plan* mp_plan_custom_path(PlannerInfo* root, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                                 List* clauses, List* custom_plans);

const CustomPathMethods mp_setop_path_methods = {"MergePath SetOp", mp_plan_custom_path, NULL};

const char* mp_setop_name(mergepath::SetOp op, bool all) {
    switch (op) {
        case mergepath::SetOp::Intersection: return all ? "Intersect All" : "Intersect";
        case mergepath::SetOp::Difference: return all ? "Except All" : "Except";
        case mergepath::SetOp::Union: return all ? "Union All" : "Union";
        default: return "???";
    }
}

// Ranged keys' column ranges as integers: per column the base's high and low 32 bits
// and the width (NIL: not ranged).
static List* ranges_to_list(const MpColumnRange* ranges, int ncols) {
    List* list = NIL;
    for (int c = 0; ranges && c < ncols; c++) {
        list = lappend(list, makeInteger(int(uint32(ranges[c].base >> 32))));
        list = lappend(list, makeInteger(int(uint32(ranges[c].base))));
        list = lappend(list, makeInteger(ranges[c].bits));
    }
    return list;
}

static const MpColumnRange* ranges_from_list(List* list) {
    if (list == NIL) return NULL;
    int ncols = list_length(list) / 3;
    MpColumnRange* ranges = (MpColumnRange*)palloc(sizeof(MpColumnRange) * ncols);
    for (int c = 0; c < ncols; c++) {
        uint64 high = uint32(intVal(list_nth(list, 3 * c))), low = uint32(intVal(list_nth(list, 3 * c + 1)));
        ranges[c].base = (high << 32) | low;
        ranges[c].bits = intVal(list_nth(list, 3 * c + 2));
    }
    return ranges;
}

List* mp_setop_info_to_list(const MpSetOpInfo* info) {
    List* keys = list_make5(makeInteger(info->keys.lossless ? 1 : 0), makeInteger(info->keys.key_bits),
                            makeInteger(info->keys.images ? 1 : 0),
                            ranges_to_list(info->keys.ranges, list_length(info->eqops)),
                            makeInteger(info->keys.full_bits));
    List* op = list_make2(makeInteger(int(info->op)), makeInteger(info->all ? 1 : 0));
    List* ways = list_make4(makeInteger(info->first_side), makeInteger(info->parallel ? 1 : 0),
                            makeInteger(info->spill ? 1 : 0), makeInteger(info->ordered ? 1 : 0));
    return list_make5(op, keys, info->eqops, info->collations, lappend(ways, makeInteger(info->one_emitter ? 1 : 0)));
}

void mp_setop_info_from_list(List* list, MpSetOpInfo* info) {
    List* keys = (List*)list_nth(list, 1);
    List* op = (List*)list_nth(list, 0);
    info->op = mergepath::SetOp(intVal(linitial(op)));
    info->all = intVal(lsecond(op)) != 0;
    List* sides = (List*)list_nth(list, 4);
    info->keys.lossless = intVal(list_nth(keys, 0)) != 0;
    info->keys.key_bits = intVal(list_nth(keys, 1));
    info->keys.images = intVal(list_nth(keys, 2)) != 0;
    info->keys.ranges = ranges_from_list((List*)list_nth(keys, 3));
    info->keys.full_bits = intVal(list_nth(keys, 4));
    info->eqops = (List*)list_nth(list, 2);
    info->collations = (List*)list_nth(list, 3);
    info->first_side = intVal(list_nth(sides, 0));
    info->parallel = intVal(list_nth(sides, 1)) != 0;
    info->spill = intVal(list_nth(sides, 2)) != 0;
    info->ordered = intVal(list_nth(sides, 3)) != 0;
    info->one_emitter = intVal(list_nth(sides, 4)) != 0;
}

// Our scan tuple: one entry per tlist column, same expressions (see the file comment).
static List* make_scan_tlist(List* tlist) {
    List* scan_tlist = NIL;
    ListCell* lc;
    foreach (lc, tlist) {
        TargetEntry* tle = (TargetEntry*)lfirst(lc);
        scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr*)copyObjectImpl(tle->expr), tle->resno, NULL, false));
    }
    return scan_tlist;
}

// Cuts a leaf input's Subquery Scan down to the set operation's columns (see the file
// comment): the node never reads the flag column after them.
static void drop_flag_column(Plan* child, int ncols) {
    if (!IsA(child, SubqueryScan) || list_length(child->targetlist) <= ncols) return;
    child->targetlist = list_truncate(list_copy(child->targetlist), ncols);
}

static Plan* mp_plan_custom_path(PlannerInfo* root, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                                 List* clauses, List* custom_plans) {
    if (clauses != NIL) elog(ERROR, "pg_mergepath: a set operation with restriction clauses");
    MpSetOpInfo info;
    mp_setop_info_from_list(best_path->custom_private, &info);
    drop_flag_column((Plan*)linitial(custom_plans), list_length(info.eqops));
    drop_flag_column((Plan*)lsecond(custom_plans), list_length(info.eqops));
    if (tlist == NIL) tlist = make_tlist_from_pathtarget(best_path->path.pathtarget);
    CustomScan* cscan = makeNode(CustomScan);
    cscan->scan.plan.targetlist = tlist;
    cscan->scan.plan.qual = NIL;
    cscan->scan.plan.lefttree = (Plan*)linitial(custom_plans);
    cscan->scan.plan.righttree = (Plan*)lsecond(custom_plans);
    cscan->scan.plan.parallel_aware = best_path->path.parallel_aware;
    cscan->scan.scanrelid = 0;
    cscan->flags = best_path->flags;
    cscan->custom_plans = NIL;
    cscan->custom_exprs = NIL;
    cscan->custom_private = best_path->custom_private;
    cscan->custom_scan_tlist = make_scan_tlist(tlist);
    cscan->methods = &mp_setop_scan_methods;
    mp_note_planned_node();
    return &cscan->scan.plan;
}

// Points our scan tuple's Vars at the left input's columns (OUTER_VAR), and the flag
// column at the 0 we emit, for EXPLAIN.
void mp_setop_fix_scan_tlist(CustomScan* cscan) {
    MpSetOpInfo info;
    mp_setop_info_from_list(cscan->custom_private, &info);
    int ncols = list_length(info.eqops);
    ListCell* lc;
    foreach (lc, cscan->custom_scan_tlist) {
        TargetEntry* tle = (TargetEntry*)lfirst(lc);
        if (tle->resno > ncols) {
            tle->expr = (Expr*)makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(0), false, true);
            continue;
        }
        tle->expr = (Expr*)mp_child_column_var(0, tle->resno, (Node*)tle->expr);
    }
}

