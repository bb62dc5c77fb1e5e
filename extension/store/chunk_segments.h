// chunk_segments.h — the key chunks (and a join's blocks of stored rows) of a parallel
// node in dynamic shared memory segments that each participant creates for itself,
// instead of in the query's DSA.
//
// Why: fresh shared memory is zero-filled when it is created (posix DSM fallocates the
// whole segment; segments carved from the main shared memory by min_dynamic_shared_memory
// are neither zeroed nor new, and nothing here reads memory it has not written). In the
// query's DSA that happens inside dsa_allocate, under the area's one lock, in whichever
// participant needed the next segment while the others wait for it: measured on the
// H100 host at 10M x 10M (int8, int4) pairs, 40-58 ms of each participant's read went
// into allocating chunks (bench/RESULTS.md). Segments of its own are created, and
// zeroed, by every participant at once.
//
// Each segment gets a slot in a table in the node's shared state (MpSharedSegments);
// a chunk's reference (MpChunkRef) names the slot and the offset, with the top bit set
// so that it never equals a dsa_pointer. Other processes attach a segment the first
// time they resolve a reference into it (MpSegmentMap, per process).
//
// Lifetime: a segment lives while some process has it attached. Its creator keeps it
// until the node ends there. Segments are used only while a gate is open: the flag
// that the leader reads its share. The leader then combines, and before it does it
// attaches every segment (reading is over, so all are listed, and their creators are
// waiting for the results); it keeps them until the node ends, which is after every
// worker has finished. So no participant ever finds a segment gone, whatever it reads
// (a join's last participant may read any stored row). Without the leader (it does not
// participate, or came after reading) chunks go to the query's area as before.
// ERROR and cancel detach through the resource owners, like any DSM mapping; a
// reference into a segment whose creator failed first reports that worker's error.
#pragma once

#include "pg_mergepath.h"

extern "C" {
#include "storage/dsm.h"
}

// Per node and execution; beyond it chunks go to the query's area (every backend's
// segments share the server's slots: 64 + 5 per backend).
constexpr int kMpMaxSegments = 128;

// In the node's shared state.
struct MpSharedSegments {
    pg_atomic_uint32 count;               // slots taken
    dsm_handle handles[kMpMaxSegments];   // valid once the creator published a chunk in it
};

// This process's view of the segments, and the one it allocates from.
struct MpSegmentMap {
    MpSharedSegments* shared;
    const bool* gate;                      // segments only while *gate
    char* base[kMpMaxSegments];            // NULL until created or attached here
    dsm_segment* mapping[kMpMaxSegments];
    int current;                           // slot allocated from, or -1
    size_t used, size;                     // in the current segment
    size_t next_size;
};

constexpr uint64 kMpSegmentRefTag = uint64(1) << 63;
constexpr int kMpSegmentOffsetBits = 40;  // a reference: tag, slot, offset in the segment

inline bool mp_is_segment_ref(uint64 ref) { return (ref & kMpSegmentRefTag) != 0; }

// A segment reference's slot and its offset in that segment.
inline int mp_segment_slot(uint64 ref) { return int((ref & ~kMpSegmentRefTag) >> kMpSegmentOffsetBits); }
inline size_t mp_segment_offset(uint64 ref) { return size_t(ref & ((uint64(1) << kMpSegmentOffsetBits) - 1)); }

// The address of a segment's reference when its segment is mapped in this process, else
// NULL (mp_segments_at attaches it): the inline path of every stored row's lookup.
inline void* mp_segments_mapped_at(const MpSegmentMap* map, uint64 ref) {
    char* base = map->base[mp_segment_slot(ref)];
    return base ? base + mp_segment_offset(ref) : NULL;
}

// A map in `cxt` over `shared`; gate: see the file comment.
MpSegmentMap* mp_segments_open(MemoryContext cxt, MpSharedSegments* shared, const bool* gate);
void mp_segments_init(MpSharedSegments* shared);

// `bytes` in a segment of this process's: returns the reference and *address, or 0
// when no segment can be had (the gate is shut, or the table or the system's segment
// slots are full: the caller allocates elsewhere).
uint64 mp_segments_alloc(MpSegmentMap* map, size_t bytes, void** address);

// The address of a reference (attached here on first use; ERROR if its segment is gone).
void* mp_segments_at(MpSegmentMap* map, uint64 ref);

// The leader, before it combines: attaches every segment (see the file comment).
void mp_segments_attach_all(MpSegmentMap* map);

// Detaches every segment this process created or attached.
void mp_segments_detach_all(MpSegmentMap* map);
