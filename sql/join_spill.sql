-- join_spill: a MergePath Join over pg_mergepath.memory_limit (join_spill.cpp). Both
-- inputs go into sorted runs of rows by key (temporary files, merged back), then
-- key range by key range into the stage. work_mem = 64kB with memory_limit = 0 (128 kB)
-- makes these ~200k-row inputs spill and split into hundreds of ranges; keys repeated
-- past a range (777: 3000 x 50 pairs, 888: 100 x 2000, 999: 800 x 400) are split over
-- several ranges (join_spill_key.cpp), or, in an outer, semi or anti join with a join
-- filter, joined row by row (join_spill_loop.cpp); NULL keys are on both sides. Every join type,
-- with and without a join filter, a 128-bit key, a join that passes the limit only
-- while reading (its inputs underestimated), a rescan and a cancel; every answer
-- compared with PostgreSQL's own join (join_basic's helpers).
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse
CREATE TABLE js_a AS SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE (g::int8 * 7919) % 30000 END::int8 AS k,
  (g % 5)::int8 AS k2, g AS pa FROM generate_series(1, 200000) g;
INSERT INTO js_a SELECT 777, 1, g FROM generate_series(1, 3000) g;
CREATE TABLE js_b AS SELECT CASE WHEN g % 89 = 0 THEN NULL ELSE (g::int8 * 104729) % 40000 END::int8 AS k,
  (g % 3)::int8 AS k2, g AS pb, repeat('b', g % 40) || g AS t FROM generate_series(1, 150000) g;
INSERT INTO js_b SELECT 777, 1, g, 'heavy' || g FROM generate_series(1, 50) g;
-- 888: few rows on A, B's past a range; 999: A's past a quarter of a range, B's past half
INSERT INTO js_a SELECT 888, 2, g FROM generate_series(1, 100) g;
INSERT INTO js_b SELECT 888, 2, g, repeat('h', 100) || g FROM generate_series(1, 2000) g;
INSERT INTO js_a SELECT 999, 3, g FROM generate_series(1, 800) g;
INSERT INTO js_b SELECT 999, 3, g, repeat('w', 100) || g FROM generate_series(1, 400) g;
ANALYZE js_a, js_b;
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;

-- the plan says so; EXPLAIN ANALYZE: ranges and bytes spilled (numbers reduced to what
-- the test asserts)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT line FROM mp_explain('SELECT a.pa, b.pb FROM js_a a LEFT JOIN js_b b ON a.k = b.k') line
WHERE line ~ 'Custom Scan|Memory Limit|Keys:';
CREATE FUNCTION js_spilled(q text) RETURNS text LANGUAGE sql AS $$
  SELECT format('ranges > 10: %s, spilled: %s, keys split: %s, row by row: %s', mp_explain_count(e, 'Key Ranges') > 10,
                mp_explain_count(e, 'Spilled') > 0, mp_explain_count(e, 'Keys Split Over Ranges'),
                mp_explain_count(e, 'Keys Joined Row By Row'))
  FROM mp_explain_analyzed(q) e
$$;
SELECT js_spilled('SELECT a.pa, b.pb FROM js_a a JOIN js_b b ON a.k = b.k');
-- keys split over ranges, with every column stored: 777 and 999 (A's rows past a quarter of a
-- range: chunks of A x chunks of B), 888 (B's rows stream past A's); a semi join splits
-- only 777 and 999 (B's first row of a key is enough); an inner join with a filter all
-- three (the filter judges each pair alone); an outer join with one none: it joins the
-- three row by row (whether a row is emitted depends on all of the other side's)
SELECT js_spilled('SELECT a.*, b.* FROM js_a a JOIN js_b b ON a.k = b.k');
SELECT js_spilled('SELECT a.* FROM js_a a WHERE EXISTS (SELECT 1 FROM js_b b WHERE a.k = b.k)');
SELECT js_spilled('SELECT a.*, b.* FROM js_a a JOIN js_b b ON a.k = b.k AND a.pa <> b.pb');
SELECT js_spilled('SELECT a.*, b.* FROM js_a a LEFT JOIN js_b b ON a.k = b.k AND a.pa <> b.pb');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- every join type against the native join, without and with a join filter
CREATE FUNCTION js_sql(jt text, cond text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT a.* FROM js_a a WHERE EXISTS (SELECT 1 FROM js_b b WHERE %s)', cond)
    WHEN 'anti' THEN format('SELECT a.* FROM js_a a WHERE NOT EXISTS (SELECT 1 FROM js_b b WHERE %s)', cond)
    ELSE format('SELECT a.*, b.* FROM js_a a %s JOIN js_b b ON %s', jt, cond) END
$$;
SELECT jt, mp_join_check(js_sql(jt, 'a.k = b.k')) AS plain,
       mp_join_check(js_sql(jt, 'a.k = b.k AND a.pa % 7 <> b.pb % 5')) AS filtered
FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) jt;
-- filters that leave rows of the heavy keys unmatched, on both sides or all of them (the
-- keys joined row by row: unmatched A rows, B rows, a key with no passing pair)
SELECT jt, mp_join_check(js_sql(jt, 'a.k = b.k AND a.pa % 100 = b.pb % 150')) AS some_pass,
       mp_join_check(js_sql(jt, 'a.k = b.k AND a.pa = b.pb + 1000000')) AS none_pass
FROM unnest(ARRAY['left', 'right', 'full', 'semi', 'anti']) jt;
-- an empty side (a run-time filter the planner cannot see through)
SELECT mp_join_check('SELECT a.pa, b.pb FROM js_a a FULL JOIN (SELECT * FROM js_b WHERE pb > (SELECT max(pb) FROM js_b)) b ON a.k = b.k');
SELECT mp_join_check('SELECT a.pa, b.pb FROM (SELECT * FROM js_a WHERE pa > (SELECT max(pa) FROM js_a)) a RIGHT JOIN js_b b ON a.k = b.k');
SELECT mp_join_check('SELECT a.pa FROM js_a a WHERE NOT EXISTS (SELECT 1 FROM js_b b WHERE b.k = a.k AND b.pb > (SELECT max(pb) FROM js_b))');
-- a 128-bit key (two int8 columns), a 32-bit one (int4)
SELECT jt, mp_join_check(js_sql(jt, 'a.k = b.k AND a.k2 = b.k2')) AS two_keys,
       mp_join_check(js_sql(jt, 'a.pa = b.pb')) AS int4_key
FROM unnest(ARRAY['inner', 'full', 'anti']) jt;

-- a join planned within the limit (its inputs estimated at 1000 rows each) that reaches
-- it while reading: the rows it holds move into the sorts, the rest follows
CREATE FUNCTION js_keys(n int, m int8) RETURNS TABLE (k int8, p int) ROWS 1000 LANGUAGE sql AS
  'SELECT CASE WHEN g % 101 = 0 THEN NULL ELSE (g::int8 * 7919) % m END, g FROM generate_series(1, n) g';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) AS planned_to_spill FROM mp_explain('SELECT a.p, b.p FROM js_keys(200000, 30000) a JOIN js_keys(150000, 40000) b ON a.k = b.k') line
WHERE line ~ 'Memory Limit';
SELECT js_spilled('SELECT a.p, b.p FROM js_keys(200000, 30000) a JOIN js_keys(150000, 40000) b ON a.k = b.k');
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT jt, mp_join_check(format('SELECT a.p, b.p FROM js_keys(200000, 30000) a %s JOIN js_keys(150000, 40000) b ON a.k = b.k', jt)),
       mp_join_check(format('SELECT a.p, b.p FROM js_keys(200000, 30000) a %s JOIN js_keys(150000, 40000) b ON a.k = b.k AND a.p %% 3 <> b.p %% 4', jt)) AS filtered
FROM unnest(ARRAY['inner', 'left', 'full']) jt;
SELECT mp_join_check('SELECT a.p FROM js_keys(200000, 30000) a WHERE NOT EXISTS (SELECT 1 FROM js_keys(150000, 40000) b WHERE b.k = a.k AND b.p % 3 <> a.p % 4)');
-- the B side passes it: A's rows, already all held, move too
SELECT mp_join_check('SELECT a.p, b.p FROM js_keys(500, 30000) a RIGHT JOIN js_keys(300000, 40000) b ON a.k = b.k');
SELECT js_spilled('SELECT a.p, b.p FROM js_keys(500, 30000) a FULL JOIN js_keys(300000, 40000) b ON a.k = b.k');

-- rescans: the join as the inner side of a nested loop (read and sorted again)
SET enable_nestloop = on;
SET enable_material = off;
CREATE TABLE js_outer AS SELECT g AS o FROM generate_series(1, 3) g;
ANALYZE js_outer;
SELECT mp_join_check('SELECT o, x.n FROM js_outer, (SELECT count(*) AS n FROM js_a a FULL JOIN js_b b ON a.k = b.k) x');
-- ... stopped partway through its ranges each time (a LIMIT above it), and with a
-- parameter that changes per outer row
SELECT mp_join_check('SELECT o FROM js_outer, (SELECT b.t FROM js_a a JOIN js_b b ON a.k = b.k LIMIT 7) x');
-- ... stopped in the middle of a key joined row by row
SELECT mp_join_check('SELECT o FROM js_outer, (SELECT 1 FROM js_a a LEFT JOIN js_b b ON a.k = b.k AND a.pa % 100 = b.pb % 150 WHERE a.k IN (777, 888) LIMIT 500) x');
SELECT mp_join_check('SELECT o, (SELECT sum(length(x.t)) FROM (SELECT b.t FROM js_a a JOIN js_b b ON a.k = b.k WHERE a.pa % 3 = js_outer.o - 1 ORDER BY b.t LIMIT 5) x) FROM js_outer');
RESET enable_material;
SET enable_nestloop = off;

-- a cancel while the inputs are sorted leaves no temporary file behind
SET statement_timeout = '50ms';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FROM js_a a JOIN js_b b ON a.k = b.k JOIN js_a c ON c.k = b.k;
RESET statement_timeout;
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();

RESET work_mem;
RESET pg_mergepath.memory_limit;
DROP TABLE js_a, js_b, js_outer;
DROP FUNCTION js_spilled(text), js_sql(text, text), js_keys(int, int8);
