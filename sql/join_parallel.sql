-- join_parallel: the parallel-aware MergePath Join (a partial path under a Gather):
-- every participant reads its share of both inputs (keys and stored rows) into shared
-- memory, one combines, every participant expands the batches of A rows it claims, and
-- the last one emits the outer joins' unmatched rows. Parallel plans are forced; every
-- answer is compared with the native plan, for each join type, and also when no
-- worker starts, when the leader does not take part, after an ERROR in a worker's
-- input (nothing leaks, the session goes on), when the device runs out of memory, and
-- after a cancel while pairs are expanded.
SET pg_mergepath.min_rows = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
\set VERBOSITY terse

-- k: int8 ~2 copies per key; n: int4 with NULLs; z: 0 in one row (division by zero)
CREATE TABLE pj_a AS SELECT g::int8 * 7919 % 40000 AS k, CASE WHEN g % 9 = 0 THEN NULL ELSE g % 2000 END::int4 AS n,
  g AS p, CASE WHEN g = 31337 THEN 0 ELSE 1 END AS z
  FROM generate_series(1, 80000) g;
CREATE TABLE pj_b AS SELECT g::int8 * 104729 % 50000 AS k, CASE WHEN g % 4 = 0 THEN NULL ELSE g % 2100 END::int4 AS n,
  g AS q FROM generate_series(1, 60000) g;
ANALYZE pj_a, pj_b;

CREATE FUNCTION mp_pj_sql(jt text, cond text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT a.* FROM pj_a a WHERE EXISTS (SELECT 1 FROM pj_b b WHERE %s)', cond)
    WHEN 'anti' THEN format('SELECT a.* FROM pj_a a WHERE NOT EXISTS (SELECT 1 FROM pj_b b WHERE %s)', cond)
    ELSE format('SELECT a.p, a.n, b.q, b.n AS bn FROM pj_a a %s JOIN pj_b b ON %s', jt, cond) END
$$;

-- the plan: a Partial Aggregate over the node in every participant
SELECT * FROM mp_explain('SELECT count(*), sum(a.p + b.q) FROM pj_a a JOIN pj_b b ON a.k = b.k');
SELECT * FROM mp_explain('SELECT a.p, b.q FROM pj_a a FULL JOIN pj_b b ON a.n = b.n AND a.p < b.q');

-- every join type, keys with and without NULLs, with and without a join filter
SELECT jt, cond, mp_join_check(mp_pj_sql(jt, cond))
FROM (VALUES ('inner'), ('left'), ('right'), ('full'), ('semi'), ('anti')) j(jt),
     (VALUES ('a.k = b.k'), ('a.n = b.n'), ('a.k = b.k AND a.n = b.n'), ('a.n = b.n AND a.p % 7 < b.q % 5')) c(cond)
ORDER BY jt, cond;
-- A's ranges announced in pieces of ~1000 rows: participants claim batches of A rows
-- while the combiner is still putting ranges in place, and wait for their own
SET pg_mergepath.debug_piece_rows = 1000;
SELECT jt, mp_join_check(mp_pj_sql(jt, cond))
FROM (VALUES ('inner'), ('right'), ('full'), ('anti')) j(jt), (VALUES ('a.k = b.k'), ('a.n = b.n AND a.p < b.q')) c(cond)
ORDER BY jt, cond;
RESET pg_mergepath.debug_piece_rows;

-- no worker starts: the leader alone does everything
SET max_parallel_workers = 0;
SELECT jt, mp_join_check(mp_pj_sql(jt, 'a.n = b.n AND a.p < b.q')) FROM (VALUES ('full'), ('anti')) j(jt) ORDER BY jt;
-- ... as the inner side of a nested loop that stops each execution at its first match:
-- a rescan after an execution stopped while emitting still emits the outer join's
-- unmatched rows (-1: only a row of B without a match passes; expected 1, -1, 2, -1)
SET enable_nestloop = on;
SET enable_material = off;
SELECT v.t FROM (VALUES (1), (-1), (2), (-1)) v(t)
WHERE EXISTS (SELECT 1 FROM pj_a a FULL JOIN pj_b b ON a.k = b.k AND a.p < b.q
              WHERE coalesce(a.p, -b.q) = v.t OR (v.t = -1 AND a.p IS NULL));
RESET enable_material;
SET enable_nestloop = off;
RESET max_parallel_workers;
-- the leader does not take part: a worker combines (on the CPU backend)
SET parallel_leader_participation = off;
SELECT jt, mp_join_check(mp_pj_sql(jt, 'a.n = b.n')) FROM (VALUES ('inner'), ('right'), ('semi')) j(jt) ORDER BY jt;
SELECT regexp_replace(e, 'worker \d+', 'worker N') AS e FROM mp_explain('SELECT count(*) FROM pj_a a RIGHT JOIN pj_b b ON a.k = b.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') e
  WHERE e ~ 'Join Type|Input Rows|Pairs|Combined By';
-- ... under a LIMIT that reads further on each rescan (a correlated subquery): the
-- rescanned Gather's workers once kept the first execution's tuple bound and stopped
-- inside the batches they claimed (rescan_bound.h); the counts are the LIMIT's
SELECT * FROM mp_explain('SELECT (SELECT count(*) FROM (SELECT a.p FROM pj_a a JOIN pj_b b ON a.k = b.k
                          LIMIT 1000 * x * x * x) s) FROM generate_series(1, 3) x');
SELECT x, (SELECT count(*) FROM (SELECT a.p FROM pj_a a JOIN pj_b b ON a.k = b.k LIMIT 1000 * x * x * x) s) AS n
FROM generate_series(1, 3) x;
RESET parallel_leader_participation;

-- an ERROR in a worker's input: no leak, and the session goes on
SELECT count(*) FROM pj_a a JOIN pj_b b ON a.k = b.k WHERE a.p / a.z > 0;
SELECT live_operations FROM pg_mergepath_status();
SELECT mp_join_check(mp_pj_sql('left', 'a.k = b.k'));

-- out of memory (the CPU backend's hidden debug budget): the join is redone on the CPU
-- backend without a budget, with a NOTICE, and gives the native answer
SET pg_mergepath.device = cpu;
SET pg_mergepath.debug_cpu_memory_limit = '64kB';
SELECT mp_join_check(mp_pj_sql('inner', 'a.k = b.k'));
SELECT mp_join_check(mp_pj_sql('full', 'a.n = b.n AND a.p < b.q'));
SET max_parallel_workers_per_gather = 0;
SELECT mp_join_check(mp_pj_sql('right', 'a.k = b.k'));
SET max_parallel_workers_per_gather = 4;
RESET pg_mergepath.debug_cpu_memory_limit;
RESET pg_mergepath.device;
SELECT live_operations, memory_in_use FROM pg_mergepath_status();

-- cancel while the pairs are expanded (a many-to-many join of 80000 x 60000 rows on
-- two keys: 2.4G pairs), then the same session works
CREATE TABLE pj_many_a AS SELECT (g % 2)::int8 AS k FROM generate_series(1, 80000) g;
CREATE TABLE pj_many_b AS SELECT (g % 2)::int8 AS k FROM generate_series(1, 60000) g;
ANALYZE pj_many_a, pj_many_b;
SET statement_timeout = '1s';
SELECT count(*) FROM pj_many_a a JOIN pj_many_b b ON a.k = b.k;
RESET statement_timeout;
SELECT live_operations FROM pg_mergepath_status();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';
SELECT mp_join_check(mp_pj_sql('anti', 'a.k = b.k'));
-- the same in a serial plan
SET max_parallel_workers_per_gather = 0;
SET statement_timeout = '1s';
SELECT count(*) FROM pj_many_a a JOIN pj_many_b b ON a.k = b.k;
RESET statement_timeout;
SELECT live_operations FROM pg_mergepath_status();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';
SELECT mp_join_check(mp_pj_sql('full', 'a.n = b.n AND a.p < b.q'));

RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
