// rescan_bound.h — a rescanned Gather's workers run unbounded.
//
// A LIMIT above a Gather (or Gather Merge) tells the workers how many rows the query
// can still need: ExecInitParallelPlan stores that tuple bound in the query's fixed
// parallel state, and each worker stops after sending that many rows. On a rescan,
// ExecParallelReinitialize (PostgreSQL 15 to 18) re-launches the workers without
// storing the bound again, so they keep the first execution's. A LIMIT that reads
// further on the next execution (a correlated subquery's `LIMIT 3 * x`) then gets too
// few rows, or (Gather Merge) skips rows it must return. Stock plans show it too (a Parallel
// Seq Scan with parallel_leader_participation = off); a node whose participants claim
// batches of results shows it at once: a worker that stops inside its batch loses the
// rest of that batch for everyone.
//
// Both nodes' ReInitializeDSM callbacks (which run inside ExecParallelReinitialize,
// before the new workers start) call mp_unbound_rescanned_workers: the workers of the
// new execution run with no bound, which is always correct; the Gather stops reading
// once the LIMIT has its rows.
#pragma once

#include "pg_mergepath.h"

void mp_unbound_rescanned_workers(ParallelContext* pcxt);
