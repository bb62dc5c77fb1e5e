-- join_basic: the MergePath Join node against the native plans, for every join type
-- (inner, left, right, full, semi, anti) x every kind of key we encode (int2 / int4 /
-- int8 in any mix, float4 / float8 with -0, NaN and Infinity, date, uuid, multi-column
-- keys), with NULL keys, duplicates on both sides, empty sides, all-duplicate inputs,
-- join filters and WHERE clauses on outer joins. The native join methods are turned off
-- (enable_hashjoin / mergejoin / nestloop) so that our node is chosen whenever it is
-- offered; mp_join_check runs the query natively (pg_mergepath off, native methods on)
-- and with pg_mergepath, and compares count(*) and an order-independent checksum of
-- the rows. Joins we must not take say 'native plan' (and DEBUG1 says why).
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION mp_join_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; plan text := 'native plan';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Parallel Custom Scan (MergePath Join)%' THEN RETURN 'parallel'; END IF;
    IF line LIKE '%Custom Scan (MergePath Join)%' THEN plan := 'serial'; END IF;
  END LOOP;
  RETURN plan;
END $$;

CREATE FUNCTION mp_join_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  wrapped text := format('SELECT count(*) AS n, coalesce(sum(hash_record_extended(mp_row, 0)), 0) AS h FROM (%s) mp_row', q);
  plan text;
  native record;
  ours record;
BEGIN
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  PERFORM set_config('enable_nestloop', 'on', true);
  EXECUTE wrapped INTO native;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_nestloop', 'off', true);
  plan := mp_join_plan(wrapped);
  EXECUTE wrapped INTO ours;
  RETURN mp_agree(plan, native.n, native.h, ours.n, ours.h);
END $$;

-- mp_explain_analyzed(q): q's EXPLAIN ANALYZE (no costs, timing or summary) as an object
-- of its "Label: value" lines, for tests that assert what the node did;
-- mp_explain_count(lines, label): the first number of that label's value (0 when none)
CREATE FUNCTION mp_explain_analyzed(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE line text; m text[]; lines jsonb := '{}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    m := regexp_match(line, '^\s*([A-Za-z ]+): (.*)$');
    IF m IS NOT NULL THEN lines := lines || jsonb_build_object(m[1], m[2]); END IF;
  END LOOP;
  RETURN lines;
END $$;
CREATE FUNCTION mp_explain_count(lines jsonb, label text) RETURNS bigint LANGUAGE sql AS $$
  SELECT coalesce(substring(lines ->> label FROM '^\d+')::bigint, 0)
$$;

-- the SQL of one join type over tables a and b (ja and jb unless named) with the given
-- ON clause
CREATE FUNCTION mp_join_sql(jt text, cond text, a text DEFAULT 'ja', b text DEFAULT 'jb') RETURNS text
LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT %1$s.* FROM %1$s WHERE EXISTS (SELECT 1 FROM %2$s WHERE %3$s)', a, b, cond)
    WHEN 'anti' THEN format('SELECT %1$s.* FROM %1$s WHERE NOT EXISTS (SELECT 1 FROM %2$s WHERE %3$s)', a, b, cond)
    ELSE format('SELECT %1$s.*, %2$s.* FROM %1$s %4$s JOIN %2$s ON %3$s', a, b, cond, jt) END
$$;

-- ja / jb: keys with duplicates on both sides, NULL keys, odd floats; payloads p / q
CREATE TABLE ja (k int4, k8 int8, k2 int2, f8 float8, f4 float4, d date, u uuid, p int4, s text);
CREATE TABLE jb (k int4, k8 int8, k2 int2, f8 float8, f4 float4, d date, u uuid, q int4, t text);
INSERT INTO ja SELECT g % 37, (g % 29)::int8 * 3000000000, (g % 11)::int2, (g % 13) / 4.0, (g % 7) / 2.0,
    date '2020-01-01' + g % 17, ('00000000-0000-0000-0000-' || lpad((g % 19)::text, 12, '0'))::uuid, g, 'a' || g
  FROM generate_series(1, 600) g;
INSERT INTO jb SELECT g % 23, (g % 31)::int8 * 3000000000, (g % 5)::int2, (g % 9) / 4.0, (g % 5) / 2.0,
    date '2020-01-01' + g % 13, ('00000000-0000-0000-0000-' || lpad((g % 7)::text, 12, '0'))::uuid, g, 'b' || g
  FROM generate_series(1, 400) g;
INSERT INTO ja (k, k8, k2, f8, f4, d, u, p) VALUES
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, -2),
  (5, NULL, 3, 'NaN', 'NaN', NULL, NULL, -3), (NULL, 3000000000, NULL, '-0', '-0', '2020-01-03', NULL, -4),
  (100, 100, 100, 'Infinity', 'Infinity', NULL, NULL, -5), (-7, -7, -7, '-Infinity', '-Infinity', NULL, NULL, -6);
INSERT INTO jb (k, k8, k2, f8, f4, d, u, q) VALUES
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1), (5, NULL, 3, 'NaN', 'NaN', NULL, NULL, -3),
  (NULL, 0, NULL, '0', '0', NULL, NULL, -4), (100, 100, 100, 'Infinity', 'Infinity', NULL, NULL, -5),
  (-7, -7, -7, 'NaN', '-Infinity', NULL, NULL, -6), (NULL, NULL, NULL, '-0', 'NaN', NULL, NULL, -7);
ANALYZE ja, jb;

-- every join type x key kind
SELECT jt, cond, mp_join_check(mp_join_sql(jt, cond))
FROM (VALUES ('inner'), ('left'), ('right'), ('full'), ('semi'), ('anti')) j(jt),
     (VALUES ('ja.k = jb.k'), ('ja.k8 = jb.k8'), ('ja.k2 = jb.k2'), ('ja.k = jb.k8'), ('jb.k2 = ja.k'),
             ('ja.k8 = jb.k2'), ('ja.f8 = jb.f8'), ('ja.f4 = jb.f4'), ('ja.f4 = jb.f8'), ('ja.d = jb.d'),
             ('ja.u = jb.u'), ('ja.k = jb.k AND ja.k2 = jb.k2'), ('ja.k8 = jb.k8 AND ja.f8 = jb.f8'),
             ('ja.k = jb.k AND ja.k8 = jb.k8 AND ja.d = jb.d'), ('ja.u = jb.u AND ja.k2 = jb.k2')) c(cond)
ORDER BY jt, cond;

-- join filters (non-equality clauses of the join, an equality of expressions) and
-- WHERE clauses above an outer join
SELECT jt, cond, mp_join_check(mp_join_sql(jt, cond))
FROM (VALUES ('inner'), ('left'), ('right'), ('full'), ('semi'), ('anti')) j(jt),
     (VALUES ('ja.k = jb.k AND ja.p < jb.q'), ('ja.k = jb.k AND ja.p % 3 = jb.q % 5'),
             ('ja.k8 = jb.k8 AND ja.s < jb.t AND jb.q > 10'), ('ja.k = jb.k AND ja.p > 1000000')) c(cond)
ORDER BY jt, cond;
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja LEFT JOIN jb ON ja.k = jb.k WHERE jb.q IS NULL OR jb.q > 200');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja RIGHT JOIN jb ON ja.k = jb.k AND ja.p > 300 WHERE ja.p IS NULL OR ja.p % 2 = 0');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja FULL JOIN jb ON ja.k = jb.k AND ja.f8 < jb.f8 WHERE coalesce(ja.p, 0) + coalesce(jb.q, 0) > 100');
SELECT mp_join_check('SELECT ja.p FROM ja JOIN jb ON ja.k = jb.k WHERE ja.p + jb.q > 500');
-- only some columns, and none at all
SELECT mp_join_check('SELECT jb.t FROM ja JOIN jb ON ja.k8 = jb.k8');
SELECT mp_join_check('SELECT 1 FROM ja FULL JOIN jb ON ja.k = jb.k');
SELECT mp_join_check('SELECT ja, jb FROM ja LEFT JOIN jb ON ja.k2 = jb.k2');

-- empty sides
SELECT jt, mp_join_check(replace(replace(mp_join_sql(jt, 'ja.k = jb.k'), 'FROM ja', 'FROM (SELECT * FROM ja WHERE p < -100) ja'),
                                 'JOIN jb', 'JOIN (SELECT * FROM jb WHERE q > 0) jb'))
FROM (VALUES ('inner'), ('left'), ('right'), ('full')) j(jt) ORDER BY jt;
SELECT jt, mp_join_check(replace(mp_join_sql(jt, 'ja.k = jb.k'), 'JOIN jb', 'JOIN (SELECT * FROM jb WHERE q < -100) jb'))
FROM (VALUES ('inner'), ('left'), ('right'), ('full')) j(jt) ORDER BY jt;
SELECT mp_join_check('SELECT ja.* FROM ja WHERE NOT EXISTS (SELECT 1 FROM jb WHERE jb.q < -100 AND jb.k = ja.k)');

-- all duplicates: one key on both sides (600 x 400 pairs)
CREATE TABLE jdup_a AS SELECT 42::int8 AS k, g AS p FROM generate_series(1, 600) g;
CREATE TABLE jdup_b AS SELECT 42::int8 AS k, g AS q FROM generate_series(1, 400) g;
SELECT mp_join_check('SELECT * FROM jdup_a a JOIN jdup_b b ON a.k = b.k');
SELECT mp_join_check('SELECT * FROM jdup_a a FULL JOIN jdup_b b ON a.k = b.k AND a.p = b.q');
SELECT mp_join_check('SELECT * FROM jdup_a a WHERE EXISTS (SELECT 1 FROM jdup_b b WHERE a.k = b.k AND b.q = a.p)');

-- SEMI / ANTI with a join filter that rejects the first candidates of heavy keys: a
-- row's walk goes deep into its range (its window of B rows grows as it walks), and
-- the next rows of the same key start over at the range's beginning
CREATE TABLE jw_a AS SELECT (g % 3)::int8 AS k, g * 3 AS v FROM generate_series(1, 1000) g;
CREATE TABLE jw_b AS SELECT (g % 3)::int8 AS k, g AS w FROM generate_series(1, 30000) g;
ANALYZE jw_a, jw_b;
SELECT jt, mp_join_check(format('SELECT a.* FROM jw_a a WHERE %s EXISTS (SELECT 1 FROM jw_b b WHERE b.k = a.k AND b.w > a.v * 11)', jt))
FROM (VALUES (''), ('NOT')) j(jt) ORDER BY jt;
DROP TABLE jw_a, jw_b;

-- three-way joins: our node over our node
SELECT mp_join_check('SELECT ja.p, jb.q, j2.p FROM ja JOIN jb ON ja.k = jb.k LEFT JOIN ja j2 ON j2.k8 = jb.k8');

-- not ours: an equality of expressions (text keys are join_images'), IS NOT DISTINCT FROM, no equality,
-- keys wider than 128 bits, cross-type date = timestamp; DEBUG1 says why
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.s = jb.t || ''x''');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k IS NOT DISTINCT FROM jb.k');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k < jb.k AND ja.p = 3');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.u = jb.u AND ja.k = jb.k');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.d = jb.d::timestamp');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET client_min_messages = debug1;
EXPLAIN (COSTS OFF) SELECT ja.p, jb.q FROM ja JOIN jb ON ja.s = jb.t || 'x';
EXPLAIN (COSTS OFF) SELECT ja.p, jb.q FROM ja JOIN jb ON ja.u = jb.u AND ja.k = jb.k;
RESET client_min_messages;

-- pg_mergepath.enable_join = off keeps every join native (set operations stay ours)
SET pg_mergepath.enable_join = off;
SELECT mp_join_plan('SELECT ja.p FROM ja JOIN jb ON ja.k = jb.k');
RESET pg_mergepath.enable_join;
SELECT mp_join_plan('SELECT ja.p FROM ja JOIN jb ON ja.k = jb.k');
-- min_rows: the estimated rows of both inputs (1000 here)
SET pg_mergepath.min_rows = 1100;
SELECT mp_join_plan('SELECT ja.p FROM ja JOIN jb ON ja.k = jb.k');
SET pg_mergepath.min_rows = 900;
SELECT mp_join_plan('SELECT ja.p FROM ja JOIN jb ON ja.k = jb.k');
RESET enable_hashjoin;
RESET enable_mergejoin;
