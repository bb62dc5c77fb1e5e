// explain.cpp — what EXPLAIN shows for a MergePath SetOp node:
//   Operation: Intersect All        the SQL operation (as SetOp shows "Intersect All")
//   Device: gpu | cpu               where it runs (resolved when the executor starts)
//   Keys: 64-bit lossless | hashed  the key encoding the planner chose (keys.cpp)
// and with ANALYZE: rows read from each input, rows emitted, rows that took the
// exact in-backend route because of NULLs, the hash check's outcome, the sorted runs
// shipped while reading (when there were any: the GPU ships one per 4M keys of a side),
// an out-of-memory redo, and (with TIMING) milliseconds spent reading input (shipping
// runs included, also shown alone), in transfers, sorting, the set-operation kernel,
// verifying hashes and emitting rows.
#include "setop.h"

static void explain_counts(MpSetOpState* st, ExplainState* es) {
    ExplainPropertyUInteger("Left Input Rows", NULL, st->rows_read[0], es);
    ExplainPropertyUInteger("Right Input Rows", NULL, st->rows_read[1], es);
    ExplainPropertyUInteger("Rows Emitted", NULL, st->rows_emitted, es);
    if (st->null_rows > 0) ExplainPropertyUInteger("Rows With NULLs", NULL, st->null_rows, es);
    if (!st->keys.lossless)
        ExplainPropertyText("Hash Check", st->hash_collision ? "collision, recomputed exactly" : "passed", es);
    if (st->timings.runs > 0) ExplainPropertyUInteger("Sorted Runs", NULL, st->timings.runs, es);
    if (st->oom_redo) ExplainPropertyText("Out Of Memory", "redone on the cpu backend", es);
}

static void explain_times(MpSetOpState* st, ExplainState* es) {
    ExplainPropertyFloat("Read Time", "ms", st->read_ms, 3, es);
    if (st->timings.runs > 0) ExplainPropertyFloat("Ship Time", "ms", st->timings.ship_ms, 3, es);
    ExplainPropertyFloat("Transfer Time", "ms", st->timings.transfer_ms, 3, es);
    ExplainPropertyFloat("Sort Time", "ms", st->timings.sort_ms, 3, es);
    ExplainPropertyFloat("Kernel Time", "ms", st->timings.kernel_ms, 3, es);
    if (!st->keys.lossless) ExplainPropertyFloat("Verify Time", "ms", st->verify_ms, 3, es);
    ExplainPropertyFloat("Emit Time", "ms", st->emit_ms, 3, es);
}

void mp_explain_setop(CustomScanState* node, List* ancestors, ExplainState* es) {
    MpSetOpState* st = (MpSetOpState*)node;
    ExplainPropertyText("Operation", mp_setop_cmd_name(st->info.cmd), es);
    ExplainPropertyText("Device", mp_device_name(st->device), es);
    ExplainPropertyText("Keys", psprintf("%d-bit %s", st->keys.key_bits, st->keys.lossless ? "lossless" : "hashed"),
                        es);
    if (!es->analyze) return;
    explain_counts(st, es);
    if (es->timing) explain_times(st, es);
}
