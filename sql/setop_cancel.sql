-- setop_cancel: a statement_timeout while the (serial) node reads its input cancels the
-- query cleanly, frees what it held (library memory and objects, the backend's memory
-- contexts), and the same query then runs to the end. Every row of a cancelled query
-- takes a little sleep, so the timeout always falls while the input is read. (The
-- parallel node's cancel is in setop_parallel.)
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cancel_l AS SELECT (g * 2654435761 % 4000000)::int8 AS k, md5(g::text) AS t
  FROM generate_series(1, 2000000) g;
CREATE TABLE cancel_r AS SELECT (g::int8 * 40503 % 4000000) AS k, md5((g * 3)::text) AS t
  FROM generate_series(1, 2000000) g;
ANALYZE cancel_l, cancel_r;

CREATE FUNCTION backend_bytes() RETURNS bigint LANGUAGE sql AS
  $$ SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts $$;
CREATE TEMP TABLE mem (label text, bytes bigint, device_bytes bigint);
-- what the library holds now, compared with the baseline (a device pool may keep some)
CREATE FUNCTION library_state() RETURNS TABLE (live_operations bigint, memory_as_before boolean)
LANGUAGE sql AS $$
  SELECT s.live_operations, s.memory_in_use = (SELECT device_bytes FROM mem WHERE label = 'before')
  FROM pg_mergepath_status() s
$$;

-- warm up (catalog caches, the device context), then the baseline
SELECT count(*) FROM (SELECT k FROM cancel_l INTERSECT ALL SELECT k FROM cancel_r) s;
SELECT count(*) FROM (SELECT t FROM cancel_l WHERE k < 100000 INTERSECT SELECT t FROM cancel_r) s;
INSERT INTO mem SELECT 'before', backend_bytes(), memory_in_use FROM pg_mergepath_status();
SELECT * FROM library_state();

-- lossless keys, cancelled
SET statement_timeout = '150ms';
SELECT count(*) FROM (SELECT k FROM cancel_l WHERE pg_sleep(0.00001) IS NOT NULL INTERSECT ALL SELECT k FROM cancel_r) s;
RESET statement_timeout;
SELECT * FROM library_state();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';

-- hashed keys (stored rows), cancelled
SET statement_timeout = '150ms';
SELECT count(*) FROM (SELECT t FROM cancel_l WHERE pg_sleep(0.00001) IS NOT NULL EXCEPT ALL SELECT t FROM cancel_r) s;
RESET statement_timeout;
SELECT * FROM library_state();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';

-- a cursor left open holds the node; closing it (and an aborted transaction) frees it
BEGIN;
DECLARE c CURSOR FOR SELECT k FROM big_l INTERSECT SELECT k FROM big_r;
FETCH 1 FROM c;
SELECT live_operations FROM pg_mergepath_status();
SELECT 1 / 0;
ROLLBACK;
SELECT * FROM library_state();

-- the same queries run to the end; the backend holds no more memory than before
SELECT count(*) FROM (SELECT k FROM cancel_l INTERSECT ALL SELECT k FROM cancel_r) s;
SELECT count(*) FROM (SELECT t FROM cancel_l WHERE k < 100000 INTERSECT SELECT t FROM cancel_r) s;
INSERT INTO mem SELECT 'after', backend_bytes(), memory_in_use FROM pg_mergepath_status();
SELECT (SELECT bytes FROM mem WHERE label = 'after') - (SELECT bytes FROM mem WHERE label = 'before')
  < 512 * 1024 AS no_growth;
SELECT * FROM library_state();
