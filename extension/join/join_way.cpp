// join_way.cpp — the way one execution of the MergePath Join runs (MpJoinWay, whose
// state machine join_node.h draws): chosen here at the execution's start from the plan
// and what is set now, switched here once when what a join reading in memory holds
// passes pg_mergepath.memory_limit, and ended here (end, rescan). Every file asks the
// way, never a flag, which of its steps applies:
//   InMemory         join_input.cpp reads both sides into chunks, join_combine.cpp
//                    combines once, join_emit.cpp walks A's rows
//   StreamOuter      ... B only; join_probe.cpp streams A past sorted B in batches
//   SortInput        join_spill.cpp: rows into sorted runs (spill_runs.h), then
//   SortedRanges     ... key range after key range through the usual combine and emission
//   WritePartitions  join_spill_parallel.cpp: a participant's rows into hash partitions,
//   PartitionsWritten ... the files closed, waiting for the others (join_parallel.cpp),
//   JoinPartitions   ... each claimed partition sorted and run as SortedRanges alone,
//   Finished         ... until none is left
#include "join_node.h"

void mp_join_choose_way(MpJoinState* st) {
    if (mp_join_spill_planned(st))
        st->strategy.way = st->dsm ? MpJoinWay::WritePartitions : MpJoinWay::SortInput;
    else
        st->strategy.way = st->node.info.probe ? MpJoinWay::StreamOuter : MpJoinWay::InMemory;
}

void mp_join_switch_way(MpJoinState* st) {
    for (int side = 0; side < 2; side++)  // the chunks being filled join the queue's list
        for (int stream = 0; stream < 2; stream++) mp_writer_flush(&st->run.writers[stream][side]);
    const bool shared = mp_join_runs_shared(st);
    st->strategy.way = shared ? MpJoinWay::WritePartitions : MpJoinWay::SortInput;
    mp_join_spill_begin(st);
    if (shared) return;  // a participant's rows stay: the combiner partitions them (join_spill_parallel.cpp)
    mp_join_spill_move_held(st);
    mp_join_free_run(st);  // the rows held, their chunks and the stage: freed now
    mp_join_start_run(st);
}

void mp_join_end_way(MpJoinState* st) {
    mp_join_spill_end(st);
    st->strategy.way = MpJoinWay::Unchosen;
}
