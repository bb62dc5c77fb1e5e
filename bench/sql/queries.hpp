// queries.hpp — the benchmark's query table, its variants and the floors. To benchmark
// another operator, add one line to kQueries; templates use {A} {B} (the two tables),
// {COLS} (key columns), {ACOLS}/{BCOLS} (qualified with aliases a/b) and {ON}
// (a.k = b.k AND ...). Entries with default_on = false run only when named in --ops (or
// with --ops all, or a group: setops, joins, factdim).
// A query runs on the datasets of its scope: Pairs (the key-only table pairs of --rows x
// --dists x --shapes) or FactDim (the fact x dimension pairs of --fact-dim: a = fact,
// b = dimension, both (k int8, p1 int8, p2 int4)).
#pragma once

#include <string>
#include <vector>

namespace mpbench {

enum class Scope { Pairs, FactDim };

struct QueryDef {
    const char* id;
    const char* title;
    const char* sql;
    bool ordered;     // the order of the rows is part of the answer (checked too)
    bool default_on;  // in the default --ops set
    const char* group = "";        // --ops group name: setops, joins, factdim
    Scope scope = Scope::Pairs;    // the datasets it runs on
    // The query is itself an aggregate returning one row whose first column `n` is the
    // row count: it is verified by that count and the hash of the whole row, and every
    // timed run executes that same checksum query (the whole answer is checked each time)
    // instead of count(*) over it, which would let the planner drop the aggregates.
    bool aggregate = false;
};

inline const std::vector<QueryDef>& query_table() {
    static const std::vector<QueryDef> q = {
        {"intersect_all", "INTERSECT ALL", "SELECT {COLS} FROM {A} INTERSECT ALL SELECT {COLS} FROM {B}", false, true, "setops"},
        {"except_all", "EXCEPT ALL", "SELECT {COLS} FROM {A} EXCEPT ALL SELECT {COLS} FROM {B}", false, true, "setops"},
        {"intersect", "INTERSECT", "SELECT {COLS} FROM {A} INTERSECT SELECT {COLS} FROM {B}", false, true, "setops"},
        {"except", "EXCEPT", "SELECT {COLS} FROM {A} EXCEPT SELECT {COLS} FROM {B}", false, true, "setops"},
        {"union", "UNION", "SELECT {COLS} FROM {A} UNION SELECT {COLS} FROM {B}", false, true, "setops"},
        {"union_ordered", "UNION ORDER BY", "SELECT {COLS} FROM {A} UNION SELECT {COLS} FROM {B} ORDER BY {COLS}", true, false, "setops"},
        {"union_all_ordered", "UNION ALL ORDER BY", "SELECT {COLS} FROM {A} UNION ALL SELECT {COLS} FROM {B} ORDER BY {COLS}", true, false},
        // joins: the MergePath Join node (pg_mergepath.enable_join) against stock's hash /
        // merge joins; a pg_mergepath variant whose plan keeps a native join is timed and
        // marked ‡ (text and numeric keys, or a build without the join node)
        {"join_inner", "inner join", "SELECT {ACOLS}, {BCOLS} FROM {A} a JOIN {B} b ON {ON}", false, false, "joins"},
        {"join_left", "left join", "SELECT {ACOLS}, {BCOLS} FROM {A} a LEFT JOIN {B} b ON {ON}", false, false, "joins"},
        {"join_right", "right join", "SELECT {ACOLS}, {BCOLS} FROM {A} a RIGHT JOIN {B} b ON {ON}", false, false, "joins"},
        {"join_full", "full join", "SELECT {ACOLS}, {BCOLS} FROM {A} a FULL JOIN {B} b ON {ON}", false, false, "joins"},
        {"join_semi", "semi join", "SELECT {ACOLS} FROM {A} a WHERE EXISTS (SELECT 1 FROM {B} b WHERE {ON})", false, false, "joins"},
        {"join_anti", "anti join", "SELECT {ACOLS} FROM {A} a WHERE NOT EXISTS (SELECT 1 FROM {B} b WHERE {ON})", false, false, "joins"},
        // fact x dimension (--fact-dim): the payloads of both sides are summed, so the
        // join carries them
        {"fact_dim_sum", "fact x dim inner join, sums",
         "SELECT count(*) AS n, sum(a.p1) AS a_p1, sum(a.p2) AS a_p2, sum(b.p1) AS b_p1, sum(b.p2) AS b_p2 "
         "FROM {A} a JOIN {B} b ON {ON}",
         false, true, "factdim", Scope::FactDim, true},
        // the joined rows, verified by count + checksum (timed: count(*), which needs no payload)
        {"fact_dim_rows", "fact x dim inner join, rows",
         "SELECT a.k, a.p1, a.p2, b.p1 AS b_p1, b.p2 AS b_p2 FROM {A} a JOIN {B} b ON {ON}", false, false,
         "factdim", Scope::FactDim},
    };
    return q;
}

// One way of running a query: the session settings applied (after RESET ALL and the
// common settings) before it runs (the runner adds max_parallel_workers_per_gather to the
// pg_mergepath ones: with_parallel_workers below).
struct Variant {
    const char* id;
    const char* title;
    std::vector<std::string> sets;
    bool mp;  // needs pg_mergepath loaded
};

inline const std::vector<Variant>& variant_table() {
    static const std::vector<Variant> v = {
        {"stock", "stock", {"pg_mergepath.enabled = off"}, false},
        {"tuned", "stock tuned",
         {"pg_mergepath.enabled = off", "work_mem = '4GB'", "max_parallel_workers_per_gather = 8"}, false},
        {"gpu", "pg_mergepath gpu",
         {"pg_mergepath.enabled = on", "pg_mergepath.device = 'gpu'", "pg_mergepath.min_rows = 0",
          "pg_mergepath.hashed_keys = on", "pg_mergepath.enable_join = on"},
         true},
        {"gpu-full", "pg_mergepath gpu, full-width keys",
         {"pg_mergepath.enabled = on", "pg_mergepath.device = 'gpu'", "pg_mergepath.min_rows = 0",
          "pg_mergepath.hashed_keys = on", "pg_mergepath.enable_join = on", "pg_mergepath.ranged_keys = off"},
         true},
        {"cpu", "pg_mergepath cpu",
         {"pg_mergepath.enabled = on", "pg_mergepath.device = 'cpu'", "pg_mergepath.min_rows = 0",
          "pg_mergepath.hashed_keys = on", "pg_mergepath.enable_join = on"},
         true},
    };
    return v;
}

// Settings of the variants that are applied only when the loaded pg_mergepath defines
// them (it reserves its prefix, so SET of an unknown name is an error): a build without
// the join node has no pg_mergepath.enable_join, and its variants then run without it
// (their join plans are native, marked ‡) instead of failing.
inline const std::vector<std::string>& optional_settings() {
    static const std::vector<std::string> s = {"pg_mergepath.enable_join", "pg_mergepath.ranged_keys"};
    return s;
}

// The pg_mergepath variants also allow `workers` workers per Gather, so that the planner
// can put the parallel MergePath SetOp (under a Gather) in the plan.
inline Variant with_parallel_workers(Variant v, int workers) {
    if (v.mp) v.sets.push_back("max_parallel_workers_per_gather = " + std::to_string(workers));
    return v;
}

// The floors read both inputs, the same columns, and do nothing else: the floor in one
// process, the parallel read floor with `workers` workers per Gather (PostgreSQL plans
// Finalize Aggregate / Gather / Partial Aggregate / Parallel Append of two Parallel Seq
// Scans).
inline const char* floor_sql() {
    return "SELECT {COUNTS} FROM (SELECT {COLS} FROM {A} UNION ALL SELECT {COLS} FROM {B}) s";
}
inline const std::vector<std::string>& floor_sets() {
    static const std::vector<std::string> s = {"pg_mergepath.enabled = off",
                                               "max_parallel_workers_per_gather = 0"};
    return s;
}
inline std::vector<std::string> par_floor_sets(int workers) {
    return {"pg_mergepath.enabled = off",
            "max_parallel_workers_per_gather = " + std::to_string(workers)};
}

}  // namespace mpbench
