-- setop_images: keys compared as canonical byte images (images.h): every type with an
-- image and its odd values on both sides, for the four operators, against the native
-- plan; the printed form of equal values that print differently (the group's first
-- row as the hashed SetOp reads it); collations; TOASTed values; hash collisions
-- forced with pg_mergepath.debug_hash_bits (runs split by comparing images); wide
-- rows; composites; parallel plans.
SET pg_mergepath.min_rows = 0;
-- Our node on these few rows whatever the version's costs (18's SetOp, reading its
-- inputs without an Append, costs about what ours does here).
SET pg_mergepath.debug_replace_native = on;
-- The native reference is the hashed SetOp, which emits a group's first row read, as
-- ours does: a sorted SetOp (18 may pick it here) emits whichever of equal rows its sort
-- puts first (1.0 or 1.00), so printed forms could not be compared.
SET enable_sort = off;
\set VERBOSITY terse

-- mp_check_printed(q): q's rows as text, sorted, native and ours: equal values that
-- print differently must print as the native plan prints them.
CREATE FUNCTION mp_check_printed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  agg text := format('SELECT coalesce(string_agg(s::text, '' | '' ORDER BY s::text), '''') FROM (%s) s', q);
  native text;
  ours text;
BEGIN
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  EXECUTE agg INTO native;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  EXECUTE agg INTO ours;
  IF NOT mp_uses_node(q) THEN RETURN 'native plan: ' || ours; END IF;
  IF native = ours THEN RETURN ours; END IF;
  RETURN format('DIFFERENT: native %s, ours %s', native, ours);
END $$;

-- Odd values, one table per type: (side, value).
CREATE TABLE odd (typ text, side text, v text);
INSERT INTO odd VALUES
  ('float8', 'L', 'NaN'), ('float8', 'L', '-0'), ('float8', 'L', '0'), ('float8', 'L', 'Infinity'),
  ('float8', 'L', '-Infinity'), ('float8', 'L', '1.5'), ('float8', 'L', NULL), ('float8', 'L', 'NaN'),
  ('float8', 'R', 'NaN'), ('float8', 'R', '0'), ('float8', 'R', '-0'), ('float8', 'R', '-Infinity'),
  ('float8', 'R', '1.5'), ('float8', 'R', NULL), ('float8', 'R', NULL), ('float8', 'R', '1e-30'),
  ('numeric', 'L', '1.0'), ('numeric', 'L', '1.00'), ('numeric', 'L', '-0'), ('numeric', 'L', 'NaN'),
  ('numeric', 'L', 'Infinity'), ('numeric', 'L', '-Infinity'), ('numeric', 'L', '2.50'), ('numeric', 'L', NULL),
  ('numeric', 'L', '123456789012345678901234567890.123456789'), ('numeric', 'L', '0.0000000000000000000001'),
  ('numeric', 'R', '1'), ('numeric', 'R', '1.000'), ('numeric', 'R', '0.000'), ('numeric', 'R', 'NaN'),
  ('numeric', 'R', 'Infinity'), ('numeric', 'R', '2.5'), ('numeric', 'R', NULL), ('numeric', 'R', '-Infinity'),
  ('numeric', 'R', '123456789012345678901234567890.1234567890'), ('numeric', 'R', '1e-22'),
  ('text', 'L', ''), ('text', 'L', ' '), ('text', 'L', 'a'), ('text', 'L', 'a '), ('text', 'L', U&'\00E9'),
  ('text', 'L', U&'e\0301'), ('text', 'L', NULL), ('text', 'L', 'a'),
  ('text', 'R', ''), ('text', 'R', 'a'), ('text', 'R', 'a  '), ('text', 'R', U&'e\0301'), ('text', 'R', NULL),
  ('text', 'R', 'A'),
  ('bpchar', 'L', 'a'), ('bpchar', 'L', 'a  '), ('bpchar', 'L', ''), ('bpchar', 'L', ' b'), ('bpchar', 'L', NULL),
  ('bpchar', 'R', 'a '), ('bpchar', 'R', '   '), ('bpchar', 'R', 'b'), ('bpchar', 'R', ' b '), ('bpchar', 'R', NULL),
  ('interval', 'L', '1 mon'), ('interval', 'L', '1 day'), ('interval', 'L', '-1 day 24:00:00'),
  ('interval', 'L', '1 year'), ('interval', 'L', NULL),
  ('interval', 'R', '30 days'), ('interval', 'R', '24 hours'), ('interval', 'R', '00:00:00'),
  ('interval', 'R', '360 days'), ('interval', 'R', NULL),
  ('bytea', 'L', '\x00'), ('bytea', 'L', '\x0000'), ('bytea', 'L', ''), ('bytea', 'L', NULL),
  ('bytea', 'R', '\x00'), ('bytea', 'R', ''), ('bytea', 'R', '\x0000'), ('bytea', 'R', '\x00');

-- Each type as its own column type; the four operators; same rows as native.
SELECT t.typ, o.op, mp_check(format(
  'SELECT v::%1$s AS x FROM odd WHERE typ = %2$L AND side = ''L'' %3$s SELECT v::%1$s FROM odd WHERE typ = %2$L AND side = ''R''',
  t.cast_to, t.typ, o.op))
FROM (VALUES ('float8', 'float8'), ('float8', 'float4'), ('numeric', 'numeric'), ('text', 'text'),
             ('text', 'varchar(3)'), ('bpchar', 'char(3)'), ('bpchar', 'bpchar'), ('interval', 'interval'),
             ('bytea', 'bytea'), ('text', 'name')) t(typ, cast_to),
     (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op)
ORDER BY t.typ, t.cast_to, o.op;
SELECT mp_keys('SELECT v::numeric FROM odd INTERSECT SELECT v::numeric FROM odd WHERE side = ''R''');
SELECT mp_keys('SELECT v::name FROM odd INTERSECT SELECT v::name FROM odd WHERE side = ''R''');

-- Printed forms: a group's rows print as its first row read, from the input the
-- replaced (hashed) SetOp reads first.
SELECT mp_check_printed('SELECT x FROM (VALUES (1.00), (2), (1.00)) l(x) INTERSECT ALL SELECT x FROM (VALUES (3), (2), (3), (1)) r(x)');
-- the right input has fewer groups, so the hashed INTERSECT reads it first
SELECT mp_check_printed('SELECT x FROM (VALUES (1.0), (2), (3), (1)) l(x) INTERSECT ALL SELECT x FROM (VALUES (1.00), (1.000)) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (1.0), (1.00), (1)) l(x) EXCEPT ALL SELECT x FROM (VALUES (1.000)) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (1.0), (1.00)) l(x) INTERSECT SELECT x FROM (VALUES (1.000), (1), (1.00000)) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''-0''::float8), (''0'')) l(x) INTERSECT ALL SELECT x FROM (VALUES (''0''::float8), (''-0'')) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''a''::bpchar), (''a  '')) l(x) INTERSECT ALL SELECT x FROM (VALUES (''a ''::bpchar), (''a'')) r(x)');
-- char(n): a value of n characters is rebuilt from its image, padded to n characters
-- (multibyte ones counted as characters); NULLs beside it
SELECT mp_check_printed('SELECT x FROM (VALUES (''é''::char(3)), (''ab''::char(3)), (''''::char(3)), (''é''::char(3))) l(x) INTERSECT ALL SELECT x FROM (VALUES (''é  ''::char(3)), (''ab''::char(3)), (''  ''::char(3)), (''é''::char(3))) r(x)');
SELECT mp_check_printed('SELECT x, y FROM (VALUES (''é''::char(3), NULL::char(2)), (''ab''::char(3), ''z''::char(2)), (NULL, ''é''::char(2))) l(x, y) EXCEPT ALL SELECT x, y FROM (VALUES (''ab''::char(3), ''z ''::char(2))) r(x, y)');
-- arrays (array_eq): equal when their dimensions, lower bounds and elements are equal
-- (NULL elements equal, elements by their type's equality); each prints as read
SELECT mp_check_printed('SELECT x FROM (VALUES (''{1.0,2}''::numeric[]), (''{1.00,2.0}''), (''{NULL,1}''), (''{}''), (''[0:1]={1,2}''), (''{{1,2},{3,4}}''), (NULL), (''{NaN}'')) l(x) INTERSECT ALL SELECT x FROM (VALUES (''{1,2.00}''::numeric[]), (''{NULL,1.0}''), (''{}''), (''{1,2}''), (''{1,2,3,4}''), (''{{1,2},{3,4}}''), (NULL), (''{NaN}''), (''{1.0,2}'')) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''{1.0,2}''::numeric[]), (''{1.00,2.0}''), (''{}''), (''[0:1]={1,2}''), (''{{1,2},{3,4}}'')) l(x) EXCEPT ALL SELECT x FROM (VALUES (''{1,2.00}''::numeric[]), (''{1,2}''), (''{1,2,3,4}'')) r(x)');
SELECT mp_check_printed('SELECT x, y FROM (VALUES (''{NaN,-0}''::float8[], ''{a,NULL}''::text[]), (''{1.5}'', ''{é}''), (''{-0}'', ''{"b  "}'')) l(x, y) INTERSECT SELECT x, y FROM (VALUES (''{NaN,0}''::float8[], ''{a,NULL}''::text[]), (''{1.5}'', U&''{e\0301}''), (''{0}'', ''{"b  "}'')) r(x, y)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''{"a ","b"}''::bpchar[]), (''{a}''::bpchar[]), (''{x,y}'')) l(x) EXCEPT SELECT x FROM (VALUES (''{"a","b  "}''::bpchar[]), (''{"a  "}''::bpchar[])) r(x)');
-- arrays with an empty input on either side
SELECT mp_check_printed('SELECT x FROM (VALUES (''{1.0}''::numeric[]), (''{1.0}''), (NULL)) l(x) EXCEPT ALL SELECT x FROM (VALUES (''{1}''::numeric[])) r(x) WHERE false');
SELECT mp_check_printed('SELECT x FROM (VALUES (''{a}''::text[])) l(x) WHERE false INTERSECT SELECT x FROM (VALUES (''{a}''::text[])) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''{1,2}''::int8[]), (''{1,NULL}''), (''{}''::int8[])) l(x) INTERSECT ALL SELECT x FROM (VALUES (''{1,2}''::int8[]), (''{1,NULL}''), (''{}''::int8[]), (''{2,1}'')) r(x)');
SELECT mp_check_printed('SELECT x FROM (VALUES (''1 mon''::interval), (''30 days'')) l(x) EXCEPT ALL SELECT x FROM (VALUES (''720 hours''::interval)) r(x)');
SELECT mp_check_printed('SELECT v::numeric AS x FROM odd WHERE typ = ''numeric'' AND side = ''L'' INTERSECT ALL SELECT v::numeric FROM odd WHERE typ = ''numeric'' AND side = ''R''');

-- Collations: "C", the database default and a deterministic ICU collation compare
-- bytes; a nondeterministic one keeps the native plan, and DEBUG1 says why.
SELECT c.coll, mp_check(format(
  'SELECT v COLLATE %1$s AS x FROM odd WHERE typ = ''text'' AND side = ''L'' INTERSECT ALL SELECT v COLLATE %1$s FROM odd WHERE typ = ''text'' AND side = ''R''', c.coll))
FROM (VALUES ('"C"'), ('"default"'), ('"en-x-icu"')) c(coll) ORDER BY 1;
CREATE COLLATION mp_img_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SET client_min_messages = debug1;
SELECT v COLLATE mp_img_ci FROM odd WHERE typ = 'text' AND side = 'L' INTERSECT SELECT v FROM odd WHERE side = 'R' AND v = 'a';
RESET client_min_messages;

-- Composites (record_eq): attribute by attribute, each by its own type's equality
-- (NULL attributes equal), with composites and arrays inside, a domain over one, a
-- dropped attribute (skipped) and a large value; each prints as read.
CREATE TYPE mp_img_inner AS (n numeric, c char(3), f float8, a text[]);
CREATE TYPE mp_img_rec AS (t text, inner_v mp_img_inner, gone int4, d date);
CREATE DOMAIN mp_img_dom AS mp_img_inner;
CREATE TABLE rec_l (r mp_img_rec, i mp_img_inner);
CREATE TABLE rec_r (r mp_img_rec, i mp_img_inner);
INSERT INTO rec_l (r) VALUES (('a', (1.0, 'x', '-0', '{p,NULL}'), 1, '2020-01-01')),
  (('a', (1.00, 'x ', '0', '{p,NULL}'), 5, '2020-01-01')), ((NULL, (NULL, NULL, NULL, NULL), 1, NULL)),
  (('b ', ('NaN', '', 'NaN', '{}'), 3, '2020-01-02')), (NULL), (('é', NULL, 1, '2020-01-03')),
  ((repeat('y', 100000), (2, 'z', 1.5, ARRAY[repeat('q', 3000)]), 1, NULL)), ((NULL, NULL, NULL, NULL));
INSERT INTO rec_r (r) VALUES (('a', (1, 'x  ', '0', '{p,NULL}'), 2, '2020-01-01')),
  ((NULL, (NULL, NULL, NULL, NULL), 7, NULL)), (('b', ('NaN', ' ', 'NaN', '{}'), 3, '2020-01-02')),
  ((U&'e\0301', NULL, 1, '2020-01-03')), (NULL), (('b ', ('NaN', '   ', 'NaN', '{}'), 9, '2020-01-02')),
  ((repeat('y', 100000), (2.0, 'z ', 1.5, ARRAY[repeat('q', 3000)]), 4, NULL)), ((NULL, NULL, NULL, NULL));
UPDATE rec_l SET i = (r).inner_v;
UPDATE rec_r SET i = (r).inner_v;
INSERT INTO rec_l VALUES (NULL, (1.0, NULL, NULL, '{NULL}')), (NULL, (NULL, NULL, NULL, '{}'));
INSERT INTO rec_r VALUES (NULL, (1, NULL, NULL, '{NULL}')), (NULL, (NULL, NULL, NULL, NULL));
ALTER TYPE mp_img_rec DROP ATTRIBUTE gone;
SELECT mp_keys('SELECT r FROM rec_l INTERSECT SELECT r FROM rec_r');
SELECT op, cols, mp_check(format('SELECT %s FROM rec_l %s SELECT %s FROM rec_r', cols, op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('r'), ('i'), ('r, i'), ('i::mp_img_dom')) c(cols)
ORDER BY op, cols;
-- printed forms, without the large value (the views)
CREATE VIEW rec_l_small AS SELECT * FROM rec_l WHERE coalesce(length((r).t), 0) < 1000;
CREATE VIEW rec_r_small AS SELECT * FROM rec_r WHERE coalesce(length((r).t), 0) < 1000;
SELECT op, mp_check_printed(format('SELECT (r).t, (r).d, r, i FROM rec_l_small %s SELECT (r).t, (r).d, r, i FROM rec_r_small', op))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op) ORDER BY op;
SET pg_mergepath.debug_hash_bits = 1;
SELECT op, mp_check_printed(format('SELECT r, i FROM rec_l_small %s SELECT r, i FROM rec_r_small', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT ALL')) o(op) ORDER BY op;
RESET pg_mergepath.debug_hash_bits;
-- no image (DEBUG1 says why): an attribute under a nondeterministic collation, an
-- anonymous row type
CREATE TYPE mp_img_ci_rec AS (t text COLLATE mp_img_ci);
SET client_min_messages = debug1;
SELECT mp_keys('SELECT ROW(v)::mp_img_ci_rec FROM odd WHERE typ = ''text'' INTERSECT SELECT ROW(''a'')::mp_img_ci_rec');
SELECT mp_keys('SELECT ROW(v, 1) FROM odd WHERE typ = ''text'' INTERSECT SELECT ROW(''a'', 1)');
RESET client_min_messages;
SELECT mp_check('SELECT ROW(v)::mp_img_ci_rec FROM odd WHERE typ = ''text'' INTERSECT ALL SELECT ROW(''A'')::mp_img_ci_rec');

-- A composite or array type with a default operator class of its own groups by that
-- class's equality, not record_eq's or array_eq's: no image (here "=" compares only
-- the first attribute, or the first element); in a transaction, rolled back.
BEGIN;
CREATE TYPE mp_img_own AS (a int, b text);
CREATE TYPE mp_img_outer AS (p mp_img_own, k int);
CREATE FUNCTION mp_own_cmp(mp_img_own, mp_img_own) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT btint4cmp($1.a, $2.a)';
CREATE FUNCTION mp_own_eq(mp_img_own, mp_img_own) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1.a = $2.a';
CREATE FUNCTION mp_own_lt(mp_img_own, mp_img_own) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1.a < $2.a';
CREATE FUNCTION mp_own_hash(mp_img_own) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT hashint4($1.a)';
CREATE FUNCTION mp_own_hashx(mp_img_own, int8) RETURNS int8 LANGUAGE sql IMMUTABLE AS 'SELECT hashint4extended($1.a, $2)';
CREATE OPERATOR = (LEFTARG = mp_img_own, RIGHTARG = mp_img_own, FUNCTION = mp_own_eq, HASHES, MERGES);
CREATE OPERATOR < (LEFTARG = mp_img_own, RIGHTARG = mp_img_own, FUNCTION = mp_own_lt);
CREATE OPERATOR CLASS mp_own_ops DEFAULT FOR TYPE mp_img_own USING btree AS
  OPERATOR 1 <, OPERATOR 3 =, FUNCTION 1 mp_own_cmp(mp_img_own, mp_img_own);
CREATE OPERATOR CLASS mp_own_hops DEFAULT FOR TYPE mp_img_own USING hash AS
  OPERATOR 1 =, FUNCTION 1 mp_own_hash(mp_img_own), FUNCTION 2 mp_own_hashx(mp_img_own, int8);
CREATE FUNCTION mp_own_arr_eq(int[], int[]) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1[1] IS NOT DISTINCT FROM $2[1]';
CREATE FUNCTION mp_own_arr_cmp(int[], int[]) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT btint4cmp(coalesce($1[1], 0), coalesce($2[1], 0))';
CREATE FUNCTION mp_own_arr_hash(int[]) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT hashint4(coalesce($1[1], 0))';
CREATE FUNCTION mp_own_arr_hashx(int[], int8) RETURNS int8 LANGUAGE sql IMMUTABLE AS 'SELECT hashint4extended(coalesce($1[1], 0), $2)';
CREATE OPERATOR public.=== (LEFTARG = int[], RIGHTARG = int[], FUNCTION = mp_own_arr_eq, HASHES, MERGES);
CREATE OPERATOR CLASS mp_own_arr_ops DEFAULT FOR TYPE int[] USING btree AS
  OPERATOR 3 ===, FUNCTION 1 mp_own_arr_cmp(int[], int[]);
CREATE OPERATOR CLASS mp_own_arr_hops DEFAULT FOR TYPE int[] USING hash AS
  OPERATOR 1 ===, FUNCTION 1 mp_own_arr_hash(int[]), FUNCTION 2 mp_own_arr_hashx(int[], int8);
SELECT mp_keys('SELECT ROW(1, ''x'')::mp_img_own INTERSECT SELECT ROW(1, ''z'')::mp_img_own');
SELECT mp_keys('SELECT ROW(ROW(1, ''x''), 1)::mp_img_outer INTERSECT SELECT ROW(ROW(1, ''z''), 1)::mp_img_outer');
SELECT mp_keys('SELECT ARRAY[1, 2] INTERSECT SELECT ARRAY[1, 3]');
SELECT mp_check('SELECT ROW(g % 3, g::text)::mp_img_own FROM generate_series(1, 9) g INTERSECT ALL SELECT ROW(g % 2, ''z'')::mp_img_own FROM generate_series(1, 5) g');
SELECT mp_check('SELECT ROW(ROW(g % 3, g::text), 1)::mp_img_outer FROM generate_series(1, 9) g EXCEPT SELECT ROW(ROW(1, ''z''), 1)::mp_img_outer');
SELECT mp_check('SELECT ARRAY[g % 3, g] FROM generate_series(1, 9) g INTERSECT SELECT ARRAY[g % 2, 0] FROM generate_series(1, 5) g');
ROLLBACK;

-- A prepared plan over a composite is made again after ALTER TYPE: an attribute added
-- without an image (jsonb) moves it off image keys, a dropped one is no longer compared.
CREATE TYPE mp_img_alter AS (a int, b numeric);
CREATE TABLE alter_l (v mp_img_alter);
CREATE TABLE alter_r (v mp_img_alter);
INSERT INTO alter_l VALUES (ROW(1, 1.0)), (ROW(2, 2)), (ROW(3, 3));
INSERT INTO alter_r VALUES (ROW(1, 1.00)), (ROW(2, 2.5)), (ROW(3, 3));
PREPARE mp_alter_q AS SELECT v::text FROM (SELECT v FROM alter_l INTERSECT SELECT v FROM alter_r) s ORDER BY 1;
EXECUTE mp_alter_q;
ALTER TYPE mp_img_alter ADD ATTRIBUTE j jsonb;
UPDATE alter_r SET v.j = '{"x": 1}' WHERE (v).a = 3;
EXECUTE mp_alter_q;
SELECT mp_keys('SELECT v FROM alter_l INTERSECT SELECT v FROM alter_r');
ALTER TYPE mp_img_alter DROP ATTRIBUTE j;
ALTER TYPE mp_img_alter DROP ATTRIBUTE b;
EXECUTE mp_alter_q;
SELECT mp_keys('SELECT v FROM alter_l INTERSECT SELECT v FROM alter_r');
DEALLOCATE mp_alter_q;

-- TOASTed values: compressed inline and stored out of line, 1 MB each.
CREATE TABLE big_text_l (t text);
CREATE TABLE big_text_r (t text);
ALTER TABLE big_text_r ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO big_text_l SELECT repeat('x', 1000000) || (g % 4) FROM generate_series(1, 6) g;
INSERT INTO big_text_r SELECT repeat('x', 1000000) || (g % 3) FROM generate_series(1, 5) g;
INSERT INTO big_text_l VALUES (repeat('y', 5000)), (NULL);
INSERT INTO big_text_r VALUES (repeat('y', 5000)), (NULL), (NULL);
SELECT op, mp_check(format('SELECT t FROM big_text_l %s SELECT t FROM big_text_r', op))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op) ORDER BY op;
SELECT length(t), count(*) FROM (SELECT t FROM big_text_l INTERSECT ALL SELECT t FROM big_text_r) s
GROUP BY 1 ORDER BY 1;

-- Multi-column rows: (text, text, date), and int8 rows too wide for a 128-bit key.
CREATE TABLE names_l AS SELECT 'last' || (g % 300) AS last, 'first' || (g % 7) AS first,
  date '2020-01-01' + (g % 11) AS d, g::int8 % 5 AS a, g::int8 % 3 AS b, g::int8 % 2 AS c
  FROM generate_series(1, 5000) g;
CREATE TABLE names_r AS SELECT 'last' || (g % 400) AS last, 'first' || (g % 5) AS first,
  date '2020-01-01' + (g % 13) AS d, g::int8 % 4 AS a, g::int8 % 3 AS b, g::int8 % 2 AS c
  FROM generate_series(1, 4000) g;
INSERT INTO names_l VALUES (NULL, 'first1', NULL, NULL, 1, NULL), (NULL, 'first1', NULL, NULL, 1, NULL);
INSERT INTO names_r VALUES (NULL, 'first1', NULL, NULL, 1, NULL);
ANALYZE names_l, names_r;
SELECT mp_keys('SELECT last, first, d FROM names_l INTERSECT SELECT last, first, d FROM names_r');
SELECT mp_keys('SELECT a, b, c FROM names_l INTERSECT SELECT a, b, c FROM names_r');
SELECT op, cols, mp_check(format('SELECT %s FROM names_l %s SELECT %s FROM names_r', cols, op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('last, first, d'), ('a, b, c'), ('last, a, b, c')) c(cols)
ORDER BY op, cols;

-- Empty inputs (either side, both) and inputs of one value repeated.
SELECT op, q, mp_check(format(q, op))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('SELECT last, d FROM names_l WHERE false %s SELECT last, d FROM names_r'),
             ('SELECT last, d FROM names_l %s SELECT last, d FROM names_r WHERE false'),
             ('SELECT last, d FROM names_l WHERE false %s SELECT last, d FROM names_r WHERE false'),
             ('SELECT ''same''::text, 1.50 FROM names_l %s SELECT ''same''::text, 1.5 FROM names_r'),
             ('SELECT ''same''::text, 1.50 FROM names_l WHERE a = 0 %s SELECT ''same''::text, 1.5 FROM names_r')) x(q)
ORDER BY op, q;

-- Hash collisions: with 2-bit and 1-bit hashes nearly every run holds different
-- rows, which are split by their images: the same answers and printed forms.
SET pg_mergepath.debug_hash_bits = 2;
SELECT op, cols, mp_check(format('SELECT %s FROM names_l %s SELECT %s FROM names_r', cols, op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('last, first, d'), ('a, b, c')) c(cols)
ORDER BY op, cols;
SELECT mp_check_printed('SELECT v::numeric AS x FROM odd WHERE typ = ''numeric'' AND side = ''L'' INTERSECT ALL SELECT v::numeric FROM odd WHERE typ = ''numeric'' AND side = ''R''');
SELECT mp_check_printed('SELECT x FROM (VALUES (''{1.0,2}''::numeric[]), (''{1.00,2.0}''), (''{NULL,1}''), (''{}''), (''[0:1]={1,2}''), (''{{1,2},{3,4}}''), (NULL), (''{NaN}'')) l(x) INTERSECT ALL SELECT x FROM (VALUES (''{1,2.00}''::numeric[]), (''{NULL,1.0}''), (''{}''), (''{1,2}''), (''{1,2,3,4}''), (''{{1,2},{3,4}}''), (NULL), (''{NaN}''), (''{1.0,2}'')) r(x)');
SET pg_mergepath.debug_hash_bits = 1;
SELECT t.typ, mp_check(format(
  'SELECT v::%1$s AS x FROM odd WHERE typ = %2$L AND side = ''L'' EXCEPT ALL SELECT v::%1$s FROM odd WHERE typ = %2$L AND side = ''R''',
  t.typ, t.typ))
FROM (VALUES ('float8'), ('numeric'), ('text'), ('bpchar'), ('interval'), ('bytea')) t(typ) ORDER BY 1;
RESET pg_mergepath.debug_hash_bits;

-- Parallel plans: every participant images its share into shared memory, one groups.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
CREATE TABLE ptext_l AS SELECT md5((g % 20000)::text) || repeat('z', g % 9) AS t, (g % 300)::numeric / 8 AS n
  FROM generate_series(1, 60000) g;
CREATE TABLE ptext_r AS SELECT md5((g % 30000)::text) || repeat('z', g % 7) AS t, (g % 500)::numeric / 4 AS n
  FROM generate_series(1, 50000) g;
ANALYZE ptext_l, ptext_r;
SELECT op, cols, mp_par_check(format('SELECT %s FROM ptext_l %s SELECT %s FROM ptext_r', cols, op, cols))
FROM (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op),
     (VALUES ('t'), ('n'), ('t, n')) c(cols)
ORDER BY op, cols;
SET pg_mergepath.debug_hash_bits = 3;
SELECT op, mp_par_check(format('SELECT t, n FROM ptext_l %s SELECT t, n FROM ptext_r', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT')) o(op) ORDER BY op;
RESET pg_mergepath.debug_hash_bits;
SELECT mp_check('SELECT t FROM ptext_l INTERSECT ALL SELECT t FROM ptext_r');
-- arrays, read and imaged by every participant
SELECT op, mp_par_check(format('SELECT ARRAY[n, n * 2] AS a, string_to_array(t, ''z'') AS parts FROM ptext_l %s '
                               'SELECT ARRAY[n, n * 2], string_to_array(t, ''z'') FROM ptext_r', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT')) o(op) ORDER BY op;
-- composites, read and imaged by every participant
SELECT op, mp_par_check(format('SELECT (n, left(t, 3), n / 3, string_to_array(t, ''z''))::mp_img_inner AS r FROM ptext_l %s '
                               'SELECT (n, left(t, 3), n / 3, string_to_array(t, ''z''))::mp_img_inner FROM ptext_r', op))
FROM (VALUES ('INTERSECT ALL'), ('EXCEPT')) o(op) ORDER BY op;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
