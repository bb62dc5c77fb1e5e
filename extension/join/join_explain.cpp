// join_explain.cpp — what EXPLAIN shows for a MergePath Join node:
//   Join Type: Inner | Left | ...     the SQL join
//   Join Keys: (a.k = b.k) AND ...    the equality clauses, sorted and searched
//   Key Recheck: (a.t = b.t)          the key clauses keyed by image hash: each pair of
//                                     equal hashes is checked with them first
//   Join Filter: ...                  the other clauses of the join, per pair
//   Device: gpu | cpu                 where it sorts and searches (with ANALYZE: used)
//   Keys: 64-bit                      the key width (and whether image hashes are in it;
//                                     a numeric's: exact where it fits, numeric_keys.h)
//   Parallel: ...                     a parallel-aware node: who reads, combines, emits
//   Memory Limit: ...                 over it: the inputs sorted, joined key range by key
//                                     range (with ANALYZE: also a parallel join that
//                                     passed it at run time)
//   Outer Side: streamed ...          the outer rows stream past the sorted inner side
//                                     (join_probe.cpp); with ANALYZE and TIMING "Probe
//                                     Time": reading them and finding their keys (a part
//                                     of Expand Time)
// and with ANALYZE: rows read from each input (all participants), rows with a NULL key,
// the pairs expanded, rows removed by the join filter, outer rows whose pairs a batch
// proved equal before expanding them (join_batch_proof.cpp), participants and the combiner,
// runs shipped while reading, an out-of-memory redo, and (with TIMING) milliseconds of
// the device's start, reading (this process), shipping, combining, transfers, copying
// the ranges out, sorting, the sorted search, expanding pairs into rows, and emitting
// (qual and projection; this process); then the peak memory of the combining step and
// its wait for the shared GPU budget (stage.cpp).
#include "join_node.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/ruleutils.h"
}

// One side's key k: the child's target-list entry, deparsed in the child's own context
// (a child that is a join refers to its own children there).
static char* deparse_key(MpJoinState* st, List* ancestors, ExplainState* es, bool useprefix, int side, int k) {
    Plan* plan = st->css.ss.ps.plan;
    Plan* child = side == 0 ? outerPlan(plan) : innerPlan(plan);
    // a new list: lcons would grow the caller's ancestors in place, and EXPLAIN goes on
    // to deparse the parent's subplans with it
    List* context = set_deparse_context_plan(es->deparse_cxt, child, lcons(plan, list_copy(ancestors)));
    int col = list_nth_int(st->node.info.key_columns[side], k);
    TargetEntry* tle = (TargetEntry*)list_nth(child->targetlist, col);
    return deparse_expression((Node*)tle->expr, context, useprefix, false);
}

static void explain_keys(MpJoinState* st, List* ancestors, ExplainState* es) {
    bool useprefix = list_length(es->rtable) > 1 || es->verbose;
    StringInfoData buf;
    initStringInfo(&buf);
    for (int k = 0; k < st->node.info.nkeys; k++)
        appendStringInfo(&buf, "%s(%s = %s)", k ? " AND " : "", deparse_key(st, ancestors, es, useprefix, 0, k),
                         deparse_key(st, ancestors, es, useprefix, 1, k));
    ExplainPropertyText("Join Keys", buf.data, es);
    List* clauses = ((CustomScan*)st->css.ss.ps.plan)->custom_exprs;
    if (clauses == NIL) return;
    List* context = set_deparse_context_plan(es->deparse_cxt, st->css.ss.ps.plan, ancestors);
    int nrecheck = st->node.info.nrecheck;
    if (nrecheck > 0)
        ExplainPropertyText("Key Recheck",
                            deparse_expression((Node*)make_ands_explicit(list_copy_head(clauses, nrecheck)), context,
                                               useprefix, false),
                            es);
    List* filter = list_copy_tail(clauses, nrecheck);
    if (filter == NIL) return;
    ExplainPropertyText("Join Filter", deparse_expression((Node*)make_ands_explicit(filter), context, useprefix, false),
                        es);
}

static void explain_counts(MpJoinState* st, ExplainState* es) {
    ExplainPropertyUInteger("Outer Input Rows", NULL, st->stats.counts.node.rows_read[0], es);
    ExplainPropertyUInteger("Inner Input Rows", NULL, st->stats.counts.node.rows_read[1], es);
    if (st->stats.counts.node.null_rows > 0)
        ExplainPropertyUInteger("Rows With NULL Keys", NULL, st->stats.counts.node.null_rows, es);
    ExplainPropertyUInteger("Pairs", NULL, st->stats.counts.pairs, es);
    // (a pair the recheck removes, two different keys of one hash, counts here too)
    bool only_recheck = list_length(((CustomScan*)st->css.ss.ps.plan)->custom_exprs) == st->node.info.nrecheck;
    if (mp_join_checks_pairs(st))
        ExplainPropertyUInteger(only_recheck ? "Rows Removed by Key Recheck" : "Rows Removed by Join Filter", NULL,
                                st->stats.counts.filtered, es);
    // (rows whose candidates, equal hashes all, were found equal in bytes before their
    // pairs; a key split over a spilled join's key ranges counts once per range)
    if (st->node.proves_batches && st->strategy.way != MpJoinWay::StreamOuter)
        ExplainPropertyUInteger("Outer Rows Proven", NULL, st->stats.counts.proven, es);
    if (st->node.info.parallel) {
        ExplainPropertyInteger("Participants", NULL, st->stats.counts.node.participants, es);
        if (st->stats.report.ran)
            ExplainPropertyText(
                "Combined By",
                st->stats.counts.node.combiner < 0 ? "leader" : psprintf("worker %d", st->stats.counts.node.combiner),
                es);
    }
    if (st->stats.b_rows_unread)  // (known where this process combined)
        ExplainPropertyText("Inner Rows Read", "none, every inner key exact", es);
    if (st->stats.report.runs > 0) ExplainPropertyUInteger("Sorted Runs", NULL, st->stats.report.runs, es);
    if (st->node.info.spill || st->strategy.spill.ranges > 0) {
        if (st->strategy.spill.partitions > 0)
            ExplainPropertyInteger("Partitions", NULL, st->strategy.spill.partitions, es);
        ExplainPropertyUInteger("Key Ranges", NULL, st->strategy.spill.ranges, es);
        ExplainPropertyUInteger("Spilled", "kB", st->strategy.spill.disk_kb, es);
        if (st->strategy.spill.spool.keys_split > 0)
            ExplainPropertyUInteger("Keys Split Over Ranges", NULL, st->strategy.spill.spool.keys_split, es);
        if (st->strategy.spill.spool.keys_looped > 0)
            ExplainPropertyUInteger("Keys Joined Row By Row", NULL, st->strategy.spill.spool.keys_looped, es);
    }
    mp_stage_explain_outcome(&st->stats.report, es);
}

static void explain_times(MpJoinState* st, ExplainState* es) {
    const MpStageReport* r = &st->stats.report;
    if (r->device_wait_ms > 0) ExplainPropertyFloat("Device Wait", "ms", r->device_wait_ms, 3, es);
    if (r->device_start_ms > 0) ExplainPropertyFloat("Device Start", "ms", r->device_start_ms, 3, es);
    ExplainPropertyFloat("Read Time", "ms", st->stats.read_ms, 3, es);
    if (r->runs > 0) ExplainPropertyFloat("Ship Time", "ms", r->ship_ms, 3, es);
    ExplainPropertyFloat("Combine Time", "ms", r->combine_ms, 3, es);
    ExplainPropertyFloat("Library Finish Time", "ms", r->finish_ms, 3, es);
    ExplainPropertyFloat("Ranges Time", "ms", r->ranges_ms, 3, es);
    ExplainPropertyFloat("Transfer Time", "ms", r->transfer_ms, 3, es);
    ExplainPropertyFloat("Results Time", "ms", r->results_ms, 3, es);
    ExplainPropertyFloat("Sort Time", "ms", r->sort_ms, 3, es);
    ExplainPropertyFloat("Search Time", "ms", r->kernel_ms, 3, es);
    if (st->node.info.probe && !st->strategy.probe.spilled)
        ExplainPropertyFloat("Probe Time", "ms", st->strategy.probe.probe_ms, 3, es);
    ExplainPropertyFloat("Expand Time", "ms", st->stats.expand_ms, 3, es);
    ExplainPropertyFloat("Emit Time", "ms", st->stats.emit_ms, 3, es);
    mp_stage_explain_memory(r, es);
}

// A parallel-aware node's way: in memory, or over the limit (join_spill_parallel.cpp).
static const char* parallel_line(const MpJoinState* st) {
    if (!st->node.info.spill) return "every participant reads, one combines, all emit";
    return "every participant writes its share into hash partitions, then joins the partitions it claims";
}

// Over the memory limit as planned, or (ANALYZE) a parallel node that passed it at run
// time; NULL: neither.
static const char* memory_line(const MpJoinState* st, const ExplainState* es) {
    if (st->node.info.spill && st->node.info.parallel)
        return "over it: both inputs in hash partitions, each sorted into runs and joined key range by key range";
    if (st->node.info.spill) return "over it: both inputs sorted into runs, joined key range by key range";
    if (es->analyze && st->node.info.parallel && st->strategy.spill.switched)
        return "passed at run time: each participant wrote the rest of its share into hash partitions, then all "
               "joined the partitions they claimed, key range by key range";
    return NULL;
}

void mp_explain_join(CustomScanState* node, List* ancestors, ExplainState* es) {
    MpJoinState* st = (MpJoinState*)node;
    ExplainPropertyText("Join Type", mp_join_type_name(st->node.info.jointype), es);
    explain_keys(st, ancestors, es);
    ExplainPropertyText("Device", mp_device_name(st->stats.report.device), es);
    ExplainPropertyText("Keys",
                        psprintf("%d-bit%s", st->node.info.key_bits,
                                 st->node.exact_keys               ? ", numerics exact to 4 decimals, others by image hash rechecked"
                                 : st->node.info.nrecheck > 0      ? ", image hashes rechecked"
                                                                   : ""),
                        es);
    if (st->node.info.parallel) ExplainPropertyText("Parallel", parallel_line(st), es);
    if (st->node.info.probe)
        ExplainPropertyText("Outer Side",
                            es->analyze && st->strategy.probe.spilled
                                ? "streamed as planned, but the inner side passed the memory limit: both sides spilled"
                                : "streamed in batches, each key found in the sorted inner keys",
                            es);
    if (st->node.info.own_inner)
        ExplainPropertyText("Parallel", "not parallel-aware: every participant sorts the whole inner side; the "
                            "counts below are the leader's", es);
    const char* memory = memory_line(st, es);
    if (memory) ExplainPropertyText("Memory Limit", memory, es);
    if (!es->analyze) return;
    explain_counts(st, es);
    if (es->timing) explain_times(st, es);
}
