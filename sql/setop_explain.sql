-- setop_explain: what EXPLAIN shows for the node: operation, device (masked here),
-- key encoding; VERBOSE output columns (nested too); ANALYZE counters (rows read per
-- side, rows emitted, rows with NULLs, hash check); other formats.
SET pg_mergepath.min_rows = 0;

SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT SELECT a FROM tb');
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT ALL SELECT a FROM tb');
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT SELECT a FROM tb');
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT ALL SELECT a FROM tb');

-- VERBOSE: output columns print like the native SetOp's ("*SELECT* 1".a, flag).
SELECT * FROM mp_explain('SELECT a, b FROM ta INTERSECT ALL SELECT a, b FROM tb', 'VERBOSE, COSTS OFF');
SELECT * FROM mp_explain('SELECT c FROM ta EXCEPT (SELECT c FROM tb INTERSECT SELECT c FROM ta WHERE a > 2) ORDER BY 1',
                         'VERBOSE, COSTS OFF');
SELECT * FROM mp_explain('SELECT x FROM (SELECT a::int8 AS x FROM ta INTERSECT SELECT b FROM tb) s WHERE x > 1',
                         'VERBOSE, COSTS OFF');
SET enable_hashagg = off;
SELECT * FROM mp_explain('SELECT a FROM ta UNION SELECT a FROM tb EXCEPT ALL SELECT a FROM ta WHERE a < 3', 'VERBOSE, COSTS OFF');
RESET enable_hashagg;

-- ANALYZE: rows read from each input, rows emitted; NULL rows take the exact route.
SELECT * FROM mp_explain('SELECT a FROM ta INTERSECT ALL SELECT a FROM tb',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT * FROM mp_explain('SELECT a, b FROM ta EXCEPT SELECT a, b FROM tb',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT * FROM mp_explain('SELECT c FROM ta EXCEPT ALL SELECT c FROM tb',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT * FROM mp_explain('SELECT a FROM ta WHERE false INTERSECT SELECT a FROM tb',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
-- rescanned node: counters add up over loops
SELECT * FROM mp_explain('SELECT x, (SELECT count(*) FROM (SELECT a FROM ta WHERE a < x INTERSECT SELECT a FROM tb) s)
                          FROM generate_series(1, 2) x', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');

-- With TIMING the phases are timed, and the combining step's peak memory shown (values
-- vary: only their names are shown).
SELECT regexp_replace(regexp_replace(line, '[0-9.]+ ms', 'N ms'), '[0-9]+ kB', 'N kB') AS line
FROM mp_explain('SELECT a FROM ta INTERSECT SELECT a FROM tb', 'ANALYZE, COSTS OFF, SUMMARY OFF') AS line
WHERE line ~ 'Time|Memory';
SELECT regexp_replace(regexp_replace(line, '[0-9.]+ ms', 'N ms'), '[0-9]+ kB', 'N kB') AS line
FROM mp_explain('SELECT c FROM ta INTERSECT SELECT c FROM tb', 'ANALYZE, COSTS OFF, SUMMARY OFF') AS line
WHERE line ~ 'Time|Memory';
-- the peak counts at least the keys of both inputs (4 bytes or more each)
SELECT substring(line from '([0-9]+) kB')::int8 * 1024 >= 4 * ((SELECT count(*) FROM ta) + (SELECT count(*) FROM tb))
       AS peak_covers_keys
FROM mp_explain('SELECT a FROM ta INTERSECT SELECT a FROM tb', 'ANALYZE, COSTS OFF, SUMMARY OFF') AS line
WHERE line ~ 'Peak Memory';

-- Other formats carry the same properties.
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT SELECT a FROM tb', 'FORMAT JSON, COSTS OFF');
SELECT * FROM mp_explain('SELECT a FROM ta EXCEPT SELECT a FROM tb', 'FORMAT YAML, COSTS OFF, ANALYZE, TIMING OFF, SUMMARY OFF');
