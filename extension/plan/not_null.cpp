// not_null.cpp — NOT NULL proofs for the planner (see not_null.h).
#include "not_null.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
}

namespace {

// Whether a join tree holds an outer join (or anything but plain relations, subqueries
// and inner joins).
bool has_outer_join(Node* node) {
    if (node == NULL) return false;
    if (IsA(node, RangeTblRef)) return false;
    if (IsA(node, FromExpr)) {
        ListCell* lc;
        foreach (lc, ((FromExpr*)node)->fromlist)
            if (has_outer_join((Node*)lfirst(lc))) return true;
        return false;
    }
    if (IsA(node, JoinExpr)) {
        JoinExpr* j = (JoinExpr*)node;
        return j->jointype != JOIN_INNER || has_outer_join(j->larg) || has_outer_join(j->rarg);
    }
    return true;
}

bool proven(PlannerInfo* root, Expr* expr, int depth) {
    while (IsA(expr, RelabelType)) expr = ((RelabelType*)expr)->arg;
    if (IsA(expr, Const)) return !((Const*)expr)->constisnull;
    if (!IsA(expr, Var) || depth > 8) return false;
    Var* var = (Var*)expr;
    if (var->varlevelsup != 0 || var->varattno <= 0 || IS_SPECIAL_VARNO(var->varno) ||
        int(var->varno) >= root->simple_rel_array_size || mp_var_nulled_by_outer_join(var))
        return false;
    RelOptInfo* rel = root->simple_rel_array[var->varno];
    RangeTblEntry* rte = root->simple_rte_array[var->varno];
    if (rel == NULL || rte == NULL) return false;
    // (before 16 no Var says which outer joins can null it: none may be in this query)
    if (has_outer_join((Node*)root->parse->jointree)) return false;
    // (a foreign table's NOT NULL is not enforced: its rows may hold NULLs anyway)
    if (rte->rtekind == RTE_RELATION)
        return rte->relkind != RELKIND_FOREIGN_TABLE && mp_column_not_null(rel, rte, var->varattno);
    if (rte->rtekind != RTE_SUBQUERY || rel->subroot == NULL) return false;
    PlannerInfo* sub = rel->subroot;
    Query* q = sub->parse;
    if (q->groupingSets != NIL || q->setOperations != NULL) return false;
    TargetEntry* tle = get_tle_by_resno(q->targetList, var->varattno);
    return tle != NULL && !tle->resjunk && proven(sub, tle->expr, depth + 1);
}

}  // namespace

bool mp_expr_proven_not_null(PlannerInfo* root, Expr* expr) { return proven(root, expr, 0); }
