-- setop_types: every supported type with its odd values, on both sides, for the four
-- operators, compared with the native plan; which key encoding each type gets; and
-- the types that must keep the native SetOp.
SET pg_mergepath.min_rows = 0;

CREATE TYPE mp_pair AS (x int4, y text);
CREATE TYPE mp_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN mp_posint AS int4 CHECK (VALUE > 0);

-- raw(typ, side, v): text values cast to typ by the queries below; NULL included.
-- Each value is stored 20 times on the left and 15 times on the right.
CREATE TABLE raw (typ text, side text, v text);
CREATE FUNCTION add_raw(t text, l text[], r text[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO raw SELECT t, 'L', unnest(l) FROM generate_series(1, 20);
  INSERT INTO raw SELECT t, 'R', unnest(r) FROM generate_series(1, 15);
$$;
SELECT add_raw('bool', '{t,t,f,NULL}', '{t,NULL,NULL}');
SELECT add_raw('"char"', '{a,a,b,"",Z}', '{a,"",c}');
SELECT add_raw('int2', '{-32768,32767,0,0,-1,NULL}', '{-32768,0,1,-1,-1}');
SELECT add_raw('int4', '{-2147483648,2147483647,0,0,NULL,NULL}', '{2147483647,0,0,0,NULL}');
SELECT add_raw('int8', '{-9223372036854775808,9223372036854775807,0,-1}', '{9223372036854775807,-1,-1,5}');
SELECT add_raw('oid', '{0,4294967295,1,1}', '{4294967295,1,2}');
SELECT add_raw('float4', '{NaN,-0,0,Infinity,-Infinity,1.5,1.5,3.4e38,1e-45,NULL}',
               '{NaN,NaN,0,-Infinity,1.5,1e-45,NULL}');
SELECT add_raw('float8', '{NaN,-0,0,Infinity,-Infinity,1.5,1.5,1.7976931348623157e308,5e-324,NULL}',
               '{NaN,0,0,-0,Infinity,5e-324,2.5,NULL}');
SELECT add_raw('numeric', '{1.0,1.00,1,0,-0,NaN,Infinity,-Infinity,0.000000000000000000001,NULL}',
               '{1.000,0.0,NaN,Infinity,1e-21,7}');
SELECT add_raw('money', '{1.00,1.00,-5,0,NULL}', '{1,0,NULL,NULL}');
SELECT add_raw('date', '{infinity,-infinity,2000-01-01,4713-01-01 BC,NULL}', '{infinity,2000-01-01,2000-01-02}');
SELECT add_raw('time', '{00:00,24:00:00,12:34:56.789,12:34:56.789}', '{24:00,12:34:56.789,00:00:00.000001}');
SELECT add_raw('timetz', '{12:00+01,11:00+00,12:00+01}', '{12:00+01,12:00+02}');
SELECT add_raw('timestamp', '{infinity,-infinity,2000-01-01 00:00:00.000001,2000-01-01}',
               '{2000-01-01,-infinity,1999-12-31 23:59:59.999999}');
SELECT add_raw('timestamptz', '{2000-01-01 00:00+00,2000-01-01 01:00+01,infinity}',
               '{1999-12-31 19:00-05,infinity,-infinity}');
SELECT add_raw('interval', '{1 day,24 hours,1 mon,30 days,0,00:00:00,1 year}', '{24:00:00,30 days,360 days,12 mon}');
SELECT add_raw('uuid', '{00000000-0000-0000-0000-000000000000,ffffffff-ffff-ffff-ffff-ffffffffffff,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}',
               '{a0eebc999c0b4ef8bb6d6bb9bd380a11,ffffffff-ffff-ffff-ffff-ffffffffffff,00000000-0000-0000-0000-000000000001}');
SELECT add_raw('text', '{"",""," ",a,A,"a ",ß,ss,ä,NULL}', '{"",a,"a ",ss,ä,NULL,NULL}');
SELECT add_raw('varchar(5)', '{"",ab,"ab ",abc}', '{ab,"ab ",""}');
SELECT add_raw('char(5)', '{"",ab,"ab   "," ",abc}', '{"ab ",""," ",x}');
SELECT add_raw('bytea', '{"\\x","\\x00","\\x0000","\\xff","\\xff"}', '{"\\x","\\x0000","\\xfe"}');
SELECT add_raw('int4[]', '{"{}","{1,2}","{1,NULL}","{{1,2},{3,4}}","[0:1]={1,2}","{1,2}"}',
               '{"{1,2}","{}","{1,NULL}","[0:1]={1,2}","{2,1}"}');
SELECT add_raw('text[]', '{"{a,b}","{}","{\"a b\"}"}', '{"{a,b}","{\"a b\"}","{b,a}"}');
SELECT add_raw('jsonb', '{"{\"a\": 1}","{\"a\":1.0}","[]","null",1.0,1.00}', '{"{\"a\":1}",1,"[]"}');
SELECT add_raw('inet', '{192.168.0.1/24,192.168.0.1,::1,::1}', '{192.168.0.1,::1/128,10.0.0.0/8}');
SELECT add_raw('name', '{a,b,""}', '{a,""}');
SELECT add_raw('mp_pair', '{"(1,a)","(1,a)","(1,)","(,)"}', '{"(1,a)","(,)","(2,b)"}');
SELECT add_raw('mp_mood', '{sad,happy,happy,ok}', '{happy,ok,ok}');
SELECT add_raw('mp_posint', '{1,2,2,3}', '{2,3,4}');
-- collations: the database's (C), "C", a non-C deterministic one (ICU "en-x-icu")
INSERT INTO raw SELECT 'text COLLATE "C"', side, v FROM raw WHERE typ = 'text';
INSERT INTO raw SELECT 'text COLLATE "en-x-icu"', side, v FROM raw WHERE typ = 'text';
INSERT INTO raw SELECT 'varchar(5) COLLATE "en-x-icu"', side, v FROM raw WHERE typ = 'varchar(5)';
ANALYZE raw;

CREATE FUNCTION typed_query(t text, op text) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT v::%1$s AS x FROM raw WHERE typ = %2$L AND side = ''L'' %3$s '
                'SELECT v::%1$s FROM raw WHERE typ = %2$L AND side = ''R''', t, t, op)
$$;

-- Which key each type gets.
SELECT typ, mp_keys(typed_query(typ, 'INTERSECT')) AS keys
FROM (SELECT DISTINCT typ FROM raw) t ORDER BY typ;

-- Same results as the native plan, every type, every operator.
SELECT typ, op, mp_check(typed_query(typ, op))
FROM (SELECT DISTINCT typ FROM raw) t,
     (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op)
ORDER BY typ, op;

-- Visible odd values: NaN = NaN (any sign), -0 = 0, infinities.
SELECT x FROM (VALUES ('NaN'::float8), ('Infinity'::float8 - 'Infinity'::float8), ('-0'::float8),
                      ('Infinity'), ('-Infinity'), (1.5)) l(x)
INTERSECT ALL
SELECT x FROM (VALUES ('NaN'::float8), ('NaN'), ('0'::float8), ('-Infinity'), ('Infinity')) r(x)
ORDER BY 1;
SELECT x::text FROM (SELECT x FROM (VALUES ('-0'::float4), ('NaN')) l(x)
                     EXCEPT SELECT x FROM (VALUES ('0'::float4)) r(x)) s;
-- numeric 1.0 = 1.00 (either spelling is a right answer: compare by value)
SELECT x = 1 AS is_one, count(*) FROM (SELECT x FROM (VALUES (1.0), (1.00), (2.5)) l(x)
  INTERSECT ALL SELECT x FROM (VALUES (1.000), (1), (1)) r(x)) s GROUP BY 1 ORDER BY 1;
SELECT x FROM (VALUES ('NaN'::numeric), ('Infinity'), (0.0)) l(x)
  INTERSECT SELECT x FROM (VALUES ('NaN'::numeric), (0)) r(x) ORDER BY 1;
-- char(n) trailing blanks, '' and ' '; text keeps them
SELECT '[' || x || ']' AS x FROM (SELECT x FROM (VALUES ('ab'::char(5)), (''), ('x')) l(x)
  INTERSECT SELECT x FROM (VALUES ('ab   '::char(5)), (' ')) r(x)) s ORDER BY 1;
SELECT '[' || x || ']' AS x FROM (SELECT x FROM (VALUES ('ab'::text), (''), ('x')) l(x)
  INTERSECT SELECT x FROM (VALUES ('ab '::text), (''), (' ')) r(x)) s ORDER BY 1;
-- interval '1 day' = '24 hours', '1 mon' = '30 days'
SELECT count(*) FROM (SELECT x FROM (VALUES ('1 day'::interval), ('1 mon')) l(x)
  INTERSECT ALL SELECT x FROM (VALUES ('24 hours'::interval), ('30 days')) r(x)) s;
-- timestamptz: one instant, two spellings
SELECT x FROM (VALUES ('2000-01-01 00:00+00'::timestamptz)) l(x)
  INTERSECT SELECT x FROM (VALUES ('1999-12-31 19:00-05'::timestamptz)) r(x);
-- uuid round trip (decoded from the key)
SELECT x FROM (SELECT v::uuid AS x FROM raw WHERE typ = 'uuid' AND side = 'L'
  INTERSECT SELECT v::uuid FROM raw WHERE typ = 'uuid' AND side = 'R') s ORDER BY 1;
-- large text values (compressed / out of line)
CREATE TABLE long_l AS SELECT repeat(md5(g::text), 300) AS t FROM generate_series(1, 20) g;
CREATE TABLE long_r AS SELECT repeat(md5(g::text), 300) AS t FROM generate_series(10, 30) g;
SELECT mp_check('SELECT t FROM long_l INTERSECT ALL SELECT t FROM long_r');
SELECT mp_check('SELECT t FROM long_l EXCEPT SELECT t FROM long_r');

-- Collations: deterministic ones are exact; a nondeterministic one keeps the native
-- plan (equal strings with different bytes).
CREATE COLLATION mp_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT mp_check('SELECT v COLLATE mp_ci AS x FROM raw WHERE typ = ''text'' AND side = ''L''
                 INTERSECT SELECT v COLLATE mp_ci FROM raw WHERE typ = ''text'' AND side = ''R''');
-- Types the node cannot key exactly keep the native SetOp: no hash support, no
-- lossless encoding and no byte image (bit, tsvector), or a nondeterministic
-- collation. money (lossless, not hashable) beside text, or in a row wider than 128
-- bits, gets image keys (its image is its value); beside another lossless type it is
-- lossless (rows with NULLs need no hashing, below).
SELECT mp_keys('SELECT B''101'' AS x INTERSECT SELECT B''101''');
SELECT mp_keys('SELECT ''a b''::tsvector AS x EXCEPT SELECT ''a''::tsvector');
SELECT mp_keys('SELECT 1::money AS x, ''a''::text AS y INTERSECT SELECT 1::money, ''a''::text');
SELECT mp_keys('SELECT 1::money AS x, 2::int8 AS y INTERSECT SELECT 1::money, 2::int8');
SELECT mp_keys('SELECT 1::money AS x, 2::int8 AS y, 3::int8 AS z INTERSECT SELECT 1::money, 2::int8, 3::int8');
SELECT mp_keys('SELECT ''a''::text COLLATE mp_ci AS x INTERSECT SELECT ''A''::text');

-- Rows with a NULL in any column get keys of their own (the null layout: NULL mask and
-- the other columns in 128 bits), also for rows whose values fill 128 bits and for
-- money, which has no hash support.
CREATE TABLE nl_l AS SELECT
  CASE WHEN g % 5 = 0 THEN NULL ELSE (g % 7)::money END AS m,
  CASE WHEN g % 3 = 0 THEN NULL ELSE (g % 4)::int8 END AS i,
  CASE WHEN g % 4 = 0 THEN NULL ELSE (g % 3)::int8 * 3000000000 END AS j,
  CASE WHEN g % 11 = 0 THEN NULL ELSE md5((g % 6)::text)::uuid END AS u
  FROM generate_series(1, 400) g;
CREATE TABLE nl_r AS SELECT
  CASE WHEN g % 4 = 0 THEN NULL ELSE (g % 5)::money END AS m,
  CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 3)::int8 END AS i,
  CASE WHEN g % 2 = 0 THEN NULL ELSE (g % 4)::int8 * 3000000000 END AS j,
  CASE WHEN g % 3 = 0 THEN NULL ELSE md5((g % 8)::text)::uuid END AS u
  FROM generate_series(1, 300) g;
SELECT cols, op, mp_keys(format('SELECT %s FROM nl_l INTERSECT SELECT %s FROM nl_r', cols, cols)) AS keys,
       mp_check(format('SELECT %s FROM nl_l %s SELECT %s FROM nl_r', cols, op, cols))
FROM (VALUES ('m, i'), ('i, j'), ('u'), ('m'), ('j, m')) c(cols),
     (VALUES ('INTERSECT ALL'), ('INTERSECT'), ('EXCEPT ALL'), ('EXCEPT')) o(op)
ORDER BY cols, op;
DROP TABLE nl_l, nl_r;

-- Equal values that print differently: like nodeSetOp.c, every copy of a group is the
-- group's first row read, from the input the replaced plan reads first. Each query
-- runs natively and with pg_mergepath; the printed rows must be identical. (The
-- device is pinned so the plan text is the same on every machine; emitting rows is
-- the extension's work on either device.)
SET pg_mergepath.device = cpu;
CREATE TABLE repr_a (n numeric, f float8);
CREATE TABLE repr_b (n numeric, f float8);
INSERT INTO repr_a VALUES (1.0, '-0'), (1.00, '-0'), (1.000, '0'), (2.50, 'NaN');
INSERT INTO repr_b VALUES (1, '0'), (2.5, 'NaN'), (2.500, '-NaN');
ANALYZE repr_a, repr_b;
SET pg_mergepath.enabled = off;
SELECT n FROM repr_a EXCEPT ALL SELECT n FROM repr_b;
SELECT f FROM repr_a EXCEPT ALL SELECT f FROM repr_b ORDER BY 1;
SELECT n FROM repr_a INTERSECT ALL SELECT n FROM repr_b ORDER BY 1;
SELECT f FROM repr_b INTERSECT ALL SELECT f FROM repr_a ORDER BY 1;
SET pg_mergepath.enabled = on;
SELECT n FROM repr_a EXCEPT ALL SELECT n FROM repr_b;
SELECT f FROM repr_a EXCEPT ALL SELECT f FROM repr_b ORDER BY 1;
SELECT n FROM repr_a INTERSECT ALL SELECT n FROM repr_b ORDER BY 1;
SELECT f FROM repr_b INTERSECT ALL SELECT f FROM repr_a ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT n FROM repr_a EXCEPT ALL SELECT n FROM repr_b;
DROP TABLE repr_a, repr_b;
RESET pg_mergepath.device;
