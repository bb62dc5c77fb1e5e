-- setop_hash: hashed keys are verified with the equality operators. With
-- pg_mergepath.debug_hash_bits the row hashes keep only a few bits, so different
-- rows collide for sure; the node must notice and recompute exactly (EXPLAIN ANALYZE
-- says so), never return a wrong row. (Image keys, which these columns get by
-- default, are tested in setop_images.)
SET pg_mergepath.min_rows = 0;
SET pg_mergepath.image_keys = off;

CREATE TABLE hl AS SELECT 'k' || (g % 50) AS t, (g % 50) / 10.0 AS n, g % 7 AS i
  FROM generate_series(1, 1000) g;
CREATE TABLE hr AS SELECT 'k' || (g % 70) AS t, (g % 70) / 10.00 AS n, g % 5 AS i
  FROM generate_series(1, 700) g;
INSERT INTO hl VALUES (NULL, NULL, NULL), ('k1', NULL, 1), (NULL, 0.1, NULL);
INSERT INTO hr VALUES (NULL, NULL, NULL), ('k1', NULL, 1), ('k1', NULL, 1);
ANALYZE hl, hr;

-- Full hashes: the check passes.
SELECT line FROM mp_explain('SELECT t FROM hl INTERSECT ALL SELECT t FROM hr',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line WHERE line ~ 'Hash Check';

-- 2-bit hashes: collisions everywhere; recomputed exactly.
SET pg_mergepath.debug_hash_bits = 2;
SELECT line FROM mp_explain('SELECT t FROM hl INTERSECT ALL SELECT t FROM hr',
                            'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line WHERE line ~ 'Hash Check|Rows Emitted';
SELECT op, col, mp_check(format('SELECT %s FROM hl %s SELECT %s FROM hr', col, op, col))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('t'), ('n'), ('t, n'), ('t, n, i')) c(col)
ORDER BY op, col;
SELECT t, count(*) FROM (SELECT t FROM hl EXCEPT ALL SELECT t FROM hr) s GROUP BY t ORDER BY t LIMIT 5;
SELECT count(*) FROM (SELECT t, n, i FROM hl INTERSECT SELECT t, n, i FROM hr) s;

-- 1 bit, only collisions inside one side (no hash shared with the other side).
SET pg_mergepath.debug_hash_bits = 1;
SELECT mp_check('SELECT t FROM hl WHERE t < ''k3'' EXCEPT ALL SELECT t FROM hr WHERE t > ''k6''');
SELECT mp_check('SELECT t FROM hl INTERSECT SELECT t FROM hr WHERE t = ''k1''');

-- numeric 1.0 = 1.00 and text equality hold after a collision too.
SELECT x = 1 AS is_one, count(*) FROM (SELECT x FROM (VALUES (1.0), (1.00), (2.5), (3)) l(x)
  INTERSECT ALL SELECT x FROM (VALUES (1.000), (1), (1), (2.50)) r(x)) s GROUP BY 1 ORDER BY 1;
RESET pg_mergepath.debug_hash_bits;
