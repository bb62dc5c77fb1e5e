// row_arena.cpp — MinimalTuples formed in place in large blocks (see row_arena.h). The
// tuple layout is heap_form_minimal_tuple's (header, null bitmap, MAXALIGNed data),
// written with heap_compute_data_size / heap_fill_tuple into the block instead of a
// palloc'd copy (a row of one short varlena directly, the same bytes: put_short_varlena).
#include "row_arena.h"

#include "prefault.h"

namespace {

constexpr uint64 kFirstBlockBytes = uint64(256) << 10;
constexpr uint64 kMaxBlockBytes = uint64(4) << 20;

// Starts a block with room for at least `need` bytes.
void next_block(MpRowArena* a, uint64 need) {
    uint64 bytes = Max(a->next_bytes, MAXALIGN(need));
    void* address;
    a->block_ref = mp_space_alloc_kept(a->space, a->queue, bytes, &address, a->side);
    mp_prefault_block(address, bytes);  // one call, not a fault every 4 kB
    a->block = (char*)address;
    a->used = 0;
    a->capacity = bytes;
    a->held_bytes += bytes;
    a->next_bytes = Min(a->next_bytes * 2, kMaxBlockBytes);
}

}  // namespace

void mp_arena_init_blocks(MpRowArena* arena, const MpChunkSpace* space, MpChunkQueue* queue) {
    memset(arena, 0, sizeof(*arena));
    arena->space = space;
    arena->queue = queue;
    arena->next_bytes = kFirstBlockBytes;
}

void mp_arena_init(MpRowArena* arena, const MpChunkSpace* space, MpChunkQueue* queue, TupleDesc desc,
                   const int* columns, int side) {
    mp_arena_init_blocks(arena, space, queue);
    arena->side = side;
    arena->desc = desc;
    arena->ncols = desc->natts;
    arena->columns = columns;
    arena->values = (Datum*)palloc0(sizeof(Datum) * Max(1, desc->natts));
    arena->isnull = (bool*)palloc0(sizeof(bool) * Max(1, desc->natts));
}

char* mp_arena_reserve(MpRowArena* a, uint64 bytes, uint64* ref) {
    if (a->block == NULL || a->used + bytes > a->capacity) next_block(a, bytes);
    char* at = a->block + a->used;
    *ref = a->block_ref + a->used;
    a->used += bytes;
    return at;
}

static bool any_null(const bool* isnull, int n) {
    for (int c = 0; c < n; c++)
        if (isnull[c]) return true;
    return false;
}

uint64 mp_tuple_measure(TupleDesc desc, const Datum* values, const bool* isnull, uint64* hoff, uint64* data_len) {
    bool hasnull = any_null(isnull, desc->natts);
    *hoff = MAXALIGN(SizeofMinimalTupleHeader + (hasnull ? BITMAPLEN(desc->natts) : 0));
    *data_len = heap_compute_data_size(desc, (Datum*)values, (bool*)isnull);
    return MAXALIGN(*hoff + *data_len);
}

// A zeroed tuple header at `at` given its length, number of columns and data offset.
static MinimalTuple set_header(char* at, int natts, uint64 hoff, uint64 data_len) {
    MinimalTuple tuple = (MinimalTuple)at;
    tuple->t_len = uint32(hoff + data_len);
    HeapTupleHeaderSetNatts(tuple, natts);
    tuple->t_hoff = uint8(hoff + MINIMAL_TUPLE_OFFSET);
    return tuple;
}

// A tuple's MAXALIGN(hoff + data_len) bytes at `at` zeroed, then its header set.
static MinimalTuple start_tuple(char* at, int natts, uint64 hoff, uint64 data_len) {
    memset(at, 0, MAXALIGN(hoff + data_len));
    return set_header(at, natts, hoff, data_len);
}

void mp_tuple_form_at(char* at, TupleDesc desc, const Datum* values, const bool* isnull, uint64 hoff,
                      uint64 data_len) {
    MinimalTuple tuple = start_tuple(at, desc->natts, hoff, data_len);
    bool hasnull = any_null(isnull, desc->natts);
    heap_fill_tuple(desc, (Datum*)values, (bool*)isnull, at + hoff, data_len, &tuple->t_infomask,
                    hasnull ? tuple->t_bits : NULL);
}

void mp_arena_gather(MpRowArena* a, TupleTableSlot* child) {
    for (int c = 0; c < a->ncols; c++) {
        a->values[c] = child->tts_values[a->columns[c]];
        a->isnull[c] = child->tts_isnull[a->columns[c]];
    }
}

uint64 mp_arena_put(MpRowArena* a, TupleTableSlot* child) {
    mp_arena_gather(a, child);
    return mp_arena_put_values(a, a->values, a->isnull);
}

// The n bytes (1..127: a short varlena) of src at dst, in word-sized moves, the last ones
// overlapping. (A plain memcpy of a variable length is inlined by GCC here as `rep
// movsq`, and the row's memset as `rep stosq`: their start-up cost more than a short
// row's whole copy, a tenth of a 16-participant text join's CPU samples on the GPU host.)
static inline void copy_short(char* dst, const char* src, uint64 n) {
    if (n >= 16) {
        for (uint64 i = 0; i + 16 < n; i += 16) memcpy(dst + i, src + i, 16);
        memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

// A row of one column whose value is a varlena in line with a 1-byte header (a short
// text, varchar, bytea... as a heap page holds it), formed directly: the layout
// heap_fill_tuple gives it (no null bitmap, the value's bytes as they are at the start
// of the data, HEAP_HASVARWIDTH), without its per-column walk, and zeroed only where
// the value does not go (the header and the last word: the padding). False for any
// other row.
static bool put_short_varlena(MpRowArena* a, const Datum* values, const bool* isnull, uint64* ref) {
    if (a->ncols != 1 || isnull[0] || TupleDescAttr(a->desc, 0)->attlen != -1) return false;
    const char* value = DatumGetPointer(values[0]);
    if (!VARATT_IS_SHORT(value) || VARATT_IS_EXTERNAL(value)) return false;
    constexpr uint64 hoff = MAXALIGN(SizeofMinimalTupleHeader);
    static_assert(hoff == 16, "a minimal tuple's header is two words");
    const uint64 len = VARSIZE_SHORT(value), bytes = MAXALIGN(hoff + len);
    char* at = mp_arena_reserve(a, bytes, ref);
    const uint64 zero = 0;
    memcpy(at, &zero, 8);
    memcpy(at + 8, &zero, 8);
    memcpy(at + bytes - 8, &zero, 8);  // past the header: bytes >= hoff + 8
    set_header(at, 1, hoff, len)->t_infomask = HEAP_HASVARWIDTH;
    copy_short(at + hoff, value, len);
    return true;
}

uint64 mp_arena_put_values(MpRowArena* a, const Datum* values, const bool* isnull) {
    uint64 hoff, data_len, ref;
    if (put_short_varlena(a, values, isnull, &ref)) return ref;
    uint64 bytes = mp_tuple_measure(a->desc, values, isnull, &hoff, &data_len);
    mp_tuple_form_at(mp_arena_reserve(a, bytes, &ref), a->desc, values, isnull, hoff, data_len);
    return ref;
}

uint64 mp_arena_put_all_null(MpRowArena* a) {
    if (a->all_null_ref != 0) return a->all_null_ref;
    for (int c = 0; c < a->ncols; c++) a->isnull[c] = true;
    a->all_null_ref = mp_arena_put_values(a, a->values, a->isnull);  // a block's rows start past its header: never 0
    return a->all_null_ref;
}
