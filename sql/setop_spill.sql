-- setop_spill: a serial MergePath SetOp node over pg_mergepath.memory_limit writes its
-- keys to temporary files as sorted runs and combines them key range by key range
-- (setop_ranges.cpp). work_mem = 64kB with memory_limit = 0 (work_mem x
-- hash_mem_multiplier = 128 kB) makes these ~1M-row inputs spill into many runs and
-- hundreds of ranges; one key repeated past the limit on both sides (a range that
-- cannot be split: streamed) and rows with NULLs (their own stream) are spilled too.
-- Every answer is compared with the native plan (count + checksum).
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
-- keys of their types' widths (setop_ranged spills ranged keys)
SET pg_mergepath.ranged_keys = off;
\set VERBOSITY terse
CREATE TABLE sp_l AS SELECT (g::int8 * 7919 % 300000) AS k, (g % 11)::int4 AS m FROM generate_series(1, 900000) g;
INSERT INTO sp_l SELECT 123456, 1 FROM generate_series(1, 60000);
INSERT INTO sp_l SELECT NULL, g % 3 FROM generate_series(1, 20000) g;
CREATE TABLE sp_r AS SELECT (g::int8 * 104729 % 400000) AS k, (g % 7)::int4 AS m FROM generate_series(1, 700000) g;
INSERT INTO sp_r SELECT 123456, 1 FROM generate_series(1, 40000);
INSERT INTO sp_r SELECT NULL, g % 5 FROM generate_series(1, 15000) g;
ANALYZE sp_l, sp_r;

SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SELECT line FROM mp_explain('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Keys|Rows Emitted|With NULLs';
SELECT mp_spill_summary('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
-- 11 and 7 values in m: every range is one key repeated past the limit
SELECT mp_spill_summary('SELECT m FROM sp_l EXCEPT ALL SELECT m FROM sp_r');

-- all four operators, 32-, 64- and 128-bit keys
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sp_l EXCEPT ALL SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sp_r EXCEPT SELECT k FROM sp_l');
SELECT mp_node_check('SELECT k FROM sp_r EXCEPT ALL SELECT k FROM sp_l');
SELECT mp_node_check('SELECT m FROM sp_l INTERSECT ALL SELECT m FROM sp_r');
SELECT mp_node_check('SELECT m FROM sp_l EXCEPT ALL SELECT m FROM sp_r');
SELECT mp_node_check('SELECT k, m FROM sp_l INTERSECT ALL SELECT k, m FROM sp_r');
SELECT mp_node_check('SELECT k, m FROM sp_l EXCEPT SELECT k, m FROM sp_r');
-- an empty input on either side
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r WHERE m < 0');
SELECT mp_node_check('SELECT k FROM sp_l WHERE m < 0 EXCEPT ALL SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sp_l EXCEPT ALL SELECT k FROM sp_r WHERE m < 0');

-- rescanned with the same inputs: emitted again from the first range
SELECT mp_rescans_twice('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r') AS twice;

-- a cursor keeps its files until it closes; cancel and errors remove them
BEGIN;
DECLARE c CURSOR FOR SELECT k FROM sp_l EXCEPT ALL SELECT k FROM sp_r;
FETCH 2 FROM c;
SELECT count(*) > 0 AS files_while_open FROM pg_ls_tmpdir();
CLOSE c;
COMMIT;
SELECT count(*) AS files_after_close FROM pg_ls_tmpdir();
SET statement_timeout = '60ms';
SELECT count(*) FROM (SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r) s;
RESET statement_timeout;
SELECT count(*) AS files_after_cancel FROM pg_ls_tmpdir();
SET temp_file_limit = '1MB';
SELECT count(*) FROM (SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r) s;
RESET temp_file_limit;
SELECT count(*) AS files_after_error FROM pg_ls_tmpdir();

-- parallel plans: every participant reads and spills its own sorted runs into the
-- query's file set, all claim key ranges, combine and emit them; image keys spill hash
-- partitions instead (setop_image_spill)
CREATE FUNCTION sp_tmp_entries() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('base/pgsql_tmp', true, false)
$$;
SET parallel_setup_cost = 0;
-- tuple queues cheap against emitting from one process (cpu_tuple_cost), so that the
-- plans below are a Gather over the node whose participants all emit (the one-emitter
-- plan, where only the combiner emits, is tested at the end); not 0: a serial node
-- over Gathers of the same Parallel Seq Scans would cost the same and win
SET parallel_tuple_cost = 0.01;
SET cpu_tuple_cost = 0.05;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT line FROM mp_explain('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel';
SELECT mp_spill_summary('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
-- sp_par_checks(l, r): operators and key widths against the native plan, then with no
-- worker started and with the leader not reading (a worker combines, on the CPU backend)
CREATE FUNCTION sp_par_checks(l text, r text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT mp_node_check(format('SELECT k FROM %s INTERSECT ALL SELECT k FROM %s', l, r));
  RETURN NEXT mp_node_check(format('SELECT k FROM %s EXCEPT ALL SELECT k FROM %s', l, r));
  RETURN NEXT mp_node_check(format('SELECT k FROM %s EXCEPT SELECT k FROM %s', r, l));
  RETURN NEXT mp_node_check(format('SELECT m FROM %s INTERSECT SELECT m FROM %s', l, r));
  RETURN NEXT mp_node_check(format('SELECT k, m FROM %s EXCEPT ALL SELECT k, m FROM %s', l, r));
  SET LOCAL max_parallel_workers = 0;
  RETURN NEXT 'no worker: ' || mp_node_check(format('SELECT k FROM %s INTERSECT ALL SELECT k FROM %s', l, r));
  RESET max_parallel_workers;
  SET LOCAL parallel_leader_participation = off;
  RETURN NEXT 'no leader: ' || mp_node_check(format('SELECT k FROM %s EXCEPT ALL SELECT k FROM %s', l, r));
  RESET parallel_leader_participation;
END $$;
SELECT sp_par_checks('sp_l', 'sp_r');
SELECT mp_keys('SELECT k::text FROM sp_l INTERSECT SELECT k::text FROM sp_r');
-- an error in a participant's input, a cancel: the file set is gone with the query
-- (sp_error_cancel(l, r): the statements, each run on its own by \gexec, since a
-- timeout cannot be armed inside a function)
CREATE FUNCTION sp_error_cancel(l text, r text) RETURNS SETOF text LANGUAGE sql AS $$
  VALUES (format('SELECT count(*) FROM (SELECT k / (k - 5000) FROM %s INTERSECT ALL SELECT k FROM %s) s', l, r)),
         ('SELECT sp_tmp_entries() AS entries_after_error'),
         ('SET statement_timeout = ''60ms'''),
         (format('SELECT count(*) FROM (SELECT k FROM %s INTERSECT ALL SELECT k FROM %s) s', l, r)),
         ('RESET statement_timeout'),
         ('SELECT sp_tmp_entries() AS entries_after_cancel')
$$;
SELECT sp_error_cancel('sp_l', 'sp_r') \gexec
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
-- planned to spill, then run with no limit (a cached generic plan): its runs make one range
SET plan_cache_mode = force_generic_plan;
PREPARE sp_q AS SELECT count(*) AS n, sum(hashint8(k)) AS h FROM (SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r) s;
EXECUTE sp_q \gset planned_
SET pg_mergepath.memory_limit = -1;
EXECUTE sp_q \gset unlimited_
SELECT line FROM mp_explain('EXECUTE sp_q') line WHERE line ~ 'Parallel:';
SET pg_mergepath.enabled = off;
SELECT count(*) = :planned_n AND sum(hashint8(k)) = :planned_h AS planned_same,
       count(*) = :unlimited_n AND sum(hashint8(k)) = :unlimited_h AS unlimited_same
FROM (SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r) s;
RESET pg_mergepath.enabled;
DEALLOCATE sp_q;
RESET plan_cache_mode;
-- planned in memory (statistics faked to 1000 rows a side), the input passes the limit
-- while it is read: every participant switches to spilling (what it pushes next goes to
-- runs of its own), the combiner writes out what was pushed to shared memory before,
-- and all claim key ranges (setop_parallel.cpp); without workers, without the leader,
-- rescanned; an error and a cancel leave no file
SET pg_mergepath.memory_limit = 0;
SELECT mp_misled_copy('sp_l', 'sw_l'), mp_misled_copy('sp_r', 'sw_r');
SELECT mp_memory_lines('SELECT count(*) FROM (SELECT k FROM sw_l INTERSECT ALL SELECT k FROM sw_r) s');
SELECT mp_spill_summary('SELECT k FROM sw_l INTERSECT ALL SELECT k FROM sw_r');
SELECT sp_par_checks('sw_l', 'sw_r');
SELECT mp_rescans_twice('SELECT k FROM sw_l INTERSECT ALL SELECT k FROM sw_r');
SELECT sp_error_cancel('sw_l', 'sw_r') \gexec
-- inputs so small that no participant fills a chunk: the combiner finds the last
-- chunks past the limit after reading, and spills them
CREATE TABLE sw_small_a AS SELECT (g % 7000)::int8 AS k FROM generate_series(1, 60000) g;
CREATE TABLE sw_small_b AS SELECT (g % 9000)::int8 AS k FROM generate_series(1, 50000) g;
SELECT mp_misled_copy('sw_small_a', 'sw_small_l'), mp_misled_copy('sw_small_b', 'sw_small_r');
SELECT mp_memory_lines('SELECT k FROM sw_small_l INTERSECT ALL SELECT k FROM sw_small_r');
SELECT mp_node_check('SELECT k FROM sw_small_l INTERSECT ALL SELECT k FROM sw_small_r');
DROP TABLE sw_small_l, sw_small_r, sw_small_a, sw_small_b;
-- within the limit it stays in memory
SET pg_mergepath.memory_limit = '1GB';
SELECT mp_spill_summary('SELECT k FROM sw_l INTERSECT ALL SELECT k FROM sw_r');
SET pg_mergepath.memory_limit = 0;
-- one emitter (parallel_tuple_cost above 0: a Gather over the node whose combiner alone
-- emits every result, range after range in key order; the others only read and spill):
-- planned to spill, and switched while reading; with and without the leader
SET parallel_tuple_cost = 0.1;
RESET cpu_tuple_cost;
SELECT mp_memory_lines('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
SELECT mp_memory_lines('SELECT k FROM sw_l EXCEPT ALL SELECT k FROM sw_r');
SELECT mp_node_check('SELECT k FROM sw_l EXCEPT ALL SELECT k FROM sw_r');
SET parallel_leader_participation = off;
SELECT mp_node_check('SELECT k FROM sp_l UNION SELECT k FROM sp_r');
SELECT mp_node_check('SELECT k FROM sw_l INTERSECT ALL SELECT k FROM sw_r');
RESET parallel_leader_participation;
SET parallel_tuple_cost = 0.01;
SET cpu_tuple_cost = 0.05;
DROP TABLE sw_l, sw_r;
-- no limit: the parallel node that shares its chunks, image keys too
SET pg_mergepath.memory_limit = -1;
SELECT line FROM mp_explain('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel';
SELECT mp_node_check('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');
SELECT mp_keys('SELECT k::text FROM sp_l INTERSECT SELECT k::text FROM sp_r');
-- under the limit nothing spills
SET max_parallel_workers_per_gather = 0;
SET pg_mergepath.memory_limit = '1GB';
SELECT mp_spill_summary('SELECT k FROM sp_l INTERSECT ALL SELECT k FROM sp_r');

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET cpu_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET pg_mergepath.memory_limit;
RESET work_mem;
DROP TABLE sp_l, sp_r;
DROP FUNCTION sp_tmp_entries();
