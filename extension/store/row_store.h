// row_store.h — the input rows a node keeps for keys that do not encode their values
// (hashed keys): each row a MinimalTuple in a generation context (large blocks, freed
// together), numbered in arrival order, which is the library's row number of its key.
// Nodes read them back to verify equal hashes and to emit rows; mp_copy_row puts a
// stored row's key columns into an output slot.
#pragma once

#include "pg_mergepath.h"

struct MpRowStore {
    MemoryContext cxt;  // holds the MinimalTuples
    MinimalTuple* rows;
    uint64 count;
    uint64 capacity;
};

void mp_row_store_init(MpRowStore* store, MemoryContext parent, const char* name);
void mp_row_store_add(MpRowStore* store, TupleTableSlot* slot);
MinimalTuple mp_row_store_get(const MpRowStore* store, uint64 row);

// Stores row's first ncols columns, plus the set operation's flag column where out has
// one (mp_put_flag_column), into the virtual slot out.
void mp_copy_row(TupleTableSlot* row, int ncols, TupleTableSlot* out);
// The int4 0 of a set operation's resjunk flag column, after its ncols columns, when out
// has that column: before 18, the native SetOp reads an Append of flagged inputs and
// the plan above may expect the flag; 18's SetOp has none.
inline void mp_put_flag_column(TupleTableSlot* out, int ncols) {
    if (out->tts_tupleDescriptor->natts <= ncols) return;
    out->tts_values[ncols] = Int32GetDatum(0);
    out->tts_isnull[ncols] = false;
}
