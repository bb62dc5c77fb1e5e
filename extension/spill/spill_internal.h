// spill_internal.h — what spill_runs.cpp (writing and reading runs) and spill_share.cpp
// (the participants of a parallel node sharing them) both use: the helpers that make
// files and runs. Not for other files: spill_runs.h is the interface.
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

}  // namespace spill_detail
