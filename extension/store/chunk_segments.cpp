// chunk_segments.cpp — per-participant dynamic shared memory segments for key chunks
// (see chunk_segments.h): a bump allocator over segments of growing size, references
// that name (slot, offset), and attaching on first use.
#include "chunk_segments.h"

extern "C" {
#include "access/parallel.h"
}

namespace {

constexpr size_t kFirstSegmentBytes = size_t(8) << 20;
constexpr size_t kMaxSegmentBytes = size_t(256) << 20;
constexpr size_t kAlign = 64;

uint64 make_ref(int slot, size_t offset) { return kMpSegmentRefTag | (uint64(slot) << kMpSegmentOffsetBits) | offset; }

// A new segment of at least `bytes` for this process, published in a slot of its own;
// false when none can be had.
bool start_segment(MpSegmentMap* map, size_t bytes) {
    size_t size = Max(map->next_size, TYPEALIGN(kAlign, bytes));
    if (pg_atomic_read_u32(&map->shared->count) >= uint32(kMpMaxSegments)) return false;
    dsm_segment* seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
    if (!seg) return false;
    uint32 slot = pg_atomic_fetch_add_u32(&map->shared->count, 1);
    if (slot >= uint32(kMpMaxSegments)) {
        dsm_detach(seg);
        return false;
    }
    // published before any chunk in it: a chunk's reference reaches others through the
    // spinlocked queue, which orders this store before it
    map->shared->handles[slot] = dsm_segment_handle(seg);
    map->mapping[slot] = seg;
    map->base[slot] = (char*)dsm_segment_address(seg);
    map->current = int(slot);
    map->used = 0;
    map->size = size;
    map->next_size = Min(map->next_size * 2, kMaxSegmentBytes);
    return true;
}

// Attaches slot `slot` here; false when its segment no longer exists.
bool attach(MpSegmentMap* map, int slot) {
    if (map->base[slot]) return true;
    dsm_handle handle = map->shared->handles[slot];
    dsm_segment* seg = dsm_find_mapping(handle);
    if (!seg) seg = dsm_attach(handle);
    if (!seg) return false;
    map->mapping[slot] = seg;
    map->base[slot] = (char*)dsm_segment_address(seg);
    return true;
}

}  // namespace

void mp_segments_init(MpSharedSegments* shared) {
    pg_atomic_init_u32(&shared->count, 0);
    memset(shared->handles, 0, sizeof(shared->handles));
}

MpSegmentMap* mp_segments_open(MemoryContext cxt, MpSharedSegments* shared, const bool* gate) {
    MpSegmentMap* map = (MpSegmentMap*)MemoryContextAllocZero(cxt, sizeof(MpSegmentMap));
    map->shared = shared;
    map->gate = gate;
    map->current = -1;
    map->next_size = kFirstSegmentBytes;
    return map;
}

uint64 mp_segments_alloc(MpSegmentMap* map, size_t bytes, void** address) {
    if (!*(volatile const bool*)map->gate) return 0;
    size_t need = TYPEALIGN(kAlign, Max(bytes, 1));
    if (map->current < 0 || map->used + need > map->size)
        if (!start_segment(map, need)) return 0;
    uint64 ref = make_ref(map->current, map->used);
    *address = map->base[map->current] + map->used;
    map->used += need;
    return ref;
}

// A segment that is gone: its creator ended before this process attached it, which
// only a failed worker does (see chunk_segments.h); its error is the one to report.
static void report_gone() {
    if (!IsParallelWorker()) mp_process_parallel_messages();
    elog(ERROR, "pg_mergepath: the shared memory of another participant is gone");
}

void* mp_segments_at(MpSegmentMap* map, uint64 ref) {
    int slot = mp_segment_slot(ref);
    if (unlikely(!map->base[slot]) && !attach(map, slot)) report_gone();
    return map->base[slot] + mp_segment_offset(ref);
}

void mp_segments_attach_all(MpSegmentMap* map) {
    int count = Min(int(pg_atomic_read_u32(&map->shared->count)), kMpMaxSegments);
    for (int slot = 0; slot < count; slot++)
        if (!attach(map, slot)) report_gone();
}

void mp_segments_detach_all(MpSegmentMap* map) {
    for (int slot = 0; slot < kMpMaxSegments; slot++) {
        if (map->mapping[slot]) dsm_detach(map->mapping[slot]);
        map->mapping[slot] = NULL;
        map->base[slot] = NULL;
    }
    map->current = -1;
    map->used = map->size = 0;
}
