-- setop_nogpu: pg_mergepath.device = gpu on a machine without a usable GPU is a
-- clear ERROR, at execution (EXPLAIN alone runs nothing); auto and cpu use the CPU
-- backend. This file only holds where no GPU is usable: scripts/regress.sh skips it
-- when PGMP_DEVICE=gpu.
SET pg_mergepath.min_rows = 0;
\set VERBOSITY terse
SET pg_mergepath.device = gpu;
EXPLAIN (COSTS OFF) SELECT a FROM ta INTERSECT SELECT a FROM tb;
SELECT a FROM ta INTERSECT SELECT a FROM tb;
SELECT pg_mergepath_describe();
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
SET pg_mergepath.device = auto;
SELECT device FROM pg_mergepath_status();
SELECT count(*) FROM (SELECT a FROM ta INTERSECT SELECT a FROM tb) s;
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT SELECT a FROM tb') WHERE mp_explain ~ 'Device';
EXPLAIN (COSTS OFF) SELECT a FROM ta INTERSECT SELECT a FROM tb;
SET pg_mergepath.device = cpu;
SELECT count(*) FROM (SELECT a FROM ta INTERSECT SELECT a FROM tb) s;
