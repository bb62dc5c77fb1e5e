-- setop_oom: when the device runs out of memory, the query is computed on the CPU
-- backend instead, with a NOTICE. Without a GPU, the hidden
-- pg_mergepath.debug_cpu_memory_limit gives the CPU backend a tiny budget to get there.
SET pg_mergepath.min_rows = 0;
-- serial plans: a parallel one (the one-emitter Gather) costs within a hair of the serial
-- one here, and which wins differs between runs and versions
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse
SET pg_mergepath.device = cpu;
SET pg_mergepath.debug_cpu_memory_limit = '64kB';
SELECT count(*) FROM (SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r) s;
SELECT line FROM mp_explain('SELECT k FROM big_l EXCEPT SELECT k FROM big_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Out Of Memory|Rows Emitted';
SELECT mp_check('SELECT k, m FROM big_l INTERSECT SELECT k, m FROM big_r');
SELECT count(*) FROM (SELECT c FROM ta INTERSECT ALL SELECT c FROM tb) s;
RESET pg_mergepath.debug_cpu_memory_limit;
-- no budget: no redo
SELECT count(*) FROM (SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r) s;
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
-- Out of memory in the stream of rows with NULLs after the main stream finished: only
-- that stream is redone on the CPU backend, and the answer is the native one.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE oom_nl AS SELECT CASE WHEN g > 10 THEN NULL ELSE g END::int8 AS a, (g % 1000)::int8 AS b
  FROM generate_series(1, 200000) g;
CREATE TABLE oom_nr AS SELECT CASE WHEN g > 10 THEN NULL ELSE g END::int8 AS a, (g % 700)::int8 AS b
  FROM generate_series(1, 150000) g;
ANALYZE oom_nl, oom_nr;
SET pg_mergepath.debug_cpu_memory_limit = '8MB';
SELECT line FROM mp_explain('SELECT a, b FROM oom_nl INTERSECT ALL SELECT a, b FROM oom_nr',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Out Of Memory|Rows Emitted|With NULLs';
RESET pg_mergepath.debug_cpu_memory_limit;
SET pg_mergepath.enabled = off;
SELECT count(*) FROM (SELECT a, b FROM oom_nl INTERSECT ALL SELECT a, b FROM oom_nr) s;
RESET pg_mergepath.enabled;
DROP TABLE oom_nl, oom_nr;
RESET max_parallel_workers_per_gather;
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
