-- pg_mergepath 0.1.0 -> 0.2.0: pg_mergepath_status() also reports the GPU memory
-- budget all backends share.

\echo Use "ALTER EXTENSION pg_mergepath UPDATE TO '0.2.0'" to load this file. \quit

DROP FUNCTION pg_mergepath_status();
CREATE FUNCTION pg_mergepath_status(OUT device text, OUT live_operations bigint, OUT memory_in_use bigint,
                                    OUT gpu_shared_limit bigint, OUT gpu_shared_in_use bigint,
                                    OUT gpu_waiting_backends int)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_mergepath_status'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
