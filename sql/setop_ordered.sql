-- setop_ordered: the MergePath SetOp node emits in key order when its key is lossless
-- columns at full width, every one after the first proven never NULL
-- (mp_setop_keys_ordered), and says so with pathkeys: the
-- Sort under an ORDER BY, a DISTINCT or a merge join disappears (parallel: a Gather over
-- the node whose combiner emits all, or a Gather Merge over the node whose participants
-- each emit in order). UNION ALL ... ORDER BY is ours too (in key order only). Every
-- ordered answer is compared with the native plan's, in order, for every operator, every
-- lossless type's odd values, NULLs, LIMIT, cursors read backwards, no worker / no
-- leader, and inputs past pg_mergepath.memory_limit. Keys that do not keep the order
-- (several columns where a later one may be NULL, ranged keys, image keys) keep the Sort.
SET pg_mergepath.min_rows = 0;
\set VERBOSITY terse

-- The settings of the parallel blocks (parallel plans win on these small tables) and of
-- the spilled ones (a limit every input passes), for the rest of the session.
CREATE FUNCTION mp_set_parallel(workers int, tuple_cost float8) RETURNS void LANGUAGE sql AS $$
  SELECT set_config('parallel_setup_cost', '0', false), set_config('parallel_tuple_cost', tuple_cost::text, false),
         set_config('min_parallel_table_scan_size', '0', false),
         set_config('max_parallel_workers_per_gather', workers::text, false)
$$;
CREATE FUNCTION mp_set_spilling() RETURNS void LANGUAGE sql AS $$
  SELECT set_config('work_mem', '64kB', false), set_config('pg_mergepath.memory_limit', '0', false)
$$;

-- mp_order_check(q): q (which ends in ORDER BY) natively and ours, as arrays in the
-- order the rows came; whether they are equal, whether the plan that made them still
-- sorts, and how a parallel node gave them (one emitter, or a Gather Merge).
CREATE FUNCTION mp_order_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  native text[];
  ours text[];
  sorts boolean := false;
  used boolean := false;
  how text := '';
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT array_agg(s::text) FROM (%s) s', q) LOOP
    IF line ~ '(^|\s)(Sort|Incremental Sort)( |$)' THEN sorts := true; END IF;
    IF line LIKE '%MergePath SetOp%' THEN used := true; END IF;
    IF line LIKE '%one combines and emits%' THEN how := ', one emitter'; END IF;
    IF line LIKE '%Gather Merge%' THEN how := ', Gather Merge'; END IF;
  END LOOP;
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  EXECUTE format('SELECT array_agg(s::text) FROM (%s) s', q) INTO native;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  EXECUTE format('SELECT array_agg(s::text) FROM (%s) s', q) INTO ours;
  RETURN format('%s rows, %s%s%s%s', coalesce(cardinality(native), 0),
                CASE WHEN native IS NOT DISTINCT FROM ours THEN 'same order' ELSE 'DIFFERENT' END,
                CASE WHEN sorts THEN ', sorted above' ELSE ', no sort' END,
                CASE WHEN used THEN '' ELSE ', native plan' END, how);
END $$;

-- The plans: no Sort above the node; its EXPLAIN says the order.
SELECT * FROM mp_explain('SELECT a FROM ta UNION SELECT a FROM tb ORDER BY a');
SELECT * FROM mp_explain('SELECT b FROM ta INTERSECT ALL SELECT b FROM tb ORDER BY 1 LIMIT 3');
-- descending, NULLS FIRST, or two columns that may be NULL: sorted above
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT SELECT a FROM tb ORDER BY a DESC');
SELECT * FROM mp_explain('SELECT a, b FROM ta INTERSECT SELECT a, b FROM tb ORDER BY a, b');

-- Every operator over the shared inputs (NULLs included), ascending.
SELECT op, col, mp_order_check(format('SELECT %s FROM ta %s SELECT %s FROM tb ORDER BY 1', col, op, col))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT'), ('UNION')) o(op),
     (VALUES ('a'), ('b')) c(col)
ORDER BY op, col;
-- the other orders keep a Sort and the same answer
SELECT mp_order_check('SELECT a FROM ta UNION SELECT a FROM tb ORDER BY a DESC');
SELECT mp_order_check('SELECT a FROM ta UNION SELECT a FROM tb ORDER BY a NULLS FIRST');
SELECT mp_order_check('SELECT a, b FROM ta UNION SELECT a, b FROM tb ORDER BY a, b');
SELECT mp_order_check('SELECT c FROM ta UNION SELECT c FROM tb ORDER BY c');

-- Every lossless type with its odd values: the key's order is the type's order.
SELECT typ, mp_order_check(typed_query(typ, 'UNION') || ' ORDER BY 1') AS union_order,
       mp_order_check(typed_query(typ, 'INTERSECT ALL') || ' ORDER BY 1') AS intersect_all_order
FROM (VALUES ('bool'), ('"char"'), ('int2'), ('int4'), ('int8'), ('oid'), ('money'), ('date'), ('time'),
             ('timestamp'), ('timestamptz'), ('uuid'), ('mp_posint')) t(typ)
ORDER BY typ;
-- "char" bytes past 0x7f (from integers: -128 is 0x80, -1 is 0xff) sort after the others
SELECT mp_order_check('SELECT x::"char" FROM (VALUES (-128), (97), (-1), (NULL), (1)) l(x)
                       UNION SELECT x::"char" FROM (VALUES (127), (-2), (0)) r(x) ORDER BY 1');
SELECT mp_order_check('SELECT x::pg_lsn FROM (VALUES (''0/0''), (''FFFFFFFF/FFFFFFFF''), (''8000000/1'')) l(x)
                       UNION SELECT ''1/1''::pg_lsn ORDER BY 1');

-- Above the node: DISTINCT, LIMIT / OFFSET, a merge join, a cursor read backwards.
SELECT * FROM mp_explain('SELECT DISTINCT a FROM (SELECT a FROM ta INTERSECT ALL SELECT a FROM tb) s');
SELECT mp_order_check('SELECT DISTINCT a FROM (SELECT a FROM ta INTERSECT ALL SELECT a FROM tb) s ORDER BY a');
SELECT a FROM ta EXCEPT ALL SELECT a FROM tb ORDER BY a LIMIT 4 OFFSET 100;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT * FROM mp_explain('SELECT u.a, tc.c FROM (SELECT a FROM ta UNION SELECT a FROM tb) u
                          JOIN tc ON tc.a = u.a ORDER BY u.a');
SELECT count(*), sum(u.a) FROM (SELECT a FROM ta UNION SELECT a FROM tb) u JOIN tc ON tc.a = u.a;
RESET enable_hashjoin;
RESET enable_nestloop;
BEGIN;
DECLARE ord_cur SCROLL CURSOR FOR SELECT b FROM ta UNION SELECT b FROM tb ORDER BY b;
FETCH 3 FROM ord_cur;
FETCH BACKWARD 2 FROM ord_cur;
MOVE LAST IN ord_cur;
FETCH BACKWARD 2 FROM ord_cur;
COMMIT;

-- UNION ALL ... ORDER BY (PostgreSQL makes a simple UNION ALL an appendrel): ours in key
-- order, each input sorted and merged (Merge Path); unordered it stays an Append, and
-- so do keys that keep no order.
SELECT * FROM mp_explain('SELECT b FROM ta UNION ALL SELECT b FROM tb ORDER BY b');
SELECT * FROM mp_explain('SELECT b FROM ta UNION ALL SELECT b FROM tb');
SELECT * FROM mp_explain('SELECT c FROM ta UNION ALL SELECT c FROM tb ORDER BY c');
SELECT col, mp_order_check(format('SELECT %s FROM ta UNION ALL SELECT %s FROM tb ORDER BY 1', col, col))
FROM (VALUES ('a'), ('b'), ('c'), ('a, b')) c(col) ORDER BY col;
SELECT typ, mp_order_check(typed_query(typ, 'UNION ALL') || ' ORDER BY 1') AS union_all_order
FROM (VALUES ('bool'), ('"char"'), ('int2'), ('int8'), ('oid'), ('money'), ('date'), ('timestamptz'), ('uuid')) t(typ)
ORDER BY typ;
-- three inputs (the first and an Append of the others), in a subquery, under LIMIT
SELECT mp_order_check('SELECT a FROM ta UNION ALL SELECT a FROM tb UNION ALL SELECT a + 3 FROM ta ORDER BY a');
SELECT mp_order_check('SELECT * FROM (SELECT b FROM ta UNION ALL SELECT b FROM tb) s WHERE b IS NOT NULL ORDER BY b');
SELECT mp_order_check('SELECT a FROM ta UNION ALL SELECT a FROM tb ORDER BY a LIMIT 7');

-- Parallel plans in key order, two ways. Usually a Gather over the node whose combiner
-- emits every result: read in parallel, emitted in order by one process (no tuple
-- queue when the leader combines). Or, where tuple queues cost little against emitting
-- (parallel_tuple_cost 0 below), a Gather Merge over the node whose participants each
-- emit the batches they claim, in order.
-- (parallel_setup_cost 0: the parallel paths win on these small tables; full-width
-- keys: ranged ones would be cheaper, unordered, and win)
SELECT mp_set_parallel(4, 0.01);
SET pg_mergepath.ranged_keys = off;
CREATE TABLE ord_l AS SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE g::int8 * 7919 % 40000 - 20000 END AS k
  FROM generate_series(1, 60000) g;
CREATE TABLE ord_r AS SELECT CASE WHEN g % 89 = 0 THEN NULL ELSE g::int8 * 104729 % 50000 - 25000 END AS k
  FROM generate_series(1, 50000) g;
ANALYZE ord_l, ord_r;
-- one emitter
SELECT * FROM mp_explain('SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r ORDER BY k');
SELECT * FROM mp_explain('SELECT DISTINCT k FROM (SELECT k FROM ord_l INTERSECT ALL SELECT k FROM ord_r) s');
SELECT op, mp_order_check(format('SELECT k FROM ord_l %s SELECT k FROM ord_r ORDER BY k', op))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT'), ('UNION'), ('UNION ALL')) o(op) ORDER BY op;
SELECT op, mp_order_check(format('SELECT DISTINCT k FROM (SELECT k FROM ord_l %s SELECT k FROM ord_r) s ORDER BY k', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT ALL'), ('UNION')) o(op) ORDER BY op;
SET max_parallel_workers = 0;
SELECT mp_order_check('SELECT DISTINCT k FROM (SELECT k FROM ord_l UNION SELECT k + 1 FROM ord_r) s ORDER BY k');
SELECT mp_order_check('SELECT k FROM ord_l EXCEPT ALL SELECT k FROM ord_r ORDER BY k');
RESET max_parallel_workers;
-- the leader does not take part: a worker combines and emits through its tuple queue
SET parallel_leader_participation = off;
SELECT regexp_replace(e, 'worker \d+', 'worker N') AS e
FROM mp_explain('SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r ORDER BY k',
                'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') e WHERE e ~ 'Gather|Parallel:|Emitted|Combined By';
SELECT op, mp_order_check(format('SELECT k FROM ord_l %s SELECT k FROM ord_r ORDER BY k', op))
FROM (VALUES ('UNION'), ('UNION ALL')) o(op) ORDER BY op;
RESET parallel_leader_participation;
-- every participant emits, under a Gather Merge
SET parallel_tuple_cost = 0;
SET cpu_tuple_cost = 0.05;
SELECT * FROM mp_explain('SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r ORDER BY k');
SELECT op, mp_order_check(format('SELECT k FROM ord_l %s SELECT k FROM ord_r ORDER BY k', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT'), ('UNION'), ('UNION ALL')) o(op) ORDER BY op;
SET parallel_leader_participation = off;
SELECT op, mp_order_check(format('SELECT k FROM ord_l %s SELECT k FROM ord_r ORDER BY k', op))
FROM (VALUES ('INTERSECT'), ('UNION ALL')) o(op) ORDER BY op;
RESET parallel_leader_participation;
-- A LIMIT under a correlated subquery: each rescan reads further than the one before.
-- PostgreSQL re-launches the workers of a rescanned Gather with the first execution's
-- tuple bound (rescan_bound.h): a worker stopped inside the batch it claimed, and the
-- rest of that batch was lost (rows skipped under a Gather Merge, too few under a
-- Gather). The rescanned workers now run unbounded. Under a Gather Merge ...
SELECT mp_order_check('SELECT x, (SELECT array_agg(k) FROM (SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r
                        ORDER BY k LIMIT 199 + x) s)[199:] FROM generate_series(1, 3) x');
SELECT mp_order_check('SELECT x, (SELECT array_agg(k) FROM (SELECT k FROM ord_l INTERSECT ALL SELECT k FROM ord_r
                        ORDER BY k OFFSET 150 LIMIT 3 * x) s) FROM generate_series(1, 3) x');
SET parallel_leader_participation = off;
SELECT mp_order_check('SELECT x, (SELECT array_agg(k) FROM (SELECT k FROM ord_l UNION SELECT k FROM ord_r
                        ORDER BY k LIMIT 3 * x) s) FROM generate_series(1, 3) x');
-- ... under a Gather, unordered: the count is the LIMIT's
SELECT * FROM mp_explain('SELECT (SELECT count(*) FROM (SELECT k FROM ord_l EXCEPT ALL SELECT k FROM ord_r
                          LIMIT 1000 * x * x) s) FROM generate_series(1, 3) x');
SELECT x, (SELECT count(*) FROM (SELECT k FROM ord_l EXCEPT ALL SELECT k FROM ord_r LIMIT 1000 * x * x) s) AS n
FROM generate_series(1, 3) x;
-- ... with every participant emitting (two columns: no order, so no one-emitter plan)
SELECT * FROM mp_explain('SELECT (SELECT count(*) FROM (SELECT k, k FROM ord_l EXCEPT ALL SELECT k, k FROM ord_r
                          LIMIT 1000 * x * x) s) FROM generate_series(1, 3) x');
SELECT x, (SELECT count(*) FROM (SELECT k, k FROM ord_l EXCEPT ALL SELECT k, k FROM ord_r LIMIT 1000 * x * x) s) AS n
FROM generate_series(1, 3) x;
RESET parallel_leader_participation;
-- ... and with one emitter
RESET cpu_tuple_cost;
SET parallel_tuple_cost = 0.01;
SELECT mp_order_check('SELECT x, (SELECT array_agg(k) FROM (SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r
                        ORDER BY k LIMIT 199 + x) s)[199:] FROM generate_series(1, 3) x');

-- Past pg_mergepath.memory_limit: key ranges in order (a key repeated past the limit
-- streamed), serial and parallel.
INSERT INTO ord_l SELECT 77 FROM generate_series(1, 30000);
INSERT INTO ord_r SELECT 77 FROM generate_series(1, 20000);
ANALYZE ord_l, ord_r;
SELECT mp_set_spilling();
SELECT op, mp_spill_summary(format('SELECT k FROM ord_l %s SELECT k FROM ord_r', op)),
       mp_order_check(format('SELECT DISTINCT k FROM (SELECT k FROM ord_l %s SELECT k FROM ord_r) s ORDER BY k', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT ALL'), ('UNION')) o(op) ORDER BY op;
SELECT mp_spill_summary('SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r ORDER BY k'),
       mp_order_check('SELECT k FROM ord_l UNION ALL SELECT k FROM ord_r ORDER BY k');
SET max_parallel_workers_per_gather = 0;
SELECT op, mp_order_check(format('SELECT k FROM ord_l %s SELECT k FROM ord_r ORDER BY k', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT'), ('UNION'), ('UNION ALL')) o(op) ORDER BY op;
RESET ALL;
DROP TABLE ord_l, ord_r;

-- Several columns: in key order when every column after the first is proven never NULL
-- in every input (not_null.h: a NOT NULL table column, read directly or through a
-- subquery without outer joins or grouping sets); the first may hold NULLs (last).
SET pg_mergepath.min_rows = 0;
CREATE TABLE mo_a (a int4 NOT NULL, b int8 NOT NULL, c int4, d date NOT NULL);
CREATE TABLE mo_b (a int4 NOT NULL, b int8 NOT NULL, c int4, d date NOT NULL);
INSERT INTO mo_a SELECT g % 37 - 18, (g % 11 - 5) * 3000000000, CASE WHEN g % 9 = 0 THEN NULL ELSE g % 5 END,
    date '2020-01-01' + g % 13 FROM generate_series(1, 3000) g;
INSERT INTO mo_b SELECT g % 41 - 20, (g % 7 - 3) * 3000000000, CASE WHEN g % 4 = 0 THEN NULL ELSE g % 6 END,
    date '2020-01-01' + g % 17 FROM generate_series(1, 2500) g;
ANALYZE mo_a, mo_b;
SELECT op, cols, mp_order_check(format('SELECT %2$s FROM mo_a %1$s SELECT %2$s FROM mo_b ORDER BY %2$s', op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT'), ('UNION'), ('UNION ALL')) o(op),
     (VALUES ('a, b'), ('b, a, d'), ('c, a'), ('c, d, a')) c(cols)
ORDER BY op, cols;
-- through subqueries (pulled up or not), and three inputs; then not proven, so sorted
-- above (and the same rows): a nullable later column, an outer join below
-- (conservatively, even on its preserved side), grouping sets (which emit NULLs), an
-- expression, a constant NULL
SELECT what, mp_order_check(q) FROM (VALUES
  (1, 'pulled-up subquery', 'SELECT a, b FROM (SELECT a, b FROM mo_a WHERE c > 1) s INTERSECT SELECT a, b FROM mo_b ORDER BY 1, 2'),
  (2, 'subquery', 'SELECT a, b FROM (SELECT DISTINCT a, b FROM mo_a LIMIT 1000) s EXCEPT ALL SELECT a, b FROM mo_b ORDER BY 1, 2'),
  (3, 'three inputs', 'SELECT a, d FROM mo_a UNION SELECT a, d FROM mo_b UNION SELECT a + 100, d FROM mo_a ORDER BY 1, 2'),
  (4, 'nullable column', 'SELECT a, c FROM mo_a UNION SELECT a, c FROM mo_b ORDER BY 1, 2'),
  (5, 'outer join', 'SELECT x.a, x.b FROM mo_a x LEFT JOIN mo_b y ON x.a = y.a AND y.c = 1 UNION SELECT a, b FROM mo_b ORDER BY 1, 2'),
  (6, 'grouping sets', 'SELECT a, b FROM mo_a GROUP BY GROUPING SETS ((a, b), (a)) UNION SELECT a, b FROM mo_b ORDER BY 1, 2'),
  (7, 'expression', 'SELECT a, b + 1 FROM mo_a INTERSECT SELECT a, b FROM mo_b ORDER BY 1, 2'),
  (8, 'NULL constant', 'SELECT a, NULL::int8 FROM mo_a UNION SELECT a, b FROM mo_b ORDER BY 1, 2')) v(i, what, q)
ORDER BY i;
-- parallel (a Gather Merge, or one emitter) and over the memory limit
SELECT mp_set_parallel(2, 0);
SELECT op, mp_order_check(format('SELECT c, a, b FROM mo_a %s SELECT c, a, b FROM mo_b ORDER BY 1, 2, 3', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT'), ('UNION'), ('UNION ALL')) o(op) ORDER BY op;
SET max_parallel_workers_per_gather = 0;
INSERT INTO mo_a SELECT * FROM mo_a;
INSERT INTO mo_a SELECT * FROM mo_a;
INSERT INTO mo_b SELECT a + 3, b, c, d FROM mo_b;
INSERT INTO mo_b SELECT a - 5, b, c, d FROM mo_b;
ANALYZE mo_a, mo_b;
SELECT mp_set_spilling();
SELECT op, mp_spill_summary(format('SELECT c, a, b FROM mo_a %s SELECT c, a, b FROM mo_b', op)),
       mp_order_check(format('SELECT c, a, b FROM mo_a %s SELECT c, a, b FROM mo_b ORDER BY 1, 2, 3', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT'), ('UNION')) o(op) ORDER BY op;
RESET ALL;
-- not proven: an inheritance parent whose child dropped the inherited NOT NULL
SET pg_mergepath.min_rows = 0;
CREATE TABLE mo_child () INHERITS (mo_a);
ALTER TABLE mo_child ALTER b DROP NOT NULL;
INSERT INTO mo_child VALUES (1, NULL, 1, '2020-01-01'), (1, 7, 1, '2020-01-01');
SELECT op, mp_order_check(format('SELECT a, b FROM mo_a %s SELECT a, b FROM mo_b ORDER BY 1, 2', op))
FROM (VALUES ('UNION'), ('UNION ALL'), ('INTERSECT ALL')) o(op) ORDER BY op;
RESET ALL;
DROP TABLE mo_child, mo_a, mo_b;
DROP FUNCTION mp_order_check(text);
