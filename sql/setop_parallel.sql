-- setop_parallel: the parallel-aware node (a partial path under a Gather): every
-- participant reads its share of both inputs into shared memory, one combines, every
-- participant emits the result batches it claims. Parallel plans are forced; every
-- answer is compared with the native plan (pg_mergepath.enabled = off), for each
-- operator and key kind, and also when no worker starts, when the leader does not take
-- part, after an ERROR in a worker's input (nothing leaks, the session goes on) and
-- after a cancel while the input is read.
SET pg_mergepath.min_rows = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
-- keys of their types' widths (setop_ranged runs ranged keys in parallel)
SET pg_mergepath.ranged_keys = off;
\set VERBOSITY terse

-- k: int8 with ~2 copies per key; m: int4; n: int4 with NULLs; big: int8 filling a
-- 128-bit key with k; z: 0 in one row only (for a division by zero)
CREATE TABLE par_l AS SELECT g::int8 * 7919 % 40000 AS k, (g % 7)::int4 AS m,
  CASE WHEN g % 9 = 0 THEN NULL ELSE g % 50 END::int4 AS n, (g % 3)::int8 * 1000000000000 AS big,
  CASE WHEN g = 31337 THEN 0 ELSE 1 END AS z
  FROM generate_series(1, 80000) g;
CREATE TABLE par_r AS SELECT g::int8 * 104729 % 50000 AS k, (g % 5)::int4 AS m,
  CASE WHEN g % 4 = 0 THEN NULL ELSE g % 70 END::int4 AS n, (g % 2)::int8 * 1000000000000 AS big
  FROM generate_series(1, 60000) g;
ANALYZE par_l, par_r;

-- The plans: a Partial Aggregate over the node in every participant; a Gather of the
-- rows themselves at the top level.
SELECT * FROM mp_explain('SELECT count(*) FROM (SELECT k FROM par_l INTERSECT ALL SELECT k FROM par_r) s');
SELECT * FROM mp_explain('SELECT k, m FROM par_l EXCEPT SELECT k, m FROM par_r');

-- Each operator and key kind (32, 64, 128 bits, NULLs), same answer as native.
SELECT op, cols, mp_par_check(format('SELECT %s FROM par_l %s SELECT %s FROM par_r', cols, op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('k'), ('m'), ('n'), ('k, m'), ('k, n'), ('big, k')) c(cols)
ORDER BY op, cols;
-- results copied in and announced in pieces of ~1000 rows: participants wait for theirs
SET pg_mergepath.debug_piece_rows = 1000;
SELECT op, mp_par_check(format('SELECT k, n FROM par_l %s SELECT k, n FROM par_r', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT')) o(op) ORDER BY op;
RESET pg_mergepath.debug_piece_rows;
-- the rows themselves, gathered at the top level
SELECT mp_check('SELECT k, n FROM par_l INTERSECT ALL SELECT k, n FROM par_r');
SELECT mp_check('SELECT n FROM par_r EXCEPT ALL SELECT n FROM par_l');
-- nested: both set operations parallel under one Gather
SELECT mp_par_check('SELECT k FROM par_l EXCEPT ALL (SELECT k FROM par_r INTERSECT ALL SELECT k FROM par_l WHERE m > 2)');
SELECT * FROM mp_explain('SELECT count(*) FROM (SELECT k FROM par_l EXCEPT ALL
                          (SELECT k FROM par_r INTERSECT ALL SELECT k FROM par_l WHERE m > 2)) s');
-- empty inputs
SELECT mp_par_check('SELECT k FROM par_l WHERE k < 0 INTERSECT SELECT k FROM par_r');
SELECT mp_par_check('SELECT k FROM par_l EXCEPT ALL SELECT k FROM par_r WHERE k < 0');

-- What EXPLAIN ANALYZE counts over all participants: mp_par_analyze(q, lines) shows
-- the lines matching `lines` (which participant combines, and how many workers start,
-- depend on timing unless forced: those lines are shown only below, where they are).
CREATE FUNCTION mp_par_analyze(q text, lines text DEFAULT 'Input Rows|Rows Emitted|With NULLs')
RETURNS SETOF text LANGUAGE sql AS $$
  SELECT regexp_replace(line, 'worker [0-9]+', 'worker N')
  FROM mp_explain(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') AS line
  WHERE line ~ lines
$$;
SELECT * FROM mp_par_analyze('SELECT count(*) FROM (SELECT k, n FROM par_l INTERSECT ALL SELECT k, n FROM par_r) s');

-- No worker starts at run time: the leader does everything.
SET max_parallel_workers = 0;
SELECT * FROM mp_par_analyze('SELECT count(*) FROM (SELECT k, n FROM par_l INTERSECT ALL SELECT k, n FROM par_r) s',
                             'Workers Launched|Participants|Combined By|Input Rows|Rows Emitted');
SELECT op, mp_par_check(format('SELECT k, n FROM par_l %s SELECT k, n FROM par_r', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT')) o(op);
RESET max_parallel_workers;

-- The leader does not take part: a worker combines (on the CPU backend: workers never
-- start CUDA).
SET parallel_leader_participation = off;
SELECT * FROM mp_par_analyze('SELECT count(*) FROM (SELECT k, n FROM par_l EXCEPT ALL SELECT k, n FROM par_r) s',
                             'Combined By|Input Rows|Rows Emitted');
SELECT op, mp_par_check(format('SELECT k, n FROM par_l %s SELECT k, n FROM par_r', op))
FROM (VALUES ('INTERSECT'), ('EXCEPT ALL')) o(op);

-- An ERROR in a worker's input (the leader reads nothing here): the query fails with
-- it, nothing is left behind, and the session goes on.
SELECT count(*) FROM (SELECT k FROM par_l WHERE 1 / z > 0 INTERSECT SELECT k FROM par_r) s;
RESET parallel_leader_participation;
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';
SELECT mp_par_check('SELECT k FROM par_l WHERE z > 0 INTERSECT SELECT k FROM par_r');

-- A cancel while the participants read (every row takes a little sleep): the query
-- stops with the timeout, and the same query then runs to the end.
SET statement_timeout = '200ms';
SELECT count(*) FROM (SELECT k FROM par_l WHERE pg_sleep(0.0001) IS NOT NULL INTERSECT SELECT k FROM par_r) s;
RESET statement_timeout;
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';
SELECT mp_par_check('SELECT k FROM par_l INTERSECT SELECT k FROM par_r');

-- Rescans: a Gather over the node, inside a LATERAL subquery, runs once per outer row;
-- each run computes the set operation again (the counters add up over the runs).
SELECT * FROM mp_explain('SELECT g, c FROM generate_series(1, 3) g, LATERAL
  (SELECT count(*) + g * 0 AS c FROM (SELECT k FROM par_l INTERSECT ALL SELECT k FROM par_r) x) s');
SELECT * FROM mp_par_analyze('SELECT g, c FROM generate_series(1, 3) g, LATERAL
  (SELECT count(*) + g * 0 AS c FROM (SELECT k FROM par_l INTERSECT ALL SELECT k FROM par_r) x) s');
SELECT mp_par_check('SELECT g, c FROM generate_series(1, 3) g, LATERAL
  (SELECT count(*) + g * 0 AS c FROM (SELECT k FROM par_l INTERSECT ALL SELECT k FROM par_r) x) s');

DROP TABLE par_l, par_r;
