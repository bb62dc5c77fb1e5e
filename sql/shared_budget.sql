-- shared_budget: the GPU memory budget all backends share (pg_mergepath.gpu_shared_memory,
-- shown by pg_mergepath_status()). Without a GPU, the hidden
-- pg_mergepath.debug_cpu_shared_budget makes CPU contexts reserve their memory in it,
-- with that limit. A query reserves while it works and gives everything back when it
-- ends, unless the budget is at most half used (then the backend keeps it for its next
-- query). A query reserves what its keys are expected to need (at most half the budget)
-- when its input has been read; if it finds no room it waits
-- pg_mergepath.gpu_wait_timeout, then is computed on the CPU backend (NOTICE); a cancel
-- ends the wait; one that holds memory and needs more does not wait.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse
SET pg_mergepath.device = cpu;
SELECT gpu_shared_in_use, gpu_waiting_backends FROM pg_mergepath_status();
SET pg_mergepath.debug_cpu_shared_budget = '64MB';
SELECT mp_check('SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r');
-- idle: what it reserved is kept only while the budget is at most half used
SELECT gpu_shared_limit, gpu_shared_in_use <= gpu_shared_limit / 2 AS at_most_half_kept, gpu_waiting_backends
FROM pg_mergepath_status();
-- an open cursor keeps what its query reserved
BEGIN;
DECLARE c CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r ORDER BY 1 DESC;
FETCH 2 FROM c;
SELECT gpu_shared_in_use > 0 AS reserved FROM pg_mergepath_status();
-- no room left for another query: in the cursor's context, which holds memory, it does
-- not wait (contexts never wait for each other) and runs on the CPU backend
SET pg_mergepath.debug_cpu_shared_budget = '1MB';
SET pg_mergepath.gpu_wait_timeout = '20ms';
SELECT count(*) FROM (SELECT k FROM big_l EXCEPT ALL SELECT k FROM big_r) s;
-- in a context of its own (another thread count), holding nothing: it waits, then
-- runs on the CPU backend
SET pg_mergepath.cpu_threads = 1;
SELECT count(*) FROM (SELECT k FROM big_l INTERSECT SELECT k FROM big_r) s;
-- the same over its memory limit (spilled, combined key range by key range, each range
-- expecting more than the room left): the first range waits and runs on the CPU
-- backend, the later ones go there at once: one NOTICE, not one per range
SET pg_mergepath.memory_limit = '3MB';
SELECT count(*) FROM (SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r) s;
SELECT (regexp_match(line, 'Key Ranges: (\d+)'))[1]::int > 1 AS many_ranges
FROM mp_explain('SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Key Ranges';
-- ... and a join over it (sorted, joined key range by key range): one NOTICE too
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FROM big_l a JOIN big_r b ON a.k = b.k;
SELECT (regexp_match(line, 'Key Ranges: (\d+)'))[1]::int > 1 AS many_ranges
FROM mp_explain('SELECT count(*) FROM big_l a JOIN big_r b ON a.k = b.k', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Key Ranges';
RESET enable_hashjoin;
RESET enable_mergejoin;
SET pg_mergepath.enabled = off;
SELECT count(*) AS native FROM big_l a JOIN big_r b ON a.k = b.k;
RESET pg_mergepath.enabled;
RESET pg_mergepath.memory_limit;
-- EXPLAIN ANALYZE shows the wait (values vary: only the names are shown)
SELECT regexp_replace(line, '[0-9.]+ ms', 'N ms') AS line
FROM mp_explain('SELECT k FROM big_l INTERSECT SELECT k FROM big_r', 'ANALYZE, COSTS OFF, SUMMARY OFF') AS line
WHERE line ~ 'Shared Budget|Out Of Memory';
-- a cancel (here statement_timeout) ends the wait
SET pg_mergepath.gpu_wait_timeout = '1h';
SET statement_timeout = '3s';  -- the query itself takes well under a second
SELECT count(*) FROM (SELECT k, m FROM big_l INTERSECT SELECT k, m FROM big_r) s;
ROLLBACK;
SELECT live_operations, memory_in_use, gpu_shared_in_use, gpu_waiting_backends FROM pg_mergepath_status();
-- the cursor's rows, and the query after, are the native ones
SET pg_mergepath.debug_cpu_shared_budget = '64MB';
SELECT mp_check('SELECT k, m FROM big_l EXCEPT SELECT k, m FROM big_r');
SELECT gpu_shared_in_use <= gpu_shared_limit / 2 AS at_most_half_kept FROM pg_mergepath_status();
-- a budget too small: the query reserves at most half of it up front, and moves to the
-- CPU backend when it needs more (whether it does depends on the thread count: no
-- NOTICE shown); idle, the backend keeps at most half the budget
SET pg_mergepath.debug_cpu_shared_budget = '2MB';
SET client_min_messages = warning;
SELECT count(*) FROM (SELECT k FROM big_l INTERSECT SELECT k FROM big_r) s;
RESET client_min_messages;
SELECT gpu_shared_in_use <= gpu_shared_limit / 2 AS at_most_half_kept FROM pg_mergepath_status();
RESET pg_mergepath.debug_cpu_shared_budget;
RESET pg_mergepath.gpu_wait_timeout;
RESET pg_mergepath.device;
-- 0.1.0's pg_mergepath_status() (three columns) still works, and the update adds the rest
DROP EXTENSION pg_mergepath;
CREATE EXTENSION pg_mergepath VERSION '0.1.0';
SELECT live_operations, memory_in_use FROM pg_mergepath_status();
ALTER EXTENSION pg_mergepath UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_mergepath';
SELECT live_operations, gpu_shared_in_use >= 0 AS counted, gpu_waiting_backends FROM pg_mergepath_status();
