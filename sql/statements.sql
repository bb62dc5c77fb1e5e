-- statements: statement forms that PostgreSQL runs, with our nodes in their plans.
--   1. UPDATE / DELETE / MERGE / INSERT ... SELECT whose source is a MergePath Join, over
--      plain, inherited and partitioned targets (row-identity columns through the node,
--      partition pruning, rows moving between partitions, foreign-key cascades,
--      RETURNING, writable CTEs): each statement runs natively on the n_* tables and
--      through our join on identical o_* tables; the tables must agree afterwards.
--   2. EXPLAIN, EXPLAIN VERBOSE and EXPLAIN ANALYZE VERBOSE over joins and set operations
--      whose outputs are record fields, whole rows, expressions, system columns, subplan
--      parameters and CTE columns: the expected output shows what is deparsed.
--   (expected/statements_1.out: an assert-enabled PostgreSQL, where a join carrying
--   row-identity columns stays native: join_path.cpp)
--   3. Other forms around the node (LATERAL, set-returning functions, window functions,
--      grouping sets, FOR UPDATE, recursive CTEs, partitionwise joins, CREATE TABLE AS,
--      parallel plans): answers compared with the native plan's (mp_join_check,
--      join_basic's helpers).
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;

-- ---- 1. DML through the join ----------------------------------------------------------
-- st_targets(p): p_plain (unique id, referenced by p_fk with cascades), p_inh (a parent
-- and a child), p_part (two range partitions and a default one), the same rows in each.
CREATE FUNCTION st_targets(p text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %1$s_plain (id int PRIMARY KEY, val text)', p);
  EXECUTE format('CREATE TABLE %1$s_fk (id int, pid int REFERENCES %1$s_plain (id) ON DELETE CASCADE ON UPDATE CASCADE)', p);
  EXECUTE format('CREATE TABLE %1$s_inh (id int, val text)', p);
  EXECUTE format('CREATE TABLE %1$s_inh_c () INHERITS (%1$s_inh)', p);
  EXECUTE format('CREATE TABLE %1$s_part (id int, val text) PARTITION BY RANGE (id)', p);
  EXECUTE format('CREATE TABLE %1$s_part_1 PARTITION OF %1$s_part FOR VALUES FROM (0) TO (100)', p);
  EXECUTE format('CREATE TABLE %1$s_part_2 PARTITION OF %1$s_part FOR VALUES FROM (100) TO (200)', p);
  EXECUTE format('CREATE TABLE %1$s_part_d PARTITION OF %1$s_part DEFAULT', p);
  EXECUTE format('INSERT INTO %1$s_plain SELECT g, ''v'' || g FROM generate_series(1, 300) g', p);
  EXECUTE format('INSERT INTO %1$s_fk SELECT g, g %% 300 + 1 FROM generate_series(1, 500) g', p);
  EXECUTE format('INSERT INTO %1$s_inh SELECT g, ''p'' || g FROM generate_series(1, 150) g', p);
  EXECUTE format('INSERT INTO %1$s_inh_c SELECT g, ''c'' || g FROM generate_series(151, 300) g', p);
  EXECUTE format('INSERT INTO %1$s_part SELECT g, ''x'' || g FROM generate_series(1, 300) g', p);
  EXECUTE format('ANALYZE %1$s_plain, %1$s_fk, %1$s_inh, %1$s_inh_c, %1$s_part', p);
END $$;
SELECT st_targets('n'), st_targets('o');
-- the sources: u every other id (and ids no target has), w every third
CREATE TABLE st_u (id int, x int);
INSERT INTO st_u SELECT g, g % 7 FROM generate_series(1, 400, 2) g;
CREATE TABLE st_w (id int);
INSERT INTO st_w SELECT g FROM generate_series(1, 400, 3) g;
ANALYZE st_u, st_w;

-- Rows in one table and not the other (both ways; 0: the same rows, duplicates
-- counted); a partition's or child's name is compared without its prefix.
CREATE FUNCTION st_differ(n text, o text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE d bigint;
BEGIN
  EXECUTE format($q$
    WITH tn AS (SELECT substr(tableoid::regclass::text, 3) AS rel, t::text AS r FROM %1$s t),
         tr AS (SELECT substr(tableoid::regclass::text, 3) AS rel, t::text AS r FROM %2$s t)
    SELECT (SELECT count(*) FROM (TABLE tn EXCEPT ALL TABLE tr) x) + (SELECT count(*) FROM (TABLE tr EXCEPT ALL TABLE tn) y)$q$,
    n, o) INTO d;
  RETURN d;
END $$;

-- Which of our nodes q's plan has: 'join', 'setop', 'join + setop' or 'native plan'.
CREATE FUNCTION st_nodes(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; j boolean := false; s boolean := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    j := j OR line LIKE '%Custom Scan (MergePath Join)%';
    s := s OR line LIKE '%Custom Scan (MergePath SetOp)%';
  END LOOP;
  RETURN CASE WHEN j AND s THEN 'join + setop' WHEN j THEN 'join' WHEN s THEN 'setop' ELSE 'native plan' END;
END $$;

-- st_dml(dml, tables): dml with %1$s for the prefix, run natively on n_* and through our
-- nodes on o_*. Returns our plan's nodes (st_nodes), the
-- rows it changed (or returned, for a RETURNING statement, wrapped in a writable CTE)
-- in each run, and the rows in which each named table differs afterwards.
CREATE FUNCTION st_dml(dml text, tables text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text; rows_n bigint; rows_o bigint; hash_n numeric; hash_o numeric; t text; report text;
  has_returning boolean := dml ILIKE '% RETURNING %';
  wrapped text := CASE WHEN has_returning
    THEN 'WITH d AS (' || dml || ') SELECT count(*), coalesce(sum(hash_record_extended(d, 0)), 0) FROM d'
    ELSE dml END;
BEGIN
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  IF has_returning THEN EXECUTE format(wrapped, 'n') INTO rows_n, hash_n;
  ELSE EXECUTE format(wrapped, 'n'); GET DIAGNOSTICS rows_n = ROW_COUNT; END IF;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  plan := st_nodes(format(wrapped, 'o'));
  IF has_returning THEN EXECUTE format(wrapped, 'o') INTO rows_o, hash_o;
  ELSE EXECUTE format(wrapped, 'o'); GET DIAGNOSTICS rows_o = ROW_COUNT; END IF;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  report := format('%s: %s rows (native %s)', plan, rows_o, rows_n);
  IF hash_n IS DISTINCT FROM hash_o THEN report := report || ', RETURNING differs'; END IF;
  FOREACH t IN ARRAY tables LOOP
    report := report || format(', %s %s', t, CASE st_differ('n_' || t, 'o_' || t) WHEN 0 THEN 'same' ELSE 'DIFFERS' END);
  END LOOP;
  RETURN report;
END $$;

-- the plan: row-identity columns (tableoid, ctid, wholerow) flow through the node (plans
-- shown for the CPU backend: EXPLAIN names the device)
SET pg_mergepath.device = cpu;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM o_part USING st_u WHERE o_part.id = st_u.id;
EXPLAIN (VERBOSE, COSTS OFF) UPDATE o_inh SET val = 'u' FROM st_u WHERE o_inh.id = st_u.id;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
RESET pg_mergepath.device;

SELECT st_dml('DELETE FROM %1$s_inh USING st_u WHERE %1$s_inh.id = st_u.id AND st_u.x = 1', '{inh}');
SELECT st_dml('DELETE FROM %1$s_part USING st_u WHERE %1$s_part.id = st_u.id AND st_u.x = 2', '{part}');
SELECT st_dml('UPDATE %1$s_inh SET val = val || ''u'' || st_u.x FROM st_u WHERE %1$s_inh.id = st_u.id', '{inh}');
SELECT st_dml('UPDATE %1$s_part SET val = val || ''u'' || st_u.x FROM st_u WHERE %1$s_part.id = st_u.id', '{part}');
-- rows move between partitions (a delete and an insert each)
SELECT st_dml('UPDATE %1$s_part SET id = %1$s_part.id + 95 FROM st_u WHERE %1$s_part.id = st_u.id AND st_u.x = 3', '{part}');
-- partition pruning: one partition is read
SELECT st_dml('UPDATE %1$s_part SET val = ''pruned'' FROM st_u WHERE %1$s_part.id = st_u.id AND %1$s_part.id < 50', '{part}');
SELECT st_dml('MERGE INTO %1$s_part t USING st_u ON t.id = st_u.id WHEN MATCHED AND st_u.x = 4 THEN DELETE '
              'WHEN MATCHED THEN UPDATE SET val = ''m'' || st_u.x WHEN NOT MATCHED THEN INSERT VALUES (st_u.id + 1000, ''new'')', '{part}');
SELECT st_dml('MERGE INTO %1$s_inh t USING st_u ON t.id = st_u.id WHEN MATCHED THEN UPDATE SET val = ''m''', '{inh}');
SELECT st_dml('MERGE INTO %1$s_plain t USING st_w ON t.id = st_w.id WHEN MATCHED THEN UPDATE SET val = ''w'' '
              'WHEN NOT MATCHED THEN INSERT VALUES (st_w.id, ''new'')', '{plain}');
-- a three-way join: the row-identity columns pass through our join into the next one
SELECT st_dml('DELETE FROM %1$s_part USING st_u, st_w WHERE %1$s_part.id = st_u.id AND st_u.id = st_w.id', '{part}');
-- RETURNING, in a writable CTE
SELECT st_dml('UPDATE %1$s_inh SET val = ''r'' FROM st_w WHERE %1$s_inh.id = st_w.id RETURNING %1$s_inh.*, st_w.id AS wid', '{inh}');
SELECT st_dml('DELETE FROM %1$s_part USING st_w WHERE %1$s_part.id = st_w.id RETURNING %1$s_part.*', '{part}');
-- foreign keys: the referencing rows cascade (their triggers run their own queries)
SELECT st_dml('UPDATE %1$s_plain SET id = %1$s_plain.id + 1000 FROM st_u WHERE %1$s_plain.id = st_u.id AND st_u.x = 5', '{plain,fk}');
SELECT st_dml('DELETE FROM %1$s_plain USING st_u WHERE %1$s_plain.id = st_u.id AND st_u.x < 3', '{plain,fk}');
SELECT st_dml('INSERT INTO %1$s_plain SELECT st_u.id + 2000, %1$s_inh.val FROM %1$s_inh JOIN st_u ON %1$s_inh.id = st_u.id', '{plain}');
SELECT st_dml('INSERT INTO %1$s_part SELECT %1$s_inh.id + 300, ''ins'' FROM %1$s_inh JOIN st_w ON %1$s_inh.id = st_w.id', '{part}');
-- set operations as the source
SELECT st_dml('UPDATE %1$s_part SET val = ''s'' FROM (SELECT id FROM st_u INTERSECT SELECT id FROM st_w) s '
              'WHERE %1$s_part.id = s.id', '{part}');
SELECT st_dml('DELETE FROM %1$s_inh WHERE id IN (SELECT id FROM st_u EXCEPT ALL SELECT id FROM st_w)', '{inh}');
SELECT st_dml('INSERT INTO %1$s_plain SELECT id + 5000, ''set'' FROM (SELECT id FROM st_u INTERSECT ALL SELECT id FROM st_w) s', '{plain}');

-- A RETURNING list shown (ordered by the CTE above it)
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
WITH d AS (DELETE FROM o_part USING st_u WHERE o_part.id = st_u.id AND st_u.id < 40
           RETURNING o_part.tableoid::regclass AS rel, o_part.id, st_u.x)
SELECT * FROM d ORDER BY id;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

-- The issue's statements at default settings (min_rows, native methods on), 100k rows a
-- side: our join is planned and the statements work.
RESET pg_mergepath.min_rows;
CREATE TABLE f1_parent (id int, val text);
CREATE TABLE f1_child () INHERITS (f1_parent);
CREATE TABLE f1_u (id int);
INSERT INTO f1_parent SELECT g, 'p' FROM generate_series(1, 100000) g;
INSERT INTO f1_child SELECT g, 'c' FROM generate_series(100001, 200000) g;
INSERT INTO f1_u SELECT g FROM generate_series(1, 200000, 2) g;
CREATE TABLE f1_pt (id int, val text) PARTITION BY RANGE (id);
CREATE TABLE f1_pt1 PARTITION OF f1_pt FOR VALUES FROM (0) TO (100001);
CREATE TABLE f1_pt2 PARTITION OF f1_pt FOR VALUES FROM (100001) TO (300000);
INSERT INTO f1_pt SELECT g, 'x' FROM generate_series(1, 200000) g;
ANALYZE f1_parent, f1_child, f1_u, f1_pt;
SELECT mp_join_plan('DELETE FROM f1_parent USING f1_u WHERE f1_parent.id = f1_u.id') AS delete_plan,
       mp_join_plan('UPDATE f1_pt SET val = ''y'' FROM f1_u WHERE f1_pt.id = f1_u.id') AS update_plan;
DELETE FROM f1_parent USING f1_u WHERE f1_parent.id = f1_u.id;
UPDATE f1_pt SET val = 'y' FROM f1_u WHERE f1_pt.id = f1_u.id;
MERGE INTO f1_pt USING f1_u ON f1_pt.id = f1_u.id WHEN MATCHED THEN UPDATE SET val = 'z';
SELECT (SELECT count(*) FROM f1_parent) AS parent_rows, (SELECT count(*) FROM ONLY f1_parent) AS own_rows,
       (SELECT string_agg(format('%s %s %s', tableoid::regclass, val, n), ', ' ORDER BY tableoid::regclass::text, val)
          FROM (SELECT tableoid, val, count(*) n FROM f1_pt GROUP BY 1, 2) s) AS partitions;
DROP TABLE f1_parent, f1_child, f1_u, f1_pt;
SET pg_mergepath.min_rows = 0;

-- ---- 2. EXPLAIN over the nodes' outputs -------------------------------------------------
SET pg_mergepath.device = cpu;
CREATE TABLE g0 (f int, t int);
INSERT INTO g0 VALUES (1, 2), (2, 3);
CREATE TABLE st_p (oid int, name text);
CREATE TABLE st_r (pubid int, relid int, x int, attrs int[]);
CREATE TABLE st_c (oid int PRIMARY KEY);
INSERT INTO st_p VALUES (1, 'pub'), (2, 'pub2');
INSERT INTO st_r VALUES (1, 10, 3, '{1,2}'), (2, 10, 5, '{3}');
INSERT INTO st_c VALUES (10);
-- a field of an anonymous record from a subquery
EXPLAIN (VERBOSE, COSTS OFF)
SELECT (c.s).f1 FROM g0 g JOIN (SELECT f, row(f, t) AS s FROM g0 OFFSET 0) c ON g.f = c.f;
SELECT (c.s).f1 FROM g0 g JOIN (SELECT f, row(f, t) AS s FROM g0 OFFSET 0) c ON g.f = c.f ORDER BY 1;
-- ... and from a materialized CTE; whole rows; system columns; expressions
EXPLAIN (VERBOSE, COSTS OFF)
WITH c AS MATERIALIZED (SELECT f, row(f, t) AS s FROM g0) SELECT (c.s).f2, g, c FROM g0 g JOIN c ON g.f = c.f;
WITH c AS MATERIALIZED (SELECT f, row(f, t) AS s FROM g0) SELECT (c.s).f2, g, c FROM g0 g JOIN c ON g.f = c.f ORDER BY 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g.ctid, c.tableoid::regclass, g.f * 10 + c.t FROM g0 g LEFT JOIN g0 c ON g.f = c.t AND g.t > c.f;
-- subplans above the join whose parameters are the join's columns
EXPLAIN (COSTS OFF)
SELECT name, (SELECT count(*) FROM generate_series(1, 100) s WHERE s <= st_r.relid * st_r.x + st_r.pubid)
FROM st_p JOIN st_r ON st_p.oid = st_r.pubid JOIN st_c ON st_c.oid = st_r.relid WHERE st_r.relid = 10;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT name, (SELECT count(*) FROM generate_series(1, 100) s WHERE s <= st_r.relid * st_r.x + st_r.pubid)
FROM st_p JOIN st_r ON st_p.oid = st_r.pubid JOIN st_c ON st_c.oid = st_r.relid WHERE st_r.relid = 10;
SELECT name, (SELECT count(*) FROM generate_series(1, 100) s WHERE s <= st_r.relid * st_r.x + st_r.pubid)
FROM st_p JOIN st_r ON st_p.oid = st_r.pubid JOIN st_c ON st_c.oid = st_r.relid WHERE st_r.relid = 10 ORDER BY 1;
-- a filter above the join over its columns (the form of psql's \d query)
SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT name FROM st_p JOIN st_r ON st_p.oid = st_r.pubid
WHERE EXISTS (SELECT 1 FROM st_c WHERE st_c.oid = st_r.relid + array_length(st_r.attrs, 1) - 1);
SELECT name FROM st_p JOIN st_r ON st_p.oid = st_r.pubid
WHERE EXISTS (SELECT 1 FROM st_c WHERE st_c.oid = st_r.relid + array_length(st_r.attrs, 1) - 1);
RESET enable_hashjoin; RESET enable_mergejoin;
-- a recursive CTE with SEARCH BREADTH FIRST, our join inside the recursion and above it
CREATE TABLE st_tree (id int, parent int);
INSERT INTO st_tree SELECT g, g / 2 FROM generate_series(1, 20) g;
EXPLAIN (VERBOSE, COSTS OFF)
WITH RECURSIVE t(id, d) AS (SELECT id, 0 FROM st_tree WHERE id = 1
                            UNION ALL SELECT st_tree.id, d + 1 FROM st_tree JOIN t ON st_tree.parent = t.id)
  SEARCH BREADTH FIRST BY id SET ord
SELECT t.id, t.d, t.ord FROM t JOIN st_tree ON t.id = st_tree.id ORDER BY ord;
WITH RECURSIVE t(id, d) AS (SELECT id, 0 FROM st_tree WHERE id = 1
                            UNION ALL SELECT st_tree.id, d + 1 FROM st_tree JOIN t ON st_tree.parent = t.id)
  SEARCH BREADTH FIRST BY id SET ord
SELECT t.id, t.d, t.ord FROM t JOIN st_tree ON t.id = st_tree.id ORDER BY ord LIMIT 6;
-- EXPLAIN ANALYZE VERBOSE: the deparsed lines (counts and times are other tests' business)
CREATE FUNCTION st_explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ '(Custom Scan|Output|Join Keys|Join Filter|Filter|Operation):' OR line ~ 'Custom Scan' THEN
      RETURN NEXT regexp_replace(line, ' \(actual rows=.*\)$', '');
    END IF;
  END LOOP;
END $$;
SELECT st_explain_lines('SELECT (c.s).f1, g FROM g0 g JOIN (SELECT f, row(f, t) AS s FROM g0 OFFSET 0) c ON g.f = c.f');
-- set operations: a record field of the result, a subplan over its column, a CTE of it,
-- the whole row of it
CREATE TYPE st_pair AS (a int, b int);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT (x.r).b, x FROM (SELECT row(f, t)::st_pair AS r FROM g0 INTERSECT ALL SELECT row(f, t)::st_pair FROM g0) x;
SELECT (x.r).b, x FROM (SELECT row(f, t)::st_pair AS r FROM g0 INTERSECT ALL SELECT row(f, t)::st_pair FROM g0) x ORDER BY 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT q.f, (SELECT count(*) FROM g0 WHERE g0.t < q.f + 2) FROM (SELECT f FROM g0 EXCEPT ALL SELECT t FROM g0) q;
SELECT q.f, (SELECT count(*) FROM g0 WHERE g0.t < q.f + 2) FROM (SELECT f FROM g0 EXCEPT ALL SELECT t FROM g0) q;
SELECT st_explain_lines('WITH s AS (SELECT f FROM g0 INTERSECT SELECT t FROM g0) SELECT s, g.t FROM s JOIN g0 g USING (f)');

RESET pg_mergepath.device;

-- ---- 3. Other forms around the node ------------------------------------------------------
CREATE TABLE st_a (k int, v text);
CREATE TABLE st_b (k int, w int);
INSERT INTO st_a SELECT g % 50, 'a' || g FROM generate_series(1, 200) g;
INSERT INTO st_b SELECT g % 40, g FROM generate_series(1, 150) g;
ANALYZE st_a, st_b;
SELECT mp_join_check('SELECT x.k, l.n FROM (SELECT st_a.k FROM st_a JOIN st_b ON st_a.k = st_b.k) x, '
                     'LATERAL (SELECT count(*) n FROM st_b WHERE st_b.w < x.k) l') AS lateral_above;
SELECT mp_join_check('SELECT st_a.k, l.w FROM st_a, LATERAL (SELECT st_b.w FROM st_b JOIN st_a a2 ON st_b.k = a2.k '
                     'WHERE st_b.w < st_a.k * 3) l') AS lateral_inside;
SELECT mp_join_check('SELECT st_a.k, generate_series(1, st_b.w % 3) FROM st_a JOIN st_b ON st_a.k = st_b.k') AS srf;
SELECT mp_join_check('SELECT st_a.k, row_number() OVER (PARTITION BY st_a.k ORDER BY st_b.w, st_a.v) '
                     'FROM st_a JOIN st_b ON st_a.k = st_b.k') AS window_function;
SELECT mp_join_check('SELECT st_a.k, st_b.w % 2, count(*) FROM st_a JOIN st_b ON st_a.k = st_b.k '
                     'GROUP BY GROUPING SETS ((st_a.k), (st_b.w % 2))') AS grouping_sets;
SELECT mp_join_check('SELECT st_a.k, st_b.w FROM st_a JOIN st_b ON st_a.k = st_b.k FOR UPDATE OF st_a') AS for_update;
SELECT mp_join_check('SELECT st_a, st_b, st_a.ctid FROM st_a LEFT JOIN st_b ON st_a.k = st_b.k') AS whole_rows;
-- partitionwise: a join per pair of partitions
CREATE TABLE st_pa (k int, v int) PARTITION BY RANGE (k);
CREATE TABLE st_pa1 PARTITION OF st_pa FOR VALUES FROM (0) TO (50);
CREATE TABLE st_pa2 PARTITION OF st_pa FOR VALUES FROM (50) TO (100);
CREATE TABLE st_pb (k int, w int) PARTITION BY RANGE (k);
CREATE TABLE st_pb1 PARTITION OF st_pb FOR VALUES FROM (0) TO (50);
CREATE TABLE st_pb2 PARTITION OF st_pb FOR VALUES FROM (50) TO (100);
INSERT INTO st_pa SELECT g % 100, g FROM generate_series(1, 400) g;
INSERT INTO st_pb SELECT g % 100, g FROM generate_series(1, 300) g;
ANALYZE st_pa, st_pb;
SET enable_partitionwise_join = on;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
SET pg_mergepath.device = cpu;
EXPLAIN (VERBOSE, COSTS OFF) SELECT st_pa.v, st_pb.w FROM st_pa JOIN st_pb ON st_pa.k = st_pb.k;
RESET pg_mergepath.device;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SELECT mp_join_check('SELECT st_pa.v, st_pb.w, st_pa.tableoid::regclass FROM st_pa JOIN st_pb ON st_pa.k = st_pb.k') AS partitionwise;
RESET enable_partitionwise_join;
-- CREATE TABLE AS, serial and parallel (a parallel join under Gather)
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_nestloop = off;
CREATE TABLE st_ctas AS SELECT st_a.k, st_a.v, st_b.w FROM st_a JOIN st_b ON st_a.k = st_b.k;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
ALTER TABLE st_a SET (parallel_workers = 2); ALTER TABLE st_b SET (parallel_workers = 2);
SET pg_mergepath.device = cpu;
EXPLAIN (COSTS OFF) CREATE TABLE st_ctas_parallel AS SELECT st_a.k, st_a.v, st_b.w FROM st_a JOIN st_b ON st_a.k = st_b.k;
EXPLAIN (VERBOSE, COSTS OFF) SELECT st_a, st_b.w * 2, (st_a).v FROM st_a JOIN st_b ON st_a.k = st_b.k;
RESET pg_mergepath.device;
CREATE TABLE st_ctas_parallel AS SELECT st_a.k, st_a.v, st_b.w FROM st_a JOIN st_b ON st_a.k = st_b.k;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
SET pg_mergepath.enabled = off;
SELECT (SELECT count(*) FROM (TABLE st_ctas EXCEPT ALL SELECT st_a.k, st_a.v, st_b.w FROM st_a JOIN st_b ON st_a.k = st_b.k) x) AS serial_differs,
       (SELECT count(*) FROM (TABLE st_ctas_parallel EXCEPT ALL TABLE st_ctas) y) +
       (SELECT count(*) FROM (TABLE st_ctas EXCEPT ALL TABLE st_ctas_parallel) z) AS parallel_differs,
       (SELECT count(*) FROM st_ctas) AS n;
RESET pg_mergepath.enabled;

DROP TABLE n_plain, n_fk, n_inh, n_inh_c, n_part, o_plain, o_fk, o_inh, o_inh_c, o_part, st_u, st_w, g0, st_p, st_r, st_c,
           st_tree, st_a, st_b, st_pa, st_pb, st_ctas, st_ctas_parallel;
DROP TYPE st_pair;
DROP FUNCTION st_targets(text), st_differ(text, text), st_nodes(text), st_dml(text, text[]), st_explain_lines(text);
