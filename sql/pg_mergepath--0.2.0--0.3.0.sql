-- pg_mergepath 0.2.0 -> 0.3.0: SQL functions over sorted arrays (Merge Path, Balanced
-- Path and vectorized sorted search of the library): merge, intersect_all, except_all,
-- multiset_union and sorted_search, in the extension's schema. Inputs are
-- one-dimensional, sorted ascending and free of NULLs (an ERROR names the position).

\echo Use "ALTER EXTENSION pg_mergepath UPDATE TO '0.3.0'" to load this file. \quit

-- Every element of both arrays, in order (A's before B's equal ones): the sorted form of
-- UNION ALL.
CREATE FUNCTION merge(anyarray, anyarray) RETURNS anyarray
AS 'MODULE_PATHNAME', 'mp_array_merge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- An element found m times in A and n times in B: min(m, n) copies.
CREATE FUNCTION intersect_all(anyarray, anyarray) RETURNS anyarray
AS 'MODULE_PATHNAME', 'mp_array_intersect_all' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- ... max(m - n, 0) copies.
CREATE FUNCTION except_all(anyarray, anyarray) RETURNS anyarray
AS 'MODULE_PATHNAME', 'mp_array_except_all' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- ... max(m, n) copies (std::set_union; not UNION ALL, which keeps m + n).
CREATE FUNCTION multiset_union(anyarray, anyarray) RETURNS anyarray
AS 'MODULE_PATHNAME', 'mp_array_multiset_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- For each needle, how many haystack elements come before it: 'lower', before the equal
-- ones (lower_bound); 'upper', after them (upper_bound).
CREATE FUNCTION sorted_search(haystack anyarray, needles anyarray, side text DEFAULT 'lower') RETURNS bigint[]
AS 'MODULE_PATHNAME', 'mp_array_sorted_search' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
