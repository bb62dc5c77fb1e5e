// pg_mergepath.cpp — the module's entry points: _PG_init (configuration parameters,
// each node's install call, the planner hook that rewrites the nodes' scan tuples after
// planning; no device work: this runs in the postmaster under shared_preload_libraries,
// and CUDA must first be touched in a backend), and the SQL-callable functions of the
// install script.
//
//   pg_mergepath_status()    device this session uses, live set operations, and the
//                            library memory they hold (0 when idle: leak checks); the
//                            shared GPU budget: limit, bytes reserved by all backends,
//                            backends waiting for room
//   pg_mergepath_describe()  the opened backend in words, e.g. "cuda: NVIDIA H100"
#include <string>

#include "device.h"
#include "join.h"
#include "pipeline.h"
#include "scan_tlists.h"
#include "setop.h"
#include "shared_budget.h"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"

PG_MODULE_MAGIC;

void _PG_init(void);
PG_FUNCTION_INFO_V1(pg_mergepath_status);
PG_FUNCTION_INFO_V1(pg_mergepath_describe);
}

void _PG_init(void) {
    mp_define_gucs();
    mp_shared_budget_install();
    mp_setop_install();
    mp_join_install();
    mp_install_planner_hook();
}

Datum pg_mergepath_status(PG_FUNCTION_ARGS) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "pg_mergepath_status must return a record");
    desc = BlessTupleDesc(desc);
    MpSharedBudgetStatus shared = mp_shared_budget_status();
    Datum values[6];
    bool nulls[6] = {false, false, false, shared.limit <= 0, shared.limit < 0, shared.limit < 0};
    values[0] = CStringGetTextDatum(mp_device_name(mp_resolve_device()));
    values[1] = Int64GetDatum(mp_live_pipelines);
    values[2] = Int64GetDatum(int64(mp_context_memory_in_use()));
    values[3] = Int64GetDatum(shared.limit);
    values[4] = Int64GetDatum(shared.in_use);
    values[5] = Int32GetDatum(shared.waiting);
    // version 0.1.0's function has the first three columns only (heap_form_tuple reads natts)
    Assert(desc->natts <= 6);
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

// Copies the context's description into a fixed buffer (no C++ object survives).
static bool describe_context(mergepath::Context* ctx, char* buf, size_t len, MpError* err) {
    return mp_try(err, [&] { snprintf(buf, len, "%s", ctx->describe().c_str()); });
}

Datum pg_mergepath_describe(PG_FUNCTION_ARGS) {
    MpError err;
    MpDevice used;
    mergepath::Context* ctx = mp_context_acquire(mp_resolve_device(), false, &used, &err);
    if (!ctx) mp_raise(&err, "opening the device");
    char buf[256];
    bool ok = describe_context(ctx, buf, sizeof(buf), &err);
    mp_context_release(ctx);
    if (!ok) mp_raise(&err, "describing the device");
    PG_RETURN_TEXT_P(cstring_to_text(buf));
}
