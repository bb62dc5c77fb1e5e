// setop_way.cpp — the way one execution of the MergePath SetOp node runs (MpSetOpWay,
// drawn in setop_node.h): chosen here at the execution's start from what the node is
// (serial, parallel planned in memory, parallel planned to spill), and switched here
// when a parallel node planned in memory passes half the limit while reading. A serial
// node's switch (InMemory -> KeyRanges) is made where its first run is written
// (setop_ranges.cpp: start_spilling); a rescan or the end sets it back to Unchosen.
// What each way runs:
//   InMemory, SharedInMemory  setop_input.cpp -> setop_combine.cpp (image_combine.cpp,
//                             hash_verify.cpp) -> setop_output.cpp; SharedInMemory
//                             through setop_parallel.cpp and the parallel state (parallel_protocol.h)
//   KeyRanges, SharedSwitched, SharedRanges  setop_ranges.cpp (image_ranges.cpp):
//                             runs or partitions written while reading, then ranges
#include "setop_node.h"

void mp_setop_choose_way(MpSetOpState* st) {
    if (!st->shared)
        st->strategy.way = MpSetOpWay::InMemory;  // a serial node, or a leader without a DSM segment
    else if (st->files && !st->switchable)
        st->strategy.way = MpSetOpWay::SharedRanges;
    else
        st->strategy.way = MpSetOpWay::SharedInMemory;
}

// Its writers fill chunks of its own memory from now on (its chunks already in shared
// memory stay there for the combiner to write out).
void mp_switch_to_spilling(MpSetOpState* st) {
    if (st->strategy.way == MpSetOpWay::SharedSwitched) return;
    st->strategy.way = MpSetOpWay::SharedSwitched;
    mp_writers_to_own_memory(st);
}
