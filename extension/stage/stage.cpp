// stage.cpp — the facade over the library's sorted-sides stage (see stage.h): opening
// a device, adopting chunks, finishing, results, the out-of-memory redo on the CPU
// backend, and the memory-context callback that frees the C++ objects.
#include "stage.h"

#include "shared_budget.h"
#include "timing.h"

// Deletes the pipeline and releases the contexts: the owning context's reset callback.
static void mp_stage_free(void* arg) {
    MpStage* stage = (MpStage*)arg;
    MpPipeline* pipeline = stage->pipeline;
    stage->pipeline = nullptr;
    MpError err;
    mp_try(&err, [&] { delete pipeline; });
    for (mergepath::Context*& ctx : stage->contexts) {
        if (ctx) mp_context_release(ctx);
        ctx = nullptr;
    }
}

MpStage* mp_stage_create(MemoryContext cxt, int key_bits, mergepath::SetOp op, bool all, mergepath::SetOpShape shape) {
    MpStage* stage = (MpStage*)MemoryContextAllocZero(cxt, sizeof(MpStage));
    stage->kind = MpStageKind::SetOp;
    stage->key_bits = key_bits;
    stage->op = op;
    stage->all = all;
    stage->shape = shape;
    stage->callback.func = mp_stage_free;
    stage->callback.arg = stage;
    MemoryContextRegisterResetCallback(cxt, &stage->callback);
    return stage;
}

MpStage* mp_stage_create_join(MemoryContext cxt, int key_bits, MpJoinStageWants wants) {
    MpStage* stage = mp_stage_create(cxt, key_bits, mergepath::SetOp::Intersection, false, mergepath::SetOpShape::Rows);
    stage->kind = MpStageKind::Join;
    stage->join = wants;
    return stage;
}

static MpSetOpPipeline* setop_of(MpStage* stage) { return static_cast<MpSetOpPipeline*>(stage->pipeline); }
static MpJoinPipeline* join_of(MpStage* stage) { return static_cast<MpJoinPipeline*>(stage->pipeline); }

// The pipeline of the stage's kind (may throw).
static MpPipeline* new_pipeline(const MpStage* stage, mergepath::Context* ctx) {
    if (stage->kind == MpStageKind::Join)
        return mp_join_pipeline_new(stage->key_bits, ctx, stage->join);
    return mp_setop_pipeline_new(stage->key_bits, ctx, stage->op, stage->all, stage->shape);
}

bool mp_stage_is_open(const MpStage* stage) { return stage->pipeline != nullptr; }

// What the combining step is expected to hold for `keys` keys: each key and a reference
// to its row where the stage keeps one, twice (sorting out of place; measured: 241 MB on
// the GPU and 2.3x the key bytes on the CPU backend for 64-bit keys); at most half the
// shared budget; 0 when the budget has no limit (nothing to queue for) or the count is
// not known yet.
static size_t expected_bytes(const MpStage* stage, uint64 keys) {
    int64 limit = mp_shared_budget_status().limit;
    if (keys == 0 || limit <= 0) return 0;
    uint64 per_key = uint64(stage->key_bits / 8) + (stage->shape == mergepath::SetOpShape::Keys ? 0 : 8);
    return size_t(Min(keys * per_key * 2, uint64(limit) / 2));
}

// Reserves the expected memory in the shared budget (waiting for room when the context
// holds none yet). False when the wait ended without room; a cancel raises.
static bool reserve_expected(MpStage* stage, mergepath::Context* ctx, uint64 keys) {
    size_t bytes = expected_bytes(stage, keys);
    if (bytes == 0) return true;
    MpError err;
    if (mp_try(&err, [&] { ctx->reserve_memory(bytes); })) return true;
    if (err.kind != MpErrorKind::DeviceOutOfMemory && err.kind != MpErrorKind::HostOutOfMemory)
        mp_raise(&err, "waiting for the shared GPU memory budget");
    ereport(NOTICE, (errmsg("pg_mergepath: no room in the shared GPU memory budget, computing this %s on the CPU "
                            "backend",
                            stage->kind == MpStageKind::Join ? "join" : "set operation"),
                     errdetail("%s", err.message)));
    return false;
}

// The context the stage runs on (stage->contexts[0], released with the stage even when
// a cancel ends the wait): the device's, or, when the shared budget has no room for the
// expected memory, an unlimited CPU one.
// The stage on an unlimited CPU context, reserving nothing: no room in the shared budget.
static mergepath::Context* acquire_unbudgeted_cpu(MpStage* stage, MpDevice* used) {
    MpError err;
    mergepath::Context* ctx = mp_context_acquire(MpDevice::Cpu, true, used, &err, nullptr, stage->cpu_threads);
    if (!ctx) mp_raise(&err, "opening the CPU backend");
    stage->contexts[0] = ctx;
    mp_try(&err, [&] { ctx->reset_memory_peak(); });
    stage->report.budget_fallback = true;
    return ctx;
}

static mergepath::Context* acquire_for(MpStage* stage, MpDevice device, uint64 keys, MpDevice* used) {
    if (stage->budget_full) return acquire_unbudgeted_cpu(stage, used);
    MpError err;
    mergepath::Context* ctx = mp_context_acquire(device, false, used, &err, &stage->report.device_wait_ms, stage->cpu_threads);
    if (!ctx) mp_raise(&err, "opening the device");
    stage->contexts[0] = ctx;
    mp_try(&err, [&] { ctx->reset_memory_peak(); });  // EXPLAIN counts from here, the wait too
    if (reserve_expected(stage, ctx, keys)) return ctx;
    mp_try(&err, [&] { stage->report.budget_wait_ms += ctx->ledger_wait_ms(); });
    stage->contexts[0] = nullptr;
    mp_context_release(ctx);
    return acquire_unbudgeted_cpu(stage, used);
}

void mp_stage_open(MpStage* stage, MpDevice device, uint64 keys) {
    if (mp_stage_is_open(stage)) {  // opened while reading: what is still expected, if it fits now
        MpError err;
        mergepath::Context* ctx = stage->contexts[0];
        size_t bytes = expected_bytes(stage, keys);
        size_t held = 0;
        mp_try(&err, [&] { held = ctx->ledger_reserved(); });
        if (bytes > 0 && held > 0) mp_try(&err, [&] { ctx->reserve_memory(bytes); });  // never waits: it holds
        return;
    }
    MpError err;
    MpDevice used;
    mergepath::Context* ctx = acquire_for(stage, device, keys, &used);
    stage->report.device = used;
    stage->report.device_start_ms = used == MpDevice::Gpu ? mp_take_gpu_start_ms() : 0;
    MpPipeline* pipeline = nullptr;
    if (!mp_try(&err, [&] {
            pipeline = new_pipeline(stage, ctx);
        }))
        mp_raise(&err, "starting the pipeline");
    stage->pipeline = pipeline;
}

// Not while the shared budget is over half used: the stage then opens when the input is
// read and its size known, and queues for what it needs (reading does not wait).
bool mp_stage_open_early(MpStage* stage) {
    if (mp_stage_is_open(stage) || !mp_gpu_ready()) return mp_stage_is_open(stage);
    MpSharedBudgetStatus budget = mp_shared_budget_status();
    if (budget.limit > 0 && budget.in_use > budget.limit / 2) return false;
    mp_stage_open(stage, MpDevice::Gpu, 0);
    return mp_stage_is_open(stage);
}

// A GPU (or the debug-budgeted CPU) ran out of memory: NOTICE, then every key moves to
// an unlimited CPU context. Anything else is raised.
static void redo_on_cpu_or_raise(MpStage* stage, const MpError* err, const char* doing) {
    bool can_redo = stage->report.device == MpDevice::Gpu || mp_debug_cpu_memory_kb > 0 || mp_debug_cpu_shared_budget_kb > 0;
    if (err->kind != MpErrorKind::DeviceOutOfMemory || !can_redo || stage->contexts[1]) mp_raise(err, doing);
    ereport(NOTICE, (errmsg("pg_mergepath: out of memory on the %s backend, computing this %s on the CPU backend",
                            mp_device_name(stage->report.device),
                            stage->kind == MpStageKind::Join ? "join" : "set operation"),
                     errdetail("%s", err->message)));
    MpError err2;
    MpDevice used;
    mergepath::Context* cpu = mp_context_acquire(MpDevice::Cpu, true, &used, &err2, nullptr, stage->cpu_threads);
    if (!cpu) mp_raise(&err2, "opening the CPU backend");
    stage->contexts[1] = cpu;
    mp_try(&err2, [&] { cpu->reset_memory_peak(); });
    stage->report.oom_redo = true;
    MpPipeline* pipeline = stage->pipeline;
    if (!mp_try(&err2, [&] { pipeline->rebind(cpu); })) mp_raise(&err2, doing);
}

// Runs step() (library work that may throw); after an out-of-memory, once more on the CPU.
template <class Step>
static void run_with_redo(MpStage* stage, const char* doing, Step&& step) {
    MpError err;
    if (mp_try(&err, step)) return;
    redo_on_cpu_or_raise(stage, &err, doing);
    if (!mp_try(&err, step)) mp_raise(&err, doing);
}

void mp_stage_adopt(MpStage* stage, const MpChunkSpace* space, MpChunkRef first) {
    MpPipeline* pipeline = stage->pipeline;
    for (MpChunkRef ref = first; ref != kNoChunk;) {
        CHECK_FOR_INTERRUPTS();
        MpChunk* chunk = mp_chunk_at(space, ref);
        MpKeyStream stream = MpKeyStream(chunk->stream);
        mergepath::Side side = chunk->side == 0 ? mergepath::Side::A : mergepath::Side::B;
        const void* keys = mp_chunk_keys(chunk);
        size_t n = chunk->count;
        bool ascending = chunk->ascending != 0;
        const uint64_t* refs = chunk->ref_size ? mp_chunk_refs(chunk) : nullptr;
        run_with_redo(stage, "reading the input", [&] { pipeline->add_chunk(stream, side, keys, n, ascending, refs); });
        stage->report.chunks++;
        ref = chunk->next;
    }
}

// The most memory the stage's contexts held and the time they waited for the shared
// budget, for EXPLAIN (the CPU context of a redo is counted from its start).
static void note_memory(MpStage* stage) {
    MpStageReport* r = &stage->report;
    for (mergepath::Context* ctx : stage->contexts) {
        if (!ctx) continue;
        MpError err;
        size_t peak = 0;
        double waited = 0;
        if (!mp_try(&err, [&] {
                peak = ctx->memory_peak();
                waited = ctx->ledger_wait_ms();
            }))
            continue;
        r->peak_bytes = Max(r->peak_bytes, uint64(peak));
        r->budget_wait_ms += waited;
    }
}

void mp_stage_finish(MpStage* stage) {
    MpPipeline* pipeline = stage->pipeline;
    MpStopwatch clock;
    run_with_redo(stage, stage->kind == MpStageKind::Join ? "computing the join" : "computing the set operation",
                  [&] { pipeline->finish(); });
    MpError err;
    mergepath::PipelineTimings t;
    if (!mp_try(&err, [&] { t = pipeline->timings(); })) mp_raise(&err, "reading the timings");
    MpStageReport* r = &stage->report;
    r->ran = true;
    r->finish_ms = clock.lap_ms();
    r->transfer_ms = t.transfer_ms;
    r->sort_ms = t.sort_ms;
    r->kernel_ms = t.kernel_ms;
    r->ship_ms = t.ship_ms;
    r->runs = t.runs;
    note_memory(stage);
}

void mp_stage_explain_outcome(const MpStageReport* r, ExplainState* es) {
    if (r->budget_fallback) ExplainPropertyText("Shared Budget", "no room, ran on the cpu backend", es);
    if (r->oom_redo) ExplainPropertyText("Out Of Memory", "redone on the cpu backend", es);
}

void mp_stage_explain_memory(const MpStageReport* r, ExplainState* es) {
    if (!r->ran) return;
    ExplainPropertyInteger("Peak Memory", "kB", int64((r->peak_bytes + 1023) / 1024), es);
    if (r->budget_wait_ms > 0) ExplainPropertyFloat("Shared Budget Wait", "ms", r->budget_wait_ms, 3, es);
}

uint64 mp_stage_result_count(MpStage* stage, MpKeyStream stream) {
    MpError err;
    size_t n = 0;
    MpSetOpPipeline* pipeline = setop_of(stage);
    if (!mp_try(&err, [&] { n = pipeline->result_count(stream); })) mp_raise(&err, "reading the results");
    return n;
}

const void* mp_stage_host_results(MpStage* stage, MpKeyStream stream) {
    MpError err;
    const void* keys = nullptr;
    MpSetOpPipeline* pipeline = setop_of(stage);
    MpStopwatch clock;
    if (!mp_try(&err, [&] { keys = pipeline->host_result_keys(stream); })) mp_raise(&err, "reading the results");
    stage->report.transfer_ms += clock.lap_ms();
    return keys;
}

void mp_stage_download_results(MpStage* stage, MpKeyStream stream, uint64 first, const mergepath::HostSpan* spans,
                               int count) {
    MpError err;
    MpSetOpPipeline* pipeline = setop_of(stage);
    MpStopwatch clock;
    if (!mp_try(&err, [&] { pipeline->download_result_keys(stream, first, {spans, spans + count}); }))
        mp_raise(&err, "reading the results");
    stage->report.results_ms += clock.lap_ms();
}

template <class K>
MpResults<K> mp_stage_results(MpStage* stage) {
    MpResults<K> r;
    MpError err;
    MpPipeline* pipeline = setop_of(stage);
    if (!mp_try(&err, [&] { r = mp_results<K>(pipeline); })) mp_raise(&err, "reading the results");
    return r;
}

template MpResults<uint32_t> mp_stage_results<uint32_t>(MpStage*);
template MpResults<uint64_t> mp_stage_results<uint64_t>(MpStage*);
template MpResults<mergepath::Key128> mp_stage_results<mergepath::Key128>(MpStage*);

uint64 mp_stage_side_rows(MpStage* stage, int side) {
    MpError err;
    size_t n = 0;
    MpJoinPipeline* pipeline = join_of(stage);
    if (!mp_try(&err, [&] { n = pipeline->side_rows(side == 0 ? mergepath::Side::A : mergepath::Side::B); }))
        mp_raise(&err, "reading the join's sides");
    return n;
}

void mp_stage_download_ranges(MpStage* stage, const mergepath::JoinRangesOut& out) {
    MpError err;
    MpJoinPipeline* pipeline = join_of(stage);
    MpStopwatch clock;
    if (!mp_try(&err, [&] { pipeline->download_ranges(out); })) mp_raise(&err, "reading the join's ranges");
    stage->report.results_ms += clock.lap_ms();
}

void mp_stage_download_b_keys(MpStage* stage, void* out) {
    MpError err;
    MpJoinPipeline* pipeline = join_of(stage);
    MpStopwatch clock;
    if (!mp_try(&err, [&] { pipeline->download_b_keys(out); })) mp_raise(&err, "reading the join's inner keys");
    stage->report.results_ms += clock.lap_ms();
}

void mp_stage_download_ranges_by_a_row(MpStage* stage, uint64 first_row, const mergepath::HostSpan* spans,
                                       int count) {
    MpError err;
    MpJoinPipeline* pipeline = join_of(stage);
    MpStopwatch clock;
    if (!mp_try(&err, [&] { pipeline->download_ranges_by_a_row(first_row, spans, size_t(count)); }))
        mp_raise(&err, "reading the join's ranges");
    stage->report.results_ms += clock.lap_ms();
}

void mp_stage_close(MpStage* stage) { mp_stage_free(stage); }

void mp_stage_report_add(MpStageReport* total, const MpStageReport* part) {
    // the GPU when any part that ran used it (parts add up in any order)
    if (part->ran) total->device = total->ran && total->device == MpDevice::Gpu ? MpDevice::Gpu : part->device;
    total->ran = total->ran || part->ran;
    total->oom_redo = total->oom_redo || part->oom_redo;
    total->budget_fallback = total->budget_fallback || part->budget_fallback;
    total->chunks += part->chunks;
    total->device_wait_ms += part->device_wait_ms;
    total->device_start_ms += part->device_start_ms;
    total->combine_ms += part->combine_ms;
    total->transfer_ms += part->transfer_ms;
    total->sort_ms += part->sort_ms;
    total->kernel_ms += part->kernel_ms;
    total->ship_ms += part->ship_ms;
    total->results_ms += part->results_ms;
    total->finish_ms += part->finish_ms;
    total->ranges_ms += part->ranges_ms;
    total->group_ms += part->group_ms;
    total->runs += part->runs;
    total->peak_bytes = Max(total->peak_bytes, part->peak_bytes);
    total->budget_wait_ms += part->budget_wait_ms;
}

void mp_stage_release(MpStage* stage) {
    MpPipeline* pipeline = stage->pipeline;
    stage->pipeline = nullptr;
    MpError err;
    mp_try(&err, [&] { delete pipeline; });
}
