-- join_numeric: the MergePath Join on numeric(p, s) keys (numeric_keys.h). Where both
-- sides are stored columns that declare a precision and scale, each value times
-- 10^(the larger scale) is an exact integer (64 bits up to 18 digits, else 128): no
-- hash, no recheck. Other numeric keys (undeclared, or not a stored column: a
-- subquery's output, whose values need not keep the modifier) stay image-hashed and
-- rechecked (Key Recheck in EXPLAIN). An integer column against a declared numeric is
-- keyed the same way. Odd values: NaN (= NaN), 1.5 = 1.5000, zero,
-- the extremes of each declaration, negative scales, domains, NULLs; every join type,
-- join filters, two-column keys, a partitioned side, parallel, spilled and streamed;
-- each answer compared with PostgreSQL's own join (join_basic's mp_join_check).
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse

CREATE DOMAIN mp_jn_money AS numeric(8, 3);
CREATE TABLE na (id int4, k numeric(12, 2), g int4, d mp_jn_money, w numeric(38, 0), r numeric(6, -2));
CREATE TABLE nb (id int4, k numeric(15, 4), g int4, d mp_jn_money, w numeric(19, 0), r numeric(4, -1));
CREATE TABLE nc (id int4, k numeric(30, 10), g int4, d numeric, w numeric, r numeric);
INSERT INTO na SELECT i, round((i % 97 - 48) / 4.0, 2), i % 3, round((i % 41) / 8.0, 3),
                      (i % 53 - 26)::numeric * 100000000000000000, (i % 17) * 100
  FROM generate_series(1, 3000) i;
INSERT INTO nb SELECT i, round((i % 89 - 44) / 4.0, 2 + i % 3), i % 4, round((i % 37) / 8.0, 2),
                      (i % 41 - 20)::numeric * 100000000000000000, (i % 13) * 100
  FROM generate_series(1, 2000) i;
INSERT INTO nc SELECT id, k, g, d, w, r FROM nb;
-- the odd values: NaN, zero, the largest of each declaration, the smallest step, NULLs
INSERT INTO na VALUES (-1, 'NaN', 0, 'NaN', 'NaN', 'NaN'), (-2, NULL, 1, NULL, NULL, NULL), (-3, 0, 2, 0, 0, 0),
                      (-4, 9999999999.99, 0, 99999.999, 99999999999999999999999999999999999999, 99999900),
                      (-5, -9999999999.99, 1, -99999.999, -99999999999999999999999999999999999999, -99999900),
                      (-6, 0.01, 2, 0.001, 1, 100);
INSERT INTO nb VALUES (-1, 'NaN', 0, 'NaN', 'NaN', 'NaN'), (-2, NULL, 1, NULL, NULL, NULL), (-3, 0.0000, 2, 0.00, 0, 0),
                      (-4, 9999999999.9900, 0, 99999.999, 9999999999999999999, 99990),
                      (-5, -9999999999.99, 1, -99999.999, -9999999999999999999, -99990),
                      (-6, 0.0100, 2, 0.001, 1, 100), (-7, 0.0001, 3, 0.01, 10, 10);
INSERT INTO nc VALUES (-8, 12345678901234567890.1234567891, 0, 1.5, 1, 1), (-9, -0.0000000001, 1, 0, 0, 0),
                      (-10, 'NaN', 2, 'NaN', 'NaN', 'NaN');
CREATE TABLE np (id int4, k numeric(12, 2), g int4) PARTITION BY RANGE (id);
CREATE TABLE np_1 PARTITION OF np FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE np_2 PARTITION OF np FOR VALUES FROM (1000) TO (MAXVALUE);
INSERT INTO np SELECT id, k, g FROM na;
ANALYZE na, nb, nc, np;

SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- the plans: exact keys (64 and 128 bits, a domain's declaration, no Key Recheck); an
-- undeclared side and a subquery's output are image-hashed; two keys past 128 bits
-- keep the native plan
SELECT * FROM mp_explain('SELECT na.id, nb.id FROM na JOIN nb ON na.k = nb.k') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, nb.id FROM na JOIN nb ON na.w = nb.w') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, nc.id FROM na JOIN nc ON na.k = nc.k') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, nb.id FROM na JOIN nb ON na.d = nb.d') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, nc.id FROM na JOIN nc ON na.d = nc.d') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, s.id FROM na JOIN (SELECT id, (k * 1)::numeric(15, 4) AS k FROM nb OFFSET 0) s ON na.k = s.k')
  WHERE mp_explain ~ 'Keys|Recheck';
SELECT mp_join_plan('SELECT na.id, nb.id FROM na JOIN nb ON na.w = nb.w AND na.k = nb.k') AS past_128_bits;
-- a table with a foreign table among its inheritance children: that wrapper's rows need
-- not keep the declaration, so its key is the image hash, rechecked
CREATE EXTENSION file_fdw;
CREATE SERVER mp_jn_files FOREIGN DATA WRAPPER file_fdw;
CREATE TABLE nf (id int4, k numeric(12, 2), g int4);
CREATE FOREIGN TABLE nf_outside () INHERITS (nf) SERVER mp_jn_files OPTIONS (filename '/dev/null');
INSERT INTO nf SELECT id, k, g FROM na;
ANALYZE nf;
SELECT * FROM mp_explain('SELECT nf.id, nb.id FROM nf JOIN nb ON nf.k = nb.k') WHERE mp_explain ~ 'Keys|Recheck';
SELECT mp_join_check(mp_join_sql('inner', 'nf.k = nb.k', 'nf', 'nb'));
DROP TABLE nf CASCADE;
DROP EXTENSION file_fdw CASCADE;

-- every join type x key: 64-bit (scales 2 and 4), 128-bit (scales 2 and 10), a domain,
-- 38 digits against 19, negative scales (-2 and -1), an undeclared side (image hash),
-- with a join filter, and two columns (a numeric and an int4 in one 128-bit key)
SELECT a, b, cond, jt, mp_join_check(mp_join_sql(jt, replace(replace(cond, 'A.', a || '.'), 'B.', b || '.'), a, b))
FROM (VALUES ('na', 'nb', 'A.k = B.k'), ('na', 'nc', 'A.k = B.k'), ('na', 'nb', 'A.d = B.d'),
             ('na', 'nb', 'A.w = B.w'), ('na', 'nb', 'A.r = B.r'), ('nb', 'nc', 'A.k = B.k'),
             ('na', 'nb', 'A.k = B.k AND A.id % 5 <> B.id % 5'), ('na', 'nb', 'A.k = B.k AND A.g = B.g'),
             ('np', 'nb', 'A.k = B.k')) AS c(a, b, cond),
     unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o)
ORDER BY a, b, cond, o;

-- an empty side, and all-duplicate keys (every row of both sides 1.5 = 1.5000)
CREATE TABLE nb_empty (LIKE nb);
CREATE TABLE na_dup AS SELECT id, 1.5::numeric(12, 2) AS k FROM na WHERE id < 200;
CREATE TABLE nb_dup AS SELECT id, 1.5000::numeric(15, 4) AS k FROM nb WHERE id < 100;
ANALYZE nb_empty, na_dup, nb_dup;
SELECT * FROM mp_explain('SELECT na_dup.id, nb_dup.id FROM na_dup JOIN nb_dup ON na_dup.k = nb_dup.k')
  WHERE mp_explain ~ 'Keys|Recheck';
SELECT jt, mp_join_check(mp_join_sql(jt, 'na.k = nb_empty.k', 'na', 'nb_empty')) AS empty_b,
       mp_join_check(mp_join_sql(jt, 'na_dup.k = nb_dup.k', 'na_dup', 'nb_dup')) AS all_duplicates
FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) jt;
DROP TABLE nb_empty, na_dup, nb_dup;

-- numeric(p, s) against an integer column, which the planner casts to numeric: the
-- integer times 10^s, as the numeric side's key (int2, int4, int8; 64 and 128 bits; a
-- negative scale); against an undeclared numeric the cast stays an expression: native
CREATE TABLE ni (id int4, i2 int2, i4 int4, i8 int8);
INSERT INTO ni SELECT i, (i % 61 - 30)::int2, i % 53 - 26, (i % 41 - 20)::int8 * 100000000000000000
  FROM generate_series(1, 1500) i;
INSERT INTO ni VALUES (-1, NULL, NULL, NULL), (-2, 32767, 2147483647, 9223372036854775807),
                      (-3, -32768, -2147483648, -9223372036854775808), (-4, 0, 0, 0), (-5, 100, 100, 100);
ANALYZE ni;
SELECT * FROM mp_explain('SELECT na.id, ni.id FROM na JOIN ni ON na.k = ni.i4') WHERE mp_explain ~ 'Keys|Recheck';
SELECT * FROM mp_explain('SELECT na.id, ni.id FROM na JOIN ni ON na.k = ni.i8') WHERE mp_explain ~ 'Keys|Recheck';
SELECT mp_join_plan('SELECT nc.id, ni.id FROM nc JOIN ni ON nc.d = ni.i4') AS undeclared;
-- ... and with another key the join is ours, the cast's clause in its filter
SELECT * FROM mp_explain('SELECT nc.id, ni.id FROM nc JOIN ni ON nc.d = ni.i4 AND nc.id = ni.id')
  WHERE mp_explain ~ 'Keys|Filter|MergePath';
SELECT mp_join_check(mp_join_sql('left', 'nc.d = ni.i4 AND nc.id = ni.id', 'nc', 'ni'));
SELECT cond, jt, mp_join_check(mp_join_sql(jt, cond, 'na', 'ni'))
FROM unnest(ARRAY['na.k = ni.i2', 'na.k = ni.i4', 'na.k = ni.i8', 'na.w = ni.i8', 'ni.i4 = na.r',
                  'na.k = ni.i4 AND na.g = ni.i2']) WITH ORDINALITY AS c(cond, i),
     unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o)
ORDER BY i, o;

-- parallel: every participant reads and encodes its share of both sides
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 3;
SET pg_mergepath.stream_outer = off;
SELECT b, cond, jt, mp_join_check(mp_join_sql(jt, cond, 'na', b))
FROM (VALUES ('nc', 'na.k = nc.k'), ('nb', 'na.k = nb.k AND na.g = nb.g'), ('ni', 'na.k = ni.i8')) c(b, cond),
     unnest(ARRAY['inner', 'full', 'anti']) jt
ORDER BY 1, 2, 3;
RESET pg_mergepath.stream_outer;
SET max_parallel_workers_per_gather = 0;

-- a streamed outer side (the inner side a quarter of the outer one or less)
CREATE TABLE nb_small AS SELECT * FROM nb WHERE id % 8 = 0 OR id < 0;
ANALYZE nb_small;
SELECT jt, e ->> 'Outer Side' AS outer_side, mp_join_check(mp_join_sql(jt, 'na.k = nb_small.k', 'na', 'nb_small'))
FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
     mp_explain_analyzed(mp_join_sql(jt, 'na.k = nb_small.k', 'na', 'nb_small')) e
ORDER BY o;

-- over the memory limit: both sides sorted into runs by key, joined range by range
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SELECT cond, jt, mp_explain_count(e, 'Key Ranges') > 1 AS ranges, mp_join_check(mp_join_sql(jt, cond, 'na', 'nc'))
FROM unnest(ARRAY['na.k = nc.k', 'na.k = nc.k AND na.id > nc.id']) cond,
     unnest(ARRAY['inner', 'left', 'full', 'anti']) jt,
     mp_explain_analyzed(mp_join_sql('inner', cond, 'na', 'nc')) e
ORDER BY 1, 2;
RESET pg_mergepath.memory_limit;
RESET work_mem;

-- undeclared numeric keys (numeric_keys.h: mp_numeric_exact_key): a value with at most 4
-- decimals below 2^62 / 10^4 (461168601842738.7904) is keyed exactly as value x 10^4
-- (no recheck; no stored row read of a side the output does not need); any other (more
-- decimals, larger, NaN, the infinities) by its image hash, rechecked, and never equal
-- to an exact key. Both kinds on both sides, the limit's neighbours, display scales
-- mixed (1.5 = 1.5000), outputs reading either side or none, forced hash collisions,
-- streamed, parallel and spilled.
CREATE TABLE nxa (id int4, n numeric);
CREATE TABLE nxb (id int4, n numeric);
INSERT INTO nxa SELECT g, CASE g % 6 WHEN 0 THEN round((g % 50) / 8.0, 4) WHEN 1 THEN (g % 40) * 1.5
    WHEN 2 THEN 461168601842738.7 + (g % 4) * 0.1 WHEN 3 THEN round((g % 30) / 7.0, 5 + g % 2)
    WHEN 4 THEN -(g % 45) ELSE (g % 20) * 100000000000000 END
  FROM generate_series(1, 3000) g;
INSERT INTO nxb SELECT g, CASE g % 5 WHEN 0 THEN round((g % 60) / 8.0, 2 + g % 3) WHEN 1 THEN round((g % 30) * 1.5, 3)
    WHEN 2 THEN -461168601842738.7 - (g % 4) * 0.1 + (g % 2) * 922337203685477.4 WHEN 3 THEN round((g % 35) / 7.0, 5 + g % 2)
    ELSE -(g % 45) * 1.00 END
  FROM generate_series(1, 2500) g;
INSERT INTO nxa VALUES (-1, 'NaN'), (-2, 'Infinity'), (-3, '-Infinity'), (-4, NULL), (-5, 0), (-6, -0.0000),
                       (-7, 0.0001), (-8, 0.00005);
INSERT INTO nxb VALUES (-1, 'NaN'), (-2, 'Infinity'), (-3, NULL), (-4, 0.000), (-5, 0.00010), (-6, 0.00005),
                       (-7, -461168601842738.7904);
ANALYZE nxa, nxb;
SELECT * FROM mp_explain('SELECT nxa.id FROM nxa JOIN nxb ON nxa.n = nxb.n') WHERE mp_explain ~ 'Keys|Recheck';
-- every join type of tables a and b on their column n, with outputs reading both sides,
-- a only, b only or neither (semi and anti: a or neither); only_cols picks some of them
CREATE FUNCTION mp_jn_outputs(a text, b text, only_cols int[] DEFAULT NULL) RETURNS TABLE (jt text, cols text, result text)
LANGUAGE sql AS $$
  SELECT jt, cols, mp_join_check(CASE jt
           WHEN 'semi' THEN format('SELECT %1$s FROM %2$s WHERE EXISTS (SELECT 1 FROM %3$s WHERE %3$s.n = %2$s.n)', cols, a, b)
           WHEN 'anti' THEN format('SELECT %1$s FROM %2$s WHERE NOT EXISTS (SELECT 1 FROM %3$s WHERE %3$s.n = %2$s.n)', cols, a, b)
           ELSE format('SELECT %1$s FROM %2$s %4$s JOIN %3$s ON %2$s.n = %3$s.n', cols, a, b, jt) END)
  FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
       unnest(ARRAY[format('%1$s.id, %2$s.id, %1$s.n::text, %2$s.n::text', a, b), format('%1$s.id, %1$s.n::text', a),
                    b || '.id', '1']) WITH ORDINALITY AS c(cols, i)
  WHERE (jt NOT IN ('semi', 'anti') OR i IN (2, 4)) AND (only_cols IS NULL OR i = ANY (only_cols))
  ORDER BY o, i
$$;
SELECT * FROM mp_jn_outputs('nxa', 'nxb');
SELECT mp_join_check('SELECT nxa.id, nxb.id FROM nxa JOIN nxb ON nxa.n = nxb.n AND nxa.id < nxb.id') AS filtered;
-- an empty side, and a side whose every row has one exact key (1.50 = 1.5)
CREATE TABLE nxd AS SELECT id, 1.50::numeric AS n FROM nxb;
ANALYZE nxd;
SELECT jt, mp_join_check(format('SELECT nxa.id, e.id FROM nxa %s JOIN (SELECT * FROM nxb WHERE id < -100) e ON nxa.n = e.n', jt)) AS empty_inner,
       mp_join_check(format('SELECT nxa.id, nxd.id FROM nxa %s JOIN nxd ON nxa.n = nxd.n', jt)) AS all_duplicates
FROM unnest(ARRAY['inner', 'left', 'full']) jt;
-- a streamed outer side (a small inner one, a NaN and values past 4 decimals in it), and
-- a declared numeric(1000, 990) side (long-form values) against the undeclared one
CREATE TABLE nxs AS SELECT * FROM nxb WHERE id % 10 = 0 OR id < 0;
CREATE TABLE nxl (id int4, n numeric(1000, 990));
INSERT INTO nxl SELECT id, n FROM nxb WHERE n IS NULL OR n = 'NaN' OR abs(n) < 1e9;
ANALYZE nxs, nxl;
SELECT jt, e ->> 'Outer Side' AS outer_side, mp_join_check(mp_join_sql(jt, 'nxa.n = nxs.n', 'nxa', 'nxs')) AS result,
       mp_join_check(format('SELECT nxa.id FROM nxa %s JOIN nxs ON nxa.n = nxs.n', CASE jt WHEN 'semi' THEN 'inner' WHEN 'anti' THEN 'left' ELSE jt END))
         AS outer_only
FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
     mp_explain_analyzed(mp_join_sql(jt, 'nxa.n = nxs.n', 'nxa', 'nxs')) e
ORDER BY o;
SELECT jt, mp_join_check(mp_join_sql(jt, 'nxa.n = nxl.n', 'nxa', 'nxl')) FROM unnest(ARRAY['inner', 'full', 'semi', 'anti']) jt;
SET pg_mergepath.debug_hash_bits = 3;
SELECT jt, mp_join_check(mp_join_sql(jt, 'nxa.n = nxb.n', 'nxa', 'nxb'))
FROM unnest(ARRAY['inner', 'left', 'full', 'semi', 'anti']) jt;
SELECT mp_explain_count(e, 'Rows Removed by Key Recheck') > 0 AS collisions_removed
FROM mp_explain_analyzed('SELECT nxa.id FROM nxa JOIN nxb ON nxa.n = nxb.n') e;
RESET pg_mergepath.debug_hash_bits;
SET max_parallel_workers_per_gather = 3;  -- (parallel costs still 0, from above)
SET pg_mergepath.stream_outer = off;
SELECT jt, mp_join_check(mp_join_sql(jt, 'nxa.n = nxb.n', 'nxa', 'nxb')) FROM unnest(ARRAY['inner', 'full', 'semi', 'anti']) jt;
RESET pg_mergepath.stream_outer;
SET max_parallel_workers_per_gather = 0;
-- every key of one side exact (1.5 = 1.50 on all of nxd; nxe: a twelfth 1.5, the rest
-- nxa's, exact or not): no pair is rechecked, and where nothing else reads nxd's columns
-- no row of it is looked up (join_combine.cpp: emitters_read_b_rows)
CREATE TABLE nxe AS SELECT id, CASE WHEN id % 12 = 0 THEN 1.5 ELSE n END AS n FROM nxa;
ANALYZE nxe;
SELECT * FROM mp_jn_outputs('nxe', 'nxd', ARRAY[2, 4]);
SELECT inner_side, e ->> 'Inner Rows Read' AS inner_rows_read
FROM (VALUES ('nxd'), ('nxb')) v(inner_side),
     mp_explain_analyzed(format('SELECT nxe.id FROM nxe WHERE EXISTS (SELECT 1 FROM %1$s WHERE %1$s.n = nxe.n)', inner_side)) e;
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SELECT jt, mp_join_check(mp_join_sql(jt, 'nxa.n = nxb.n', 'nxa', 'nxb')) FROM unnest(ARRAY['inner', 'left', 'anti']) jt;
-- ... and nxe x nxd, whose key 1.5 passes a range: joined row by row
-- (join_spill_loop.cpp), outputs reading either side or none: an exact key's pair is not
-- rechecked, and a side nothing else reads goes into the sorts with NULL columns
SELECT * FROM mp_jn_outputs('nxe', 'nxd');
SELECT jt, mp_explain_count(e, 'Keys Joined Row By Row') > 0 AS looped
FROM unnest(ARRAY['left', 'semi', 'anti']) jt,
     mp_explain_analyzed(CASE jt WHEN 'left' THEN 'SELECT 1 FROM nxe LEFT JOIN nxd ON nxe.n = nxd.n'
                                 ELSE format('SELECT 1 FROM nxe WHERE %s EXISTS (SELECT 1 FROM nxd WHERE nxd.n = nxe.n)',
                                             CASE jt WHEN 'anti' THEN 'NOT' ELSE '' END) END) e;
RESET pg_mergepath.memory_limit;
RESET work_mem;

DROP TABLE na, nb, nc, np, nb_small, ni, nxa, nxb, nxs, nxl, nxd, nxe;
DROP DOMAIN mp_jn_money;
DROP FUNCTION mp_jn_outputs;
