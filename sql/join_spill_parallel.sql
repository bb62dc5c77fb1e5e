-- join_spill_parallel: a parallel MergePath Join over pg_mergepath.memory_limit
-- (join_spill_parallel.cpp): every participant writes its share of both inputs into hash
-- partitions of the keys, then the participants claim the partitions and join each as a
-- serial spilled join (sorted, key range by key range). Planned so (the estimated input
-- passes the limit) and at run time (a join planned in memory over tables whose
-- statistics say 1000 rows). work_mem = 64kB with memory_limit = 0 (128 kB) makes these
-- ~60k-row inputs spill into over a hundred ranges; key 777 (3000 x 50 rows) is split
-- over several. Every join type with and without a join filter, a 128-bit key, no
-- worker, no leader, a rescan, an ERROR in a participant's input and a cancel (no
-- temporary file left); every answer (every column of both sides) compared with
-- PostgreSQL's own join (join_basic's helpers).
SET pg_mergepath.min_rows = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 3;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
\set VERBOSITY terse
CREATE TABLE jp_a AS SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE (g::int8 * 7919) % 30000 END::int8 AS k,
  (g % 5)::int8 AS k2, g AS pa, CASE WHEN g = 31337 THEN 0 ELSE 1 END AS z FROM generate_series(1, 60000) g;
INSERT INTO jp_a SELECT 777, 1, g, 1 FROM generate_series(1, 3000) g;
CREATE TABLE jp_b AS SELECT CASE WHEN g % 89 = 0 THEN NULL ELSE (g::int8 * 104729) % 40000 END::int8 AS k,
  (g % 3)::int8 AS k2, g AS pb, repeat('b', g % 40) || g AS t FROM generate_series(1, 45000) g;
INSERT INTO jp_b SELECT 777, 1, g, 'heavy' || g FROM generate_series(1, 50) g;
ANALYZE jp_a, jp_b;
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;

-- what EXPLAIN ANALYZE says a parallel spilled join did (numbers reduced to what the test
-- asserts: which worker combined is masked)
CREATE FUNCTION jp_spilled(q text) RETURNS text LANGUAGE sql AS $$
  SELECT format('participants > 1: %s, combined by: %s, partitions > 1: %s, ranges > 10: %s, spilled: %s, keys split: %s',
                mp_explain_count(e, 'Participants') > 1, substring(e ->> 'Combined By' FROM '^\w+'),
                mp_explain_count(e, 'Partitions') > 1, mp_explain_count(e, 'Key Ranges') > 10,
                mp_explain_count(e, 'Spilled') > 0, mp_explain_count(e, 'Keys Split Over Ranges'))
  FROM mp_explain_analyzed(q) e
$$;
CREATE FUNCTION jp_sql(a text, b text, jt text, cond text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT a.* FROM %I a WHERE EXISTS (SELECT 1 FROM %I b WHERE %s)', a, b, cond)
    WHEN 'anti' THEN format('SELECT a.* FROM %I a WHERE NOT EXISTS (SELECT 1 FROM %I b WHERE %s)', a, b, cond)
    ELSE format('SELECT a.*, b.* FROM %I a %s JOIN %I b ON %s', a, jt, b, cond) END
$$;

-- ours over the misled copies (below) against PostgreSQL's own join of the originals
-- (over the copies' statistics it would choose nested loops)
CREATE FUNCTION jp_check_misled(native_q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  wrap text := 'SELECT count(*) AS n, coalesce(sum(hash_record_extended(mp_row, 0)), 0) AS h FROM (%s) mp_row';
  ours_q text := replace(replace(native_q, 'jp_a', 'jp_ma'), 'jp_b', 'jp_mb');
  native record;
  ours record;
BEGIN
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  EXECUTE format(wrap, native_q) INTO native;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  PERFORM set_config('enable_hashjoin', 'off', true);
  EXECUTE format(wrap, ours_q) INTO ours;
  RETURN mp_agree(mp_join_plan(format(wrap, ours_q)), native.n, native.h, ours.n, ours.h);
END $$;

-- planned to spill: the plan says so
SELECT line FROM mp_explain('SELECT a.pa, b.t FROM jp_a a JOIN jp_b b ON a.k = b.k') line
WHERE line ~ 'Gather|Custom Scan|Parallel:|Memory Limit';
SELECT jp_spilled('SELECT a.pa, b.t FROM jp_a a JOIN jp_b b ON a.k = b.k');
-- (every join type; the key ranges are the serial spilled join's, which join_spill
-- tests with filters on every type: here a filter on three)
SELECT jt, mp_join_check(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k')) AS plain,
       CASE WHEN jt IN ('inner', 'full', 'anti')
            THEN mp_join_check(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k AND a.pa % 7 <> b.pb % 5')) END AS filtered
FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) jt;
-- a 128-bit key (two int8 columns)
SELECT jt, mp_join_check(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k AND a.k2 = b.k2')) AS two_keys
FROM unnest(ARRAY['full', 'anti']) jt;

-- no worker starts: the leader partitions everything as its share, then joins every partition
SET max_parallel_workers = 0;
SELECT jp_spilled('SELECT a.pa, b.t FROM jp_a a FULL JOIN jp_b b ON a.k = b.k');
SELECT mp_join_check(jp_sql('jp_a', 'jp_b', 'full', 'a.k = b.k'));
RESET max_parallel_workers;
-- the leader does not take part: the workers partition and join (on the CPU backend)
SET parallel_leader_participation = off;
SELECT jp_spilled('SELECT a.pa, b.t FROM jp_a a LEFT JOIN jp_b b ON a.k = b.k');
SELECT jt, mp_join_check(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k')) FROM unnest(ARRAY['left', 'anti']) jt;
RESET parallel_leader_participation;

-- planned in memory (the statistics say 1000 rows a table), past the limit at run time:
-- every participant partitions the rest of its share, the combiner the rows already held
SELECT mp_misled_copy('jp_a', 'jp_ma');
SELECT mp_misled_copy('jp_b', 'jp_mb');
SELECT * FROM mp_memory_lines('SELECT a.pa, b.t FROM jp_ma a JOIN jp_mb b ON a.k = b.k');
SELECT jp_spilled('SELECT a.pa, b.t FROM jp_ma a JOIN jp_mb b ON a.k = b.k');
SELECT jt, jp_check_misled(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k')) AS plain,
       CASE WHEN jt IN ('right', 'full')
            THEN jp_check_misled(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k AND a.pa % 7 <> b.pb % 5')) END AS filtered
FROM unnest(ARRAY['inner', 'right', 'full', 'semi']) jt;
SET parallel_leader_participation = off;
SELECT jp_check_misled(jp_sql('jp_a', 'jp_b', 'full', 'a.k = b.k'));
RESET parallel_leader_participation;
-- with no limit it stays in memory
SET pg_mergepath.memory_limit = -1;
SELECT * FROM mp_memory_lines('SELECT a.pa, b.t FROM jp_ma a JOIN jp_mb b ON a.k = b.k');
SET pg_mergepath.memory_limit = 0;
-- an outer side planned to stream past a small sorted inner side (B's statistics say 100
-- rows) whose inner side passes the limit: the rest of B, then all of A, into partitions
UPDATE pg_class SET reltuples = 100 WHERE oid = 'jp_mb'::regclass;
SELECT line FROM mp_explain('SELECT a.pa, b.t FROM jp_ma a JOIN jp_mb b ON a.k = b.k',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Parallel:|Outer Side|Memory Limit';
SELECT jt, jp_check_misled(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k')) AS plain,
       CASE WHEN jt IN ('left', 'anti')
            THEN jp_check_misled(jp_sql('jp_a', 'jp_b', jt, 'a.k = b.k AND a.pa % 7 <> b.pb % 5')) END AS filtered
FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt;
UPDATE pg_class SET reltuples = 1000 WHERE oid = 'jp_mb'::regclass;

-- rescans: the Gather as the inner side of a nested loop (each execution partitions anew,
-- in a file set of its own)
SET enable_nestloop = on;
SET enable_material = off;
CREATE TABLE jp_outer AS SELECT g AS o FROM generate_series(1, 3) g;
ANALYZE jp_outer;
SELECT mp_join_check('SELECT o, x.n FROM jp_outer, (SELECT count(*) AS n FROM jp_a a FULL JOIN jp_b b ON a.k = b.k) x');
SELECT jp_check_misled('SELECT o, x.n FROM jp_outer, (SELECT count(*) AS n FROM jp_a a JOIN jp_b b ON a.k = b.k) x');
RESET enable_material;
SET enable_nestloop = off;

-- an ERROR in a participant's input while the shares are partitioned, then a cancel: no temporary
-- file is left, and the session goes on
SELECT count(*) FROM jp_a a JOIN jp_b b ON a.k = b.k WHERE a.pa / a.z > 0;
SELECT count(*) AS temp_files_left FROM pg_ls_dir('base/pgsql_tmp', true, false);  -- file sets are directories
SET statement_timeout = '50ms';
SELECT count(*) FROM jp_a a JOIN jp_b b ON a.k = b.k JOIN jp_a c ON c.k = b.k;
RESET statement_timeout;
SELECT count(*) AS temp_files_left FROM pg_ls_dir('base/pgsql_tmp', true, false);  -- file sets are directories
SELECT live_operations FROM pg_mergepath_status();
SELECT mp_join_check(jp_sql('jp_a', 'jp_b', 'right', 'a.k = b.k'));

RESET work_mem;
RESET pg_mergepath.memory_limit;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP TABLE jp_a, jp_b, jp_ma, jp_mb, jp_outer;
DROP FUNCTION jp_spilled(text), jp_sql(text, text, text, text), jp_check_misled(text);
