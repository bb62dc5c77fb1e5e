// input_rows.h — the rows the planner expects from an input relation, wherever a node
// decides from input size (pg_mergepath.min_rows, streaming the outer side, planning
// memory): the larger of the relation's estimate and its cheapest path's rows. Other
// planners' hooks may correct a path's rows and leave the relation's: Citus sets the
// scan of an intermediate result to the file's row count while the relation keeps its
// default of 1000 rows, and a node deciding from the relation alone would take a large
// input for a small one.
#pragma once

#include "pg_mergepath.h"

extern "C" {
#include "nodes/pathnodes.h"
}

inline double mp_input_rows(const RelOptInfo* rel) {
    const Path* cheapest = rel->cheapest_total_path;
    return Max(rel->rows, cheapest ? cheapest->rows : 0.0);
}

// pg_mergepath.debug_scan_rows (tests): a plain table's unparameterized serial paths
// claim that many rows and its relation keeps its estimate, as Citus leaves an
// intermediate result's. Called from the set_rel_pathlist hook.
void mp_debug_claim_scan_rows(RelOptInfo* rel, RangeTblEntry* rte);
