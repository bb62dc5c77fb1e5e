// stage.h — the extension's one door to the library's sorted-sides stage (gpu/): every
// node hands it chunks of keys (key_chunks.h) and reads its results through these
// functions, which call the C++ pipeline (pipeline.h: the key-width dispatch) inside
// mp_try() and turn library errors into PostgreSQL ERRORs (guard.h), so no node
// touches a C++ exception. It also owns what happens around the library:
//  - opening a device: the context is acquired when the stage opens, on the device
//    the caller chose (device.h: mp_choose_device), or early, while the input is still
//    being read, when the GPU has already started (runs then ship while reading);
//  - out of memory: an OutOfMemory while adopting a chunk or finishing moves every key
//    to the CPU backend (rebind: the chunks are read in place, so nothing is lost),
//    with a NOTICE, and the work goes on there;
//  - cleanup: the C++ objects belong to the memory context the stage was created in,
//    whose reset callback deletes them and releases the contexts, so the end of a
//    query, ERROR, cancel and rescan all free them the same way.
#pragma once

#include "device.h"
#include "key_chunks.h"
#include "pipeline.h"

#include "pg_mergepath.h"

// What a node's combining step did, for EXPLAIN ANALYZE. Plain data: a parallel node
// copies it into shared memory for the leader.
struct MpStageReport {
    bool ran;                 // this stage combined
    MpDevice device;
    bool oom_redo;            // redone on the CPU backend after an out-of-memory
    bool budget_fallback;     // on the CPU backend: no room in the shared GPU budget
    uint64 chunks;            // chunks adopted
    double device_wait_ms;    // waited for the GPU's start
    double device_start_ms;   // the GPU's start took (in this backend)
    double combine_ms;        // the combining step's wall time after the input was read
    double transfer_ms, sort_ms, kernel_ms, ship_ms;
    double results_ms;        // the results copied out (into shared memory, in parallel)
    double finish_ms;         // the library's finish: the last runs sorted, merged, the kernel
    double ranges_ms;         // joins: A's ranges put next to A's keys (maps, downloads)
    double group_ms;          // set ops over images: records found, equal images grouped
    uint64 runs;              // runs shipped while reading
    uint64 peak_bytes;        // the most memory the stage's contexts held (device, charged host keys)
    double budget_wait_ms;    // waited for room in the shared GPU budget
};

enum class MpStageKind { SetOp, Join };

struct MpStage {
    MpStageKind kind;
    int key_bits;
    mergepath::SetOp op;             // set operations: Intersection, Difference or Union,
    bool all;                        // ... ALL or DISTINCT
    mergepath::SetOpShape shape;     // set operations: their results (sql_setop.h)
    MpJoinStageWants join;           // joins
    int cpu_threads;                 // threads of its CPU backend (0: pg_mergepath.cpu_threads);
                                     // set before it opens, when processes share the cores
    bool budget_full;                // set before it opens: an earlier stage of the node found no
                                     // room in the shared budget, so this one opens on the CPU
                                     // backend, unlimited, at once (no wait, no NOTICE)
    MpPipeline* pipeline;              // made when the stage opens
    mergepath::Context* contexts[2];   // acquired: primary, and the CPU one of a redo
    MemoryContextCallback callback;
    MpStageReport report;
};

// A closed stage whose C++ objects live as long as `cxt`.
MpStage* mp_stage_create(MemoryContext cxt, int key_bits, mergepath::SetOp op, bool all, mergepath::SetOpShape shape);
// The same for a join.
MpStage* mp_stage_create_join(MemoryContext cxt, int key_bits, MpJoinStageWants wants);
bool mp_stage_is_open(const MpStage* stage);
// Acquires a context on `device` (auto may fall back to the CPU) and makes the pipeline.
// With `keys` (0: not known yet), the memory they are expected to need is reserved in
// the shared GPU budget first, waiting for room; when none comes, the stage runs on the
// CPU backend (NOTICE). On an open stage, it only reserves what it can at once.
void mp_stage_open(MpStage* stage, MpDevice device, uint64 keys);
// Opens the stage on the GPU when its context has started and is usable, without
// waiting; true when the stage is open (so chunks can be adopted while reading).
bool mp_stage_open_early(MpStage* stage);
// Hands every chunk of the list (first, ->next ...) to the pipeline, in order.
void mp_stage_adopt(MpStage* stage, const MpChunkSpace* space, MpChunkRef first);
// Sorts, combines and fills stage->report.
void mp_stage_finish(MpStage* stage);
// EXPLAIN ANALYZE of a stage moved to the CPU backend: "Out Of Memory: redone on the cpu
// backend", "Shared Budget: no room, ran on the cpu backend".
void mp_stage_explain_outcome(const MpStageReport* report, ExplainState* es);
// EXPLAIN ANALYZE (with TIMING: they vary from run to run) of a stage that combined:
// "Peak Memory" (kB) and, when it waited, "Shared Budget Wait" (ms).
void mp_stage_explain_memory(const MpStageReport* report, ExplainState* es);

// Keys-only results of a stream (main keys of key_bits, or null-layout Key128).
uint64 mp_stage_result_count(MpStage* stage, MpKeyStream stream);
const void* mp_stage_host_results(MpStage* stage, MpKeyStream stream);
// Copies a stream's result keys from position `first` on into `count` host spans, in
// order (as many keys as their bytes hold).
void mp_stage_download_results(MpStage* stage, MpKeyStream stream, uint64 first, const mergepath::HostSpan* spans,
                               int count);
// With-rows results of the main stream (hashed keys), typed.
template <class K>
MpResults<K> mp_stage_results(MpStage* stage);
// Joins: the keys adopted per side, and (after finish) the sorted rows and B ranges.
uint64 mp_stage_side_rows(MpStage* stage, int side);
void mp_stage_download_ranges(MpStage* stage, const mergepath::JoinRangesOut& out);
// A join's sorted B keys (key_bits / 8 bytes each, mp_stage_side_rows(stage, 1) of them).
void mp_stage_download_b_keys(MpStage* stage, void* out);
// A join's ranges of A rows from first_row on, by A row number, into the spans in order
// (each a whole number of mergepath::JoinRange), in one copy.
void mp_stage_download_ranges_by_a_row(MpStage* stage, uint64 first_row, const mergepath::HostSpan* spans,
                                       int count);
// Deletes the pipeline early (its results are no longer needed).
void mp_stage_release(MpStage* stage);
// Deletes the pipeline and releases the stage's contexts (it will not be used again).
void mp_stage_close(MpStage* stage);
// Adds what one stage did to a node's total (a node that combines key range by key range).
void mp_stage_report_add(MpStageReport* total, const MpStageReport* part);
