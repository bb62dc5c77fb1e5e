-- join_stream: the MergePath Join whose outer side streams past the sorted inner one
-- (join_probe.cpp), chosen for inner, left, semi and anti joins whose inner side is
-- estimated at a quarter of the outer one or less. Every answer is compared with the
-- native plan (mp_join_check, join_basic.sql), and the plan is checked to be the
-- streamed one: serial; parallel-aware (the participants share the inner side's
-- reading); and a partial outer side over a whole inner side that every participant
-- sorts itself (the inner table too small for a parallel scan). Outer rows come in
-- batches of 256, so the outer tables span many batches. Keys: NULLs on both sides,
-- duplicates on both sides (many pairs per outer row, and outer rows past the inner
-- side's span), int4 = int8, float -0 / NaN, multi-column 128-bit keys, 32-bit keys;
-- join filters on left and anti joins; text payloads on both sides; empty sides; a
-- rescan (the join under a nested loop) with and without a changed parameter; a serial
-- join whose inner side passes the memory limit while being read (it spills: the
-- outer side goes into its sort); sides of similar sizes over the memory limit whose
-- inner side fits it alone; an inner side whose key directory is filled on several
-- threads; a cancel; and pg_mergepath.stream_outer = off.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
\set VERBOSITY terse

-- how the plan joins: 'streamed serial', 'streamed parallel', 'streamed, inner side in
-- every participant', 'both sides sorted', or 'native plan'
CREATE FUNCTION mp_stream_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; ours bool := false; streamed bool := false; parallel_aware bool := false; own_inner bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Custom Scan (MergePath Join)%' THEN ours := true; END IF;
    IF line LIKE '%Parallel Custom Scan (MergePath Join)%' THEN parallel_aware := true; END IF;
    IF line LIKE '%Parallel: not parallel-aware%' THEN own_inner := true; END IF;
    IF line LIKE '%Outer Side: streamed%' THEN streamed := true; END IF;
  END LOOP;
  IF NOT ours THEN RETURN 'native plan'; END IF;
  IF NOT streamed THEN RETURN 'both sides sorted'; END IF;
  IF parallel_aware THEN RETURN 'streamed parallel'; END IF;
  IF own_inner THEN RETURN 'streamed, inner side in every participant'; END IF;
  RETURN 'streamed serial';
END $$;

-- the fact side: keys with ~3 copies each, keys past the dimension's span, NULL keys;
-- the dimension: some keys twice, NULL keys, keys the fact side lacks
CREATE TABLE sf (k int8, k4 int4, f float8, d date, p int4, s text);
INSERT INTO sf SELECT CASE WHEN g % 41 = 0 THEN NULL ELSE (g * 7919) % 3000 END, (g * 7919) % 3000,
    CASE g % 5 WHEN 0 THEN '-0'::float8 WHEN 1 THEN 'NaN' ELSE (g % 97) / 4.0 END,
    date '2020-01-01' + (g % 50), g, 's' || (g % 13)
  FROM generate_series(1, 12000) g;
CREATE TABLE sd (k int8, k4 int4, f float8, d date, q int4, t text);
INSERT INTO sd SELECT CASE WHEN g % 53 = 0 THEN NULL ELSE g * 2 END, g * 2,
    CASE g % 4 WHEN 0 THEN '0'::float8 WHEN 1 THEN 'NaN' ELSE (g % 97) / 4.0 END,
    date '2020-01-01' + (g % 30), g, 't' || (g % 7)
  FROM generate_series(1, 1000) g;
INSERT INTO sd SELECT k, k4, f, d, q + 5000, t || 'x' FROM sd WHERE q % 10 = 0;  -- duplicate keys
CREATE TABLE sd_empty (LIKE sd);
CREATE TABLE sf_empty (LIKE sf);
ANALYZE sf, sd, sd_empty, sf_empty;

CREATE FUNCTION mp_sf_sql(jt text, cond text, inner_table text DEFAULT 'sd') RETURNS text LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT sf.* FROM sf WHERE EXISTS (SELECT 1 FROM %s sd WHERE %s)', inner_table, cond)
    WHEN 'anti' THEN format('SELECT sf.* FROM sf WHERE NOT EXISTS (SELECT 1 FROM %s sd WHERE %s)', inner_table, cond)
    ELSE format('SELECT sf.*, sd.* FROM sf %s JOIN %s sd ON %s', jt, inner_table, cond) END
$$;

-- serial: every join type the streamed side serves, over each kind of key
SELECT mp_stream_plan(mp_sf_sql('inner', 'sf.k = sd.k'));
SELECT jt, cond, mp_join_check(mp_sf_sql(jt, cond))
  FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt,
       unnest(ARRAY['sf.k = sd.k', 'sf.k4 = sd.k', 'sf.f = sd.f', 'sf.k = sd.k AND sf.d = sd.d',
                    'sf.k4 = sd.k4', 'sf.k = sd.k AND sf.f = sd.f AND sf.d = sd.d']) cond
  ORDER BY 1, 2;
-- join filters: a left join keeps an outer row whose every match fails the filter
SELECT jt, mp_join_check(mp_sf_sql(jt, 'sf.k = sd.k AND sf.p % 7 < sd.q % 5'))
  FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt ORDER BY 1;
-- outer values passed by reference copied into the batch's 64 kB blocks: small ones, and
-- some near or past a block's size (60-90 kB, computed, so not TOASTed)
SELECT mp_stream_plan('SELECT x.p, x.big, sd.q FROM (SELECT p, k, CASE WHEN p % 50 = 0 THEN repeat(s, 30000) ELSE s END AS big FROM sf) x LEFT JOIN sd ON x.k = sd.k');
SELECT mp_join_check('SELECT x.p, x.big, sd.q FROM (SELECT p, k, CASE WHEN p % 50 = 0 THEN repeat(s, 30000) ELSE s END AS big FROM sf) x LEFT JOIN sd ON x.k = sd.k AND length(x.big) > sd.q % 3');
-- a right join with the big side right is a left join streamed from that side
SELECT mp_stream_plan('SELECT sd.q, sf.p FROM sd RIGHT JOIN sf ON sf.k = sd.k');
SELECT mp_join_check('SELECT sd.q, sf.p FROM sd RIGHT JOIN sf ON sf.k = sd.k');
-- a full join is never streamed
SELECT mp_stream_plan(mp_sf_sql('full', 'sf.k = sd.k'));
SELECT mp_join_check(mp_sf_sql('full', 'sf.k = sd.k'));
-- empty sides
SELECT jt, mp_join_check(mp_sf_sql(jt, 'sf.k = sd.k', 'sd_empty'))
  FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt ORDER BY 1;
SELECT mp_join_check('SELECT * FROM sf_empty sf LEFT JOIN sd ON sf.k = sd.k');
-- EXPLAIN ANALYZE: rows read from both sides, pairs
SELECT * FROM mp_explain('SELECT count(*) FROM sf JOIN sd ON sf.k = sd.k', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');

-- rescans: under a nested loop over join_plan's jouter (5 rows), once with no changed
-- parameter (sorted B kept, A read again) and once with one that changes per outer row
SET enable_nestloop = on;
SET enable_material = off;
SELECT mp_join_check('SELECT o, x.p, x.q FROM jouter JOIN (SELECT sf.p, sd.q FROM sf LEFT JOIN sd ON sf.k = sd.k) x ON true');
SELECT mp_join_check('SELECT o, (SELECT count(*) FROM sf JOIN sd ON sf.k = sd.k WHERE sf.p > jouter.o * 1000) FROM jouter');
SELECT mp_join_check('SELECT o, (SELECT count(*) FROM sf JOIN sd ON sf.k = sd.k AND sd.q > jouter.o * 100) FROM jouter');
RESET enable_material;
SET enable_nestloop = off;

-- a cursor fetched partway, then closed; and LIMIT (the outer side is not read to its end)
BEGIN;
DECLARE cs CURSOR FOR SELECT sf.p, sd.q FROM sf JOIN sd ON sf.k = sd.k ORDER BY sf.p, sd.q;
FETCH 3 FROM cs;
CLOSE cs;
COMMIT;
SELECT count(*) FROM (SELECT sf.p FROM sf JOIN sd ON sf.k = sd.k LIMIT 100) x;

-- the inner side passes the memory limit while it is read (estimated at 10 rows): the
-- serial join spills, the outer side read into its sort
CREATE FUNCTION sd_rows(n int) RETURNS TABLE (k int8, q int4, t text) LANGUAGE sql ROWS 10 AS
  $$ SELECT (g * 2)::int8, g, repeat('t', 40) || g FROM generate_series(1, n) g $$;
SET pg_mergepath.memory_limit = '1MB';
SELECT mp_stream_plan('SELECT sf.p, r.q, r.t FROM sf LEFT JOIN sd_rows(30000) r ON sf.k = r.k');
SELECT jt, mp_join_check(format('SELECT sf.p, r.q, r.t FROM sf %s JOIN sd_rows(30000) r ON sf.k = r.k', jt))
  FROM unnest(ARRAY['inner', 'left']) jt ORDER BY 1;
SELECT mp_join_check('SELECT sf.* FROM sf WHERE NOT EXISTS (SELECT 1 FROM sd_rows(30000) r WHERE r.k = sf.k)');
SELECT * FROM mp_explain('SELECT count(r.t) FROM sf LEFT JOIN sd_rows(30000) r ON sf.k = r.k',
                         'ANALYZE, COSTS OFF, TIMING OFF')
  WHERE mp_explain ~ 'Outer Side|Key Ranges|Input Rows';
RESET pg_mergepath.memory_limit;

-- sides of similar sizes whose inputs together would pass the memory limit while the
-- inner side alone fits it: streamed rather than spilled
CREATE TABLE sd3 AS SELECT (g * 3)::int8 AS k, g AS q FROM generate_series(1, 5000) g;
ANALYZE sd3;
SET pg_mergepath.memory_limit = '500kB';
SELECT mp_stream_plan('SELECT sf.p, sd3.q FROM sf LEFT JOIN sd3 ON sf.k = sd3.k');
SELECT jt, mp_join_check(format('SELECT sf.p, sd3.q FROM sf %s JOIN sd3 ON sf.k = sd3.k', jt))
  FROM unnest(ARRAY['inner', 'left']) jt ORDER BY 1;
SELECT * FROM mp_explain('SELECT sf.p, sd3.q FROM sf LEFT JOIN sd3 ON sf.k = sd3.k', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF')
  WHERE mp_explain ~ 'Outer Side|Key Ranges|Input Rows';
SET pg_mergepath.memory_limit = '100kB';  -- the inner side does not fit either: it spills
SELECT * FROM mp_explain('SELECT sf.p, sd3.q FROM sf LEFT JOIN sd3 ON sf.k = sd3.k')
  WHERE mp_explain ~ 'Outer Side|Memory Limit';
RESET pg_mergepath.memory_limit;

-- parallel: the inner side shared (parallel-aware), and whole in every participant
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 3;
SET min_parallel_table_scan_size = 0;
SELECT mp_stream_plan(mp_sf_sql('inner', 'sf.k = sd.k'));
SELECT jt, mp_join_check(mp_sf_sql(jt, cond))
  FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt,
       unnest(ARRAY['sf.k = sd.k', 'sf.k = sd.k AND sf.p % 7 < sd.q % 5']) cond
  ORDER BY 1, 2;
SET min_parallel_table_scan_size = '256kB';  -- sd is too small for a parallel scan now, sf is not
SELECT mp_stream_plan(mp_sf_sql('inner', 'sf.k = sd.k'));
SELECT * FROM mp_explain(mp_sf_sql('inner', 'sf.k = sd.k')) WHERE mp_explain ~ 'Gather|Parallel|Outer Side';
-- ... not under a memory limit that the inner side fits once but not once per participant
-- (a serial streamed join over a Gather of the outer side instead)
SET pg_mergepath.memory_limit = '200kB';
SELECT mp_stream_plan(mp_sf_sql('inner', 'sf.k = sd.k'));
SELECT mp_join_check(mp_sf_sql('left', 'sf.k = sd.k'));
RESET pg_mergepath.memory_limit;
SELECT jt, mp_join_check(mp_sf_sql(jt, cond))
  FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt,
       unnest(ARRAY['sf.k = sd.k', 'sf.k = sd.k AND sf.p % 7 < sd.q % 5']) cond
  ORDER BY 1, 2;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- an inner side whose directory is filled on several threads (2^18 buckets or more: over
-- 131072 inner keys), its keys spread with gaps, under an outer side with keys inside and
-- past its span; serial, parallel-aware, and whole in every participant
CREATE TABLE sd_big AS SELECT (g * 5)::int8 AS k, g AS q FROM generate_series(1, 140000) g;
CREATE TABLE sf_big AS SELECT ((g::int8 * 7919) % 800000)::int8 AS k, g AS p FROM generate_series(1, 600000) g;
ANALYZE sd_big, sf_big;
SELECT mp_stream_plan('SELECT sf_big.p, sd_big.q FROM sf_big JOIN sd_big ON sf_big.k = sd_big.k');
SELECT jt, mp_join_check(format('SELECT sf_big.p, sd_big.q FROM sf_big %s JOIN sd_big ON sf_big.k = sd_big.k', jt))
  FROM unnest(ARRAY['inner', 'left']) jt ORDER BY 1;
SELECT mp_join_check('SELECT sf_big.p FROM sf_big WHERE NOT EXISTS (SELECT 1 FROM sd_big WHERE sd_big.k = sf_big.k)');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;  -- both tables scanned in parallel: the inner side shared
SELECT mp_stream_plan('SELECT sf_big.p, sd_big.q FROM sf_big JOIN sd_big ON sf_big.k = sd_big.k');
SELECT mp_join_check('SELECT sf_big.p, sd_big.q FROM sf_big JOIN sd_big ON sf_big.k = sd_big.k');
SELECT mp_join_check('SELECT sf_big.p FROM sf_big WHERE EXISTS (SELECT 1 FROM sd_big WHERE sd_big.k = sf_big.k)');
RESET min_parallel_table_scan_size;  -- the inner table too small for a parallel scan: whole in every participant
SELECT mp_stream_plan('SELECT sf_big.p FROM sf_big WHERE EXISTS (SELECT 1 FROM sd_big WHERE sd_big.k = sf_big.k)');
SELECT mp_join_check('SELECT sf_big.p FROM sf_big WHERE EXISTS (SELECT 1 FROM sd_big WHERE sd_big.k = sf_big.k)');
SET max_parallel_workers_per_gather = 0;

-- a cancel while the outer side streams (every outer row pairs with 8000 inner rows:
-- 640M pairs), then the session goes on with nothing left behind
CREATE TABLE sf_many AS SELECT (g % 2)::int8 AS k FROM generate_series(1, 80000) g;
CREATE TABLE sd_many AS SELECT (g % 2)::int8 AS k FROM generate_series(1, 16000) g;
ANALYZE sf_many, sd_many;
SELECT mp_stream_plan('SELECT count(*) FROM sf_many a JOIN sd_many b ON a.k = b.k');
SET statement_timeout = '1s';
SELECT count(*) FROM sf_many a JOIN sd_many b ON a.k = b.k;
RESET statement_timeout;
SELECT live_operations FROM pg_mergepath_status();
SELECT count(*) FROM pg_backend_memory_contexts WHERE name LIKE 'pg_mergepath%';

-- pg_mergepath.stream_outer = off: both sides sorted, the same answers
SET pg_mergepath.stream_outer = off;
SELECT mp_stream_plan(mp_sf_sql('inner', 'sf.k = sd.k'));
SELECT mp_join_check(mp_sf_sql('left', 'sf.k = sd.k AND sf.p % 7 < sd.q % 5'));
RESET pg_mergepath.stream_outer;

RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
