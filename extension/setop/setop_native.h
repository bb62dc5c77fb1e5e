// setop_native.h — what PostgreSQL planned for one set-operation rel, the native plan
// our path competes with (setop_native.cpp): the operation, its inputs in the order
// the native plan reads them, the grouping columns and the output.
#pragma once

#include "setop_node.h"

// The columns of a set operation, as the native plan groups them.
struct MpSetOpColumns {
    int ncols;
    Oid* types;
    Oid* collations;
    Oid* eqops;    // the grouping equality (SortGroupClause.eqop)
    Oid* sortops;  // its ordering operator (SortGroupClause.sortop), InvalidOid if none
    bool* hashable;
};

// The columns of output expressions `exprs` grouped by `groups` (SortGroupClauses, one
// per column, in order; exprs may have more: flag columns); false when there are none.
bool mp_setop_columns(List* groups, List* exprs, MpSetOpColumns* cols);

struct MpNativeSetOp {
    mergepath::SetOp op;  // Intersection, Difference, Union
    bool all;
    Path* native;           // the native path (the cheapest when there are several)
    PathTarget* target;     // the set operation's own output
    PathTarget* projected;  // what the rel's paths are projected to (a set operation
                            // under another one), applied over ours too; or NULL
    double rows;            // the native estimate of its output rows
    List* inputs;           // its input paths (INTERSECT / EXCEPT: two; UNION: two or
                            // more, flattened), in the order the native plan reads them
    int first_side;         // the input whose first row of a group the native plan emits
    MpSetOpColumns cols;
};

// The set operation the rel's paths implement (UPPERREL_SETOP, during
// create_upper_paths_hook). False when the rel is not one ours can replace; *why_not is
// then the reason to log, or NULL (a leaf query, a UNION ALL, a recursive union: nothing
// to say).
bool mp_native_setop(PlannerInfo* root, RelOptInfo* rel, MpNativeSetOp* native, const char** why_not);

// The same for a UNION ALL flattened into an appendrel (set_rel_pathlist_hook): false
// when the rel is not one, or (*why_not) not one ours can give in key order.
bool mp_native_union_all(PlannerInfo* root, RelOptInfo* rel, RangeTblEntry* rte, MpNativeSetOp* native,
                         const char** why_not);
