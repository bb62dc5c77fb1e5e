-- setop_image_spill: a MergePath SetOp node over image keys (text, numeric, char(n),
-- floats, rows of them) over pg_mergepath.memory_limit writes its rows into hash
-- partitions in temporary files and combines them piece by piece (image_ranges.cpp):
-- a piece too large to load is split by its rows' hashes, one whose rows share a
-- single hash (an image repeated past the limit, a 1 MB value, or hashes kept to a few
-- bits) is streamed one image at a time. Every answer is compared with the native plan
-- as text (so 1.0 and 1.00, -0 and 0, 'a' and 'a  ' must print as PostgreSQL prints
-- them), under the hashed and the sorted SetOp.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse
CREATE TABLE isp_l AS
  SELECT md5((g % 40000)::text) || repeat('y', g % 9) AS t,
         round((g % 300)::numeric / 8, 3 + g % 3) AS n,
         ((g % 200) - 100)::float8 / 4 AS f,
         lpad((g % 500)::text, 1 + g % 4)::char(6) AS c
  FROM generate_series(1, 150000) g;
INSERT INTO isp_l SELECT 'heavy', 1.0, -0.0, 'a' FROM generate_series(1, 12000);
INSERT INTO isp_l SELECT NULL, NULL, 'NaN', NULL FROM generate_series(1, 3000);
INSERT INTO isp_l SELECT repeat(md5(g::text), 32768), g FROM generate_series(1, 3) g;  -- 1 MB values
CREATE TABLE isp_r AS
  SELECT md5((g % 60000)::text) || repeat('y', g % 5) AS t,
         round((g % 400)::numeric / 8, 2 + g % 4) AS n,
         ((g % 300) - 150)::float8 / 4 AS f,
         lpad((g % 700)::text, 1 + g % 5)::char(6) AS c
  FROM generate_series(1, 120000) g;
INSERT INTO isp_r SELECT 'heavy', 1.00, 0.0, 'a  ' FROM generate_series(1, 9000);
INSERT INTO isp_r SELECT NULL, NULL, 'NaN', NULL FROM generate_series(1, 2000);
INSERT INTO isp_r SELECT repeat(md5(g::text), 32768), g FROM generate_series(2, 4) g;
ANALYZE isp_l, isp_r;

-- 128 kB: hundreds of pieces, split again and again (work_mem stays large enough for
-- the native plan to be the hashed SetOp, whose printed forms ours match)
SET work_mem = '64MB';
SET pg_mergepath.memory_limit = '128kB';
SELECT line FROM mp_explain('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Keys|Rows Emitted';
SELECT mp_spill_summary('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r');

-- all four operators, each type, printed as text
SELECT mp_node_check('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_l INTERSECT SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_r EXCEPT SELECT t FROM isp_l');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_l INTERSECT ALL SELECT n FROM isp_r) s');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_r INTERSECT ALL SELECT n FROM isp_l) s');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_l EXCEPT ALL SELECT n FROM isp_r) s');
SELECT mp_node_check('SELECT f::text FROM (SELECT f FROM isp_l INTERSECT ALL SELECT f FROM isp_r) s');
SELECT mp_node_check('SELECT c::text FROM (SELECT c FROM isp_l INTERSECT SELECT c FROM isp_r) s');
SELECT mp_node_check('SELECT row(t, n, c)::text FROM (SELECT t, n, c FROM isp_l INTERSECT ALL SELECT t, n, c FROM isp_r) s');
SELECT mp_node_check('SELECT row(t, n, c)::text FROM (SELECT t, n, c FROM isp_l EXCEPT ALL SELECT t, n, c FROM isp_r) s');
-- the sorted SetOp as the replaced plan: its sort is not stable, so which equal row it
-- prints is not predictable (README, "Supported types"): compared by value
SET enable_hashagg = off;
SELECT mp_node_check('SELECT n FROM isp_l INTERSECT ALL SELECT n FROM isp_r');
SELECT mp_node_check('SELECT c FROM isp_r EXCEPT ALL SELECT c FROM isp_l');
RESET enable_hashagg;
-- an empty input on either side
SELECT mp_node_check('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r WHERE n < 0');
SELECT mp_node_check('SELECT t FROM isp_l WHERE n < 0 EXCEPT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r WHERE n < 0');

-- hashes kept to 2 bits: four hash values, every piece streamed image by image
CREATE TABLE isp_small AS SELECT md5((g % 600)::text) AS t FROM generate_series(1, 3000) g;
CREATE TABLE isp_small2 AS SELECT md5((g % 900)::text) AS t FROM generate_series(1, 2000) g;
ANALYZE isp_small, isp_small2;
SET pg_mergepath.debug_hash_bits = 2;
SELECT mp_spill_summary('SELECT t FROM isp_small INTERSECT ALL SELECT t FROM isp_small2');
SELECT mp_node_check('SELECT t FROM isp_small INTERSECT ALL SELECT t FROM isp_small2');
SELECT mp_node_check('SELECT t FROM isp_small EXCEPT SELECT t FROM isp_small2');
SELECT mp_node_check('SELECT t FROM isp_small2 EXCEPT ALL SELECT t FROM isp_small');
SET pg_mergepath.debug_hash_bits = 16;
SELECT mp_node_check('SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r');
RESET pg_mergepath.debug_hash_bits;

-- rescanned with the same inputs: emitted again from the first partition
SELECT mp_rescans_twice('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r') AS twice;

-- a cursor keeps its files until it closes; cancel and errors remove them
BEGIN;
DECLARE c CURSOR FOR SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r;
MOVE FORWARD 2 IN c;  -- (which rows come first follows the hash: not printed)
SELECT count(*) > 0 AS files_while_open FROM pg_ls_tmpdir();
CLOSE c;
COMMIT;
SELECT count(*) AS files_after_close FROM pg_ls_tmpdir();
SET statement_timeout = '100ms';
SELECT count(*) FROM (SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r) s;
RESET statement_timeout;
SELECT count(*) AS files_after_cancel FROM pg_ls_tmpdir();
SET temp_file_limit = '1MB';
SELECT count(*) FROM (SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r) s;
RESET temp_file_limit;
SELECT count(*) AS files_after_error FROM pg_ls_tmpdir();

-- parallel plans: every participant partitions its share into the query's file set,
-- the workers claim partitions and read every participant's blocks of each. A parallel
-- plan reads in no fixed order, so its printed forms are checked where every row of a
-- group prints alike on the side printed (isp_r, read first by these INTERSECTs)
CREATE FUNCTION isp_tmp_entries() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('base/pgsql_tmp', true, false)
$$;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET pg_mergepath.memory_limit = '1MB';
SELECT line FROM mp_explain('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel';
SELECT mp_spill_summary('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT row(t, n, f)::text FROM (SELECT t, n, f FROM isp_l INTERSECT SELECT t, n, f FROM isp_r) s');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_r EXCEPT SELECT n FROM isp_l) s');
SET parallel_leader_participation = off;
SELECT mp_node_check('SELECT t FROM isp_l EXCEPT ALL SELECT t FROM isp_r');
RESET parallel_leader_participation;
SELECT count(*) FROM (SELECT t FROM isp_l WHERE 1 / (length(t) - 32) > 0 INTERSECT ALL SELECT t FROM isp_r) s;
SELECT isp_tmp_entries() AS entries_after_error;
SET statement_timeout = '100ms';
SELECT count(*) FROM (SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r) s;
RESET statement_timeout;
SELECT isp_tmp_entries() AS entries_after_cancel;

-- a large parallel input over image keys partitions below the limit too (faster than
-- holding its records in shared memory): the planner believes isp_big's statistics
RESET pg_mergepath.memory_limit;
CREATE TABLE isp_big AS SELECT * FROM isp_l;
ANALYZE isp_big;
UPDATE pg_class SET reltuples = 1e8 WHERE relname = 'isp_big';
SELECT line FROM mp_explain('SELECT t FROM isp_big INTERSECT ALL SELECT t FROM isp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel';
SELECT mp_node_check('SELECT t FROM isp_big INTERSECT ALL SELECT t FROM isp_r');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_big INTERSECT SELECT n FROM isp_r) s');
SELECT mp_node_check('SELECT t FROM isp_big EXCEPT ALL SELECT t FROM isp_r');
-- held in memory when it is smaller, or with no limit
SELECT line FROM mp_explain('SELECT t FROM isp_l INTERSECT ALL SELECT t FROM isp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel:';
SET pg_mergepath.memory_limit = -1;
SELECT line FROM mp_explain('SELECT t FROM isp_big INTERSECT ALL SELECT t FROM isp_r', 'COSTS OFF') line
WHERE line ~ 'Parallel:';
DROP TABLE isp_big;

-- planned in memory (statistics faked to 1000 rows a side), the records pass half the
-- limit while they are read: every participant goes on partitioning its own, the
-- combiner writes the records left in shared memory as partitions of a spare
-- participant number, and the workers claim partitions (setop_parallel.cpp)
SET pg_mergepath.memory_limit = '1MB';
SELECT mp_misled_copy('isp_l', 'isp_sw_l'), mp_misled_copy('isp_r', 'isp_sw_r');
SELECT mp_memory_lines('SELECT t FROM isp_sw_l INTERSECT ALL SELECT t FROM isp_sw_r');
SELECT mp_node_check('SELECT t FROM isp_sw_l INTERSECT ALL SELECT t FROM isp_sw_r');
SELECT mp_node_check('SELECT t FROM isp_sw_l EXCEPT ALL SELECT t FROM isp_sw_r');
SELECT mp_node_check('SELECT n::text FROM (SELECT n FROM isp_sw_r EXCEPT SELECT n FROM isp_sw_l) s');
SET parallel_leader_participation = off;
SELECT mp_node_check('SELECT t FROM isp_sw_l INTERSECT ALL SELECT t FROM isp_sw_r');
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT mp_node_check('SELECT t FROM isp_sw_l EXCEPT ALL SELECT t FROM isp_sw_r');
RESET max_parallel_workers;
SELECT mp_rescans_twice('SELECT t FROM isp_sw_l INTERSECT ALL SELECT t FROM isp_sw_r');
SELECT isp_tmp_entries() AS entries_after_switches;
DROP TABLE isp_sw_l, isp_sw_r;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET pg_mergepath.memory_limit;
RESET work_mem;
DROP TABLE isp_l, isp_r, isp_small, isp_small2;
DROP FUNCTION isp_tmp_entries();
