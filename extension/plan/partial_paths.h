// partial_paths.h — what both nodes' planners (setop_path.cpp, join_path.cpp) share about
// a partial (parallel-aware) path over two partial inputs: how many workers it asks for,
// and PostgreSQL's parallel divisor for its per-participant costs.
#pragma once

#include "pg_mergepath.h"

extern "C" {
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
}

// costsize.c's get_parallel_divisor (static there).
inline double mp_parallel_divisor(int workers) {
    double divisor = workers;
    if (parallel_leader_participation && 1.0 - 0.3 * workers > 0) divisor += 1.0 - 0.3 * workers;
    return divisor;
}

// The node reads both inputs in full: the two inputs' workers together, at least one,
// up to max_parallel_workers_per_gather.
inline int mp_partial_workers(const Path* left, const Path* right) {
    return Max(1, Min(max_parallel_workers_per_gather, left->parallel_workers + right->parallel_workers));
}
