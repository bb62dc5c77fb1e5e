-- setop_basic: the four operators on small inputs, their exact multiplicities, NULLs,
-- empty inputs, heavy duplicates and multi-column rows; every result compared with
-- the native plan (mp_check) and the node's use asserted.
SET pg_mergepath.min_rows = 0;

-- Each operator uses the node and returns what nodeSetOp.c returns.
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT ALL SELECT a FROM tb');
SELECT a, count(*) FROM (SELECT a FROM ta INTERSECT ALL SELECT a FROM tb) s GROUP BY a ORDER BY a;
SELECT a, count(*) FROM (SELECT a FROM ta INTERSECT SELECT a FROM tb) s GROUP BY a ORDER BY a;
SELECT a, count(*) FROM (SELECT a FROM ta EXCEPT ALL SELECT a FROM tb) s GROUP BY a ORDER BY a;
SELECT a, count(*) FROM (SELECT a FROM ta EXCEPT SELECT a FROM tb) s GROUP BY a ORDER BY a;
-- the other direction
SELECT a, count(*) FROM (SELECT a FROM tb EXCEPT ALL SELECT a FROM ta) s GROUP BY a ORDER BY a;
SELECT a, count(*) FROM (SELECT a FROM tb INTERSECT ALL SELECT a FROM ta) s GROUP BY a ORDER BY a;

-- Same multisets as the native plan, per operator and column kind.
SELECT op, col, mp_check(format('SELECT %s FROM ta %s SELECT %s FROM tb', col, op, col))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('a'), ('b'), ('c'), ('a, b'), ('b, a'), ('a, c'), ('a, b, c')) c(col)
ORDER BY op, col;

-- NULL = NULL: (NULL) has 2 copies left, 1 right; (NULL, 5) 1 left, 2 right.
SELECT a, b, count(*) FROM (SELECT a, b FROM ta INTERSECT ALL SELECT a, b FROM tb) s
WHERE a IS NULL OR b IS NULL GROUP BY a, b ORDER BY a, b;
SELECT a, b, count(*) FROM (SELECT a, b FROM ta EXCEPT ALL SELECT a, b FROM tb) s
WHERE a IS NULL OR b IS NULL GROUP BY a, b ORDER BY a, b;
SELECT a FROM ta WHERE a IS NULL INTERSECT SELECT a FROM tb WHERE a IS NULL;
SELECT count(*) FROM (SELECT NULL::int AS x EXCEPT ALL SELECT NULL::int) s;
SELECT count(*) FROM (SELECT NULL::int AS x UNION ALL SELECT NULL EXCEPT ALL SELECT NULL::int) s;

-- Empty inputs.
SELECT mp_check('SELECT a FROM ta WHERE false INTERSECT ALL SELECT a FROM tb');
SELECT mp_check('SELECT a FROM ta INTERSECT ALL SELECT a FROM tb WHERE false');
SELECT mp_check('SELECT a FROM ta EXCEPT ALL SELECT a FROM tb WHERE false');
SELECT mp_check('SELECT a FROM ta WHERE false EXCEPT SELECT a FROM tb WHERE false');
SELECT mp_check('SELECT a FROM ta WHERE a > 100 EXCEPT SELECT a FROM tb');
SELECT a FROM ta WHERE a > 100 INTERSECT SELECT a FROM tb;

-- Heavy duplicates: 3 keys, thousands of copies each.
CREATE TABLE dup_l AS SELECT (g % 3)::int8 AS k FROM generate_series(1, 30000) g;
CREATE TABLE dup_r AS SELECT (g % 4)::int8 AS k FROM generate_series(1, 20000) g;
ANALYZE dup_l, dup_r;
SELECT k, count(*) FROM (SELECT k FROM dup_l INTERSECT ALL SELECT k FROM dup_r) s GROUP BY k ORDER BY k;
SELECT k, count(*) FROM (SELECT k FROM dup_l EXCEPT ALL SELECT k FROM dup_r) s GROUP BY k ORDER BY k;
SELECT k, count(*) FROM (SELECT k FROM dup_r EXCEPT ALL SELECT k FROM dup_l) s GROUP BY k ORDER BY k;
SELECT k FROM dup_l INTERSECT SELECT k FROM dup_r ORDER BY k;
SELECT k FROM dup_r EXCEPT SELECT k FROM dup_l ORDER BY k;

-- Larger, more than one library batch (256k keys) per side (tables from setop_setup).
SELECT mp_check('SELECT k FROM big_l INTERSECT ALL SELECT k FROM big_r');
SELECT mp_check('SELECT k FROM big_l EXCEPT ALL SELECT k FROM big_r');
SELECT mp_check('SELECT k, m FROM big_l INTERSECT SELECT k, m FROM big_r');
SELECT mp_check('SELECT k, m FROM big_r EXCEPT SELECT k, m FROM big_l');

-- Multi-column rows: lossless keys up to 128 bits, hashed beyond.
SELECT mp_keys('SELECT 1::int2, 2::int2 INTERSECT SELECT 1::int2, 2::int2');
SELECT mp_keys('SELECT 1::int4 INTERSECT SELECT 1::int4');
SELECT mp_keys('SELECT 1::int8 INTERSECT SELECT 1::int8');
SELECT mp_keys('SELECT 1::int8, 2::int4 INTERSECT SELECT 1::int8, 2::int4');
SELECT mp_keys('SELECT 1::int8, 2::int8 INTERSECT SELECT 1::int8, 2::int8');
SELECT mp_keys('SELECT 1::int8, 2::int8, true INTERSECT SELECT 1::int8, 2::int8, true');
SELECT mp_keys('SELECT 1::int4, ''x''::text INTERSECT SELECT 1::int4, ''x''::text');
SELECT mp_check('SELECT k, k * 2 AS k2, m = 1 AS m1 FROM big_l INTERSECT ALL SELECT k, k * 2, m = 1 FROM big_r');
SELECT x, y FROM (VALUES (-1::int8, -2::int4), (9223372036854775807, -2147483648), (0, 0), (0, 0))
  AS l(x, y)
INTERSECT ALL
SELECT x, y FROM (VALUES (-1::int8, -2::int4), (9223372036854775807, -2147483648), (0, 0), (1, 0))
  AS r(x, y)
ORDER BY 1, 2;

-- The first-seen left row of a group is output (like nodeSetOp), values are exact.
SELECT c FROM ta INTERSECT SELECT c FROM tb ORDER BY c;
SELECT c FROM ta EXCEPT ALL SELECT c FROM tb ORDER BY c LIMIT 5;
