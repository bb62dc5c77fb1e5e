// key_chunks.cpp — chunk allocation in local or shared memory, the spinlocked FIFO
// queue of full chunks, and the writer that fills chunks of growing size (see
// key_chunks.h).
#include "key_chunks.h"

#include "prefault.h"
#include "timing.h"

namespace {

// Chunks start small (a tiny input takes little memory per writer) and double up to
// kMaxChunkBytes: small enough that full chunks keep flowing to the combiner while the
// input is read (each participant's last chunk, pushed when it is done, is what is
// left to ship after reading), large enough that a chunk costs little to hand over.
constexpr size_t kFirstChunkBytes = size_t(256) << 10;
constexpr size_t kMaxChunkBytes = size_t(2) << 20;
static_assert(sizeof(MpChunk) == 64, "a chunk's header keeps its keys aligned");

}  // namespace

void* mp_space_at_any(const MpChunkSpace* space, MpChunkRef ref) {
    if (ref == kNoChunk) return NULL;
    if (mp_is_segment_ref(ref)) return mp_segments_at(space->segments, ref);
    return space->dsa ? dsa_get_address(space->dsa, (dsa_pointer)ref) : (void*)(uintptr_t)ref;
}

MpChunkRef mp_space_alloc(const MpChunkSpace* space, size_t bytes, void** address) {
    if (space->dsa) {
        dsa_pointer p = dsa_allocate_extended(space->dsa, Max(bytes, 1), DSA_ALLOC_HUGE);
        *address = dsa_get_address(space->dsa, p);
        return (MpChunkRef)p;
    }
    *address = MemoryContextAllocHuge(space->cxt, Max(bytes, 1));
    return (MpChunkRef)(uintptr_t)*address;
}

// A block for a chunk: in this participant's own segment when it may use one, else in
// the space.
static MpChunkRef alloc_block(const MpChunkSpace* space, size_t bytes, void** address) {
    MpChunkRef ref = space->segments ? mp_segments_alloc(space->segments, bytes, address) : 0;
    return ref != 0 ? ref : mp_space_alloc(space, bytes, address);
}

MpChunkRef mp_space_alloc_kept(const MpChunkSpace* space, MpChunkQueue* queue, size_t bytes, void** address,
                               int side) {
    void* block;
    MpChunkRef ref = alloc_block(space, sizeof(MpChunk) + bytes, &block);
    MpChunk* header = (MpChunk*)block;
    memset(header, 0, sizeof(MpChunk));
    header->stream = kRowBlockStream;
    header->side = uint32(side);
    header->capacity = bytes;
    mp_queue_keep(queue, space, ref);
    *address = mp_chunk_keys(header);
    return ref + sizeof(MpChunk);
}

void mp_queue_init(MpChunkQueue* queue) {
    SpinLockInit(&queue->mutex);
    queue->pushed = queue->all = queue->area = kNoChunk;
    queue->bytes = queue->used_bytes = 0;
}

// Lists the chunk among all of the queue (and those in the area); under the lock.
static void list_chunk(MpChunkQueue* queue, MpChunk* chunk, MpChunkRef ref) {
    chunk->next_all = queue->all;
    queue->all = ref;
    if (mp_is_segment_ref(ref)) return;
    chunk->next_area = queue->area;
    queue->area = ref;
}

void mp_queue_push(MpChunkQueue* queue, const MpChunkSpace* space, MpChunkRef ref) {
    MpChunk* chunk = mp_chunk_at(space, ref);  // mapped here: this process wrote it
    SpinLockAcquire(&queue->mutex);
    chunk->next = queue->pushed;
    queue->pushed = ref;
    queue->bytes += sizeof(MpChunk) + mp_chunk_bytes(chunk);
    queue->used_bytes += chunk->count * (chunk->key_size + chunk->ref_size + chunk->range_size);
    list_chunk(queue, chunk, ref);
    SpinLockRelease(&queue->mutex);
}

void mp_queue_keep(MpChunkQueue* queue, const MpChunkSpace* space, MpChunkRef ref) {
    MpChunk* chunk = mp_chunk_at(space, ref);
    SpinLockAcquire(&queue->mutex);
    list_chunk(queue, chunk, ref);
    SpinLockRelease(&queue->mutex);
}

MpChunkRef mp_queue_take(MpChunkQueue* queue, const MpChunkSpace* space) {
    SpinLockAcquire(&queue->mutex);
    MpChunkRef last = queue->pushed;
    queue->pushed = kNoChunk;
    SpinLockRelease(&queue->mutex);
    MpChunkRef first = kNoChunk;  // the taken stack, turned around: first pushed first
    while (last != kNoChunk) {
        MpChunk* chunk = mp_chunk_at(space, last);
        MpChunkRef before = chunk->next;
        chunk->next = first;
        first = last;
        last = before;
    }
    return first;
}

void mp_queue_free_all(MpChunkQueue* queue, const MpChunkSpace* space) {
    MpChunkRef ref = queue->area;
    while (ref != kNoChunk && space->dsa) {
        MpChunkRef next = mp_chunk_at(space, ref)->next_area;
        dsa_free(space->dsa, (dsa_pointer)ref);
        ref = next;
    }
    mp_queue_init(queue);
}

void mp_writer_init(MpChunkWriter* w, const MpChunkSpace* space, MpChunkQueue* queue, ConditionVariable* wake,
                    int stream, int side, int key_size, bool with_refs, bool with_ranges) {
    memset(w, 0, sizeof(*w));
    w->space = space;
    w->queue = queue;
    w->wake = wake;
    w->stream = stream;
    w->side = side;
    w->key_size = key_size;
    w->ref_size = with_refs ? sizeof(uint64) : 0;
    w->range_size = with_ranges ? kMpRangeSize : 0;
    w->next_bytes = kFirstChunkBytes;
}

void mp_writer_flush(MpChunkWriter* w) {
    if (w->chunk && w->pos > 0) {
        w->chunk->count = w->pos;
        mp_queue_push(w->queue, w->space, w->ref);
        if (w->wake) ConditionVariableBroadcast(w->wake);
    }
    else if (w->chunk && w->space->dsa && !mp_is_segment_ref(w->ref))
        dsa_free(w->space->dsa, (dsa_pointer)w->ref);  // a local one goes with its context
    w->chunk = NULL;
    w->ref = kNoChunk;
    w->keys = NULL;
    w->refs = NULL;
    w->pos = w->cap = 0;
}

void mp_writer_put_many(MpChunkWriter* w, const char* keys, uint64 n) {
    while (n > 0) {
        mp_writer_make_room(w);
        uint64 take = Min(n, w->cap - w->pos);
        memcpy(w->keys + w->pos * w->key_size, keys, take * w->key_size);
        w->pos += take;
        keys += take * w->key_size;
        n -= take;
    }
}

// A new current chunk with room for `bytes` of keys (and their references and ranges).
static void start_chunk(MpChunkWriter* w, size_t bytes) {
    void* address;
    MpStopwatch clock;
    w->ref = alloc_block(w->space, sizeof(MpChunk) + bytes, &address);
    mp_prefault_block(address, sizeof(MpChunk) + bytes);  // one call, not a fault every 4 kB
    w->alloc_us += uint64(clock.lap_ms() * 1000.0);
    w->chunk = (MpChunk*)address;
    memset(w->chunk, 0, sizeof(MpChunk));
    w->chunk->stream = w->stream;
    w->chunk->side = w->side;
    w->chunk->key_size = w->key_size;
    w->chunk->ref_size = w->ref_size;
    w->chunk->range_size = w->range_size;
    // even: references and ranges stay aligned after 4-byte keys
    w->chunk->capacity = (bytes / (w->key_size + w->ref_size + w->range_size)) & ~uint64(1);
    w->keys = mp_chunk_keys(w->chunk);
    w->refs = w->ref_size ? mp_chunk_refs(w->chunk) : NULL;
    w->cap = w->chunk->capacity;
}

void mp_writer_next_chunk(MpChunkWriter* w) {
    mp_writer_flush(w);
    size_t bytes = w->next_bytes;
    start_chunk(w, bytes);
    w->next_bytes = Min(bytes * 2, kMaxChunkBytes);
}

void mp_writer_put_ascending(MpChunkWriter* w, const char* keys, uint64 n) {
    if (n == 0) return;
    mp_writer_flush(w);
    // even: the capacity is rounded down to an even count
    start_chunk(w, size_t(n + 1) * (w->key_size + w->ref_size + w->range_size));
    w->chunk->ascending = 1;
    memcpy(w->keys, keys, n * w->key_size);
    w->pos = n;
    mp_writer_flush(w);
}
