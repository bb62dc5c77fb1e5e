// row_store.cpp — stored input rows for hashed keys (see row_store.h).
#include "row_store.h"

void mp_row_store_init(MpRowStore* store, MemoryContext parent, const char* name) {
    store->cxt = GenerationContextCreate(parent, name, 0, 64 * 1024, 8 * 1024 * 1024);
    store->capacity = 1024;
    store->rows = (MinimalTuple*)MemoryContextAllocHuge(parent, sizeof(MinimalTuple) * store->capacity);
    store->count = 0;
}

void mp_row_store_add(MpRowStore* store, TupleTableSlot* slot) {
    if (store->count == store->capacity) {
        store->capacity *= 2;
        store->rows = (MinimalTuple*)repalloc_huge(store->rows, sizeof(MinimalTuple) * store->capacity);
    }
    MemoryContext old = MemoryContextSwitchTo(store->cxt);
    store->rows[store->count++] = ExecCopySlotMinimalTuple(slot);
    MemoryContextSwitchTo(old);
}

MinimalTuple mp_row_store_get(const MpRowStore* store, uint64 row) {
    if (row >= store->count) elog(ERROR, "pg_mergepath: row %llu out of range", (unsigned long long)row);
    return store->rows[row];
}

void mp_copy_row(TupleTableSlot* row, int ncols, TupleTableSlot* out) {
    slot_getsomeattrs(row, ncols);
    ExecClearTuple(out);
    for (int c = 0; c < ncols; c++) {
        out->tts_values[c] = row->tts_values[c];
        out->tts_isnull[c] = row->tts_isnull[c];
    }
    mp_put_flag_column(out, ncols);
    ExecStoreVirtualTuple(out);
}
