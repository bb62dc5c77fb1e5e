// spill_internal.h — what the files of spill/ that write and read runs share:
// spill_runs.cpp (runs of keys), row_runs.cpp (runs of rows) and spill_share.cpp (the
// participants of a parallel node sharing runs): the helpers that make files and runs,
// fill the cursors' buffers and merge runs. Not for other files: spill_runs.h is the
// interface.
#pragma once

#include "spill_runs.h"

#include "mergepath/types.h"

namespace spill_detail {

inline MpSpillSide* side_of(MpSpill* spill, int stream, int side) { return &spill->sides[stream][side]; }

// A parallel participant's file names in the query's file set (side -1: its description).
const char* file_name(int participant, int stream, int side);
// A new file for the side's runs: in the file set (a parallel participant), else temporary.
BufFile* create_file(MpSpill* spill, int stream, int side);
// Appends a run (start: byte offset in `file`, named `name` in the file set or NULL).
MpRunCursor* add_run(MpSpill* spill, MpSpillSide* s, BufFile* file, const char* name, uint64 start, uint64 count);
// Samples another participant took every `step` keys, added to the stream's.
void append_samples(MpSpill* spill, int stream, char* samples, uint64 n, uint64 step);
// Forgets every run and sample (their files closed or handed over).
void forget_runs(MpSpill* spill);
// Lists a file this spill opened or made to read from, to close it with the rest.
void remember_file(MpSpill* spill, BufFile* file);
// A cursor's buffer freed (at its run's end, or before a larger one is made).
void free_buffer(MpRunCursor* c);
// The cursor's buffer holds `units` units of its run from `first` on (fewer at the run's
// end), units of `unit_bytes` bytes: `room` units are read when it is read (or what is
// left of the run; `units` at least).
void fill_buffer(MpSpill* spill, MpRunCursor* c, uint64 first, uint64 units, uint64 room, uint32 unit_bytes);
// The file of a merge pass: this process's own, or (a parallel combiner) a new file in
// the query's file set, which the participants open by name.
BufFile* create_merge_file(MpSpill* spill, int stream, int side, const char** name);

// Closes a file this spill made or opened (a temporary file is deleted), and forgets it.
void close_file(MpSpill* spill, BufFile* file);

// One merge pass over a side's runs: each group of `fan_in` runs becomes one run of a new
// file, merged by merge_group(first, n, out, out_name, &out_bytes) (which appends runs
// [first, first + n) merged to `out` and returns the merged run's cursor). A group of one
// run is carried over as it is when carry_single, else copied (so that no run is left
// in the files before the pass, which may then be closed).
template <class MergeGroup>
void merge_pass(MpSpill* spill, int stream, int side, int fan_in, bool carry_single, MergeGroup merge_group) {
    MpSpillSide* s = side_of(spill, stream, side);
    const char* out_name = NULL;
    BufFile* out = create_merge_file(spill, stream, side, &out_name);
    MpRunCursor* merged = (MpRunCursor*)MemoryContextAlloc(spill->cxt, sizeof(MpRunCursor) * s->run_count);
    int count = 0;
    uint64 out_bytes = 0;
    for (int first = 0; first < s->run_count; first += fan_in) {
        int n = Min(fan_in, s->run_count - first);
        merged[count++] = n == 1 && carry_single ? s->runs[first] : merge_group(first, n, out, out_name, &out_bytes);
    }
    if (out_name) BufFileExportFileSet(out);  // read-only now: the participants may open it
    for (int r = 0; r < s->run_count; r++) free_buffer(&s->runs[r]);
    for (int r = 0; r < count; r++) {  // (a carried run's buffer was freed with it)
        merged[r].next = merged[r].buffer_first = merged[r].buffer_count = merged[r].buffer_cap = 0;
        merged[r].buffer = NULL;
    }
    pfree(s->runs);
    s->runs = merged;
    s->run_count = s->run_cap = count;
}

}  // namespace spill_detail
