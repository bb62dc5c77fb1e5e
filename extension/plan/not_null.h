// not_null.h — proving at planning time that a column of a set operation's input can
// never be NULL, so that a node whose key packs several columns may claim their
// lexicographic order (setop_path.cpp: a NULL in a later column would put its row in the
// null-layout stream, after every other row, out of order).
//
// Proven: a non-NULL constant, or a Var (under binary-compatible casts) of a table
// column with a NOT NULL constraint (17+: a valid one, as the planner reads it; not an
// inheritance parent's read with its children, which may have dropped it; not a
// foreign table's, which nothing enforces), read
// directly or through the output of a leaf subquery, in queries with no outer join (the
// Var could be NULL-extended; 16+ also: a Var no outer join can null) and subqueries
// with no grouping sets (they emit NULLs for absent columns). Anything else (an expression, an aggregate, a
// column of a nested set operation, VALUES, a CTE) is not proven.
#pragma once

#include "pg_mergepath.h"

// Whether `expr`, evaluated in `root`'s query, is proven never NULL.
bool mp_expr_proven_not_null(PlannerInfo* root, Expr* expr);
