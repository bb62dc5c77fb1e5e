-- join_images: the MergePath Join on image keys (join_keys.h): text, varchar, char(n),
-- numeric, interval, bytea, name, arrays and composites, keyed by the 64-bit hash of
-- each value's canonical byte image, every pair of equal hashes rechecked with the
-- join clause itself. Each key type x every join type, with their odd values (NaN,
-- 1.0 / 1.00, trailing blanks in char(n), 'e' + combining acute vs 'é', '1 day' vs
-- '24 hours', TOASTed values compressed on one side and stored uncompressed on the
-- other, NULLs, empty strings), join filters, WHERE clauses, mixed lossless + image
-- keys, forced hash collisions (pg_mergepath.debug_hash_bits), parallel, spilled and
-- streamed joins; every answer compared with PostgreSQL's own join (join_basic's
-- mp_join_check). Joins we must not take (cross-type keys that need a cast, a
-- nondeterministic collation, keys past 128 bits) keep the native plan.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set VERBOSITY terse

CREATE TYPE mp_ji_pair AS (n numeric, t text);
CREATE TABLE ia (id int4, k int4, t text, v varchar(20), c char(6), n numeric, iv interval, b bytea, arr int4[],
                 tarr text[], r mp_ji_pair, nm name, big text);
CREATE TABLE ib (LIKE ia);
ALTER TABLE ib ALTER COLUMN big SET STORAGE EXTERNAL;  -- uncompressed out of line; ia's are compressed
INSERT INTO ia SELECT g, g % 7, 'k' || g % 37, 'k' || g % 29, 'c' || g % 11, round((g % 13) / 4.0, 1 + g % 3),
    make_interval(days => g % 7), convert_to('b' || g % 17, 'UTF8'), ARRAY[g % 5, g % 3], ARRAY['x' || g % 4, NULL],
    ROW(round((g % 6) / 2.0, g % 2), 'r' || g % 3)::mp_ji_pair, ('n' || g % 9)::name, repeat('toast', 2000) || g % 53
  FROM generate_series(1, 2000) g;
INSERT INTO ib SELECT g, g % 5, 'k' || g % 23, 'k' || g % 31, 'c' || g % 13 || '  ', round((g % 9) / 4.0, 2 + g % 2),
    make_interval(hours => 24 * (g % 5)), convert_to('b' || g % 19, 'UTF8'), ARRAY[g % 3, g % 4], ARRAY['x' || g % 3, NULL],
    ROW(round((g % 4) / 2.0, 1 + g % 2), 'r' || g % 2)::mp_ji_pair, ('n' || g % 5)::name, repeat('toast', 2000) || g % 47
  FROM generate_series(1, 1500) g;
-- odd values: NULL keys, NaN, empty strings, combining accents, blanks, negative zero scale
INSERT INTO ia (id, k) VALUES (-1, NULL), (-2, NULL);
INSERT INTO ib (id, k) VALUES (-1, NULL);
INSERT INTO ia VALUES (-3, 1, '', '', '', 'NaN', '1 mon', '', '{}', '{NULL}', ROW(NULL, NULL), '', 'x'),
                      (-4, 2, 'e' || U&'\0301', 'é', 'ab', '-0.000', '-1 days', '\x00', '{NULL}', '{}', ROW('NaN', ''), 'é', ''),
                      (-5, 3, 'é', 'e' || U&'\0301', 'ab ', 'Infinity', '720 hours', '\x0000', '{1,NULL}', '{""}', ROW(0.0, 'é'), 'e', 'y');
INSERT INTO ib VALUES (-3, 1, '', '', ' ', 'NaN', '30 days', '', '{}', '{NULL}', ROW(NULL, NULL), '', ''),
                      (-4, 2, 'é', 'é', 'ab    ', '0', '-24 hours', '\x00', '{NULL}', '{}', ROW('NaN', ''), 'é', 'x'),
                      (-5, 3, 'e', 'e', 'AB', '-Infinity', '1 mon', '\x000000', '{1,NULL}', '{NULL,""}', ROW(0, 'é'), 'e', 'y');
ANALYZE ia, ib;

SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- the SQL of one join type over ia and ib with the given ON clause (the key values in
-- their printed forms too: hash_record_extended, which mp_join_check sums, hashes 1.0
-- and 1.00 alike)
CREATE FUNCTION mp_ji_sql(jt text, cond text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE jt
    WHEN 'semi' THEN format('SELECT ia.id, ia.k FROM ia WHERE EXISTS (SELECT 1 FROM ib WHERE %s)', cond)
    WHEN 'anti' THEN format('SELECT ia.id, ia.k FROM ia WHERE NOT EXISTS (SELECT 1 FROM ib WHERE %s)', cond)
    ELSE format('SELECT ia.id, ia.t, ia.n::text, octet_length(ia.c), ia.iv::text, ib.id, ib.t, ib.n::text, octet_length(ib.c), ib.iv::text
                 FROM ia %s JOIN ib ON %s', jt, cond) END
$$;

-- the plan: the key recheck, the keys' width
SELECT * FROM mp_explain('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t');
SELECT * FROM mp_explain('SELECT ia.id, ib.id FROM ia LEFT JOIN ib ON ia.n = ib.n AND ia.k = ib.k AND ia.id < ib.id');

-- every image type x every join type
SELECT col, jt, mp_join_check(mp_ji_sql(jt, format('ia.%1$s = ib.%1$s', col)))
FROM unnest(ARRAY['t', 'v', 'c', 'n', 'iv', 'b', 'arr', 'tarr', 'r', 'nm', 'big']) WITH ORDINALITY AS c(col, i),
     unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o)
ORDER BY i, o;

-- join filters, WHERE clauses over outer joins, an image key with a lossless one, two
-- image keys (128 bits), varchar = text (both text under texteq)
SELECT jt, mp_join_check(mp_ji_sql(jt, 'ia.t = ib.t AND ia.id < ib.id')) AS filtered,
       mp_join_check(mp_ji_sql(jt, 'ia.n = ib.n AND ia.k = ib.k')) AS with_int_key,
       mp_join_check(mp_ji_sql(jt, 'ia.t = ib.t AND ia.c = ib.c')) AS two_images,
       mp_join_check(mp_ji_sql(jt, 'ia.v = ib.t')) AS varchar_text
FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o) ORDER BY o;
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia LEFT JOIN ib ON ia.t = ib.t WHERE ib.id IS NULL OR ib.id > 1000');
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia FULL JOIN ib ON ia.n = ib.n WHERE coalesce(ia.id, 0) + coalesce(ib.id, 0) > 1800');

-- forced hash collisions: 3-bit hashes, so nearly every pair of equal hashes is two
-- different values, which the recheck removes; the answers stay PostgreSQL's
SET pg_mergepath.debug_hash_bits = 3;
SELECT col, jt, mp_join_check(mp_ji_sql(jt, format('ia.%1$s = ib.%1$s', col)))
FROM unnest(ARRAY['t', 'c', 'n', 'iv', 'r']) WITH ORDINALITY AS c(col, i),
     unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o)
ORDER BY i, o;
SELECT mp_join_check(mp_ji_sql('full', 'ia.t = ib.t AND ia.c = ib.c AND ia.id > ib.id'));
SELECT mp_explain_count(e, 'Rows Removed by Key Recheck') > 0 AS collisions_removed, e ->> 'Keys' AS keys
FROM mp_explain_analyzed('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t') e;
RESET pg_mergepath.debug_hash_bits;

-- the batch proof (join_batch_proof.cpp): keys of one to three copies, so that every
-- range is short. Without collisions every outer row with candidates is proven before
-- its pairs (as many as have a match); with 7-bit hashes the ranges mix values, the
-- rows whose candidates differ are rechecked pair by pair, and the answers stay
-- PostgreSQL's. Outputs without the inner side's columns (a proven row's pairs then
-- read no inner row), or with no column at all (count(*)); two text keys prove
-- together; a join filter leaves the proof as it is. Serial, then parallel.
CREATE TABLE pa AS SELECT g AS id, 'p' || g % 500 AS t, 'q' || g % 7 AS v FROM generate_series(1, 900) g;
CREATE TABLE pb AS SELECT g AS id, 'p' || g % 400 AS t, 'q' || g % 5 AS v FROM generate_series(1, 800) g;
INSERT INTO pa VALUES (-1, NULL, 'q1'), (-2, '', NULL);
INSERT INTO pb VALUES (-1, NULL, 'q1'), (-2, '', NULL), (-3, '', 'q0');
ANALYZE pa, pb;
-- q checked (mp_join_check) or analyzed (mp_explain_analyzed) under
-- pg_mergepath.debug_hash_bits = bits (0: the full hash)
CREATE FUNCTION mp_check_bits(bits int, q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('pg_mergepath.debug_hash_bits', bits::text, false);
  RETURN mp_join_check(q);
END $$;
CREATE FUNCTION mp_analyzed_bits(bits int, q text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('pg_mergepath.debug_hash_bits', bits::text, false);
  RETURN mp_explain_analyzed(q);
END $$;
CREATE FUNCTION mp_proof_checks(bits int) RETURNS TABLE (jt text, one_key text, outer_only text, columnless text,
                                                       two_keys text, filtered text) LANGUAGE sql AS $$
  SELECT jt, mp_check_bits(bits, mp_join_sql(jt, 'pa.t = pb.t', 'pa', 'pb')),
         mp_check_bits(bits, CASE WHEN jt IN ('semi', 'anti') THEN replace(mp_join_sql(jt, 'pa.t = pb.t', 'pa', 'pb'), 'pa.*', 'pa.id')
                                  ELSE format('SELECT pa.id FROM pa %s JOIN pb ON pa.t = pb.t', jt) END),
         mp_check_bits(bits, replace(mp_join_sql(jt, 'pa.t = pb.t', 'pa', 'pb'), CASE WHEN jt IN ('semi', 'anti') THEN 'pa.*' ELSE 'pa.*, pb.*' END, 'count(*)')),
         mp_check_bits(bits, mp_join_sql(jt, 'pa.t = pb.t AND pa.v = pb.v', 'pa', 'pb')),
         mp_check_bits(bits, mp_join_sql(jt, 'pa.t = pb.t AND pa.id < pb.id', 'pa', 'pb'))
  FROM unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o) ORDER BY o
$$;
SELECT 0 AS bits, * FROM mp_proof_checks(0);
SELECT 7 AS bits, * FROM mp_proof_checks(7);
SELECT bits, jt, mp_explain_count(e, 'Outer Rows Proven') = (SELECT count(*) FROM pa WHERE EXISTS (SELECT 1 FROM pb WHERE pb.t = pa.t))
         AS every_matched_row_proven,
       mp_explain_count(e, 'Outer Rows Proven') > 0 AS some_proven,
       mp_explain_count(e, 'Rows Removed by Key Recheck') > 0 AS collisions_removed
FROM unnest(ARRAY[0, 7]) AS bits, unnest(ARRAY['inner', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
     LATERAL mp_analyzed_bits(bits, replace(mp_join_sql(jt, 'pa.t = pb.t', 'pa', 'pb'), '.*', '.id')) e
ORDER BY bits, o;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT 0 AS bits, * FROM mp_proof_checks(0);
SELECT 7 AS bits, * FROM mp_proof_checks(7);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET pg_mergepath.debug_hash_bits;

-- a SEMI / ANTI join on a heavy key whose filter rejects most candidates: each row walks
-- far into the key's rows (join_emit.cpp: a window of its own), the next rows' stay
CREATE TABLE hw_a AS SELECT g AS p, CASE WHEN g % 3 = 0 THEN 'heavy' ELSE 'k' || g END AS t FROM generate_series(1, 900) g;
CREATE TABLE hw_b AS SELECT g AS q, CASE WHEN g % 2 = 0 THEN 'heavy' ELSE 'k' || g END AS t FROM generate_series(1, 6000) g;
ANALYZE hw_a, hw_b;
SELECT jt, mp_join_check(format('SELECT hw_a.* FROM hw_a WHERE %s EXISTS (SELECT 1 FROM hw_b WHERE hw_b.t = hw_a.t AND hw_b.q > 5900 - hw_a.p)', neg))
FROM (VALUES ('semi', ''), ('anti', 'NOT')) v(jt, neg);
DROP TABLE hw_a, hw_b;

-- pg_mergepath.image_keys = off keeps image-key joins native
SET pg_mergepath.image_keys = off;
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t');
RESET pg_mergepath.image_keys;

-- not ours, DEBUG1 says why: char(n) = text and numeric = int4 compare a cast (an
-- expression), a nondeterministic collation, three image keys (192 bits)
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.c = ib.t');
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.n = ib.k');
CREATE COLLATION mp_ji_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t COLLATE mp_ji_ci');
SELECT mp_join_check('SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t AND ia.v = ib.v AND ia.n = ib.n');
SET enable_nestloop = on;  -- (18 marks a disabled node's plan)
SET client_min_messages = debug1;
EXPLAIN (COSTS OFF) SELECT ia.id, ib.id FROM ia JOIN ib ON ia.n = ib.k;
EXPLAIN (COSTS OFF) SELECT ia.id, ib.id FROM ia JOIN ib ON ia.t = ib.t COLLATE mp_ji_ci;
RESET client_min_messages;
SET enable_nestloop = off;

-- a streamed outer side (the inner side a quarter of the outer one or less)
CREATE TABLE ib_small AS SELECT * FROM ib WHERE id % 8 = 0 OR id < 0;
ANALYZE ib_small;
SELECT jt, e ->> 'Outer Side' AS outer_side,
       mp_join_check(replace(mp_ji_sql(jt, 'ia.t = ib.t AND ia.id % 3 <> ib.id % 3'), 'ib', 'ib_small')) AS result
FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
     mp_explain_analyzed(replace(mp_ji_sql(jt, 'ia.t = ib.t'), 'ib', 'ib_small')) e
ORDER BY o;
SET pg_mergepath.debug_hash_bits = 3;
SELECT jt, mp_join_check(replace(mp_ji_sql(jt, 'ia.n = ib.n'), 'ib', 'ib_small'))
FROM unnest(ARRAY['inner', 'left', 'semi', 'anti']) jt;
RESET pg_mergepath.debug_hash_bits;

-- parallel: every participant reads and hashes its share of both sides
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 3;
SET pg_mergepath.stream_outer = off;
SELECT col, jt, mp_join_check(mp_ji_sql(jt, format('ia.%1$s = ib.%1$s', col)))
FROM unnest(ARRAY['t', 'n', 'r']) WITH ORDINALITY AS c(col, i),
     unnest(ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o)
ORDER BY i, o;
SET pg_mergepath.debug_hash_bits = 3;
SELECT jt, mp_join_check(mp_ji_sql(jt, 'ia.t = ib.t')) FROM unnest(ARRAY['inner', 'full', 'anti']) jt;
RESET pg_mergepath.debug_hash_bits;
RESET pg_mergepath.stream_outer;
SET max_parallel_workers_per_gather = 0;

-- over the memory limit: both sides sorted into runs by key hash, joined range by range
CREATE TABLE sa AS SELECT g AS id, 'customer#' || (g * 7919) % 20000 AS t, ((g % 300) / 8.0)::numeric AS n
  FROM generate_series(1, 60000) g;
CREATE TABLE sb AS SELECT g AS id, 'customer#' || ((g::int8 * 104729) % 25000 + 10000) AS t, ((g % 500) / 4.0)::numeric(10, 3) AS n
  FROM generate_series(1, 40000) g;
ANALYZE sa, sb;
-- planned for the CPU backend, an image-key join is charged its sort of row numbers and
-- their references too (join_path.cpp): with the native joins allowed the hash join
-- stays; a lossless key of the same tables is ours
SET pg_mergepath.device = cpu;
SET enable_hashjoin = on;
SELECT mp_join_plan('SELECT sa.id, sb.id FROM sa JOIN sb ON sa.t = sb.t') AS text_key,
       mp_join_plan('SELECT sa.id, sb.id FROM sa JOIN sb ON sa.id = sb.id') AS int_key;
SET enable_hashjoin = off;
RESET pg_mergepath.device;
SET work_mem = '64kB';
SET pg_mergepath.memory_limit = 0;
SELECT jt, mp_explain_count(e, 'Key Ranges') > 1 AS ranges,
       mp_join_check(format(CASE jt WHEN 'semi' THEN 'SELECT sa.* FROM sa WHERE EXISTS (SELECT 1 FROM sb WHERE %s)'
                                    WHEN 'anti' THEN 'SELECT sa.* FROM sa WHERE NOT EXISTS (SELECT 1 FROM sb WHERE %s)'
                                    ELSE 'SELECT sa.*, sb.* FROM sa ' || jt || ' JOIN sb ON %s' END, cond))
FROM unnest(ARRAY['inner', 'left', 'full', 'semi', 'anti']) WITH ORDINALITY AS j(jt, o),
     unnest(ARRAY['sa.t = sb.t', 'sa.n = sb.n AND sa.id > sb.id']) WITH ORDINALITY AS c(cond, i),
     mp_explain_analyzed(format('SELECT sa.id, sb.id FROM sa JOIN sb ON %s', cond)) e
ORDER BY i, o;
-- 4-bit hashes, a quarter of each side: every key (hash) past a range, joined row by
-- row with its recheck and filter (join_spill_loop.cpp; EXPLAIN counts both as the filter)
CREATE TABLE sa4 AS SELECT * FROM sa WHERE id % 4 = 0;
CREATE TABLE sb4 AS SELECT * FROM sb WHERE id % 4 = 0;
ANALYZE sa4, sb4;
SET pg_mergepath.debug_hash_bits = 4;
SELECT jt, mp_join_check(format(CASE jt WHEN 'anti' THEN 'SELECT sa4.* FROM sa4 WHERE NOT EXISTS (SELECT 1 FROM sb4 WHERE %s)'
                                        ELSE 'SELECT sa4.*, sb4.* FROM sa4 ' || jt || ' JOIN sb4 ON %s' END,
                                'sa4.t = sb4.t AND sa4.id % 7 <> sb4.id % 7'))
FROM unnest(ARRAY['inner', 'left', 'full', 'anti']) jt;
SELECT mp_explain_count(e, 'Keys Joined Row By Row') > 0 AS looped, mp_explain_count(e, 'Rows Removed by Join Filter') > 0 AS checks_removed
FROM mp_explain_analyzed('SELECT sa4.id FROM sa4 LEFT JOIN sb4 ON sa4.t = sb4.t AND sa4.id % 7 <> sb4.id % 7') e;
RESET pg_mergepath.debug_hash_bits;
RESET pg_mergepath.memory_limit;
RESET work_mem;

-- Keys out of line on both sides (STORAGE EXTERNAL: the stored rows keep TOAST
-- pointers), and out of line against inline (STORAGE PLAIN): the recheck compares the
-- values, never the pointers (text, varchar = text, bytea; both sides' texts equal in
-- every byte but the last)
CREATE TABLE xa (id int, t text, v varchar, b bytea);
CREATE TABLE xb (id int, t text, b bytea);
ALTER TABLE xa ALTER t SET STORAGE EXTERNAL, ALTER v SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL;
ALTER TABLE xb ALTER t SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL;
CREATE TABLE xc (LIKE xb);
ALTER TABLE xc ALTER t SET STORAGE PLAIN, ALTER b SET STORAGE PLAIN;
INSERT INTO xa SELECT g, repeat('k', 3000) || g % 7, repeat('k', 3000) || g % 5,
                      convert_to(repeat('k', 3000) || g % 7, 'UTF8') FROM generate_series(1, 60) g;
INSERT INTO xb SELECT g, repeat('k', 3000) || g % 5, convert_to(repeat('k', 3000) || g % 5, 'UTF8')
FROM generate_series(1, 40) g;
INSERT INTO xc SELECT * FROM xb;
ANALYZE xa, xb, xc;
SELECT other, cond, jt,
       mp_join_check(format(CASE jt WHEN 'semi' THEN 'SELECT xa.id FROM xa WHERE EXISTS (SELECT 1 FROM %1$s WHERE %2$s)'
                                    WHEN 'anti' THEN 'SELECT xa.id FROM xa WHERE NOT EXISTS (SELECT 1 FROM %1$s WHERE %2$s)'
                                    ELSE 'SELECT xa.id, %1$s.id FROM xa ' || jt || ' JOIN %1$s ON %2$s' END,
                            other, replace(cond, 'x.', other || '.')))
FROM unnest(ARRAY['xb', 'xc']) other, unnest(ARRAY['xa.t = x.t', 'xa.v = x.t', 'xa.b = x.b']) cond,
     unnest(ARRAY['inner', 'left', 'right', 'semi', 'anti']) jt
ORDER BY 1, 2, 3;
-- The recheck calls the key clause's function as the clause itself would be called: a
-- role without EXECUTE on it gets PostgreSQL's ERROR, plan of ours or not
CREATE ROLE regress_mp_no_texteq;
GRANT SELECT ON xa, xb TO regress_mp_no_texteq;
REVOKE EXECUTE ON FUNCTION texteq(text, text) FROM PUBLIC;
SELECT * FROM mp_explain('SELECT count(*) FROM xa JOIN xb ON xa.t = xb.t') WHERE mp_explain ~ 'MergePath|Recheck';
SET ROLE regress_mp_no_texteq;
SELECT count(*) FROM xa JOIN xb ON xa.t = xb.t;
RESET ROLE;
GRANT EXECUTE ON FUNCTION texteq(text, text) TO PUBLIC;
DROP OWNED BY regress_mp_no_texteq;
DROP ROLE regress_mp_no_texteq;
DROP TABLE xa, xb, xc;

-- One-column text keys of every length a 1-byte varlena header holds (0-126 bytes) and
-- past it: the stored row of such a key is formed directly, copied in words
-- (row_arena.cpp), so each length's tail and padding must come out right (only the key
-- is output: each side stores that one column); inner and semi joins, rows of the same
-- length and of neighbouring ones sharing prefixes.
CREATE TABLE la AS SELECT n, repeat(chr(97 + n % 3), n) || CASE WHEN n % 4 = 0 THEN '' ELSE chr(65 + n % 5) END AS k
FROM generate_series(0, 140) n, generate_series(1, 2) c;
CREATE TABLE lb AS SELECT n, repeat(chr(97 + n % 3), n) || CASE WHEN n % 4 = 0 THEN '' ELSE chr(65 + n % 7) END AS k
FROM generate_series(0, 140) n;
ANALYZE la, lb;
SELECT jt, mp_join_check(CASE jt WHEN 'semi' THEN 'SELECT la.k FROM la WHERE EXISTS (SELECT 1 FROM lb WHERE la.k = lb.k)'
                                 ELSE 'SELECT la.k, lb.k FROM la JOIN lb ON la.k = lb.k' END)
FROM unnest(ARRAY['inner', 'semi']) jt ORDER BY 1;
DROP TABLE la, lb;

DROP TABLE ia, ib, ib_small, sa, sb, sa4, sb4;
DROP FUNCTION mp_ji_sql(text, text);
DROP COLLATION mp_ji_ci;
DROP TYPE mp_ji_pair;
