// row_directory.cpp — the adoption record, the directory over it, and row numbers
// turned into references on threads (see row_directory.h).
#include "row_directory.h"

#include <atomic>

#include "device.h"
#include "pipeline.h"
#include "threads.h"

static void* grow(MemoryContext cxt, void* array, size_t bytes) {
    return array ? repalloc(array, bytes) : MemoryContextAlloc(cxt, bytes);
}

void mp_adopted_record(MpAdoptedChunks adopted[2], const MpChunkSpace* space, MemoryContext cxt, MpChunkRef first) {
    for (MpChunkRef ref = first; ref != kNoChunk;) {
        MpChunk* c = mp_chunk_at(space, ref);
        MpAdoptedChunks* a = &adopted[c->side];
        if (c->stream == uint32(MpKeyStream::Main) && c->count > 0) {
            if (a->count == a->capacity) {
                a->capacity = Max(64, a->capacity * 2);
                a->first = (uint64*)grow(cxt, a->first, sizeof(uint64) * a->capacity);
                a->chunk = (MpChunkRef*)grow(cxt, a->chunk, sizeof(MpChunkRef) * a->capacity);
            }
            a->first[a->count] = a->rows;
            a->chunk[a->count++] = ref;
            a->rows += c->count;
        }
        ref = c->next;
    }
}

void mp_directory_fill(MemoryContext cxt, const MpChunkSpace* space, MpRowDirectory* dir, const uint64* first,
                       const MpChunkRef* chunks, uint64 count, bool with_ranges) {
    dir->count = count;
    dir->first = first;
    dir->refs = (uint64**)MemoryContextAlloc(cxt, sizeof(uint64*) * Max(1, count));
    dir->ranges = with_ranges
                      ? (mergepath::JoinRange**)MemoryContextAlloc(cxt, sizeof(mergepath::JoinRange*) * Max(1, count))
                      : NULL;
    dir->keys = with_ranges ? (const char**)MemoryContextAlloc(cxt, sizeof(char*) * Max(1, count)) : NULL;
    for (uint64 i = 0; i < count; i++) {
        MpChunk* c = mp_chunk_at(space, chunks[i]);
        dir->refs[i] = c->ref_size ? mp_chunk_refs(c) : NULL;
        if (dir->ranges) dir->ranges[i] = (mergepath::JoinRange*)mp_chunk_ranges(c);
        if (dir->keys) dir->keys[i] = mp_chunk_keys(c);
    }
}

// In batches: the slots of a batch's rows are found (the directory is small and stays in
// cache) and prefetched first, then read, so that a thread has a batch of random reads
// of other participants' chunks in flight instead of one. On a thread per core (the
// other participants wait for the combiner meanwhile), no more than pieces of rows.
void mp_rows_to_refs(const MpRowDirectory* dir, const uint64* rows, uint64* refs, uint64 n) {
    constexpr uint64 kPiece = 1 << 16;
    constexpr int kBatch = 16;
    mp_run_pieces(unsigned(Max(kMpCombinerThreads, mp_cpu_thread_count())), 0, n, kPiece, [&](uint64_t begin, uint64_t end) {
        const uint64* slots[kBatch];
        for (uint64 j = begin; j < end; j += kBatch) {
            const int m = int(Min(uint64(kBatch), end - j));
            for (int i = 0; i < m; i++) {  // every row read before any ref is written (refs may be rows)
                slots[i] = mp_row_ref_slot(dir, rows[j + i]);
                __builtin_prefetch(slots[i]);
            }
            for (int i = 0; i < m; i++) refs[j + i] = *slots[i];
        }
    });
}

bool mp_adopted_keys_all_have(const MpAdoptedChunks* adopted, const MpChunkSpace* space, uint64 bit) {
    if (adopted->count == 0) return true;
    const uint64** keys = (const uint64**)palloc(sizeof(uint64*) * adopted->count);
    for (uint64 i = 0; i < adopted->count; i++) keys[i] = (const uint64*)mp_chunk_keys(mp_chunk_at(space, adopted->chunk[i]));
    std::atomic<uint64> next{0};
    std::atomic<bool> missing{false};
    mp_run_on_threads(unsigned(Min(uint64(kMpCombinerThreads), adopted->count)), [&] {
        for (uint64 i; !missing.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < adopted->count;) {
            const uint64 rows = (i + 1 < adopted->count ? adopted->first[i + 1] : adopted->rows) - adopted->first[i];
            uint64 all = bit;
            for (uint64 r = 0; r < rows; r++) all &= keys[i][r];
            if (all != bit) missing.store(true, std::memory_order_relaxed);
        }
    });
    pfree(keys);
    return !missing.load();
}
