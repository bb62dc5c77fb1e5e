// image_groups.h — a set operation over image keys (images.h), after the stage sorted
// both sides by the 64-bit hash of each row's image: the groups of equal rows and
// their result rows.
//
// Walking sorted A and sorted B together one hash value at a time (a "run"), the run's
// rows are one group when all their images are equal (the common case, checked byte by
// byte); after a hash collision they are split into groups by sorting the run's rows by
// image (stably, so each group keeps its rows in sorted order). Each group with m rows
// in A and n in B gives nodeSetOp.c's copies: INTERSECT ALL min(m, n), EXCEPT ALL
// max(m - n, 0), INTERSECT and EXCEPT one or none; each copy is the group's first row
// on the side the replaced plan reads first (the sorts are stable, so that is the row
// read first there). So the answer is exact whatever the hashes do, with no
// PostgreSQL function call per row.
//
// The work is cut into parts at run borders (splitter hashes taken from A; UNION: from
// the larger side) and the parts run on the combiner's threads; a part never gives
// more result rows than it has A rows (UNION: A and B rows), so part p writes its
// results at its first A position (UNION: first A + first B position) of one array of
// mp_image_result_slots slots, and the emitters read each part's results as one run.
#pragma once

#include "key_chunks.h"
#include "setop_node.h"

#include "pg_mergepath.h"

// The sorted sides: each sorted position's hash and the reference of its record.
struct MpImageSides {
    const uint64* hashes[2];
    const uint64* refs[2];
    uint64 count[2];
};

struct MpImageParts {
    int count;
    uint64* out_begin;  // [count + 1]: part p's results go to out[out_begin[p] ...]
    uint64* results;    // [count]: how many it wrote
};

// The slots of the result array for sides of a_rows and b_rows rows.
inline uint64 mp_image_result_slots(const MpSetOpState* st, uint64 a_rows, uint64 b_rows) {
    return a_rows + (mp_setop_results_from_b(st) ? b_rows : 0);
}

// Computes the result rows (record references) into out[mp_image_result_slots] (allocated by the caller;
// slots past each part's results are left as they were). threads_may_resolve: every
// record is resolvable from helper threads (mp_space_threads_may_resolve), else the
// walk runs in this thread alone. Parts are palloc'd in CurrentMemoryContext. ERROR on
// out of memory.
MpImageParts mp_image_groups(const MpSetOpState* st, const MpImageSides& sides, bool threads_may_resolve,
                             uint64* out);
