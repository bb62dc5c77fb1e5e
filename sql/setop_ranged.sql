-- setop_ranged: ranged keys (keys.h). Where the planner's statistics show that the
-- input columns hold fewer bits than their types, lossless keys are narrowed: a
-- 128-bit row to 64 bits, a 64-bit one to 32. A row with a value outside the ranges
-- takes a 128-bit key in the second stream. The statistics decide only the width: the
-- rows added below after ANALYZE lie outside the ranges (both extremes, one column out
-- and the other in, equal rows on both sides with different counts, beside rows with
-- NULLs), and every operator's answer is compared with the native plan: serial,
-- parallel, spilled, and from a plan cached before the rows came.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
-- key work dearer against reading (cpu_tuple_cost): a column narrowed to 32 bits is also
-- offered at full width in key order (setop_path.cpp), and with the default costs the
-- two come within add_path's fuzz on a 16-core host or the GPU, where the ordered one
-- wins; here the narrow key is cheaper on every host
SET cpu_operator_cost = 0.05;
\set VERBOSITY terse
CREATE TABLE rg_l AS SELECT (g % 5000)::int8 * 4294967311 AS k, (g % 4 - 1)::int4 AS m, (g % 900)::int8 AS sm
  FROM generate_series(1, 60000) g;
CREATE TABLE rg_r AS SELECT (g % 7000)::int8 * 4294967311 AS k, (g % 3 - 1)::int4 AS m, (g % 1100)::int8 AS sm
  FROM generate_series(1, 50000) g;
ANALYZE rg_l, rg_r;

-- (int8, int4) in 64 bits, a small int8 in 32; k alone spans 45 bits: no gain
SELECT mp_keys('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r');
SELECT mp_keys('SELECT sm FROM rg_l EXCEPT SELECT sm FROM rg_r');
SELECT mp_keys('SELECT k FROM rg_l EXCEPT SELECT k FROM rg_r');
SET pg_mergepath.ranged_keys = off;
SELECT mp_keys('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r');
RESET pg_mergepath.ranged_keys;

-- a plan made now, run after the rows outside the ranges come
PREPARE rg_cached AS SELECT count(*), sum(hash_record_extended(x, 0)) FROM
  (SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r) x;
EXECUTE rg_cached;
INSERT INTO rg_l VALUES (9223372036854775807, 5, 1), (9223372036854775807, 5, 1), (-9223372036854775808, -1, -5),
  (0, 2147483647, 1000000000000), (4294967311, 1000, 3), (NULL, 1, NULL), (5, NULL, 7), (NULL, NULL, NULL);
INSERT INTO rg_r VALUES (9223372036854775807, 5, 1), (-9223372036854775808, -1, -5), (-9223372036854775808, -1, -5),
  (0, 2147483647, 1000000000000), (0, 2147483647, 1000000000000), (4294967311, 1000, 3), (NULL, 1, NULL),
  (NULL, NULL, NULL);
SET pg_mergepath.enabled = off;
SELECT count(*), sum(hash_record_extended(x, 0)) FROM (SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r) x;
SET pg_mergepath.enabled = on;
EXECUTE rg_cached;
SELECT line FROM mp_explain('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Keys|Rows Emitted|With NULLs|Outside';

-- serial: every operator, both narrowings
SELECT mp_check('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r');
SELECT mp_check('SELECT k, m FROM rg_l EXCEPT ALL SELECT k, m FROM rg_r');
SELECT mp_check('SELECT k, m FROM rg_r EXCEPT ALL SELECT k, m FROM rg_l');
SELECT mp_check('SELECT k, m FROM rg_l INTERSECT SELECT k, m FROM rg_r');
SELECT mp_check('SELECT k, m FROM rg_l EXCEPT SELECT k, m FROM rg_r');
SELECT mp_check('SELECT sm FROM rg_l INTERSECT ALL SELECT sm FROM rg_r');
SELECT mp_check('SELECT sm FROM rg_r EXCEPT ALL SELECT sm FROM rg_l');
SELECT mp_check('SELECT sm FROM rg_l INTERSECT SELECT sm FROM rg_r');
SELECT mp_check('SELECT sm FROM rg_l EXCEPT SELECT sm FROM rg_r');

-- parallel
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SELECT mp_par_check('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r');
SELECT mp_par_check('SELECT k, m FROM rg_r EXCEPT ALL SELECT k, m FROM rg_l');
SELECT mp_par_check('SELECT sm FROM rg_l INTERSECT SELECT sm FROM rg_r');
SELECT mp_par_check('SELECT sm FROM rg_r EXCEPT SELECT sm FROM rg_l');

-- spilled (work_mem x hash_mem_multiplier = 128 kB), parallel then serial
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SELECT line FROM mp_explain('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r') line
WHERE line ~ 'Keys|Parallel:';
SELECT mp_par_check('SELECT k, m FROM rg_l INTERSECT ALL SELECT k, m FROM rg_r');
SELECT mp_par_check('SELECT sm FROM rg_r EXCEPT ALL SELECT sm FROM rg_l');
SET max_parallel_workers_per_gather = 0;
SELECT line FROM mp_explain('SELECT k, m FROM rg_l EXCEPT ALL SELECT k, m FROM rg_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Keys|Spilled|Outside';
SELECT mp_check('SELECT k, m FROM rg_l EXCEPT ALL SELECT k, m FROM rg_r');
SELECT mp_check('SELECT k, m FROM rg_l INTERSECT SELECT k, m FROM rg_r');
SELECT mp_check('SELECT sm FROM rg_l INTERSECT ALL SELECT sm FROM rg_r');
SELECT mp_check('SELECT sm FROM rg_r EXCEPT SELECT sm FROM rg_l');
RESET work_mem;
RESET pg_mergepath.memory_limit;
DEALLOCATE rg_cached;
DROP TABLE rg_l, rg_r;

-- the edges of a range: 0..99 on both sides, every row sampled (so the range is what
-- keys.cpp makes of exactly that span), then every value from -300 to 400 added with
-- different counts per side, so that the last values in the range and the first ones
-- out of it, at both ends, are there; also a column without statistics (an
-- expression: its full width) beside the narrowed one
SET max_parallel_workers_per_gather = 0;
CREATE TABLE rg_el AS SELECT g::int8 AS k, (g % 3)::int4 AS m FROM generate_series(0, 99) g;
CREATE TABLE rg_er AS SELECT g::int8 AS k, (g % 2)::int4 AS m FROM generate_series(0, 99) g;
ANALYZE rg_el, rg_er;
INSERT INTO rg_el SELECT v, v % 3 FROM generate_series(-300, 400) v, generate_series(1, 2) c WHERE c = 1 OR v % 2 = 0;
INSERT INTO rg_er SELECT v, v % 2 FROM generate_series(-300, 400) v, generate_series(1, 3) c WHERE c = 1 OR v % 3 = 0;
SELECT mp_keys('SELECT k FROM rg_el INTERSECT ALL SELECT k FROM rg_er');
SELECT mp_keys('SELECT k, m + 0 FROM rg_el INTERSECT ALL SELECT k, m + 0 FROM rg_er');
SELECT line FROM mp_explain('SELECT k FROM rg_el EXCEPT ALL SELECT k FROM rg_er',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Keys|Outside';
SELECT op, mp_check(format('SELECT k FROM rg_el %s SELECT k FROM rg_er', op)) AS one_column,
       mp_check(format('SELECT k, m + 0 FROM rg_el %s SELECT k, m + 0 FROM rg_er', op)) AS with_full_width
FROM unnest(ARRAY['INTERSECT ALL', 'EXCEPT ALL', 'INTERSECT', 'EXCEPT']) op;
SELECT mp_check('SELECT k FROM rg_er EXCEPT ALL SELECT k FROM rg_el');
-- empty inputs (a run-time filter the planner cannot see through): still ranged
SELECT mp_keys('SELECT k, m + 0 FROM rg_el WHERE k > (SELECT max(k) FROM rg_el) INTERSECT ALL SELECT k, m + 0 FROM rg_er');
SELECT op, mp_check(format('SELECT k, m + 0 FROM rg_el WHERE k > (SELECT max(k) FROM rg_el) %s SELECT k, m + 0 FROM rg_er', op)) AS left_empty,
       mp_check(format('SELECT k FROM rg_el %s SELECT k FROM rg_er WHERE k > (SELECT max(k) FROM rg_er)', op)) AS right_empty
FROM unnest(ARRAY['INTERSECT ALL', 'EXCEPT ALL']) op;
DROP TABLE rg_el, rg_er;
RESET cpu_operator_cost;
