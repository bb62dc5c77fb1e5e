// row_arena.cpp — MinimalTuples formed in place in large blocks (see row_arena.h). The
// tuple layout is heap_form_minimal_tuple's (header, null bitmap, MAXALIGNed data),
// written with heap_compute_data_size / heap_fill_tuple into the block instead of a
// palloc'd copy.
#include "row_arena.h"

#include "prefault.h"

namespace {

constexpr uint64 kFirstBlockBytes = uint64(256) << 10;
constexpr uint64 kMaxBlockBytes = uint64(4) << 20;

// Starts a block with room for at least `need` bytes.
void next_block(MpRowArena* a, uint64 need) {
    uint64 bytes = Max(a->next_bytes, MAXALIGN(need));
    void* address;
    a->block_ref = mp_space_alloc_kept(a->space, a->queue, bytes, &address);
    mp_prefault_block(address, bytes);  // one call, not a fault every 4 kB
    a->block = (char*)address;
    a->used = 0;
    a->capacity = bytes;
    a->next_bytes = Min(a->next_bytes * 2, kMaxBlockBytes);
}

}  // namespace

void mp_arena_init(MpRowArena* arena, const MpChunkSpace* space, MpChunkQueue* queue, TupleDesc desc,
                   const int* columns) {
    memset(arena, 0, sizeof(*arena));
    arena->space = space;
    arena->queue = queue;
    arena->desc = desc;
    arena->ncols = desc->natts;
    arena->columns = columns;
    arena->values = (Datum*)palloc0(sizeof(Datum) * Max(1, desc->natts));
    arena->isnull = (bool*)palloc0(sizeof(bool) * Max(1, desc->natts));
    arena->next_bytes = kFirstBlockBytes;
}

uint64 mp_arena_put(MpRowArena* a, TupleTableSlot* child) {
    bool hasnull = false;
    for (int c = 0; c < a->ncols; c++) {
        a->values[c] = child->tts_values[a->columns[c]];
        a->isnull[c] = child->tts_isnull[a->columns[c]];
        hasnull |= a->isnull[c];
    }
    uint64 hoff = MAXALIGN(SizeofMinimalTupleHeader + (hasnull ? BITMAPLEN(a->ncols) : 0));
    uint64 data_len = heap_compute_data_size(a->desc, a->values, a->isnull);
    uint64 len = MAXALIGN(hoff + data_len);
    if (a->block == NULL || a->used + len > a->capacity) next_block(a, len);
    MinimalTuple tuple = (MinimalTuple)(a->block + a->used);
    memset(tuple, 0, hoff);
    tuple->t_len = uint32(hoff + data_len);
    HeapTupleHeaderSetNatts(tuple, a->ncols);
    tuple->t_hoff = uint8(hoff + MINIMAL_TUPLE_OFFSET);
    heap_fill_tuple(a->desc, a->values, a->isnull, (char*)tuple + hoff, data_len, &tuple->t_infomask,
                    hasnull ? tuple->t_bits : NULL);
    uint64 ref = a->block_ref + a->used;
    a->used += len;
    return ref;
}
