-- setop_union: UNION (distinct) as a strategy of the MergePath SetOp node, compared with
-- the native plan (HashAggregate or Sort + Unique over an Append) for every key kind,
-- the types' odd values (NULLs equal, NaN = NaN, -0 = 0, 1.0 = 1.00, char(n) blanks,
-- collations), empty and all-duplicate inputs, UNIONs of more than two inputs, nested
-- trees mixing UNION with INTERSECT / EXCEPT, parallel plans (also with no worker and
-- with no leader), and inputs past pg_mergepath.memory_limit (sorted runs, hash
-- partitions, a key repeated past the limit). UNION ALL stays an Append.
SET pg_mergepath.min_rows = 0;
\set VERBOSITY terse

-- The plan: one node over both inputs, no Append, no aggregate.
SELECT * FROM mp_explain('SELECT a FROM ta UNION SELECT a FROM tb');
SELECT * FROM mp_explain('SELECT a, b, c FROM ta UNION SELECT a, b, c FROM tb');
SELECT * FROM mp_explain('SELECT a FROM ta UNION ALL SELECT a FROM tb');

-- Every column set of the shared inputs (32-, 64-, 128-bit keys, image keys; NULLs).
SELECT cols, mp_keys(format('SELECT %s FROM ta UNION SELECT %s FROM tb', cols, cols)) AS keys,
       mp_check(format('SELECT %s FROM ta UNION SELECT %s FROM tb', cols, cols))
FROM (VALUES ('a'), ('b'), ('c'), ('a, b'), ('a, c'), ('a, b, c'), ('b, a')) c(cols)
ORDER BY cols;

-- Every type of setop_types with its odd values, against the native plan.
SELECT typ, mp_keys(typed_query(typ, 'UNION')) AS keys, mp_check(typed_query(typ, 'UNION'))
FROM (SELECT DISTINCT typ FROM raw) t ORDER BY typ;

-- Visible odd values: NaN = NaN, -0 = 0 (one row each), NULLs equal.
SELECT x FROM (VALUES ('NaN'::float8), ('-0'::float8), (NULL), (1.5)) l(x)
UNION
SELECT x FROM (VALUES ('NaN'::float8), ('0'::float8), (NULL), ('Infinity')) r(x)
ORDER BY 1;

-- Equal values that print differently (char(3) and char(5) keep their own padding): the
-- row a HashAggregate emits is a group's first row read (the left input's when it has
-- one). Native and ours print the same.
SET pg_mergepath.device = cpu;
CREATE TABLE un_repr_a (n numeric, f float8, t char(3));
CREATE TABLE un_repr_b (n numeric, f float8, t char(5));
INSERT INTO un_repr_a VALUES (1.0, '-0', 'a'), (1.00, '-0', 'a '), (2.50, 'NaN', 'b');
INSERT INTO un_repr_b VALUES (1, '0', 'a  '), (2.5, 'NaN', 'c'), (3.000, '-NaN', 'c ');
ANALYZE un_repr_a, un_repr_b;
SET pg_mergepath.enabled = off;
SELECT n::text, f::text FROM (SELECT n, f FROM un_repr_a UNION SELECT n, f FROM un_repr_b) s ORDER BY 1, 2;
SELECT n::text FROM (SELECT n FROM un_repr_b UNION SELECT n FROM un_repr_a) s ORDER BY 1;
SELECT t::text, octet_length(t) FROM (SELECT t FROM un_repr_a UNION SELECT t FROM un_repr_b) s ORDER BY 1;
SET pg_mergepath.enabled = on;
SELECT n::text, f::text FROM (SELECT n, f FROM un_repr_a UNION SELECT n, f FROM un_repr_b) s ORDER BY 1, 2;
SELECT n::text FROM (SELECT n FROM un_repr_b UNION SELECT n FROM un_repr_a) s ORDER BY 1;
SELECT t::text, octet_length(t) FROM (SELECT t FROM un_repr_a UNION SELECT t FROM un_repr_b) s ORDER BY 1;
SELECT * FROM mp_explain('SELECT n, f FROM un_repr_a UNION SELECT n, f FROM un_repr_b');
DROP TABLE un_repr_a, un_repr_b;
RESET pg_mergepath.device;

-- Collations: deterministic ones are exact; a nondeterministic one keeps the native plan.
SELECT mp_check('SELECT c COLLATE "C" FROM ta UNION SELECT c COLLATE "C" FROM tb');
SELECT mp_keys('SELECT c COLLATE mp_ci FROM ta UNION SELECT c COLLATE mp_ci FROM tb');

-- Empty and all-duplicate inputs, on either side or both.
SELECT mp_check('SELECT a FROM ta WHERE false UNION SELECT a FROM tb');
SELECT mp_check('SELECT a FROM ta UNION SELECT a FROM tb WHERE false');
SELECT mp_check('SELECT a FROM ta WHERE false UNION SELECT a FROM tb WHERE false');
SELECT mp_check('SELECT c FROM ta WHERE false UNION SELECT c FROM tb');
SELECT mp_check('SELECT 7 AS x FROM generate_series(1, 5000) UNION SELECT 7 FROM generate_series(1, 3000)');
SELECT mp_check('SELECT ''same'' AS x FROM generate_series(1, 5000) UNION SELECT ''same'' FROM generate_series(1, 30)');
SELECT mp_check('SELECT NULL::int8 AS x FROM generate_series(1, 50) UNION SELECT NULL::int8 FROM generate_series(1, 30)');

-- More than two inputs (flattened into one list: the first, then the others in order),
-- and UNION ALL inside a UNION.
SELECT * FROM mp_explain('SELECT a FROM ta UNION SELECT a FROM tb UNION SELECT a + 1 FROM ta');
SELECT mp_check('SELECT a FROM ta UNION SELECT a FROM tb UNION SELECT a + 1 FROM ta UNION SELECT (b / 1000000000000)::int4 FROM tb');
SELECT mp_check('SELECT c FROM ta UNION SELECT c FROM tb UNION SELECT c || ''x'' FROM ta');
SELECT mp_check('SELECT a FROM ta UNION (SELECT a FROM tb UNION ALL SELECT a + 20 FROM tb)');
-- branches of different types are coerced below the node
SELECT mp_check('SELECT a FROM ta UNION SELECT b / 1000000000000 FROM tb');
SELECT pg_typeof(x) FROM (SELECT 1::int2 AS x UNION SELECT 1::int8) s;

-- Nested trees: UNION under INTERSECT / EXCEPT and above them, every level ours.
SELECT * FROM mp_explain('(SELECT a FROM ta UNION SELECT a FROM tb) INTERSECT SELECT a FROM tc');
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT SELECT a FROM tb UNION SELECT a FROM tc');
SELECT mp_check('(SELECT a FROM ta UNION SELECT a FROM tb) INTERSECT ALL SELECT a FROM tc');
SELECT mp_check('(SELECT a FROM ta UNION SELECT a FROM tb) EXCEPT SELECT a FROM tc');
SELECT mp_check('SELECT a FROM ta EXCEPT ALL (SELECT a FROM tb UNION SELECT a FROM tc)');
SELECT mp_check('SELECT c FROM ta INTERSECT SELECT c FROM tb UNION SELECT c FROM tc');
SELECT mp_check('(SELECT a, b FROM ta EXCEPT SELECT a, b FROM tb) UNION (SELECT a, b FROM tc INTERSECT SELECT a, b FROM ta)');

-- Above the node: ORDER BY, LIMIT, aggregates, a CTE, IN (a cursor: setop_ordered).
SELECT a FROM ta UNION SELECT a FROM tb ORDER BY a DESC LIMIT 3;
SELECT count(*), sum(a) FROM (SELECT a FROM ta UNION SELECT a FROM tb) s;
WITH u AS (SELECT a, c FROM ta UNION SELECT a, c FROM tb) SELECT count(*) FROM u WHERE c IS NULL;
SELECT count(*) FROM tc WHERE a IN (SELECT a FROM ta UNION SELECT a + 10 FROM tb);

-- Parallel: every participant reads its share of both inputs, one combines, all emit.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SET pg_mergepath.ranged_keys = off;
CREATE TABLE un_l AS SELECT g::int8 * 7919 % 40000 AS k,
  CASE WHEN g % 9 = 0 THEN NULL ELSE g % 50 END::int4 AS n, 'c' || (g % 3000) AS t
  FROM generate_series(1, 60000) g;
CREATE TABLE un_r AS SELECT g::int8 * 104729 % 50000 AS k,
  CASE WHEN g % 4 = 0 THEN NULL ELSE g % 70 END::int4 AS n, 'c' || (g % 4000) AS t
  FROM generate_series(1, 50000) g;
ANALYZE un_l, un_r;
SELECT * FROM mp_explain('SELECT count(*) FROM (SELECT k FROM un_l UNION SELECT k FROM un_r) s');
SELECT cols, mp_par_check(format('SELECT %s FROM un_l UNION SELECT %s FROM un_r', cols, cols))
FROM (VALUES ('k'), ('n'), ('k, n'), ('t'), ('t, n')) c(cols) ORDER BY cols;
SELECT mp_par_check('SELECT k FROM un_l UNION SELECT k FROM un_r UNION SELECT k + 1 FROM un_l');
SELECT mp_par_check('SELECT k FROM un_l WHERE k < 0 UNION SELECT k FROM un_r');
SELECT mp_check('SELECT k, n FROM un_l UNION SELECT k, n FROM un_r');
-- no worker starts; the leader does not take part
SET max_parallel_workers = 0;
SELECT mp_par_check('SELECT k, n FROM un_l UNION SELECT k, n FROM un_r');
RESET max_parallel_workers;
SET parallel_leader_participation = off;
SELECT mp_par_check('SELECT t FROM un_l UNION SELECT t FROM un_r');
SELECT mp_par_check('SELECT k FROM un_l UNION SELECT k FROM un_r');
RESET parallel_leader_participation;

-- Past pg_mergepath.memory_limit: sorted runs combined key range by key range (a key
-- repeated past the limit streamed), serial and parallel; image keys in hash partitions.
INSERT INTO un_r SELECT 4242, NULL, 'heavy' FROM generate_series(1, 30000);
INSERT INTO un_l SELECT 4242, NULL, 'heavy' FROM generate_series(1, 20000);
ANALYZE un_l, un_r;
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SET max_parallel_workers_per_gather = 0;
SELECT line FROM mp_explain('SELECT k FROM un_l UNION SELECT k FROM un_r',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
WHERE line ~ 'Operation|Rows Emitted';
SELECT cols, mp_spill_summary(format('SELECT %s FROM un_l UNION SELECT %s FROM un_r', cols, cols)),
       mp_node_check(format('SELECT %s FROM un_l UNION SELECT %s FROM un_r', cols, cols))
FROM (VALUES ('k'), ('k, n'), ('t'), ('t, n')) c(cols) ORDER BY cols;
-- only the right input past the limit, the left one empty
SELECT mp_node_check('SELECT k FROM un_l WHERE false UNION SELECT k FROM un_r');
SELECT mp_node_check('SELECT t FROM un_l WHERE false UNION SELECT t FROM un_r');
SET max_parallel_workers_per_gather = 4;
SELECT cols, mp_spill_summary(format('SELECT %s FROM un_l UNION SELECT %s FROM un_r', cols, cols)),
       mp_node_check(format('SELECT %s FROM un_l UNION SELECT %s FROM un_r', cols, cols))
FROM (VALUES ('k'), ('k, n'), ('t')) c(cols) ORDER BY cols;
RESET work_mem;
RESET pg_mergepath.memory_limit;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET pg_mergepath.ranged_keys;

-- A recursive CTE's own UNION stays PostgreSQL's; a UNION in its non-recursive term is ours.
SELECT * FROM mp_explain('WITH RECURSIVE r(x) AS ((SELECT a FROM ta UNION SELECT a FROM tb)
  UNION SELECT x + 1 FROM r WHERE x < 12) SELECT count(*) FROM r');
WITH RECURSIVE r(x) AS ((SELECT a FROM ta UNION SELECT a FROM tb)
  UNION SELECT x + 1 FROM r WHERE x < 12) SELECT count(*), sum(x) FROM r;

-- Keys that need hashing (opt-in for INTERSECT / EXCEPT) keep the native UNION.
SET pg_mergepath.hashed_keys = on;
SET pg_mergepath.image_keys = off;
SELECT mp_keys('SELECT c FROM ta UNION SELECT c FROM tb');
RESET pg_mergepath.image_keys;
RESET pg_mergepath.hashed_keys;
DROP TABLE un_l, un_r;
