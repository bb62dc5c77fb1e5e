// pipeline.h — the C++ side of one MergePath SetOp execution: a mergepath::SqlSetOp<K>
// for the key width the planner chose, the batch buffer the reader fills, and what is
// needed to redo the work on the CPU backend when the GPU runs out of memory (see
// pipeline.cpp). Every method may throw: call them through mp_try() (guard.h).
//
// Ownership: an MpRunHolder lives in the node's per-execution memory context and a
// reset callback on that context deletes the pipeline and releases its contexts, so
// normal end, ERROR, cancel and rescan all free the same way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mergepath/context.h"
#include "mergepath/sql_setop.h"

class MpPipeline {
public:
    virtual ~MpPipeline() = default;

    virtual void* batch() = 0;  // key buffer of batch_capacity() keys, filled by the reader
    size_t batch_capacity() const { return capacity_; }
    virtual void flush(mergepath::Side side, size_t n) = 0;  // adds batch()[0..n) to that side
    virtual void finish() = 0;

    // After an OutOfMemory on a GPU: moves the work to ctx (the CPU backend) with every
    // key added so far (SqlSetOp::rebind), plus batch()[0..pending) of `side`. Only for
    // pipelines made with keep_host_copy (GPU ones).
    virtual void redo_on(mergepath::Context* ctx, mergepath::Side side, size_t pending) = 0;
    bool can_redo() const { return keep_host_copy_; }

    virtual const mergepath::PipelineTimings& timings() const = 0;
    mergepath::Context* context() const { return ctx_; }

protected:
    MpPipeline(mergepath::Context* ctx, size_t capacity, bool keep_host_copy)
        : ctx_(ctx), capacity_(capacity), keep_host_copy_(keep_host_copy) {}
    mergepath::Context* ctx_;
    size_t capacity_;
    bool keep_host_copy_;
};

template <class K>
class MpKeyPipeline;  // pipeline.cpp; the executor reaches results through mp_results<K>()

// Results of a finished pipeline, typed (K must be the width it was made with).
template <class K>
struct MpResults {
    const K* result_keys;              // keys-only shape: the output keys, sorted
    size_t key_count;
    const uint64_t* result_positions;  // with rows: positions in sorted A to emit
    size_t position_count;
    const K* sorted_keys[2];           // with rows: sorted A and B
    const uint64_t* sorted_rows[2];    // with rows: input row of each sorted key
    size_t side_count[2];
};

template <class K>
MpResults<K> mp_results(MpPipeline* pipeline);

// A pipeline for keys of key_bits (32, 64, 128) on ctx. keep_host_copy: it may be
// moved to the CPU backend by redo_on() (the library keeps the keys on the host).
MpPipeline* mp_pipeline_new(int key_bits, mergepath::Context* ctx, bool intersect, bool all, bool with_rows,
                            bool keep_host_copy);

// Live pipelines of this backend (for pg_mergepath_status() and leak tests).
extern int64_t mp_live_pipelines;
