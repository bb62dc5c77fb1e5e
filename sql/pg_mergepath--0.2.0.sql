-- pg_mergepath 0.2.0 — install script. The set operations need no SQL objects: with
-- shared_preload_libraries = 'pg_mergepath' the planner uses the MergePath SetOp node
-- wherever it is cheaper. These functions report on it. Later versions add
-- pg_mergepath--0.2.0--<next>.sql upgrade scripts next to this file.

\echo Use "CREATE EXTENSION pg_mergepath" to load this file. \quit

-- The device this session's set operations use ('gpu' or 'cpu'), the MergePath set
-- operations alive in this backend, and the library memory they hold (bytes); the GPU
-- memory budget all backends share (pg_mergepath.gpu_shared_memory): its limit (NULL:
-- none), the bytes all backends hold reserved in it, and the backends waiting for room.
CREATE FUNCTION pg_mergepath_status(OUT device text, OUT live_operations bigint, OUT memory_in_use bigint,
                                    OUT gpu_shared_limit bigint, OUT gpu_shared_in_use bigint,
                                    OUT gpu_waiting_backends int)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_mergepath_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- The backend this session uses, in words (e.g. 'cuda: NVIDIA H100 80GB HBM3').
CREATE FUNCTION pg_mergepath_describe()
RETURNS text
AS 'MODULE_PATHNAME', 'pg_mergepath_describe'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
