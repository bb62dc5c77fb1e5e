// pipeline.h — the C++ side of one node's sorted-sides work, behind the facade of
// stage.h, for the key width the planner chose (the library's typed objects are made
// here; node code that handles keys of every width itself dispatches on it too, through
// mp_with_key_type, key_chunks.h, or a switch of its own):
//  - set operations: a mergepath::SqlSetOp<K>, and a SqlSetOp<Key128> for the
//    null-layout keys of rows with NULLs, made when the first such chunk arrives
//    (pipeline.cpp);
//  - joins: a mergepath::SqlJoin<K> over the main stream (join_pipeline.cpp); rows with
//    a NULL key never match and stay with the node.
// Pure C++, no PostgreSQL calls; every method may throw, so stage.cpp calls them
// through mp_try() (guard.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mergepath/context.h"
#include "mergepath/sql_join.h"
#include "mergepath/sql_setop.h"

// The streams of keys a node produces (key_chunks.h has the same numbering).
enum class MpKeyStream { Main = 0, Nulls = 1 };

class MpPipeline {
public:
    virtual ~MpPipeline() = default;

    // Adds a chunk of keys read in place (unchanged until finish() has succeeded);
    // ascending: its keys ascend already (SortedSides::add_chunk); refs: its keys' row
    // references (key_chunks.h), or null.
    virtual void add_chunk(MpKeyStream stream, mergepath::Side side, const void* keys, size_t n, bool ascending,
                           const uint64_t* refs) = 0;
    virtual void finish() = 0;
    // Moves every stream that has not finished to ctx (after an OutOfMemory), keeping
    // every key added; finish() then runs what is left.
    virtual void rebind(mergepath::Context* ctx) = 0;
    virtual mergepath::PipelineTimings timings() const = 0;

protected:
    explicit MpPipeline(mergepath::Context* ctx) : ctx_(ctx) {}
    mergepath::Context* ctx_;  // where new streams start
};

class MpSetOpPipeline : public MpPipeline {
public:
    // keys-only results of a stream: count, host pointer, or all of them copied into
    // host spans, in order (their bytes add up to the results').
    virtual size_t result_count(MpKeyStream stream) const = 0;
    virtual const void* host_result_keys(MpKeyStream stream) const = 0;
    virtual void download_result_keys(MpKeyStream stream, size_t first,
                                      const std::vector<mergepath::HostSpan>& into) = 0;

protected:
    using MpPipeline::MpPipeline;
};

class MpJoinPipeline : public MpPipeline {
public:
    virtual size_t side_rows(mergepath::Side side) const = 0;  // keys added to the side
    // After finish(): each side's sorted row numbers (B's references, when carried) and
    // the B range of every A key.
    virtual void download_ranges(const mergepath::JoinRangesOut& out) = 0;
    // After finish(): the ranges of A rows from first_row on, by A row number, into the
    // spans in order.
    virtual void download_ranges_by_a_row(uint64_t first_row, const mergepath::HostSpan* spans, size_t count) = 0;
    // Sorted B's keys (the pipeline's key type) into out, when made with keep_b_keys.
    virtual void download_b_keys(void* out) = 0;

protected:
    using MpPipeline::MpPipeline;
};

// The with-rows results of the main stream (hashed keys), typed (K must be the width
// the pipeline was made with).
template <class K>
struct MpResults {
    const uint64_t* result_positions;  // positions in sorted A to emit, ascending
    size_t position_count;
    const K* sorted_keys[2];           // sorted A and B
    const uint64_t* sorted_rows[2];    // input row of each sorted key
    size_t side_count[2];
};

template <class K>
MpResults<K> mp_results(MpPipeline* pipeline);

// A set-operation pipeline for main keys of key_bits (32, 64, 128) on ctx.
MpSetOpPipeline* mp_setop_pipeline_new(int key_bits, mergepath::Context* ctx, mergepath::SetOp op, bool all,
                                       mergepath::SetOpShape shape);
// What a join's stage gives besides A's ranges: the B keys that match some A key
// flagged (b_match); sorted B's keys kept for mp_stage_download_b_keys (b_keys); B's
// row references, carried through the sort from its chunks instead of row numbers,
// so that sorted B's "rows" are references already (b_refs; B's chunks hold them).
struct MpJoinStageWants {
    bool b_match, b_keys, b_refs;
};
// A join pipeline giving what `wants` asks besides the ranges.
MpJoinPipeline* mp_join_pipeline_new(int key_bits, mergepath::Context* ctx, const MpJoinStageWants& wants);

// Live pipelines of this backend (for pg_mergepath_status() and leak tests).
extern int64_t mp_live_pipelines;
