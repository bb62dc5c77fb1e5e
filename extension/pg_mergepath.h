// pg_mergepath.h — what the extension's files share: the PostgreSQL headers (wrapped in
// extern "C" and included after the C++ ones, because PostgreSQL's port.h redefines
// printf-family names that <string> and friends use), the GUC variables (guc.cpp), the
// hook installers (setop_path.cpp, setop_plan.cpp), and the plan information a
// MergePath SetOp node carries from planner to executor (setop_plan.cpp).
//
// Every .cpp includes its C++ headers first and this file last.
#pragma once

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/explain.h"
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
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

// ---- guc.cpp --------------------------------------------------------------------------

enum MpDeviceSetting { MP_DEVICE_SETTING_AUTO, MP_DEVICE_SETTING_GPU, MP_DEVICE_SETTING_CPU };

extern bool mp_enabled;              // pg_mergepath.enabled
extern int mp_device_setting;        // pg_mergepath.device (MpDeviceSetting)
extern int mp_min_rows;              // pg_mergepath.min_rows
extern bool mp_hashed_keys;          // pg_mergepath.hashed_keys
extern int mp_gpu_memory_limit_mb;   // pg_mergepath.gpu_memory_limit (MB, 0 = none)
extern int mp_cpu_threads;           // pg_mergepath.cpu_threads (0 = all cores)
extern int mp_debug_hash_bits;       // pg_mergepath.debug_hash_bits (hidden, 0 = off)
extern int mp_debug_cpu_memory_kb;   // pg_mergepath.debug_cpu_memory_limit (hidden, kB)

void mp_define_gucs(void);

// ---- setop_path.cpp / setop_plan.cpp / setop_exec.cpp ---------------------------------

void mp_install_setop_path_hook(void);
void mp_install_planner_hook(void);
void mp_register_setop_methods(void);

// The key encoding the planner chose (keys.cpp).
struct MpKeyChoice {
    bool lossless;   // keys encode the values (else: 64-bit hashes + verification)
    bool null_bits;  // lossless, with a NULL bit per column
    int key_bits;    // 32, 64 or 128
};

// The plan information of one MergePath SetOp node (CustomScan.custom_private).
struct MpSetOpInfo {
    SetOpCmd cmd;       // INTERSECT [ALL] / EXCEPT [ALL]
    MpKeyChoice keys;
    List* eqops;        // OID list: the grouping equality operator of each column
    List* collations;   // OID list: the collation of each column
    int first_side;     // 0 / 1: the input whose first row of a group is emitted, as the
                        // replaced plan does (a hashed INTERSECT may read the right input first)
};

List* mp_setop_info_to_list(const MpSetOpInfo* info);
void mp_setop_info_from_list(List* list, MpSetOpInfo* info);
const char* mp_setop_cmd_name(SetOpCmd cmd);  // "Intersect All", ...

extern const CustomPathMethods mp_setop_path_methods;
extern const CustomScanMethods mp_setop_scan_methods;
extern const CustomExecMethods mp_setop_exec_methods;
extern uint64 mp_planned_setop_nodes;  // MergePath SetOp plans made by this backend
