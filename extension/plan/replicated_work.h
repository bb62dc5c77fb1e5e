// replicated_work.h — what both nodes' planners charge for the work in a partial input
// that every participant repeats in full, and how they pick the partial input they read.
//
// A partial path is one participant's share, but not all of it is shared: a partial
// hash join over a private hash table (not Parallel Hash) builds the whole of its inner
// side in every participant, as does a nested loop over a whole inner path (or a merge
// join over a whole inner path: its inner Sort, added when the plan is made, is not in
// the path and not charged). PostgreSQL costs a partial path per participant, so such a
// subtree counts once although the participants run it once each at the same time, on
// the same cores and memory. Measured (issue 32, a decision-support query on the H200
// host with 16 workers): our join placed over a partial hash join whose inner side was a
// HashAggregate of the largest table ran 90 s, where the stock plan ran 71 s; the path
// had looked cheaper only because that aggregate counted once. So a node's partial path
// is charged every copy of such a subtree: its cost times the participants beyond the
// first. And of an input relation's partial paths the node reads the one whose cost
// with that charge is lowest, which prefers the shared parallel scans it can read itself.
#pragma once

#include "pg_mergepath.h"

extern "C" {
#include "nodes/pathnodes.h"
}

// The cost of the subtrees under a partial path that every participant runs in full
// (whole, unparameterized inner sides of its joins that are more than a scan of one
// table, not looked into further), 0 when everything in it is shared. A node of ours
// counts 0: its cost holds the charge for what its own inputs repeat already.
Cost mp_replicated_work(const Path* partial);

// The charge for a path of `workers` workers (0: a serial path, no charge) over its
// inputs `a` and `b`, partial ones, or `b` whole (b_whole: every participant runs all of
// it; 0 for a scan of one table or a parameterized path): each of the other
// participants runs what they repeat once more.
Cost mp_replicated_charge(const Path* a, const Path* b, int workers, bool b_whole = false);

// The input relation's partial path to read: least total cost with the charge for its
// replicated work (at its own workers), NULL when it has none.
Path* mp_partial_input(const RelOptInfo* rel);
