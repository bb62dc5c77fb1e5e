// scan_tlists.h — after standard_planner, points every MergePath node's scan tuple
// description (custom_scan_tlist) at its children's output columns (OUTER_VAR /
// INNER_VAR Vars), so that EXPLAIN, EXPLAIN VERBOSE, auto_explain and the parameters of
// subplans above the node deparse exactly the columns the node emits (see
// scan_tlists.cpp for why setrefs alone leaves them wrong).
#pragma once

#include "pg_mergepath.h"

extern "C" {
#include "nodes/plannodes.h"
}

// Rewrites one node's custom_scan_tlist in place; must be idempotent (a plan may be
// visited twice when planning nests).
typedef void (*MpScanTlistFix)(CustomScan* cscan);

// Each node kind registers its rewrite once, in _PG_init.
void mp_register_scan_tlist_fix(const CustomScanMethods* methods, MpScanTlistFix fix);

// Called by a node's PlanCustomPath: this planning made a node whose scan tuple needs
// the rewrite.
void mp_note_planned_node(void);

// Installs the planner_hook (chained) that runs the rewrites.
void mp_install_planner_hook(void);

// A Var that reads column `attno` (1-based) of the outer (side 0) or inner (side 1)
// child, of the type, typmod and collation of `like`.
Var* mp_child_column_var(int side, AttrNumber attno, Node* like);
