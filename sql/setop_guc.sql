-- setop_guc: the configuration parameters: defaults, validation, the reserved prefix,
-- and what each one changes.
SHOW pg_mergepath.enabled;
SHOW pg_mergepath.min_rows;
SHOW pg_mergepath.gpu_memory_limit;
SHOW pg_mergepath.cpu_threads;
SELECT name, boot_val, unit, context, vartype, enumvals
FROM pg_settings WHERE name LIKE 'pg_mergepath.%' ORDER BY name;

-- Validation and the reserved prefix.
SET pg_mergepath.device = 'tpu';
SET pg_mergepath.min_rows = -1;
SET pg_mergepath.cpu_threads = 5000;
SET pg_mergepath.enabled = 'maybe';
SET pg_mergepath.no_such_setting = 1;
SET pg_mergepath.gpu_memory_limit = '2GB';
SHOW pg_mergepath.gpu_memory_limit;
RESET pg_mergepath.gpu_memory_limit;

-- min_rows: the default keeps tiny inputs on the native SetOp.
SELECT mp_uses_node('SELECT a FROM ta INTERSECT SELECT a FROM tb') AS default_min_rows;
SET pg_mergepath.min_rows = 298;   -- ta and tb: 204 + 94 estimated rows
SELECT mp_uses_node('SELECT a FROM ta INTERSECT SELECT a FROM tb') AS at_298;
SET pg_mergepath.min_rows = 299;
SELECT mp_uses_node('SELECT a FROM ta INTERSECT SELECT a FROM tb') AS at_299;
-- image keys planned for the CPU backend need ten times min_rows (298 rows >= 10 x 29,
-- < 10 x 30); lossless keys do not
SET pg_mergepath.device = cpu;
SET pg_mergepath.min_rows = 29;
SELECT mp_uses_node('SELECT c FROM ta INTERSECT SELECT c FROM tb') AS image_at_29;
SET pg_mergepath.min_rows = 30;
SELECT mp_uses_node('SELECT c FROM ta INTERSECT SELECT c FROM tb') AS image_at_30,
       mp_uses_node('SELECT a FROM ta INTERSECT SELECT a FROM tb') AS lossless_at_30;
RESET pg_mergepath.device;
SET pg_mergepath.min_rows = 0;

-- enabled = off: the native plan.
SET pg_mergepath.enabled = off;
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT ALL SELECT a FROM tb');
SET pg_mergepath.enabled = on;

-- device = cpu is honoured on every machine (so shown unmasked).
SET pg_mergepath.device = cpu;
EXPLAIN (COSTS OFF) SELECT a FROM ta EXCEPT SELECT a FROM tb;
SELECT device FROM pg_mergepath_status();
SELECT mp_check('SELECT a, c FROM ta INTERSECT ALL SELECT a, c FROM tb');
RESET pg_mergepath.device;

-- cpu_threads: any thread count gives the same result.
SET pg_mergepath.device = cpu;
SET pg_mergepath.cpu_threads = 1;
SELECT mp_check('SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r');
SET pg_mergepath.cpu_threads = 3;
SELECT mp_check('SELECT k FROM big_l EXCEPT SELECT k FROM big_r');
SELECT pg_mergepath_describe();
RESET pg_mergepath.cpu_threads;
RESET pg_mergepath.device;

-- Twelve cursors open at once, each planned and started after another cpu_threads:
-- each holds a CPU context of its own until it closes (the older ones retired), and
-- none is refused (there used to be room for eight).
SET pg_mergepath.device = cpu;
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
SET pg_mergepath.cpu_threads = 2;  -- the plan on every host (the narrow key, not the ordered one)
EXPLAIN (COSTS OFF) SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
RESET pg_mergepath.cpu_threads;
BEGIN;
SET LOCAL pg_mergepath.cpu_threads = 1;
DECLARE c1 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c1;
SET LOCAL pg_mergepath.cpu_threads = 2;
DECLARE c2 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c2;
SET LOCAL pg_mergepath.cpu_threads = 3;
DECLARE c3 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c3;
SET LOCAL pg_mergepath.cpu_threads = 4;
DECLARE c4 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c4;
SET LOCAL pg_mergepath.cpu_threads = 5;
DECLARE c5 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c5;
SET LOCAL pg_mergepath.cpu_threads = 6;
DECLARE c6 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c6;
SET LOCAL pg_mergepath.cpu_threads = 7;
DECLARE c7 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c7;
SET LOCAL pg_mergepath.cpu_threads = 8;
DECLARE c8 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c8;
SET LOCAL pg_mergepath.cpu_threads = 9;
DECLARE c9 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c9;
SET LOCAL pg_mergepath.cpu_threads = 10;
DECLARE c10 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c10;
SET LOCAL pg_mergepath.cpu_threads = 11;
DECLARE c11 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c11;
SET LOCAL pg_mergepath.cpu_threads = 12;
DECLARE c12 CURSOR FOR SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r;
FETCH 1 FROM c12;
COMMIT;
RESET max_parallel_workers_per_gather;
RESET pg_mergepath.min_rows;
RESET pg_mergepath.device;

-- The planner says at DEBUG1 why it keeps the native SetOp.
SET client_min_messages = debug1;
SELECT B'1' AS x INTERSECT SELECT B'1';
SET pg_mergepath.min_rows = 1000;
SELECT 1 AS x EXCEPT SELECT 2;
RESET client_min_messages;

-- image_keys (on by default): text keys are compared as byte images; with it off they
-- need hashing and verification, and with hashed_keys off too (its default; this
-- suite's server config turns it on) the native SetOp stays, and DEBUG1 says why.
SELECT name, boot_val FROM pg_settings WHERE name IN ('pg_mergepath.hashed_keys', 'pg_mergepath.image_keys')
ORDER BY name;
SET pg_mergepath.min_rows = 0;
SET pg_mergepath.image_keys = off;
SELECT mp_keys('SELECT ''x''::text AS t INTERSECT SELECT ''y''::text');
SET pg_mergepath.hashed_keys = off;
SET client_min_messages = debug1;
SELECT 'x'::text AS t INTERSECT SELECT 'y'::text;
RESET client_min_messages;
RESET pg_mergepath.hashed_keys;
RESET pg_mergepath.image_keys;
RESET pg_mergepath.min_rows;
