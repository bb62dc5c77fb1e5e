// setop_input.cpp — step 1 and 2 of the MergePath SetOp node (see setop_exec.cpp):
// reading both inputs into key batches for the library, then finish().
//
// Per row: lossless keys encode the values (rows with a NULL go to the exact table
// instead); hashed keys store the row (a MinimalTuple, in arrival order, so the
// library's row numbers index it) and hash it. A full batch is handed to the library
// (flush), which on the GPU ships every few million keys as a run that is copied and
// sorted while reading goes on; if the GPU runs out of memory (a shipment that does
// only ends shipping; finish() reports it), the pipeline replays its keys on the CPU
// backend and the query goes on, with a NOTICE.
//
// The per-row work only needs the row's values and the key plan, so it can later be
// split over parallel workers that each fill their own batches.
#include "setop.h"

// Deletes the execution's C++ objects: the run context's reset callback.
static void mp_free_run(void* arg) {
    MpRunHolder* holder = (MpRunHolder*)arg;
    MpPipeline* pipeline = holder->pipeline;
    holder->pipeline = nullptr;
    MpError err;
    mp_try(&err, [&] { delete pipeline; });
    for (mergepath::Context*& ctx : holder->contexts) {
        if (ctx) mp_context_release(ctx);
        ctx = nullptr;
    }
}

static void init_store(MpSetOpState* st, int side) {
    MpRowStore* store = &st->store[side];
    store->cxt = GenerationContextCreate(st->run_cxt, side == 0 ? "pg_mergepath left rows" : "pg_mergepath right rows",
                                         0, 64 * 1024, 8 * 1024 * 1024);
    store->capacity = 1024;
    store->rows = (MinimalTuple*)MemoryContextAllocHuge(st->run_cxt, sizeof(MinimalTuple) * store->capacity);
    store->count = 0;
}

// Run context, holder with its reset callback, device context and pipeline.
void mp_create_run(MpSetOpState* st) {
    if (!st->run_cxt)
        st->run_cxt = AllocSetContextCreate(st->css.ss.ps.state->es_query_cxt, "pg_mergepath SetOp",
                                            ALLOCSET_DEFAULT_SIZES);
    MpRunHolder* holder = (MpRunHolder*)MemoryContextAllocZero(st->run_cxt, sizeof(MpRunHolder));
    holder->callback.func = mp_free_run;
    holder->callback.arg = holder;
    MemoryContextRegisterResetCallback(st->run_cxt, &holder->callback);
    st->holder = holder;

    MpError err;
    MpDevice used;
    mergepath::Context* ctx = mp_context_acquire(st->device, false, &used, &err);
    if (!ctx) mp_raise(&err, "opening the device");
    holder->contexts[0] = ctx;
    st->device = used;
    bool keep = used == MpDevice::Gpu || mp_debug_cpu_memory_kb > 0;
    MpPipeline* pipeline = nullptr;
    if (!mp_try(&err, [&] {
            pipeline = mp_pipeline_new(st->keys.key_bits, ctx, st->intersect, st->all, !st->keys.lossless, keep);
        }))
        mp_raise(&err, "starting the set operation");
    holder->pipeline = pipeline;
    if (!st->keys.lossless) {
        init_store(st, 0);
        init_store(st, 1);
    }
}

MinimalTuple mp_stored_row(MpSetOpState* st, int side, uint64 row) {
    MpRowStore* store = &st->store[side];
    if (row >= store->count) elog(ERROR, "pg_mergepath: row %llu out of range", (unsigned long long)row);
    return store->rows[row];
}

static void store_row(MpSetOpState* st, int side, TupleTableSlot* slot) {
    MpRowStore* store = &st->store[side];
    if (store->count == store->capacity) {
        store->capacity *= 2;
        store->rows = (MinimalTuple*)repalloc_huge(store->rows, sizeof(MinimalTuple) * store->capacity);
    }
    MemoryContext old = MemoryContextSwitchTo(store->cxt);
    store->rows[store->count++] = ExecCopySlotMinimalTuple(slot);
    MemoryContextSwitchTo(old);
}

// After an OutOfMemory on the primary device: NOTICE, then replay on the CPU backend.
static void redo_or_raise(MpSetOpState* st, const MpError* err, mergepath::Side side, size_t pending,
                          const char* doing) {
    MpPipeline* pipeline = st->holder->pipeline;
    if (err->kind != MpErrorKind::DeviceOutOfMemory || !pipeline->can_redo()) mp_raise(err, doing);
    ereport(NOTICE, (errmsg("pg_mergepath: out of memory on the %s backend, computing this set operation on the "
                            "CPU backend",
                            mp_device_name(st->device)),
                     errdetail("%s", err->message)));
    MpError err2;
    MpDevice used;
    mergepath::Context* cpu = mp_context_acquire(MpDevice::Cpu, true, &used, &err2);
    if (!cpu) mp_raise(&err2, "opening the CPU backend");
    st->holder->contexts[1] = cpu;
    st->oom_redo = true;
    if (!mp_try(&err2, [&] { pipeline->redo_on(cpu, side, pending); })) mp_raise(&err2, doing);
}

static void flush(MpSetOpState* st, int side, size_t n) {
    MpPipeline* pipeline = st->holder->pipeline;
    mergepath::Side s = side == 0 ? mergepath::Side::A : mergepath::Side::B;
    MpError err;
    if (!mp_try(&err, [&] { pipeline->flush(s, n); })) redo_or_raise(st, &err, s, n, "reading the input");
}

static bool row_has_null(const bool* isnull, int ncols) {
    for (int c = 0; c < ncols; c++)
        if (isnull[c]) return true;
    return false;
}

// Pulls every row of one input and hands its keys to the library in batches.
// row_key(slot, &key) encodes a row, or returns false when the row was dealt with
// another way (a NULL under lossless keys).
template <class K, class RowKey>
static void read_side_keys(MpSetOpState* st, PlanState* child, int side, RowKey row_key) {
    MpPipeline* pipeline = st->holder->pipeline;
    K* batch = (K*)pipeline->batch();
    size_t capacity = pipeline->batch_capacity(), n = 0;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        TupleTableSlot* slot = ExecProcNode(child);
        if (TupIsNull(slot)) break;
        st->rows_read[side]++;
        slot_getsomeattrs(slot, st->ncols);
        if (!row_key(slot, &batch[n])) continue;
        if (++n == capacity) {
            flush(st, side, n);
            n = 0;
            batch = (K*)pipeline->batch();
        }
    }
    if (n > 0) flush(st, side, n);
}

// One input, lossless keys of type K; rows with a NULL go to the exact table.
template <class K>
static void read_side_lossless(MpSetOpState* st, PlanState* child, int side) {
    read_side_keys<K>(st, child, side, [st, side](TupleTableSlot* slot, K* key) {
        if (unlikely(!st->keys.null_bits && row_has_null(slot->tts_isnull, st->ncols))) {
            st->null_rows++;
            st->exact_used = true;
            mp_exact_add(st, slot, side);
            return false;
        }
        *key = mp_encode_row<K>(&st->keys, slot->tts_values, slot->tts_isnull);
        return true;
    });
}

// One input, hashed keys: store each row, hash it.
static void read_side_hashed(MpSetOpState* st, PlanState* child, int side) {
    ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
    read_side_keys<uint64_t>(st, child, side, [st, side, econtext](TupleTableSlot* slot, uint64_t* key) {
        store_row(st, side, slot);
        MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
        *key = mp_hash_row(&st->keys, slot->tts_values, slot->tts_isnull);
        MemoryContextSwitchTo(old);
        ResetExprContext(econtext);
        return true;
    });
}

static void read_side(MpSetOpState* st, PlanState* child, int side) {
    if (!st->keys.lossless) return read_side_hashed(st, child, side);
    switch (st->keys.key_bits) {
        case 32: return read_side_lossless<uint32_t>(st, child, side);
        case 64: return read_side_lossless<uint64_t>(st, child, side);
        default: return read_side_lossless<mergepath::Key128>(st, child, side);
    }
}

void mp_read_inputs(MpSetOpState* st) {
    bool timing = mp_timing_on(st);
    instr_time start, elapsed;
    if (timing) INSTR_TIME_SET_CURRENT(start);
    read_side(st, outerPlanState(&st->css), 0);
    read_side(st, innerPlanState(&st->css), 1);
    if (timing) {
        INSTR_TIME_SET_CURRENT(elapsed);
        INSTR_TIME_SUBTRACT(elapsed, start);
        st->read_ms += INSTR_TIME_GET_MILLISEC(elapsed);
    }
}

template <class K>
static void keep_results(MpSetOpState* st, const MpResults<K>& r) {
    st->result_keys = r.result_keys;
    st->result_positions = r.result_positions;
    st->result_count = st->keys.lossless ? r.key_count : r.position_count;
    for (int side = 0; side < 2; ++side) {
        st->sorted_rows[side] = r.sorted_rows[side];
        st->sorted_keys[side] = r.sorted_keys[side];
        st->sorted_count[side] = r.side_count[side];
    }
    st->run_start_valid = false;
}

// Points the state at the library's result arrays (no copy).
static void find_results(MpSetOpState* st) {
    MpPipeline* pipeline = st->holder->pipeline;
    MpError err;
    bool ok = mp_try(&err, [&] {
        switch (st->keys.key_bits) {
            case 32: return keep_results(st, mp_results<uint32_t>(pipeline));
            case 64: return keep_results(st, mp_results<uint64_t>(pipeline));
            default: return keep_results(st, mp_results<mergepath::Key128>(pipeline));
        }
    });
    if (!ok) mp_raise(&err, "reading the results");
}

// Sorts and combines (redoing on the CPU after a GPU out of memory); keeps the timings.
void mp_finish_pipeline(MpSetOpState* st) {
    MpPipeline* pipeline = st->holder->pipeline;
    MpError err;
    if (!mp_try(&err, [&] { pipeline->finish(); })) {
        redo_or_raise(st, &err, mergepath::Side::A, 0, "computing the set operation");
        if (!mp_try(&err, [&] { pipeline->finish(); })) mp_raise(&err, "computing the set operation");
    }
    mergepath::PipelineTimings t;
    if (mp_try(&err, [&] { t = pipeline->timings(); })) {
        st->timings.transfer_ms += t.transfer_ms;
        st->timings.sort_ms += t.sort_ms;
        st->timings.kernel_ms += t.kernel_ms;
        st->timings.runs += t.runs;
        st->timings.ship_ms += t.ship_ms;
    }
    find_results(st);
}
