-- array_ops: SQL functions over sorted arrays (extension/arrays/array_ops.cpp): merge,
-- intersect_all, except_all, multiset_union and sorted_search. Each answer compared with
-- the same multiset operation written in SQL over unnest (PostgreSQL's own INTERSECT ALL,
-- EXCEPT ALL, UNION ALL and counts), on random sorted arrays with repeats, empty and
-- all-equal inputs, negative values, arrays the library cuts into pieces, every supported
-- element type and domains; then the errors (positions count from 1).
\set VERBOSITY terse
CREATE FUNCTION ao_sorted(n int, m int, seed float8) RETURNS int8[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(v ORDER BY v), '{}') FROM (SELECT (random() * m)::int8 AS v FROM generate_series(1, n)) s
$$;
SELECT setseed(0.29);
CREATE TABLE ao_pairs AS
  SELECT t, ao_sorted((random() * 40)::int, (random() * 12)::int + 1, 0) AS a,
            ao_sorted((random() * 40)::int, (random() * 12)::int + 1, 0) AS b
  FROM generate_series(1, 300) t;
INSERT INTO ao_pairs VALUES (301, '{}', '{}'), (302, '{}', '{1,1,2}'), (303, '{5,5,5}', '{}'),
                            (304, '{7,7,7,7}', '{7,7}'), (305, '{7,7}', '{7,7,7,7}');
-- every pair: the functions against SQL over unnest (as sorted arrays)
CREATE FUNCTION ao_sql(a int8[], b int8[], op text) RETURNS int8[] LANGUAGE plpgsql AS $$
DECLARE r int8[];
BEGIN
  EXECUTE format('SELECT coalesce(array_agg(v ORDER BY v), ''{}'') FROM (SELECT unnest($1) AS v %s SELECT unnest($2)) s', op)
    INTO r USING a, b;
  RETURN r;
END $$;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE merge(a, b) = ao_sql(a, b, 'UNION ALL')) AS merge_ok,
       count(*) FILTER (WHERE intersect_all(a, b) = ao_sql(a, b, 'INTERSECT ALL')) AS intersect_all_ok,
       count(*) FILTER (WHERE except_all(a, b) = ao_sql(a, b, 'EXCEPT ALL')) AS except_all_ok,
       count(*) FILTER (WHERE multiset_union(a, b) = ao_sql(ao_sql(a, b, 'EXCEPT ALL'), b, 'UNION ALL')) AS multiset_union_ok
FROM ao_pairs;
-- sorted_search: lower = elements below the needle, upper = elements at or below it
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE sorted_search(a, b) = (SELECT coalesce(array_agg((SELECT count(*) FROM unnest(a) x WHERE x < n) ORDER BY o), '{}')
                                                     FROM unnest(b) WITH ORDINALITY u(n, o))) AS lower_ok,
       count(*) FILTER (WHERE sorted_search(a, b, 'upper') = (SELECT coalesce(array_agg((SELECT count(*) FROM unnest(a) x WHERE x <= n) ORDER BY o), '{}')
                                                     FROM unnest(b) WITH ORDINALITY u(n, o))) AS upper_ok
FROM ao_pairs;
-- ... again with pg_mergepath.min_rows = 0: with pg_mergepath.device = gpu (the device
-- run) every call goes to the GPU (keys uploaded, indices downloaded); here, the CPU
SET pg_mergepath.min_rows = 0;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE merge(a, b) = ao_sql(a, b, 'UNION ALL')) AS merge_ok,
       count(*) FILTER (WHERE intersect_all(a, b) = ao_sql(a, b, 'INTERSECT ALL')) AS intersect_all_ok,
       count(*) FILTER (WHERE except_all(a, b) = ao_sql(a, b, 'EXCEPT ALL')) AS except_all_ok,
       count(*) FILTER (WHERE multiset_union(a, b) = ao_sql(ao_sql(a, b, 'EXCEPT ALL'), b, 'UNION ALL')) AS multiset_union_ok,
       count(*) FILTER (WHERE sorted_search(a, b, 'upper') = (SELECT coalesce(array_agg((SELECT count(*) FROM unnest(a) x WHERE x <= n) ORDER BY o), '{}')
                                                     FROM unnest(b) WITH ORDINALITY u(n, o))) AS upper_ok
FROM ao_pairs;
SELECT merge('{1.5,2.5}'::float4[], '{2}'::float4[]), except_all('{a,b,b,c}'::"char"[], '{b}'),
       merge('{-32768,-1,5}'::int2[], '{-2,32767}'), intersect_all('{f,t,t}'::bool[], '{t}');
RESET pg_mergepath.min_rows;
-- small answers, as the user reads them
SELECT merge('{1,3,5}'::int[], '{2,3,4}'), intersect_all('{1,1,2,2,2}'::int8[], '{1,2,2,3}'),
       except_all('{1,1,2,2,2}'::int8[], '{1,2,2,3}'), multiset_union('{1,1,2}'::int8[], '{1,2,2,3}'),
       sorted_search('{10,20,20,30}'::int[], '{5,20,25,40}'), sorted_search('{10,20,20,30}'::int[], '{5,20,25,40}', 'upper');
-- element types: floats (-0 = 0, NaN equal and largest), dates, timestamps, bool, "char", oid
SELECT intersect_all('{-1.5,-0,1,NaN,NaN}'::float8[], '{0,1,NaN}'), except_all('{-1.5,-0,1,NaN,NaN}'::float8[], '{0,1,NaN}'),
       merge('{1.5,2.5}'::float4[], '{2}'::float4[]);
SELECT merge('{2026-01-01,2026-03-01}'::date[], '{2026-02-01}'), intersect_all('{f,t,t}'::bool[], '{t}'),
       except_all('{a,b,b,c}'::"char"[], '{b}'), multiset_union('{1,2}'::oid[], '{2,3}'),
       merge('{2026-01-01 10:00,2026-01-01 12:00}'::timestamptz[], '{2026-01-01 11:00}');
-- negative values and arrays large enough for the library to cut them into several
-- pieces (its partition step), with heavy repeats, against SQL over unnest
CREATE TABLE ao_big AS
  SELECT (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 1000)::int8 - 500 AS v FROM generate_series(1, 150000)) s) AS a,
         (SELECT array_agg(v ORDER BY v) FROM (SELECT (random() * 1400)::int8 - 900 AS v FROM generate_series(1, 120000)) s) AS b;
SELECT merge(a, b) = ao_sql(a, b, 'UNION ALL') AS merge_ok,
       intersect_all(a, b) = ao_sql(a, b, 'INTERSECT ALL') AS intersect_all_ok,
       except_all(a, b) = ao_sql(a, b, 'EXCEPT ALL') AS except_all_ok,
       multiset_union(a, b) = ao_sql(ao_sql(a, b, 'EXCEPT ALL'), b, 'UNION ALL') AS multiset_union_ok,
       sorted_search(a, b, 'upper') = (SELECT array_agg(c ORDER BY o) FROM (
           SELECT o, sum(CASE WHEN o IS NULL THEN 1 ELSE 0 END) OVER (ORDER BY v, o NULLS FIRST) AS c
           FROM (SELECT x AS v, NULL::bigint AS o FROM unnest(a) x UNION ALL SELECT n, o FROM unnest(b) WITH ORDINALITY u(n, o)) m) q
         WHERE o IS NOT NULL) AS upper_ok
FROM ao_big;
DROP TABLE ao_big;
-- more element types: int2 and negatives, time, timestamp with infinities, money, pg_lsn,
-- oid past 2^31, domains (over integer and over double precision)
SELECT merge('{-32768,-1,5}'::int2[], '{-2,32767}'), intersect_all('{00:00,12:00,24:00}'::time[], '{12:00,24:00}'),
       merge('{-infinity,2026-01-01 00:00}'::timestamp[], '{2025-01-01 00:00,infinity}'),
       except_all('{-5.00,1.00,2.00}'::money[], '{1.00}'), merge('{0/1,FFFFFFFF/0}'::pg_lsn[], '{8/0}'),
       multiset_union('{1,3000000000}'::oid[], '{4000000000}');
CREATE DOMAIN ao_int AS int;
CREATE DOMAIN ao_float AS float8;
SELECT merge('{1,3}'::ao_int[], '{2}'::ao_int[]), intersect_all('{-0,1.5,NaN}'::ao_float[], '{0,NaN}'::ao_float[]);
DROP DOMAIN ao_int, ao_float;
-- empty and one-element arrays
SELECT merge('{}'::int[], '{}'), intersect_all('{}'::int[], '{1}'), except_all('{1}'::int[], '{}'),
       sorted_search('{}'::int[], '{1,2}'), sorted_search('{1,2}'::int[], '{}');
-- errors: unsorted (the position named), NULL elements, several dimensions, an
-- unsupported type, mixed types, a bad side
SELECT merge('{1,3,2}'::int[], '{1}');
SELECT intersect_all('{1}'::int[], '{1,2,2,1}');
SELECT except_all('{1,NULL}'::int[], '{1}');
SELECT merge('{{1,2},{3,4}}'::int[], '{1}');
SELECT merge('{a,b}'::text[], '{c}');
SELECT merge('{1,2}'::int[], '{1}'::int8[]);
SELECT sorted_search('{1,2}'::int[], '{1}', 'middle');
-- NULL arguments: NULL (STRICT)
SELECT merge(NULL::int[], '{1}') IS NULL AS null_in_null_out;
DROP TABLE ao_pairs;
DROP FUNCTION ao_sorted(int, int, float8), ao_sql(int8[], int8[], text);
-- the update from 0.2.0 adds them, in the extension's schema
DROP EXTENSION pg_mergepath;
CREATE SCHEMA ao_schema;
CREATE EXTENSION pg_mergepath SCHEMA ao_schema VERSION '0.2.0';
SELECT count(*) AS array_functions FROM pg_proc WHERE proname IN ('merge', 'intersect_all', 'except_all', 'multiset_union', 'sorted_search');
ALTER EXTENSION pg_mergepath UPDATE TO '0.3.0';
SELECT p.proname, n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname IN ('merge', 'intersect_all', 'except_all', 'multiset_union', 'sorted_search') ORDER BY 1;
SELECT ao_schema.merge('{1,2}'::int[], '{1}'), ao_schema.intersect_all('{1,2}'::int[], '{2}');
DROP EXTENSION pg_mergepath;
DROP SCHEMA ao_schema;
CREATE EXTENSION pg_mergepath;
