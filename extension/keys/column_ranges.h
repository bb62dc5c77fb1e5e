// column_ranges.h — the values a set operation's input column is expected to hold,
// from the planner's statistics, for ranged keys (keys.h).
#pragma once

#include "keys.h"

#include "pg_mergepath.h"

// The smallest and largest encoded value (mp_encode_column of `codec`) among the
// histogram bounds and most common values that ANALYZE sampled for column `attno` of
// `rel`, a set operation's input (a subquery whose column is a plain table column).
// known = false when there are no such statistics, or they may not be used.
MpExpectedRange mp_column_expected_range(PlannerInfo* root, RelOptInfo* rel, AttrNumber attno, Oid type,
                                         Oid collation, MpCodec codec);
