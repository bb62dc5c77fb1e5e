// pg_mergepath.h — what every file of the extension shares: the PostgreSQL headers
// (wrapped in extern "C" and included after the C++ ones, because PostgreSQL's port.h
// redefines printf-family names that <string> and friends use), the GUC variables
// (guc.cpp) and the key encoding a plan carries (keys.cpp).
//
// Every .cpp includes its C++ headers first and this file (or a header that includes
// it) last.
#pragma once

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "commands/tablespace.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "port/atomics.h"
#include "storage/buffile.h"
#include "storage/dsm.h"
#include "storage/sharedfileset.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
}

#include "pg_compat.h"

// ---- guc.cpp --------------------------------------------------------------------------

enum MpDeviceSetting { MP_DEVICE_SETTING_AUTO, MP_DEVICE_SETTING_GPU, MP_DEVICE_SETTING_CPU };

extern bool mp_enabled;              // pg_mergepath.enabled
extern bool mp_enable_join;          // pg_mergepath.enable_join
extern bool mp_stream_outer;         // pg_mergepath.stream_outer
extern int mp_device_setting;        // pg_mergepath.device (MpDeviceSetting)
extern int mp_min_rows;              // pg_mergepath.min_rows
extern bool mp_hashed_keys;          // pg_mergepath.hashed_keys
extern bool mp_image_keys;           // pg_mergepath.image_keys
extern bool mp_ranged_keys;          // pg_mergepath.ranged_keys
extern int mp_gpu_memory_limit_mb;   // pg_mergepath.gpu_memory_limit (MB, 0 = none)
extern int mp_cpu_threads;           // pg_mergepath.cpu_threads (0 = all cores)
extern int mp_debug_hash_bits;       // pg_mergepath.debug_hash_bits (hidden, 0 = off)
extern bool mp_debug_replace_native; // pg_mergepath.debug_replace_native (hidden)
extern int mp_debug_piece_rows;      // pg_mergepath.debug_piece_rows (hidden, 0 = ~8 MB)
extern bool mp_debug_timeline;       // pg_mergepath.debug_timeline (hidden)
extern int mp_debug_scan_rows;       // pg_mergepath.debug_scan_rows (hidden, 0 = off)
extern int mp_debug_cpu_memory_kb;   // pg_mergepath.debug_cpu_memory_limit (hidden, kB)
extern int mp_gpu_shared_memory_mb;  // pg_mergepath.gpu_shared_memory (MB, 0 = 90% of the GPU, -1 = no limit)
extern int mp_gpu_wait_timeout_ms;   // pg_mergepath.gpu_wait_timeout (ms)
extern int mp_debug_cpu_shared_budget_kb;  // pg_mergepath.debug_cpu_shared_budget (hidden, kB, 0 = off)
extern int mp_memory_limit_kb;       // pg_mergepath.memory_limit (kB, -1 = none, 0 = work_mem x hash_mem_multiplier)

void mp_define_gucs(void);
// The memory one node may hold (pg_mergepath.memory_limit) in bytes; 0 = no limit.
uint64 mp_memory_limit_bytes(void);

// ---- keys.cpp -------------------------------------------------------------------------

// The key encoding the planner chose for a node's columns.
struct MpKeyChoice {
    bool lossless;  // keys encode the values (else: 64-bit hashes + verification)
    bool images;    // not lossless: hashes of canonical row images (images.h), compared
                    // byte by byte; else hashes verified with the equality operators
    int key_bits;   // 32, 64 or 128 (rows with a NULL: 128-bit keys of their own, keys.h)
    int full_bits;  // key_bits before ranged keys narrowed them: what memory is planned for
                    // (rows outside the ranges take wider keys than key_bits)
    // Lossless keys narrowed to column ranges (keys.h, "Ranged keys"): per column, the
    // encoded value's offset and width in a main key; NULL: every column its type's width.
    const struct MpColumnRange* ranges;
};

struct MpColumnRange {
    uint64 base;  // encoded values [base, base + 2^bits) fit the main key
    int bits;
};
