// queries.hpp — the benchmark's query table, its variants and the floors. To benchmark
// another operator, add one line to kQueries; templates use {A} {B} (the two tables),
// {COLS} (key columns), {ACOLS}/{BCOLS} (qualified with aliases a/b) and {ON}
// (a.k = b.k AND ...). Entries with default_on = false run only when named in --ops (or
// with --ops all).
#pragma once

#include <string>
#include <vector>

namespace mpbench {

struct QueryDef {
    const char* id;
    const char* title;
    const char* sql;
    bool ordered;     // the order of the rows is part of the answer (checked too)
    bool default_on;  // in the default --ops set
};

inline const std::vector<QueryDef>& query_table() {
    static const std::vector<QueryDef> q = {
        {"intersect_all", "INTERSECT ALL", "SELECT {COLS} FROM {A} INTERSECT ALL SELECT {COLS} FROM {B}", false, true},
        {"except_all", "EXCEPT ALL", "SELECT {COLS} FROM {A} EXCEPT ALL SELECT {COLS} FROM {B}", false, true},
        {"intersect", "INTERSECT", "SELECT {COLS} FROM {A} INTERSECT SELECT {COLS} FROM {B}", false, true},
        {"except", "EXCEPT", "SELECT {COLS} FROM {A} EXCEPT SELECT {COLS} FROM {B}", false, true},
        // later entries: joins and ordered UNION ALL (run stock plans until pg_mergepath covers them)
        {"union_all_ordered", "UNION ALL ORDER BY", "SELECT {COLS} FROM {A} UNION ALL SELECT {COLS} FROM {B} ORDER BY {COLS}", true, false},
        {"join_inner", "inner join", "SELECT {ACOLS}, {BCOLS} FROM {A} a JOIN {B} b ON {ON}", false, false},
        {"join_left", "left join", "SELECT {ACOLS}, {BCOLS} FROM {A} a LEFT JOIN {B} b ON {ON}", false, false},
        {"join_semi", "semi join", "SELECT {ACOLS} FROM {A} a WHERE EXISTS (SELECT 1 FROM {B} b WHERE {ON})", false, false},
        {"join_anti", "anti join", "SELECT {ACOLS} FROM {A} a WHERE NOT EXISTS (SELECT 1 FROM {B} b WHERE {ON})", false, false},
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
          "pg_mergepath.hashed_keys = on"},
         true},
        {"cpu", "pg_mergepath cpu",
         {"pg_mergepath.enabled = on", "pg_mergepath.device = 'cpu'", "pg_mergepath.min_rows = 0",
          "pg_mergepath.hashed_keys = on"},
         true},
    };
    return v;
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
