// guc.cpp — every configuration parameter of pg_mergepath, declared in one place, with
// the "pg_mergepath" prefix reserved so that a misspelt name is an error.
//
//   pg_mergepath.enabled           use the MergePath nodes when they are cheaper
//   pg_mergepath.enable_join       also the MergePath Join node (off: set operations only)
//   pg_mergepath.stream_outer      a join whose inner side is much smaller streams its outer
//                                  side past the sorted inner one (off: both sides sorted)
//   pg_mergepath.device            auto | gpu | cpu: where the nodes sort and combine
//   pg_mergepath.min_rows          estimated input rows (both sides) below which the nodes
//                                  are not offered
//   pg_mergepath.hashed_keys       set operations also over verified 64-bit hashes (off)
//   pg_mergepath.image_keys        set operations and joins over canonical byte images (text, ...)
//   pg_mergepath.ranged_keys       set operations' lossless keys narrowed by the columns'
//                                  statistics
//   pg_mergepath.gpu_memory_limit  GPU memory one backend may hold (0 = no limit)
//   pg_mergepath.cpu_threads       threads of the CPU backend (0 = all cores)
//   pg_mergepath.gpu_shared_memory GPU memory all backends together may hold (reload;
//                                  0 = 90% of the GPU's memory, -1 = no limit)
//   pg_mergepath.gpu_wait_timeout  how long a query waits for room in that budget before
//                                  it is computed on the CPU backend
//   pg_mergepath.memory_limit      memory one node may hold before its inputs spill to
//                                  temporary files and are combined by key range or
//                                  hash partition
//                                  (-1 = no limit, 0 = work_mem x hash_mem_multiplier)
// Hidden, for tests:
//   pg_mergepath.debug_hash_bits         keep only this many bits of each row hash, so that
//                                        hash collisions (and their exact fallback) happen
//   pg_mergepath.debug_cpu_memory_limit  memory budget (kB) of the CPU backend, so that the
//                                        out-of-memory redo path can run without a GPU
//   pg_mergepath.debug_cpu_shared_budget CPU contexts opened while it is set reserve their
//                                        memory in the shared budget, with this limit (kB),
//                                        so that its waits and fallback run without a GPU
//   pg_mergepath.debug_replace_native    a set operation offered our path (min_rows, keys,
//                                        memory) runs it, the native paths dropped: on a
//                                        few rows both cost about the same (on 18 within
//                                        add_path's fuzz), and exactness tests need ours
//   pg_mergepath.debug_piece_rows        a parallel node's combiner announces its results in
//                                        pieces of about this many rows and pauses 2 ms
//                                        after each, so that small tests have
//                                        participants wait for pieces
//   pg_mergepath.debug_scan_rows         a table's scan paths claim this many rows while the
//                                        relation keeps its estimate, as Citus corrects
//                                        the scan of an intermediate result
#include <climits>

#include "pg_mergepath.h"

extern "C" {
#include "utils/guc.h"
}

bool mp_enabled = true;
bool mp_enable_join = true;
bool mp_stream_outer = true;
int mp_device_setting = MP_DEVICE_SETTING_AUTO;
// A first guess: below ~100k input rows the fixed costs of the device path (context,
// launches, transfers) outweigh what it saves. To be re-measured by the bench issue.
int mp_min_rows = 100000;
bool mp_hashed_keys = false;
bool mp_image_keys = true;
bool mp_ranged_keys = true;
int mp_gpu_memory_limit_mb = 0;
int mp_cpu_threads = 0;
int mp_debug_hash_bits = 0;
bool mp_debug_replace_native = false;
int mp_debug_cpu_memory_kb = 0;
int mp_debug_piece_rows = 0;
bool mp_debug_timeline = false;
int mp_debug_scan_rows = 0;
int mp_gpu_shared_memory_mb = 0;
int mp_gpu_wait_timeout_ms = 10000;
int mp_debug_cpu_shared_budget_kb = 0;
// 4 GB: a node whose keys fit stays on its fastest path (10M x 10M int8 holds 160 MB
// of keys); work_mem's few MB would make nearly every query spill. 0 follows work_mem
// x hash_mem_multiplier, as PostgreSQL's hashed nodes do.
int mp_memory_limit_kb = 4 * 1024 * 1024;

static const struct config_enum_entry device_options[] = {
    {"auto", MP_DEVICE_SETTING_AUTO, false},
    {"gpu", MP_DEVICE_SETTING_GPU, false},
    {"cpu", MP_DEVICE_SETTING_CPU, false},
    {NULL, 0, false},
};

static void define_public_gucs(void) {
    DefineCustomBoolVariable("pg_mergepath.enabled",
                             "Use the MergePath nodes for INTERSECT, EXCEPT and equi-joins when they are cheaper.",
                             NULL, &mp_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.enable_join", "Use the MergePath Join node for equi-joins.",
                             "Needs pg_mergepath.enabled too.", &mp_enable_join, true, PGC_USERSET, 0, NULL, NULL,
                             NULL);
    DefineCustomBoolVariable("pg_mergepath.stream_outer",
                             "Let a MergePath Join whose inner side is much smaller stream its outer side.",
                             "Inner, left, semi and anti joins whose inner input is estimated at a quarter of the "
                             "outer one or less sort only the inner side and find each outer row's key in it, "
                             "never storing the outer side. Off: both sides are sorted.",
                             &mp_stream_outer, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomEnumVariable("pg_mergepath.device", "Where the MergePath nodes sort and combine: auto, gpu or cpu.",
                             "auto uses the GPU when one is usable and the CPU backend otherwise; "
                             "gpu raises an error when no GPU is usable.",
                             &mp_device_setting, MP_DEVICE_SETTING_AUTO, device_options, PGC_USERSET, 0, NULL,
                             NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.min_rows",
                            "Estimated input rows (both sides) below which the MergePath nodes are not used.",
                            NULL, &mp_min_rows, 100000, 0, INT_MAX, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.hashed_keys",
                             "Also offer the node for keys that need hashing and verification.",
                             "Text, numeric, float and other non-lossless keys. Off by default: measured no faster "
                             "than PostgreSQL's own set operations (bench/RESULTS.md).",
                             &mp_hashed_keys, false, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.image_keys",
                             "Offer the node for keys compared as canonical byte images.",
                             "Text, varchar, bpchar, bytea, numeric, float4/8, interval and uuid columns in "
                             "deterministic collations, and rows too wide for a 128-bit key.",
                             &mp_image_keys, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.ranged_keys",
                             "Narrow lossless keys to the value ranges of the planner's column statistics.",
                             "A key of 64 or 128 bits whose columns span fewer bits becomes 32 or 64 bits wide; "
                             "rows outside the ranges (statistics are samples, and may be stale) take a 128-bit "
                             "key of their own, so answers never depend on the statistics.",
                             &mp_ranged_keys, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.gpu_memory_limit", "GPU memory one backend's MergePath nodes may hold.",
                            "0 means no limit. A query that needs more is computed on the CPU backend.",
                            &mp_gpu_memory_limit_mb, 0, 0, INT_MAX / 2, PGC_USERSET, GUC_UNIT_MB, NULL, NULL,
                            NULL);
    DefineCustomIntVariable("pg_mergepath.cpu_threads", "Threads of pg_mergepath's CPU backend.",
                            "0 means one per core.", &mp_cpu_threads, 0, 0, 1024, PGC_USERSET, 0, NULL, NULL,
                            NULL);
    DefineCustomIntVariable("pg_mergepath.gpu_shared_memory", "GPU memory all backends' queries may hold together.",
                            "0 means 90% of the GPU's memory; -1 means no limit. A query that finds no room waits "
                            "up to pg_mergepath.gpu_wait_timeout, then runs on the CPU backend.",
                            &mp_gpu_shared_memory_mb, 0, -1, INT_MAX / 2, PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.gpu_wait_timeout",
                            "How long a query waits for room in the shared GPU memory budget.",
                            "Then it is computed on the CPU backend, with a NOTICE.", &mp_gpu_wait_timeout_ms, 10000, 0,
                            INT_MAX, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.memory_limit",
                            "Memory one MergePath node may hold before its inputs spill to temporary files.",
                            "-1 means no limit; 0 means work_mem x hash_mem_multiplier. Host and GPU memory count "
                            "together. Above the limit, sorted runs or hash partitions go to temporary files and "
                            "the node combines one key range or partition at a time.",
                            &mp_memory_limit_kb, 4 * 1024 * 1024, -1, INT_MAX, PGC_USERSET, GUC_UNIT_KB, NULL, NULL,
                            NULL);
}

uint64 mp_memory_limit_bytes(void) {
    if (mp_memory_limit_kb < 0) return 0;
    if (mp_memory_limit_kb == 0) return uint64(get_hash_memory_limit());
    return uint64(mp_memory_limit_kb) * 1024;
}

static void define_debug_gucs(void) {
    const int hidden = GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE;
    DefineCustomIntVariable("pg_mergepath.debug_hash_bits", "Truncates row hashes to this many bits (testing).",
                            NULL, &mp_debug_hash_bits, 0, 0, 64, PGC_USERSET, hidden, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.debug_replace_native",
                             "A set operation offered our path runs it: the native paths are dropped (testing).", NULL,
                             &mp_debug_replace_native, false, PGC_USERSET, hidden, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.debug_piece_rows",
                            "Rows per piece of results a parallel node's combiner announces (testing; 0: ~8 MB).", NULL,
                            &mp_debug_piece_rows, 0, 0, INT_MAX, PGC_USERSET, hidden, NULL, NULL, NULL);
    DefineCustomBoolVariable("pg_mergepath.debug_timeline",
                             "Each participant of a MergePath Join logs when it began, finished reading, had its "
                             "results and finished emitting (wall clock, LOG; diagnostics).",
                             NULL, &mp_debug_timeline, false, PGC_USERSET, hidden, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.debug_scan_rows",
                            "Rows a table's scan paths claim, its relation's estimate unchanged (testing; 0: off).",
                            NULL, &mp_debug_scan_rows, 0, 0, INT_MAX, PGC_USERSET, hidden, NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.debug_cpu_memory_limit", "Memory budget of the CPU backend (testing).",
                            NULL, &mp_debug_cpu_memory_kb, 0, 0, INT_MAX, PGC_USERSET, hidden | GUC_UNIT_KB,
                            NULL, NULL, NULL);
    DefineCustomIntVariable("pg_mergepath.debug_cpu_shared_budget",
                            "CPU contexts use the shared memory budget, with this limit (testing).", NULL,
                            &mp_debug_cpu_shared_budget_kb, 0, 0, INT_MAX, PGC_SUSET, hidden | GUC_UNIT_KB, NULL,
                            NULL, NULL);
}

void mp_define_gucs(void) {
    define_public_gucs();
    define_debug_gucs();
    MarkGUCPrefixReserved("pg_mergepath");
}
