// setop_combine.cpp — step 2 of the MergePath SetOp node (see setop_exec.cpp): the
// per-execution setup (run memory context, the stage, where chunks live, the writers)
// and the combining step: the stage opens on a device, adopts every chunk, sorts and
// runs the set operation; the results are then read in place from the library's
// memory (a serial node) or copied into shared memory for every participant to emit
// from (a parallel node).
#include "setop.h"

#include "timing.h"

// Writers of both streams and sides into the node's queue; a parallel node's wake the
// leader, which ships chunks while it reads or waits.
static void init_writers(MpSetOpState* st) {
    ConditionVariable* wake = st->shared ? &st->shared->cv : NULL;
    int key_bytes[2] = {st->keys.key_bits / 8, int(sizeof(mergepath::Key128))};
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++)
            mp_writer_init(&st->writers[stream][side], &st->space, st->queue, wake, stream, side, key_bytes[stream]);
}

void mp_start_run(MpSetOpState* st) {
    if (!st->run_cxt)
        st->run_cxt = AllocSetContextCreate(st->css.ss.ps.state->es_query_cxt, "pg_mergepath SetOp",
                                            ALLOCSET_DEFAULT_SIZES);
    st->stage = mp_stage_create(st->run_cxt, st->keys.key_bits, st->intersect, st->all, !st->keys.lossless);
    st->space.cxt = st->run_cxt;
    st->space.dsa = st->shared ? st->css.ss.ps.state->es_query_dsa : NULL;
    if (st->shared && !st->space.dsa)
        elog(ERROR, "pg_mergepath: a parallel MergePath SetOp runs without its dynamic shared memory area");
    mp_queue_init(&st->local_queue);
    st->queue = st->shared ? &st->shared->queue : &st->local_queue;
    init_writers(st);
    if (!st->keys.lossless) {
        mp_row_store_init(&st->store[0], st->run_cxt, "pg_mergepath left rows");
        mp_row_store_init(&st->store[1], st->run_cxt, "pg_mergepath right rows");
    }
}

// While reading: when the GPU has started, the chunks pushed so far (by every
// participant) go to the stage, whose runs ship and sort on the device meanwhile. Only
// the process that will combine does this: a serial node, or a parallel node's leader.
void mp_adopt_pending(MpSetOpState* st) {
    if (IsParallelWorker() || !mp_stage_open_early(st->stage)) return;
    mp_stage_adopt(st->stage, &st->space, mp_queue_take(st->queue));
}

void mp_combine(MpSetOpState* st, uint64 keys) {
    MpStopwatch clock;
    mp_stage_open(st->stage, mp_choose_device(keys));
    mp_stage_adopt(st->stage, &st->space, mp_queue_take(st->queue));
    mp_stage_finish(st->stage);
    st->stage->report.combine_ms = clock.lap_ms();
}

void mp_keep_local_results(MpSetOpState* st) {
    for (int s = 0; s < 2; s++) {
        MpKeyStream stream = MpKeyStream(s);
        st->result_count[s] = mp_stage_result_count(st->stage, stream);
        st->results[s] = st->result_count[s] ? mp_stage_host_results(st->stage, stream) : NULL;
    }
}

void mp_put_shared_results(MpSetOpState* st) {
    MpSharedStage* shared = st->shared;
    size_t key_bytes[2] = {size_t(st->keys.key_bits / 8), sizeof(mergepath::Key128)};
    MpStopwatch clock;
    for (int s = 0; s < 2; s++) {
        MpKeyStream stream = MpKeyStream(s);
        uint64 n = mp_stage_result_count(st->stage, stream);
        void* address = NULL;
        if (n > 0) {
            shared->results[s] = mp_space_alloc(&st->space, n * key_bytes[s], &address);
            mp_stage_download_results(st->stage, stream, address);
        }
        shared->result_count[s] = n;
    }
    mp_stage_release(st->stage);  // the keys are all in shared memory now
    st->stage->report.combine_ms += clock.lap_ms();
}
