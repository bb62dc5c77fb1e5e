// key_chunks.h — where a node's keys wait between the producers that encode them and
// the stage that sorts them: chunks of keys, each a large block with a small header.
// A serial node allocates them in its own memory context; a parallel one in the
// parallel query's dynamic shared memory area, where every participant writes chunks
// of its own and the combining process reads all of them in place (the library's
// SortedSides::add_chunk never copies or changes them).
//
//   producer --put--> writer's chunk --full--> queue (FIFO) --take--> combiner adopts
//
// A writer fills one chunk of one (stream, side) at a time; a full chunk is pushed on a
// queue and a new one, twice as large up to a few MB (key_chunks.cpp), is started. The queue is a
// spinlocked FIFO that can live in shared memory, so every participant's full chunks
// reach the combiner in the order they were pushed (the row numbers of a serial node
// follow the input's order).
#pragma once

#include "chunk_segments.h"

#include "mergepath/types.h"

#include "pg_mergepath.h"

// Calls f(K()) for the key type K of `key_size` bytes (uint32, uint64, Key128): the
// key-width dispatch of code that handles keys of every width.
template <class F>
auto mp_with_key_type(uint32 key_size, F&& f) {
    switch (key_size) {
        case 4: return f(uint32_t());
        case 8: return f(uint64_t());
        default: return f(mergepath::Key128());
    }
}

// A chunk's address: a dsa_pointer in shared memory, a reference into a participant's
// own segment (chunk_segments.h), or a local pointer.
typedef uint64 MpChunkRef;
constexpr MpChunkRef kNoChunk = 0;

struct MpChunk {
    MpChunkRef next;      // in its queue
    MpChunkRef next_all;  // every chunk of the queue's space, for freeing
    uint32 stream;        // MpKeyStream (pipeline.h)
    uint32 side;          // 0 left, 1 right
    uint64 count;         // keys written
    uint64 capacity;
    uint32 key_size;
    uint32 ref_size;      // 8 when every key carries a row reference (joins), else 0
    MpChunkRef next_area;  // among the queue's chunks in the query's area (freed one by one)
    uint32 range_size;     // 16 when every key has room for its join range (a join's A keys), else 0
    uint32 ascending;      // 1: the keys ascend already (a piece of a sorted run read back)
    // keys follow the 64-byte header, then (ref_size 8) one row reference per key, then
    // (range_size 16) room for one mergepath::JoinRange per key, which the combiner fills
};

// Bytes of a join range (mergepath::JoinRange: lower, count) in a chunk's room for them.
constexpr uint32 kMpRangeSize = 16;

// The streams of a chunk (MpChunk.stream): pipeline.h's MpKeyStream numbers 0 and 1;
// blocks of stored rows (row_arena.h) are chunks of their own stream, never queued.
constexpr uint32 kRowBlockStream = 2;

// Where chunks are allocated: the parallel query's area, or (dsa == NULL) palloc;
// with segments, the writers' chunks go into segments of each participant's own.
struct MpChunkSpace {
    dsa_area* dsa;
    MemoryContext cxt;
    MpSegmentMap* segments;
};

// Full chunks waiting to be taken, and the list of every chunk pushed (freed with the
// space). Under the spinlock only the pushed chunk itself is touched (another process's
// chunk may not be mapped here yet, and mapping it may ERROR): chunks are pushed on a
// stack, and mp_queue_take turns what it takes around, outside the lock, so that they
// come out in the order they were pushed.
struct MpChunkQueue {
    slock_t mutex;
    MpChunkRef pushed;  // the last pushed, ->next the one before
    MpChunkRef all;
    MpChunkRef area;    // those of `all` in the query's area, not in a participant's segment
    uint64 bytes;       // of the chunks pushed (headers included): what the node holds in keys
    uint64 used_bytes;  // of their keys, references and ranges written (a last chunk is not full)
};

void mp_queue_init(MpChunkQueue* queue);
void mp_queue_push(MpChunkQueue* queue, const MpChunkSpace* space, MpChunkRef ref);
// Lists a chunk that is never taken (a block of stored rows) only to free it with the rest.
void mp_queue_keep(MpChunkQueue* queue, const MpChunkSpace* space, MpChunkRef ref);
// Takes every chunk queued so far: the first pushed of them (walk with ->next, in push
// order), or kNoChunk.
MpChunkRef mp_queue_take(MpChunkQueue* queue, const MpChunkSpace* space);
// Frees every chunk ever pushed into the query's area (a local space goes with its
// context; chunks in participants' segments go with their segments).
void mp_queue_free_all(MpChunkQueue* queue, const MpChunkSpace* space);

// The address of a reference in this process, NULL for kNoChunk (key_chunks.cpp: any
// reference; a segment's whose segment is mapped here inline).
void* mp_space_at_any(const MpChunkSpace* space, MpChunkRef ref);
inline void* mp_space_at(const MpChunkSpace* space, MpChunkRef ref) {
    if (mp_is_segment_ref(ref)) {
        void* at = mp_segments_mapped_at(space->segments, ref);
        if (likely(at != NULL)) return at;
    }
    return mp_space_at_any(space, ref);
}
inline MpChunk* mp_chunk_at(const MpChunkSpace* space, MpChunkRef ref) { return (MpChunk*)mp_space_at(space, ref); }
inline char* mp_chunk_keys(MpChunk* chunk) { return (char*)chunk + sizeof(MpChunk); }
// The row reference of each key (chunks written with row references).
inline uint64* mp_chunk_refs(MpChunk* chunk) {
    return (uint64*)(mp_chunk_keys(chunk) + chunk->capacity * chunk->key_size);
}
// The room for each key's join range (chunks written with ranges): a
// mergepath::JoinRange per key, put there by the combiner (join_combine.cpp).
inline void* mp_chunk_ranges(MpChunk* chunk) {
    return mp_chunk_keys(chunk) + chunk->capacity * (chunk->key_size + chunk->ref_size);
}
// Bytes of a chunk after its header.
inline size_t mp_chunk_bytes(const MpChunk* chunk) {
    return chunk->capacity * (chunk->key_size + chunk->ref_size + chunk->range_size);
}

// Allocates `bytes` of plain memory in the space (result arrays), returning its ref.
MpChunkRef mp_space_alloc(const MpChunkSpace* space, size_t bytes, void** address);
// The same, as a block listed on the queue (never taken) so that it is freed with the
// queue's chunks: stored rows, result arrays. `side` (its header's) says whose rows or
// results it holds, so that a reader can tell which blocks it will read at random.
// Returns the ref of the block's data.
MpChunkRef mp_space_alloc_kept(const MpChunkSpace* space, MpChunkQueue* queue, size_t bytes, void** address,
                               int side);

// One producer's current chunk of one (stream, side).
struct MpChunkWriter {
    const MpChunkSpace* space;
    MpChunkQueue* queue;
    ConditionVariable* wake;  // broadcast when a chunk is pushed (parallel), or NULL
    MpChunk* chunk;
    MpChunkRef ref;
    char* keys;
    uint64* refs;       // with row references
    uint64 pos, cap;
    uint32 stream, side;
    uint32 key_size, ref_size, range_size;
    uint64 next_bytes;  // size of the next chunk
    uint64 alloc_us;    // spent allocating and faulting in chunks (EXPLAIN's Allocation Time)
};

// with_refs: every key carries a 64-bit row reference (mp_writer_put_ref); with_ranges:
// every key has room for its join range (mp_chunk_ranges).
void mp_writer_init(MpChunkWriter* w, const MpChunkSpace* space, MpChunkQueue* queue, ConditionVariable* wake,
                    int stream, int side, int key_size, bool with_refs = false, bool with_ranges = false);
// Pushes the current chunk (if it holds keys) and starts a new one.
void mp_writer_next_chunk(MpChunkWriter* w);
// Pushes the current chunk, if it holds keys; the writer is then empty.
void mp_writer_flush(MpChunkWriter* w);
// Appends n keys (key_size bytes each) copied from `keys`, pushing chunks as they fill.
void mp_writer_put_many(MpChunkWriter* w, const char* keys, uint64 n);
// Pushes n keys that ascend as a chunk of their own, of their size, marked ascending
// (the stage then merges it without sorting it); the current chunk is pushed first.
void mp_writer_put_ascending(MpChunkWriter* w, const char* keys, uint64 n);

// Bytes written so far in the writers' current chunks (keys, references, ranges), of a
// node's [stream][side] writers: what they hold besides the chunks pushed.
inline uint64 mp_writers_used_bytes(const MpChunkWriter (&writers)[2][2]) {
    uint64 bytes = 0;
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) {
            const MpChunkWriter* w = &writers[stream][side];
            if (w->chunk) bytes += w->pos * (w->key_size + w->ref_size + w->range_size);
        }
    return bytes;
}

// Makes room for one more key (a new chunk when the current one is full). Returns true
// when a chunk was pushed.
inline bool mp_writer_make_room(MpChunkWriter* w) {
    if (likely(w->pos < w->cap)) return false;
    bool pushed = w->pos > 0;
    mp_writer_next_chunk(w);
    return pushed;
}

// Appends one key (K must be key_size bytes). Returns true when a chunk was pushed.
template <class K>
inline bool mp_writer_put(MpChunkWriter* w, const K& key) {
    bool pushed = mp_writer_make_room(w);
    ((K*)w->keys)[w->pos++] = key;
    return pushed;
}

// Appends one key and the reference of its row (a writer made with_refs).
template <class K>
inline bool mp_writer_put_ref(MpChunkWriter* w, const K& key, uint64 ref) {
    bool pushed = mp_writer_make_room(w);
    ((K*)w->keys)[w->pos] = key;
    w->refs[w->pos++] = ref;
    return pushed;
}
