// setop_explain.cpp — what EXPLAIN shows for a MergePath SetOp node:
//   Operation: Intersect All        the SQL operation (as SetOp shows "Intersect All")
//   Device: gpu | cpu               where it combines (planned; with ANALYZE: used)
//   Keys: 64-bit lossless | image | hashed  the key encoding the planner chose (keys.cpp)
//   Parallel: ...                   a parallel-aware node: who reads, who combines
// and with ANALYZE: rows read from each input (all participants), rows emitted, rows
// with NULLs (their own key stream), the hash check's outcome, the participants and
// which one combined, the sorted runs shipped while reading, an out-of-memory redo,
// and (with TIMING) milliseconds spent waiting for the GPU's start and what the start
// took when it overlapped this query, reading input (this process; shipping included,
// also shown alone), allocating key chunks (every participant's, summed), combining (all of step 2, after reading), in transfers, copying
// the results into shared memory (parallel), sorting,
// the set-operation kernel, grouping equal images (image keys) or verifying hashes
// (hashed keys), and emitting rows (this process); then the peak memory of the
// combining step and its wait for the shared GPU budget (stage.cpp).
#include "setop_node.h"

static void explain_participants(MpSetOpState* st, ExplainState* es) {
    ExplainPropertyInteger("Participants", NULL, st->stats.counts.participants, es);
    if (!st->stats.report.ran) return;
    const char* who = st->stats.counts.combiner < 0 ? "leader" : psprintf("worker %d", st->stats.counts.combiner);
    ExplainPropertyText("Combined By", who, es);
}

static void explain_counts(MpSetOpState* st, ExplainState* es) {
    ExplainPropertyUInteger("Left Input Rows", NULL, st->stats.counts.rows_read[0], es);
    ExplainPropertyUInteger("Right Input Rows", NULL, st->stats.counts.rows_read[1], es);
    ExplainPropertyUInteger("Rows Emitted", NULL, st->stats.counts.rows_emitted, es);
    if (st->stats.counts.null_rows > 0)
        ExplainPropertyUInteger("Rows With NULLs", NULL, st->stats.counts.null_rows, es);
    if (st->node.keys.ranged) ExplainPropertyUInteger("Rows Outside Ranges", NULL, st->stats.counts.outside_rows, es);
    if (mp_verified_hashes(st))
        ExplainPropertyText("Hash Check", st->emitter.hash_collision ? "collision, recomputed exactly" : "passed", es);
    if (st->node.info.parallel) explain_participants(st, es);
    if (st->stats.report.runs > 0) ExplainPropertyUInteger("Sorted Runs", NULL, st->stats.report.runs, es);
    MpSpillReport spilled = mp_ranges_report(st);
    if (mp_setop_switchable(st) && spilled.runs > 0)
        ExplainPropertyText("Memory Limit",
                            st->node.info.keys.images
                                ? "passed at run time: spilled, the participants combined hash partitions"
                            : st->node.info.one_emitter
                                ? "passed at run time: spilled, the combiner combined key ranges"
                                : "passed at run time: spilled, the participants combined key ranges",
                            es);
    mp_spill_explain(&spilled, es);
    mp_stage_explain_outcome(&st->stats.report, es);
}

static void explain_times(MpSetOpState* st, ExplainState* es) {
    const MpStageReport* r = &st->stats.report;
    if (r->device_wait_ms > 0) ExplainPropertyFloat("Device Wait", "ms", r->device_wait_ms, 3, es);
    if (r->device_start_ms > 0) ExplainPropertyFloat("Device Start", "ms", r->device_start_ms, 3, es);
    ExplainPropertyFloat("Read Time", "ms", st->stats.read_ms, 3, es);
    if (r->runs > 0) ExplainPropertyFloat("Ship Time", "ms", r->ship_ms, 3, es);
    ExplainPropertyFloat("Allocation Time", "ms", st->stats.counts.alloc_us / 1000.0, 3, es);
    if (st->node.info.parallel) ExplainPropertyFloat("Combine Time", "ms", r->combine_ms, 3, es);
    ExplainPropertyFloat("Transfer Time", "ms", r->transfer_ms, 3, es);
    if (st->node.info.parallel) ExplainPropertyFloat("Results Time", "ms", r->results_ms, 3, es);
    ExplainPropertyFloat("Sort Time", "ms", r->sort_ms, 3, es);
    ExplainPropertyFloat("Kernel Time", "ms", r->kernel_ms, 3, es);
    if (mp_verified_hashes(st)) ExplainPropertyFloat("Verify Time", "ms", st->stats.verify_ms, 3, es);
    if (st->node.info.keys.images) ExplainPropertyFloat("Group Time", "ms", r->group_ms, 3, es);
    ExplainPropertyFloat("Emit Time", "ms", st->stats.emit_ms, 3, es);
    mp_stage_explain_memory(r, es);
}

// How the participants of a parallel plan share the work.
static const char* parallel_mode(const MpSetOpState* st) {
    if (st->node.info.one_emitter)
        return st->node.info.spill ? "every participant reads and spills, one combines and emits key ranges in order"
                                   : "every participant reads, one combines and emits in order";
    if (!st->node.info.spill) return "every participant reads, one combines, all emit";
    if (st->node.info.keys.images)  // image_ranges.cpp: the leader only gathers once a worker took part
        return "every participant reads and spills, the workers (else the leader) combine and emit hash "
               "partitions";
    return "every participant reads and spills, all combine and emit key ranges";
}

void mp_explain_setop(CustomScanState* node, List* ancestors, ExplainState* es) {
    MpSetOpState* st = (MpSetOpState*)node;
    ExplainPropertyText("Operation", mp_setop_name(st->node.info.op, st->node.info.all), es);
    ExplainPropertyText("Device", mp_device_name(st->stats.report.device), es);
    const char* kind = st->node.keys.lossless ? "lossless" : st->node.info.keys.images ? "image" : "hashed";
    ExplainPropertyText("Keys",
                        psprintf("%d-bit %s%s", st->node.keys.key_bits, kind,
                                 st->node.keys.ranged ? ", ranged by column statistics" : ""),
                        es);
    if (st->node.info.ordered) ExplainPropertyText("Output Order", "by the key, ascending, NULLs last", es);
    if (st->node.info.parallel) ExplainPropertyText("Parallel", parallel_mode(st), es);
    if (!es->analyze) return;
    explain_counts(st, es);
    if (es->timing) explain_times(st, es);
}
