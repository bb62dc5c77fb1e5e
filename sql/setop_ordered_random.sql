-- setop_ordered_random: a randomized differential test of ordered output. Each trial
-- makes two int8 tables (NULLs, repeats, negative values, random sizes), picks one of
-- the six SQL forms, the parallel settings (workers, leader or not, tuple-queue and
-- emit costs: serial, one-emitter Gather or Gather Merge plans), the memory limit
-- (spilled or not) and ranged keys, and compares ours, in order, with the native plan's
-- answer computed serially (stock's rescanned Gathers skip rows: rescan_bound.h): the
-- ordered query itself, or a correlated subquery whose LIMIT reads further on each of
-- three rescans. Prints the trials and how many answers differed.
SET pg_mergepath.min_rows = 0;
CREATE FUNCTION fz_run(trials int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  ops text[] := ARRAY['INTERSECT ALL', 'INTERSECT', 'EXCEPT ALL', 'EXCEPT', 'UNION', 'UNION ALL'];
  op text; q text; native text[]; ours text[]; bad int := 0; workers int; dom int;
BEGIN
  FOR t IN 1..trials LOOP
    dom := 1 + (random() * 20000)::int;
    DROP TABLE IF EXISTS fz_l, fz_r;
    EXECUTE format('CREATE TABLE fz_l AS SELECT CASE WHEN random() < 0.02 THEN NULL ELSE (random() * %s)::int8 - %s END AS k
                    FROM generate_series(1, %s)', dom, dom / 3, (random() * 20000)::int);
    EXECUTE format('CREATE TABLE fz_r AS SELECT CASE WHEN random() < 0.02 THEN NULL ELSE (random() * %s)::int8 - %s END AS k
                    FROM generate_series(1, %s)', dom, dom / 3, (random() * 20000)::int);
    ANALYZE fz_l, fz_r;
    op := ops[1 + (random() * 5)::int];
    workers := (random() * 4)::int;
    PERFORM set_config('parallel_setup_cost', '0', true);
    PERFORM set_config('parallel_tuple_cost', (ARRAY['0', '0.005', '0.01', '0.1'])[1 + (random() * 3)::int], true);
    PERFORM set_config('cpu_tuple_cost', (ARRAY['0.01', '0.05'])[1 + (random() * 1)::int], true);
    PERFORM set_config('min_parallel_table_scan_size', '0', true);
    PERFORM set_config('parallel_leader_participation', (ARRAY['on', 'off'])[1 + (random() * 1)::int], true);
    PERFORM set_config('pg_mergepath.memory_limit', (ARRAY['-1', '0', '1GB'])[1 + (random() * 2)::int], true);
    PERFORM set_config('work_mem', '64kB', true);
    PERFORM set_config('pg_mergepath.ranged_keys', (ARRAY['on', 'off'])[1 + (random() * 1)::int], true);
    IF random() < 0.5 THEN
      q := format('SELECT k FROM fz_l %s SELECT k FROM fz_r ORDER BY k', op);
    ELSE
      q := format('SELECT x, (SELECT array_agg(k) FROM (SELECT k FROM fz_l %s SELECT k FROM fz_r ORDER BY k
                   LIMIT 50 * x) s) FROM generate_series(1, 3) x', op);
    END IF;
    PERFORM set_config('pg_mergepath.enabled', 'off', true);
    PERFORM set_config('max_parallel_workers_per_gather', '0', true);
    EXECUTE format('SELECT array_agg(s::text) FROM (%s) s', q) INTO native;
    PERFORM set_config('pg_mergepath.enabled', 'on', true);
    PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
    EXECUTE format('SELECT array_agg(s::text) FROM (%s) s', q) INTO ours;
    IF native IS DISTINCT FROM ours THEN
      bad := bad + 1;
      RAISE WARNING 'differs: % (workers %, parallel_tuple_cost %, cpu_tuple_cost %, leader %, memory_limit %, ranged %)',
        q, workers, current_setting('parallel_tuple_cost'), current_setting('cpu_tuple_cost'),
        current_setting('parallel_leader_participation'), current_setting('pg_mergepath.memory_limit'),
        current_setting('pg_mergepath.ranged_keys');
    END IF;
  END LOOP;
  DROP TABLE fz_l, fz_r;
  RETURN format('%s trials, %s answers differ', trials, bad);
END $$;
SELECT setseed(0.31);
SET client_min_messages = warning;  -- the first DROP TABLE IF EXISTS's notice; a difference is a WARNING
SELECT fz_run(60);
RESET client_min_messages;
DROP FUNCTION fz_run(int);
