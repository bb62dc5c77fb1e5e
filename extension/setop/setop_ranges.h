// setop_ranges.h — what the two ways a MergePath SetOp node works over its memory limit
// share (internal to them; setop_node.h has the node's state and plan information):
//   setop_ranges.cpp  lossless keys: sorted runs, key ranges; and the flow of both
//   image_ranges.cpp  image keys: hash partitions, pieces split until they fit
#pragma once

#include "setop_node.h"

#include "hash_partitions.h"

struct MpImageRanges;  // image_ranges.cpp

struct MpSetOpRanges {
    MpSpill spill;            // lossless keys' runs
    MpImageRanges* images;    // image keys' partitions, or NULL
    uint64 limit_bytes;
    MemoryContext range_cxt;  // one range's chunks and stage, reset for the next
    MpChunkSpace space;       // chunks of the range being combined
    MpChunkQueue queue;
    int stream;               // MpKeyStream being combined: Main's ranges, then Nulls'
    int range, range_count;   // image keys: the partition, of how many
    int cpu_threads;          // of a range's stage (0: the setting; parallel: the cores shared)
    bool budget_full;         // a range found no room in the shared GPU budget: the rest use the CPU
    bool streaming;           // the current range is streamed
    char key[sizeof(mergepath::Key128)];  // streaming: the key being emitted ...
    uint64 copies_left;                   // ... and its copies not yet in a batch
    char* batch;              // streaming: a batch of result keys (image keys: record references)
    uint64 batch_cap;
    MpResultRun batch_run;
};

// The most bytes one range may load (a third of the limit).
inline uint64 mp_range_load_cap_bytes(const MpSetOpRanges* r) { return Max(r->limit_bytes / 3, 1); }
// The device that combines a range of `keys` keys.
MpDevice mp_range_device(uint64 keys);
// This process's results: `run` of `stream`, or none.
void mp_ranges_set_results(MpSetOpState* st, int stream, MpResultRun* run);
// Frees the loaded range: its chunks and its stage.
void mp_ranges_drop(MpSetOpRanges* r);
// A fresh stage for the range, opened on its device, fed the range's chunks and finished.
void mp_ranges_run_stage(MpSetOpState* st, mergepath::SetOpShape shape, uint64 keys,
                         void (*adopt)(MpSetOpState*, MpChunkRef));

// image_ranges.cpp
void mp_image_ranges_start(MpSetOpState* st);         // partitions chosen, nothing written yet
void mp_image_ranges_spill(MpSetOpState* st);         // every record held so far into the partitions
void mp_image_ranges_export(MpSetOpState* st);        // a parallel participant: its files into the file set
void mp_image_ranges_report_shared(MpSetOpState* st); // ... and later what its splits wrote, into the report
bool mp_image_ranges_next(MpSetOpState* st);          // the next piece to combine (false: none left)
bool mp_image_ranges_combine(MpSetOpState* st);       // loads and combines it (false: no results from it)
bool mp_image_ranges_streamed_batch(MpSetOpState* st);  // a piece of one hash: its next batch
void mp_image_ranges_restart(MpSetOpState* st);       // back before the first partition
void mp_image_ranges_close(MpSetOpState* st);
void mp_image_ranges_report(const MpSetOpState* st, MpSpillReport* total);
