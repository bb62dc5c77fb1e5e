// scan_tlists.cpp — the planner_hook that describes our nodes' scan tuples in terms of
// their children, once setrefs is done.
//
// A MergePath node is a CustomScan with scanrelid 0 over two ordinary children. Its
// custom_scan_tlist is built from the Vars the node emits so that setrefs turns the
// node's target list, qual and join filter into INDEX_VAR references to it. setrefs then
// leaves custom_scan_tlist's own Vars as range-table Vars (or, for set operations,
// "varno 0" Vars that reference nothing), and ruleutils resolves INDEX_VAR through them
// in the node's own deparse context. That is wrong wherever a Var cannot be printed
// from the range table alone:
//   - a field of an anonymous record from a subquery or CTE ((c.s).f1): ruleutils looks
//     for the subquery's plan as the node's inner child (the layout of a SubqueryScan),
//     and finds one of our inputs ("type integer is not composite", "bogus varattno for
//     subquery var");
//   - UPDATE / DELETE / MERGE row-identity Vars (varno ROWID_VAR) of an inherited or
//     partitioned target, which only the Append below can name;
//   - a set operation's "varno 0" Vars ("bogus varno: 0").
// So after standard_planner every such node's custom_scan_tlist entries become OUTER_VAR
// / INNER_VAR Vars naming the child column the node copies into that scan-tuple column:
// ruleutils then descends into the child, as it does for a hash join's output. The
// executor never evaluates custom_scan_tlist (only its types form the scan slot), so
// this changes what EXPLAIN prints, nothing that runs.
//
// PostgreSQL 15 has no plan_tree_walker: the walk below visits every child list a plan
// node can have that may hold one of our nodes.
#include "scan_tlists.h"

extern "C" {
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
}

namespace {

struct Registered {
    const CustomScanMethods* methods;
    MpScanTlistFix fix;
};

Registered registered[4];
int nregistered = 0;
uint64 planned_nodes = 0;  // our nodes made by this backend's planner so far
planner_hook_type prev_planner_hook = NULL;

void fix_plan_tree(Plan* plan);

void fix_plan_list(List* plans) {
    ListCell* lc;
    foreach (lc, plans) fix_plan_tree((Plan*)lfirst(lc));
}

void fix_plan_tree(Plan* plan) {
    if (plan == NULL) return;
    check_stack_depth();
    switch (nodeTag(plan)) {
        case T_CustomScan: {
            CustomScan* cscan = (CustomScan*)plan;
            for (int i = 0; i < nregistered; i++)
                if (cscan->methods == registered[i].methods) registered[i].fix(cscan);
            fix_plan_list(cscan->custom_plans);
            break;
        }
        case T_Append: fix_plan_list(((Append*)plan)->appendplans); break;
        case T_MergeAppend: fix_plan_list(((MergeAppend*)plan)->mergeplans); break;
        case T_BitmapAnd: fix_plan_list(((BitmapAnd*)plan)->bitmapplans); break;
        case T_BitmapOr: fix_plan_list(((BitmapOr*)plan)->bitmapplans); break;
        case T_SubqueryScan: fix_plan_tree(((SubqueryScan*)plan)->subplan); break;
        default: break;
    }
    fix_plan_tree(plan->lefttree);
    fix_plan_tree(plan->righttree);
}

PlannedStmt* mp_planner(Query* parse, const char* query_string, int cursor_options, ParamListInfo bound_params) {
    uint64 before = planned_nodes;
    PlannedStmt* stmt = prev_planner_hook ? prev_planner_hook(parse, query_string, cursor_options, bound_params)
                                          : standard_planner(parse, query_string, cursor_options, bound_params);
    if (planned_nodes != before) {
        fix_plan_tree(stmt->planTree);
        fix_plan_list(stmt->subplans);
    }
    return stmt;
}

}  // namespace

void mp_register_scan_tlist_fix(const CustomScanMethods* methods, MpScanTlistFix fix) {
    if (nregistered == lengthof(registered)) elog(ERROR, "pg_mergepath: too many scan tuple rewrites");
    registered[nregistered++] = {methods, fix};
}

void mp_note_planned_node(void) { planned_nodes++; }

void mp_install_planner_hook(void) {
    prev_planner_hook = planner_hook;
    planner_hook = mp_planner;
}

Var* mp_child_column_var(int side, AttrNumber attno, Node* like) {
    return makeVar(side == 0 ? OUTER_VAR : INNER_VAR, attno, exprType(like), exprTypmod(like), exprCollation(like), 0);
}
