-- setop_nested: the node at any depth of a query: nested and parenthesised set
-- operations, mixed with UNION, with ORDER BY / LIMIT / aggregates above, in CTEs,
-- subqueries, views, DML, prepared statements, cursors, functions, and under rescans
-- (correlated subqueries, nested loops).
SET pg_mergepath.min_rows = 0;

CREATE TABLE tc AS SELECT g % 4 AS a, (g % 3)::int8 * 1000000000000 AS b, 'v' || (g % 2) AS c
  FROM generate_series(1, 40) g;
ANALYZE tc;

-- Nested and parenthesised: every INTERSECT / EXCEPT / UNION level is ours (setop_union
-- has more), UNION ALL is an Append.
SELECT * FROM mp_explain('(SELECT a FROM ta INTERSECT SELECT a FROM tb) EXCEPT SELECT a FROM tc');
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT ALL (SELECT a FROM tb INTERSECT ALL SELECT a FROM tc)');
SELECT * FROM mp_explain('(SELECT a FROM ta UNION SELECT a FROM tb) INTERSECT SELECT a FROM tc');
SELECT mp_check('(SELECT a FROM ta INTERSECT SELECT a FROM tb) EXCEPT SELECT a FROM tc');
SELECT mp_check('SELECT a FROM ta EXCEPT ALL (SELECT a FROM tb INTERSECT ALL SELECT a FROM tc)');
SELECT mp_check('((SELECT a, b FROM ta INTERSECT ALL SELECT a, b FROM tb) INTERSECT ALL SELECT a, b FROM tc) EXCEPT ALL SELECT a, b FROM tc WHERE a = 1');
SELECT mp_check('(SELECT a FROM ta UNION ALL SELECT a FROM tb) INTERSECT ALL SELECT a FROM tc');
SELECT mp_check('SELECT a FROM ta INTERSECT SELECT a FROM tb UNION SELECT a FROM tc');
SELECT mp_check('SELECT c FROM ta EXCEPT (SELECT c FROM tb EXCEPT SELECT c FROM tc)');
-- branches of different types are coerced below the node
SELECT mp_check('SELECT a FROM ta INTERSECT ALL SELECT b / 1000000000000 FROM tb');
SELECT mp_check('SELECT a::numeric FROM ta EXCEPT SELECT b / 1000000000000.0 FROM tb');
SELECT pg_typeof(x) FROM (SELECT 1::int2 AS x INTERSECT SELECT 1::int8) s;

-- ORDER BY, LIMIT, aggregates above; CTEs; subqueries; IN / EXISTS.
SELECT a FROM ta INTERSECT SELECT a FROM tb ORDER BY a DESC LIMIT 3;
SELECT a FROM ta EXCEPT ALL SELECT a FROM tb ORDER BY a LIMIT 4 OFFSET 100;
SELECT count(*), count(DISTINCT a), sum(a) FROM (SELECT a FROM ta INTERSECT ALL SELECT a FROM tb) s;
WITH x AS (SELECT a, b FROM ta INTERSECT ALL SELECT a, b FROM tb),
     y AS MATERIALIZED (SELECT a FROM ta EXCEPT SELECT a FROM tb)
SELECT (SELECT count(*) FROM x), (SELECT array_agg(a ORDER BY a) FROM y);
SELECT a, count(*) FROM tc WHERE a IN (SELECT a FROM ta INTERSECT SELECT a FROM tb WHERE a > 1)
  GROUP BY a ORDER BY a;
SELECT count(*) FROM tc WHERE EXISTS (SELECT a FROM ta WHERE ta.a = tc.a EXCEPT SELECT a FROM tb);
SELECT * FROM mp_explain('SELECT count(*) FROM (SELECT a FROM ta INTERSECT ALL SELECT a FROM tb) s');

-- Views and DML.
CREATE VIEW v_common AS SELECT a, c FROM ta INTERSECT SELECT a, c FROM tb;
SELECT * FROM v_common ORDER BY a, c;
CREATE TABLE sink (a int4);
INSERT INTO sink SELECT a FROM ta EXCEPT ALL SELECT a FROM tb;
SELECT count(*), sum(a) FROM sink;
CREATE TABLE sink2 AS SELECT a FROM ta INTERSECT ALL SELECT a FROM tb;
SELECT count(*) FROM sink2;

-- Correlated subquery: the node is rescanned with a changed parameter each row.
SELECT x, (SELECT count(*) FROM (SELECT a FROM ta WHERE a < x INTERSECT ALL SELECT a FROM tb) s)
FROM generate_series(0, 6) x ORDER BY x;
SELECT x, (SELECT count(*) FROM (SELECT a FROM ta INTERSECT SELECT a FROM tb WHERE a <> x) s)
FROM generate_series(1, 3) x ORDER BY x;
-- LATERAL
SELECT x, s.n FROM generate_series(1, 3) x,
  LATERAL (SELECT count(*) AS n FROM (SELECT a FROM ta WHERE a >= x EXCEPT ALL SELECT a FROM tb) e) s
ORDER BY x;
-- Rescan without a changed parameter: the inner side of a nested loop is replayed.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM mp_explain('SELECT t.a, s.a FROM (VALUES (1), (2), (7)) t(a), (SELECT a FROM ta INTERSECT SELECT a FROM tb) s WHERE t.a = s.a');
SELECT t.a, s.a FROM (VALUES (1), (2), (7)) t(a), (SELECT a FROM ta INTERSECT SELECT a FROM tb) s
WHERE t.a = s.a ORDER BY 1;
SELECT t.a, count(*) FROM (VALUES (1), (3)) t(a), (SELECT a FROM ta WHERE a IS NULL OR a < 5
  INTERSECT ALL SELECT a FROM tb) s WHERE t.a = s.a OR s.a IS NULL GROUP BY t.a ORDER BY 1;
-- The same, for a hashed INTERSECT whose replaced plan reads the smaller right input
-- first (its rows are the groups' first rows): every replay must emit them again.
CREATE TABLE rs_big AS SELECT (i % 50)::text AS t FROM generate_series(1, 5000) i;
CREATE TABLE rs_small AS SELECT (i % 25)::text AS t FROM generate_series(1, 20) i;
CREATE TABLE rs_outer AS SELECT g FROM generate_series(1, 3) g;
ANALYZE rs_big, rs_small, rs_outer;
SELECT count(s.t) FROM rs_outer o LEFT JOIN (SELECT t FROM rs_big INTERSECT SELECT t FROM rs_small) s
  ON o.g::text <> s.t;
SET pg_mergepath.enabled = off;
SELECT count(s.t) FROM rs_outer o LEFT JOIN (SELECT t FROM rs_big INTERSECT SELECT t FROM rs_small) s
  ON o.g::text <> s.t;
SET pg_mergepath.enabled = on;
DROP TABLE rs_big, rs_small, rs_outer;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- Prepared statements, custom and generic plans.
PREPARE p1(int) AS SELECT a FROM ta WHERE a >= $1 INTERSECT ALL SELECT a FROM tb;
EXECUTE p1(3);
SELECT count(*) FROM ta WHERE a >= 3;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM mp_explain('EXECUTE p1(4)');
SELECT count(*), min(a), max(a) FROM (SELECT a FROM ta WHERE a >= 4 INTERSECT ALL SELECT a FROM tb) s;
EXECUTE p1(4);
RESET plan_cache_mode;
DEALLOCATE p1;

-- Cursors: forward fetches; SCROLL gets a Materialize above (no backward scan).
BEGIN;
DECLARE c1 CURSOR FOR SELECT a FROM ta INTERSECT SELECT a FROM tb ORDER BY 1;
FETCH 3 FROM c1;
FETCH ALL FROM c1;
DECLARE c2 SCROLL CURSOR FOR SELECT a, b FROM ta INTERSECT SELECT a, b FROM tb;
FETCH 2 FROM c2;
FETCH BACKWARD 1 FROM c2;
MOVE LAST IN c2;
FETCH BACKWARD 1 FROM c2;
COMMIT;

-- SQL and PL/pgSQL functions.
CREATE FUNCTION common_count(lo int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM (SELECT a FROM ta WHERE a >= lo INTERSECT ALL SELECT a FROM tb) s);
END $$;
SELECT common_count(0), common_count(3), common_count(10);

