-- setop_oom: when the device runs out of memory, the query is computed on the CPU
-- backend instead, with a NOTICE. Without a GPU, the hidden
-- pg_mergepath.debug_cpu_memory_limit gives the CPU backend a tiny budget to get there.
SET pg_mergepath.min_rows = 0;
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
