// row_directory.h — from the library's row numbers back to the rows a node stored. The
// library numbers each side's keys in the order their chunks were adopted; the
// combiner records that order (the first row number and the chunk of each adopted
// main-stream chunk), and a row number is then found by a binary search over the
// chunks (an emitter, walking its batch in order, tries a cursor first:
// mp_row_chunk_near): the chunk holds the row's reference next to its key
// (key_chunks.h), and a join's A chunk its range too. Used by the join (B's sorted
// rows, A's emission) and by set operations over images (both sides' sorted rows).
#pragma once

#include "key_chunks.h"

#include "mergepath/types.h"

#include "pg_mergepath.h"

// The combiner's record of the chunks it adopted, in order, per side.
struct MpAdoptedChunks {
    uint64* first;  // first row number of each chunk
    MpChunkRef* chunk;
    uint64 count, capacity, rows;
};

// Records the main-stream chunks of the list (first, ->next ...) before they are adopted.
void mp_adopted_record(MpAdoptedChunks adopted[2], const MpChunkSpace* space, MemoryContext cxt, MpChunkRef first);

// A side's rows in this process: row number -> row reference (and a join's A range).
struct MpRowDirectory {
    const uint64* first;  // first row number of each chunk, ascending
    uint64** refs;        // the row references of each chunk (chunks written with them)
    mergepath::JoinRange** ranges;  // a join's A: the range of each row of each chunk ...
    const char** keys;              // ... and its key
    uint64 count;
};

// A directory over `count` chunks (first row numbers, chunks), mapped in this process.
void mp_directory_fill(MemoryContext cxt, const MpChunkSpace* space, MpRowDirectory* dir, const uint64* first,
                       const MpChunkRef* chunks, uint64 count, bool with_ranges);

// The chunk of a row number: the last whose first row <= row.
inline uint64 mp_row_chunk_of(const MpRowDirectory* dir, uint64 row) {
    uint64 lo = 0, hi = dir->count;
    while (hi - lo > 1) {
        uint64 mid = (lo + hi) / 2;
        if (dir->first[mid] <= row) lo = mid;
        else hi = mid;
    }
    return lo;
}

// The same for rows looked up mostly in order (an emitter's batch): tried first at
// *near (the chunk of the last lookup) and the chunk after it, then searched; *near is
// left at the row's chunk. One reader's cursor: threads sharing a directory use the above.
inline uint64 mp_row_chunk_near(const MpRowDirectory* dir, uint64 row, uint64* near) {
    for (uint64 c = *near; c < dir->count && c <= *near + 1; c++)
        if (dir->first[c] <= row && (c + 1 == dir->count || row < dir->first[c + 1])) return *near = c;
    return *near = mp_row_chunk_of(dir, row);
}

// Where the reference of a row number is kept (in its chunk, next to its key).
inline const uint64* mp_row_ref_slot(const MpRowDirectory* dir, uint64 row) {
    uint64 c = mp_row_chunk_of(dir, row);
    return &dir->refs[c][row - dir->first[c]];
}
inline const uint64* mp_row_ref_slot(const MpRowDirectory* dir, uint64 row, uint64* near) {
    uint64 c = mp_row_chunk_near(dir, row, near);
    return &dir->refs[c][row - dir->first[c]];
}

// Whether every 64-bit key of the adopted chunks has `bit` set (read on threads; the
// chunks are mapped here first).
bool mp_adopted_keys_all_have(const MpAdoptedChunks* adopted, const MpChunkSpace* space, uint64 bit);

// refs[i] = the reference of row number rows[i], for n rows, on up to a thread per core
// (refs may be rows). The directory's chunks must be mapped here (mp_directory_fill).
void mp_rows_to_refs(const MpRowDirectory* dir, const uint64* rows, uint64* refs, uint64 n);
