-- setop_setup: the extension and the helpers every other test uses (run first).
--   mp_explain(query [, options])  EXPLAIN lines with the device masked, so that the
--                                  expected output is the same on the CPU and the GPU
--   mp_check(query)                runs the query with pg_mergepath off (native plan)
--                                  and on, and compares the two results as multisets
--                                  (EXCEPT ALL both ways, native); also says whether
--                                  the MergePath SetOp node was really used
--   mp_keys(query)                 the node's "Keys" line, or 'native'
--   mp_par_check(query)            count + checksum of the query native and ours, and
--                                  whether the plan had the parallel node
--   mp_node_check(query)           mp_par_check, and ', native plan' when our node did
--                                  not run
--   mp_spill_summary(query)        what EXPLAIN ANALYZE says the node spilled, reduced to
--                                  what the spill tests assert
CREATE EXTENSION pg_mergepath;
SELECT extname, extversion FROM pg_extension WHERE extname = 'pg_mergepath';

CREATE FUNCTION mp_explain(q text, options text DEFAULT 'COSTS OFF') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  -- BUFFERS OFF: 18 shows buffers with ANALYZE by default
  FOR line IN EXECUTE format('EXPLAIN (%s%s) %s', options,
                             CASE WHEN options ~* 'analyze' THEN ', BUFFERS OFF' ELSE '' END, q) LOOP
    RETURN NEXT regexp_replace(line, '(Device"?: "?)(gpu|cpu)', '\1(masked)', 'g');
  END LOOP;
END $$;

CREATE FUNCTION mp_uses_node(q text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%MergePath SetOp%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

CREATE FUNCTION mp_keys(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ '^\s*Keys: ' THEN RETURN regexp_replace(line, '^\s*Keys: ', ''); END IF;
  END LOOP;
  RETURN 'native';
END $$;

CREATE FUNCTION mp_check(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  used boolean;
  n_native bigint;
  n_ours bigint;
  missing bigint;
  extra bigint;
  result text;
BEGIN
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  EXECUTE 'CREATE TEMP TABLE mp_native AS ' || q;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  used := mp_uses_node(q);
  EXECUTE 'CREATE TEMP TABLE mp_ours AS ' || q;
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  SELECT count(*) INTO n_native FROM mp_native;
  SELECT count(*) INTO n_ours FROM mp_ours;
  SELECT count(*) INTO missing FROM (TABLE mp_native EXCEPT ALL TABLE mp_ours) x;
  SELECT count(*) INTO extra FROM (TABLE mp_ours EXCEPT ALL TABLE mp_native) x;
  DROP TABLE mp_native, mp_ours;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  IF missing = 0 AND extra = 0 AND n_native = n_ours THEN
    result := format('%s rows, same', n_native);
  ELSE
    result := format('DIFFERENT: native %s rows, ours %s, %s missing, %s extra', n_native, n_ours, missing, extra);
  END IF;
  IF NOT used THEN result := result || ', native plan'; END IF;
  RETURN result;
END $$;

-- Shared inputs: small integer multisets with duplicates and NULLs.
CREATE TABLE ta (a int4, b int8, c text);
CREATE TABLE tb (a int4, b int8, c text);
INSERT INTO ta SELECT g % 10, (g % 7)::int8 * 1000000000000, 'v' || (g % 5)
  FROM generate_series(1, 200) g;
INSERT INTO ta VALUES (NULL, NULL, NULL), (NULL, NULL, NULL), (3, NULL, 'v3'), (NULL, 5, NULL);
INSERT INTO tb SELECT g % 6, (g % 4)::int8 * 1000000000000, 'v' || (g % 3)
  FROM generate_series(1, 90) g;
INSERT INTO tb VALUES (NULL, NULL, NULL), (3, NULL, 'v3'), (NULL, 5, NULL), (NULL, 5, NULL);
ANALYZE ta, tb;

-- Larger inputs: more than one library batch (256k keys) per side.
CREATE TABLE big_l AS SELECT (g::int8 * 7919 % 400000) AS k, g % 3 AS m FROM generate_series(1, 600000) g;
CREATE TABLE big_r AS SELECT (g::int8 * 104729 % 500000) AS k, g % 5 AS m FROM generate_series(1, 300000) g;
ANALYZE big_l, big_r;

-- mp_agree(plan, native count and checksum, ours): the verdict line of the checks below
-- (and of join_basic's mp_join_check).
CREATE FUNCTION mp_agree(plan text, native_n bigint, native_h numeric, ours_n bigint, ours_h numeric)
RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN native_n = ours_n AND native_h = ours_h THEN format('%s, %s rows, same', plan, ours_n)
              ELSE format('%s, DIFFERENT: native %s rows, ours %s', plan, native_n, ours_n) END
$$;

-- mp_par_check(q): runs count(*) + an order-independent checksum over q natively and
-- with pg_mergepath; says whether the answers agree and whether the plan had the
-- parallel node.
CREATE FUNCTION mp_par_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  wrapped text := format('SELECT count(*) AS n, coalesce(sum(hash_record_extended(s, 0)), 0) AS h FROM (%s) s', q);
  line text;
  plan text := 'serial plan';
  native record;
  ours record;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
    IF line LIKE '%Parallel Custom Scan (MergePath SetOp)%' THEN plan := 'parallel'; END IF;
  END LOOP;
  PERFORM set_config('pg_mergepath.enabled', 'off', true);
  EXECUTE wrapped INTO native;
  PERFORM set_config('pg_mergepath.enabled', 'on', true);
  EXECUTE wrapped INTO ours;
  RETURN mp_agree(plan, native.n, native.h, ours.n, ours.h);
END $$;

-- q rescanned with the same inputs: the inner side of a nested-loop left join (no hash
-- or merge join, no Material to keep its rows) under two outer rows, so its node emits
-- its results again without reading its inputs again; true when the join got twice the
-- rows of one run (a rescan that emitted nothing would give one NULL-extended row)
CREATE FUNCTION mp_rescans_twice(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  once bigint;
  twice bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s) s', q) INTO once;
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  PERFORM set_config('enable_material', 'off', true);
  EXECUTE format('SELECT count(*) FROM (VALUES (1), (2)) v(x) LEFT JOIN (%s) s ON true', q) INTO twice;
  RETURN twice = 2 * once;
END $$;

-- mp_misled_copy(src, dst): dst, a copy of src whose statistics say 1000 rows (ANALYZE,
-- then reltuples faked; autovacuum off, so that no VACUUM puts the real count back), for
-- a plan made for a small input that meets a large one; then q's EXPLAIN ANALYZE lines
-- on parallelism and the memory limit
CREATE FUNCTION mp_misled_copy(src text, dst text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I WITH (autovacuum_enabled = off) AS SELECT * FROM %I', dst, src);
  EXECUTE format('ANALYZE %I', dst);
  UPDATE pg_class SET reltuples = 1000 WHERE oid = dst::regclass;
END $$;
CREATE FUNCTION mp_memory_lines(q text) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT line FROM mp_explain(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') line
  WHERE line ~ 'Parallel:|Memory Limit'
$$;

-- mp_node_check(q): mp_par_check, and whether our node ran at all.
CREATE FUNCTION mp_node_check(q text) RETURNS text LANGUAGE sql AS $$
  SELECT mp_par_check(q) || CASE WHEN mp_uses_node(q) THEN '' ELSE ', native plan' END
$$;

-- mp_spill_summary(q): what EXPLAIN ANALYZE says the node spilled (numbers reduced to
-- what the spill tests assert).
CREATE FUNCTION mp_spill_summary(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  m text[];
  runs bigint := 0;
  ranges bigint := 0;
  streamed bigint := 0;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    m := regexp_match(line, 'Spilled: (\d+) kB in (\d+) runs');
    IF m IS NOT NULL THEN runs := m[2]::bigint; END IF;
    m := regexp_match(line, 'Key Ranges: (\d+) \((\d+) streamed\)');
    IF m IS NOT NULL THEN ranges := m[1]::bigint; streamed := m[2]::bigint; END IF;
  END LOOP;
  RETURN format('runs > 1: %s, ranges > 1: %s, streamed ranges: %s', runs > 1, ranges > 1,
                CASE WHEN streamed > 0 THEN 'some' ELSE 'none' END);
END $$;
