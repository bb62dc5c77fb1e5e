// row_arena.h — the rows a node keeps (a join: the columns it emits later; a set
// operation over image keys: its records, keys/image_records.cpp), packed as
// MinimalTuples one after another into large blocks of a chunk space (key_chunks.h:
// the backend's memory for a serial node, the parallel query's shared memory for a
// parallel one, so every participant can read every stored row). A row is addressed by
// a 64-bit reference (the block's address plus the row's offset), which travels with
// its key through the sorted-sides stage. No allocation per row: the tuple is formed
// straight into the block. Blocks are listed on the node's chunk queue (never taken)
// so that they are freed with its chunks.
#pragma once

#include "key_chunks.h"

#include "pg_mergepath.h"

struct MpRowArena {
    const MpChunkSpace* space;
    MpChunkQueue* queue;  // where blocks are listed for freeing
    TupleDesc desc;       // of the stored columns
    int ncols;
    const int* columns;   // stored column c is the child's column columns[c] (0-based)
    Datum* values;        // scratch for one row
    bool* isnull;
    MpChunkRef block_ref;
    char* block;          // the current block's data (after its header)
    uint64 used, capacity;
    uint64 next_bytes;
    uint64 held_bytes;    // of every block so far
    uint64 all_null_ref;  // the arena's one row of NULLs (mp_arena_put_all_null), 0: none yet
    int side;             // whose rows (the blocks' side: key_chunks.h); 0 for records of both
};

void mp_arena_init(MpRowArena* arena, const MpChunkSpace* space, MpChunkQueue* queue, TupleDesc desc,
                   const int* columns, int side);
// An arena of raw records (no stored columns of its own: mp_arena_reserve only).
void mp_arena_init_blocks(MpRowArena* arena, const MpChunkSpace* space, MpChunkQueue* queue);
// Room for a record of `bytes` (a multiple of MAXALIGN) in the current block, or a new
// one: its address, and *ref its reference.
char* mp_arena_reserve(MpRowArena* arena, uint64 bytes, uint64* ref);
// The arena's columns of the child's row (deformed far enough) into arena->values / isnull.
void mp_arena_gather(MpRowArena* arena, TupleTableSlot* child);
// Stores the arena's columns of the child's row (deformed far enough) and returns the
// row's reference.
uint64 mp_arena_put(MpRowArena* arena, TupleTableSlot* child);
// Stores a row given as the arena's own columns; returns its reference.
uint64 mp_arena_put_values(MpRowArena* arena, const Datum* values, const bool* isnull);
// The reference of a row whose every column is NULL, stored once per arena and shared by
// every row whose columns nothing will read (a join's exact keys: join_node.h).
uint64 mp_arena_put_all_null(MpRowArena* arena);
// A MinimalTuple of `values` formed in place: mp_tuple_measure gives its header and
// data sizes and returns its bytes (MAXALIGNed); mp_tuple_form_at writes it there, every
// padding byte zero (so equal values give equal bytes).
uint64 mp_tuple_measure(TupleDesc desc, const Datum* values, const bool* isnull, uint64* hoff, uint64* data_len);
void mp_tuple_form_at(char* at, TupleDesc desc, const Datum* values, const bool* isnull, uint64 hoff,
                      uint64 data_len);
// The stored row of a reference, in this process's address space.
inline MinimalTuple mp_arena_row(const MpChunkSpace* space, uint64 ref) { return (MinimalTuple)mp_space_at(space, ref); }
