-- join_plan: the MergePath Join node in plans: what EXPLAIN shows, joins inside
-- subqueries and CTEs, LATERAL (never ours: our path is never parameterized),
-- prepared statements, rescans (the join as the inner side of a nested loop, with and
-- without changed parameters), cursors fetching backwards, and EXPLAIN ANALYZE's
-- counts. Uses join_basic's tables and helpers.
SET pg_mergepath.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off;
SET enable_mergejoin = off;

-- EXPLAIN: join type, keys (deparsed through the inputs), the filter, the qual
SELECT * FROM mp_explain('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k = jb.k8');
SELECT * FROM mp_explain('SELECT ja.p, jb.q FROM ja LEFT JOIN jb ON ja.k = jb.k AND ja.k2 = jb.k2 AND ja.p < jb.q WHERE jb.q IS NULL OR jb.q > 3');
SELECT * FROM mp_explain('SELECT ja.p FROM ja WHERE NOT EXISTS (SELECT 1 FROM jb WHERE jb.f8 = ja.f4)', 'COSTS OFF, VERBOSE');
SELECT * FROM mp_explain('SELECT count(*) FROM ja FULL JOIN jb USING (k)');
-- ANALYZE: rows per side, NULL keys, pairs, rows removed by the filter (timing off:
-- stable output)
SELECT * FROM mp_explain('SELECT ja.p, jb.q FROM ja RIGHT JOIN jb ON ja.k = jb.k AND ja.p < jb.q',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT * FROM mp_explain('SELECT ja.p FROM ja WHERE EXISTS (SELECT 1 FROM jb WHERE jb.k = ja.k)',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');

-- inside subqueries and CTEs
SELECT mp_join_check('SELECT x.k, count(*) FROM (SELECT ja.k, jb.q FROM ja JOIN jb ON ja.k = jb.k) x GROUP BY x.k');
SELECT mp_join_check('WITH j AS MATERIALIZED (SELECT ja.k8, jb.q FROM ja LEFT JOIN jb ON ja.k8 = jb.k8) SELECT * FROM j WHERE q IS NULL OR q > 100');
SELECT mp_join_check('SELECT * FROM ja WHERE ja.k IN (SELECT jb.k FROM jb JOIN ja a2 ON a2.k2 = jb.k2 WHERE a2.p < 50)');
SELECT mp_join_check('SELECT p, (SELECT count(*) FROM jb WHERE jb.k = ja.k) FROM ja');

-- LATERAL: the inner side depends on the outer row, so no path of ours (DEBUG1)
SET client_min_messages = debug1;
EXPLAIN (COSTS OFF) SELECT ja.p, l.q FROM ja, LATERAL (SELECT jb.q FROM jb WHERE jb.k = ja.k AND jb.q > ja.p LIMIT 2) l;
RESET client_min_messages;
SELECT mp_join_check('SELECT ja.p, l.q FROM ja, LATERAL (SELECT jb.q FROM jb WHERE jb.k = ja.k AND jb.q > ja.p LIMIT 2) l');

-- above pg_mergepath.memory_limit: a serial join that spills (join_spill tests it)
SET pg_mergepath.memory_limit = '8kB';
SELECT * FROM mp_explain('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k = jb.k');
SELECT mp_join_check('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k = jb.k');
RESET pg_mergepath.memory_limit;
SELECT * FROM mp_explain('SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k = jb.k');

-- prepared statements, generic and custom plans
PREPARE pj(int) AS SELECT count(*), sum(ja.p + jb.q) FROM ja JOIN jb ON ja.k = jb.k WHERE ja.p > $1;
SET plan_cache_mode = force_generic_plan;
EXECUTE pj(100);
EXECUTE pj(500);
SET plan_cache_mode = force_custom_plan;
EXECUTE pj(100);
RESET plan_cache_mode;
SET pg_mergepath.enabled = off;
EXECUTE pj(100);
EXECUTE pj(500);
RESET pg_mergepath.enabled;
DEALLOCATE pj;

-- rescans: our join as the inner side of a nested loop, re-emitted for every outer
-- row (no parameter changed) ...
SET enable_nestloop = on;
SET enable_material = off;
CREATE TABLE jouter AS SELECT g AS o FROM generate_series(1, 5) g;
ANALYZE jouter;
SELECT * FROM mp_explain('SELECT o, x.n FROM jouter, (SELECT count(*) AS n FROM ja JOIN jb ON ja.k = jb.k) x');
SELECT mp_join_check('SELECT o, x.p, x.q FROM jouter JOIN (SELECT ja.p, jb.q FROM ja FULL JOIN jb ON ja.k = jb.k AND ja.p < jb.q) x ON true');
-- ... and with a parameter that changes per outer row (recomputed each time)
SELECT mp_join_check('SELECT o, (SELECT count(*) FROM ja JOIN jb ON ja.k = jb.k WHERE ja.p > jouter.o * 100) FROM jouter');
SELECT mp_join_check('SELECT o, (SELECT count(*) FROM ja RIGHT JOIN jb ON ja.k = jb.k AND ja.p < jouter.o * 50) FROM jouter');
RESET enable_material;
SET enable_nestloop = off;

-- a join over joins: each key deparsed through its own input (here a join's columns)
SELECT * FROM mp_explain('SELECT ja.p, j2.p FROM ja JOIN jb ON ja.k = jb.k JOIN ja j2 ON j2.k8 = jb.k8 AND j2.f8 = ja.f8');
SELECT * FROM mp_explain('SELECT ja.p, j2.p FROM ja JOIN jb ON ja.k = jb.k JOIN ja j2 ON j2.k8 = jb.k8 AND j2.f8 = ja.f8',
                         'COSTS OFF, VERBOSE');
SELECT mp_join_check('SELECT ja.p, j2.p FROM ja JOIN jb ON ja.k = jb.k JOIN ja j2 ON j2.k8 = jb.k8 AND j2.f8 = ja.f8');
-- a consumer that materialises every row it gets (CREATE TABLE AS) while one A row
-- goes with many pairs
CREATE TABLE jmat AS SELECT ja.s, ja.p, jb.t, jb.q FROM ja JOIN jb ON ja.k = jb.k;
SET pg_mergepath.enabled = off;
SELECT count(*) FROM (SELECT * FROM jmat EXCEPT ALL SELECT ja.s, ja.p, jb.t, jb.q FROM ja JOIN jb ON ja.k = jb.k) x;
RESET pg_mergepath.enabled;
DROP TABLE jmat;

-- a scroll cursor: fetched forward, backward, and again
BEGIN;
DECLARE cj SCROLL CURSOR FOR SELECT ja.p, jb.q FROM ja JOIN jb ON ja.k8 = jb.k8 WHERE ja.p < 40 ORDER BY ja.p, jb.q;
FETCH 3 FROM cj;
FETCH BACKWARD 2 FROM cj;
FETCH LAST FROM cj;
FETCH BACKWARD 3 FROM cj;
CLOSE cj;
-- without ORDER BY: the cursor materializes our output to move backwards
DECLARE cj2 SCROLL CURSOR FOR SELECT ja.p, jb.q FROM ja LEFT JOIN jb ON ja.k = jb.k WHERE ja.p BETWEEN 1 AND 3;
MOVE FORWARD ALL FROM cj2;
FETCH BACKWARD ALL FROM cj2;
COMMIT;

-- Citus sets the scan path of an intermediate result to the file's row count and leaves
-- its relation's estimate at 1000 rows: the join decides from the larger of the two
-- (plan/input_rows.h; pg_mergepath.debug_scan_rows imitates the correction). Relations
-- estimated at 1000 rows each stay native under min_rows; the same with paths of 300000.
RESET pg_mergepath.min_rows;
RESET enable_hashjoin;
SELECT mp_misled_copy('ja', 'ci_a'), mp_misled_copy('jb', 'ci_b');
SELECT * FROM mp_explain('SELECT ci_a.p, ci_b.q FROM ci_a JOIN ci_b ON ci_a.k = ci_b.k');
SET pg_mergepath.debug_scan_rows = 300000;
SELECT * FROM mp_explain('SELECT ci_a.p, ci_b.q FROM ci_a JOIN ci_b ON ci_a.k = ci_b.k');
SELECT mp_join_check('SELECT ci_a.p, ci_b.q FROM ci_a JOIN ci_b ON ci_a.k = ci_b.k');
RESET pg_mergepath.debug_scan_rows;
DROP TABLE ci_a, ci_b;
SET pg_mergepath.min_rows = 0;

RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;

-- Work every participant repeats: a partial hash join over a private hash table builds
-- all of its inner side (here a HashAggregate of the largest table) in every
-- participant. Our partial paths charge each copy (plan/replicated_work.h) and read the
-- input's partial path that is cheapest with that charge: the join of rf and rdim runs
-- over rf's shared parallel scan, not over the hash join that aggregates rbig in every
-- participant (which it did before the charge, looking cheaper than it ran).
CREATE TABLE rep_fact AS SELECT g AS id, (g::int8 * 7919) % 50000 AS k, g % 1000 AS d FROM generate_series(1, 600000) g;
CREATE TABLE rep_big AS SELECT (g::int8 * 104729) % 50000 AS k, g AS v FROM generate_series(1, 1200000) g;
CREATE TABLE rep_dim AS SELECT g AS d, 'dim' || g AS name FROM generate_series(1, 1000) g;
ANALYZE rep_fact, rep_big, rep_dim;
SET max_parallel_workers_per_gather = 4;
SELECT * FROM mp_explain('SELECT count(*) FROM rep_fact JOIN (SELECT k, count(*) c FROM rep_big GROUP BY k) agg
                          ON rep_fact.k = agg.k JOIN rep_dim ON rep_fact.d = rep_dim.d');
SELECT mp_join_check('SELECT rep_fact.id, agg.c, rep_dim.name FROM rep_fact JOIN (SELECT k, count(*) c FROM rep_big GROUP BY k) agg
                      ON rep_fact.k = agg.k JOIN rep_dim ON rep_fact.d = rep_dim.d');
RESET max_parallel_workers_per_gather;
DROP TABLE rep_fact, rep_big, rep_dim;
