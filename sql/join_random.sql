-- join_random: a randomized differential test of the MergePath Join. Each trial makes
-- two random tables (0 to 400 rows, key domains from 1 to 60 values, some NULL keys,
-- key types mixed across the sides: int2 / int4 / int8, float4 / float8, date, and a
-- two-column key), picks a random join type, a random join filter or none, and serial
-- or parallel, and compares our answer with the native plan's (mp_join_check). The seed
-- is fixed, so the trials are the same on every run; any difference is listed.
-- A second part does the same over image keys (join_keys.h): text, varchar against
-- text, char(n) of two lengths (values with and without trailing blanks), numeric of
-- random display scales (1.5 = 1.50), or an image key with a second key (int4 or
-- numeric), with full 64-bit hashes or 2-bit ones (pg_mergepath.debug_hash_bits: nearly
-- every equal hash a collision the recheck must remove); and numeric(10, 2) against
-- numeric(12, 4), keyed exactly by their values as integers (numeric_keys.h).
SET pg_mergepath.min_rows = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT setseed(0.4242);

SET client_min_messages = warning;  -- DROP TABLE IF EXISTS's notices
CREATE TEMP TABLE trial_results (trial int, query text, result text);

-- What both parts draw for a trial: the join type, the two sides' sizes, the key domain,
-- the share of NULL keys and a join filter (over ra.p and rb.q). A trial's query is
-- join_basic's mp_join_sql over ra and rb.
CREATE FUNCTION mp_trial_draw(OUT jt text, OUT na int, OUT nb int, OUT domain int, OUT nulls float8, OUT filter text)
LANGUAGE plpgsql AS $$
BEGIN
  jt := (ARRAY['inner', 'left', 'right', 'full', 'semi', 'anti'])[1 + floor(random() * 6)::int];
  na := floor(random() * 400)::int;
  nb := floor(random() * 400)::int;
  domain := 1 + floor(random() * 60)::int;
  nulls := CASE WHEN random() < 0.5 THEN 0 ELSE random() * 0.3 END;
  filter := (ARRAY['', '', ' AND ra.p < rb.q', ' AND (ra.p + rb.q) % 3 = 0', ' AND rb.q > 150'])[1 + floor(random() * 5)::int];
END $$;

CREATE FUNCTION mp_random_trial(trial int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  types text[][] := ARRAY[['int4', 'int4'], ['int8', 'int4'], ['int2', 'int8'], ['int8', 'int8'],
                          ['float8', 'float8'], ['float4', 'float8'], ['date', 'date'], ['int2', 'int2']];
  pick int := 1 + floor(random() * 8)::int;
  ta text := types[pick][1];
  tb text := types[pick][2];
  d record := mp_trial_draw();
  two_keys boolean := random() < 0.3;
  cond text;
  q text;
  val text := 'CASE WHEN random() < %s THEN NULL ELSE %s END';
  keyexpr text;
BEGIN
  DROP TABLE IF EXISTS ra, rb;
  keyexpr := CASE WHEN ta = 'date' THEN 'date ''2024-01-01'' + floor(random() * %s)::int'
                  WHEN ta LIKE 'float%' THEN '(floor(random() * %s) / 2)'
                  ELSE 'floor(random() * %s)' END;
  EXECUTE format('CREATE TABLE ra AS SELECT (' || format(val, d.nulls, keyexpr) || ')::%s AS k, floor(random() * 3)::int2 AS k2, g AS p
                  FROM generate_series(1, %s) g', d.domain, ta, d.na);
  keyexpr := CASE WHEN tb = 'date' THEN 'date ''2024-01-01'' + floor(random() * %s)::int'
                  WHEN tb LIKE 'float%' THEN '(floor(random() * %s) / 2)'
                  ELSE 'floor(random() * %s)' END;
  EXECUTE format('CREATE TABLE rb AS SELECT (' || format(val, d.nulls, keyexpr) || ')::%s AS k, floor(random() * 3)::int4 AS k2, g AS q
                  FROM generate_series(1, %s) g', d.domain, tb, d.nb);
  ANALYZE ra, rb;
  cond := 'ra.k = rb.k' || CASE WHEN two_keys THEN ' AND ra.k2 = rb.k2' ELSE '' END || d.filter;
  q := mp_join_sql(d.jt, cond, 'ra', 'rb');
  PERFORM set_config('max_parallel_workers_per_gather', CASE WHEN random() < 0.5 THEN '0' ELSE '3' END, true);
  INSERT INTO trial_results VALUES (trial, format('%s x %s rows, %s / %s: %s', d.na, d.nb, ta, tb, q), mp_join_check(q));
END $$;

DO $$ BEGIN FOR t IN 1..300 LOOP PERFORM mp_random_trial(t); END LOOP; END $$;
SELECT count(*) AS trials,
       count(*) FILTER (WHERE result LIKE '%DIFFERENT%') AS different,
       count(*) FILTER (WHERE result LIKE 'native plan%') AS native,
       count(*) FILTER (WHERE result LIKE 'parallel%') AS parallel
FROM trial_results;
SELECT trial, query, result FROM trial_results WHERE result LIKE '%DIFFERENT%' ORDER BY trial;
DROP TABLE ra, rb;

-- image keys
SELECT setseed(0.2718);
CREATE TEMP TABLE image_trials (trial int, query text, result text);
CREATE FUNCTION mp_image_trial(trial int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  types text[][] := ARRAY[['text', 'text'], ['varchar', 'text'], ['text', 'varchar'], ['char(4)', 'char(7)'],
                          ['numeric', 'numeric'], ['numeric', 'numeric(12,4)'], ['numeric(10,2)', 'numeric(12,4)']];
  pick int := 1 + floor(random() * 7)::int;
  ta text := types[pick][1];
  tb text := types[pick][2];
  d record := mp_trial_draw();
  second_key text := (ARRAY['', '', ' AND ra.k2 = rb.k2', ' AND ra.n2 = rb.n2'])[1 + floor(random() * 4)::int];
  keyexpr text := CASE WHEN ta LIKE 'numeric%'
                       THEN 'round(floor(random() * %s)::numeric / 2, 1 + floor(random() * 3)::int)'
                       ELSE '''v'' || floor(random() * %s) || CASE WHEN random() < 0.3 THEN '' '' ELSE '''' END' END;
  val text := 'CASE WHEN random() < %s THEN NULL ELSE %s END';
  cond text;
  q text;
BEGIN
  DROP TABLE IF EXISTS ra, rb;
  EXECUTE format('CREATE TABLE ra AS SELECT (' || format(val, d.nulls, keyexpr) || ')::%s AS k, floor(random() * 3)::int4 AS k2,
                  round(floor(random() * 3)::numeric / 2, 2) AS n2, g AS p FROM generate_series(1, %s) g', d.domain, ta, d.na);
  EXECUTE format('CREATE TABLE rb AS SELECT (' || format(val, d.nulls, keyexpr) || ')::%s AS k, floor(random() * 3)::int4 AS k2,
                  round(floor(random() * 3)::numeric / 2, 1) AS n2, g AS q FROM generate_series(1, %s) g', d.domain, tb, d.nb);
  ANALYZE ra, rb;
  cond := 'ra.k = rb.k' || second_key || d.filter;
  q := mp_join_sql(d.jt, cond, 'ra', 'rb');
  PERFORM set_config('max_parallel_workers_per_gather', CASE WHEN random() < 0.5 THEN '0' ELSE '3' END, true);
  PERFORM set_config('pg_mergepath.debug_hash_bits', CASE WHEN random() < 0.3 THEN '2' ELSE '0' END, true);
  INSERT INTO image_trials VALUES (trial, format('%s x %s rows, %s / %s, %s-bit hashes: %s', d.na, d.nb, ta, tb,
      CASE current_setting('pg_mergepath.debug_hash_bits') WHEN '0' THEN '64' ELSE '2' END, q), mp_join_check(q));
END $$;

DO $$ BEGIN FOR t IN 1..200 LOOP PERFORM mp_image_trial(t); END LOOP; END $$;
SELECT count(*) AS trials,
       count(*) FILTER (WHERE result LIKE '%DIFFERENT%') AS different,
       count(*) FILTER (WHERE result LIKE 'native plan%') AS native,
       -- (how many are planned parallel depends on the device's costs: the CPU
       -- backend charges image keys more)
       count(*) FILTER (WHERE result LIKE 'parallel%') >= 40 AS parallel_40_or_more,
       count(*) FILTER (WHERE query LIKE '%2-bit hashes%') AS collided,
       count(*) FILTER (WHERE query LIKE '%numeric(10,2) / numeric(12,4)%') AS exact_numeric
FROM image_trials;
SELECT trial, query, result FROM image_trials WHERE result LIKE '%DIFFERENT%' ORDER BY trial;
SELECT trial, query, result FROM image_trials WHERE result LIKE 'native plan%' ORDER BY trial;
DROP TABLE ra, rb;
DROP FUNCTION mp_image_trial(int);
