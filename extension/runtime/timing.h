// timing.h — milliseconds between points of a backend's work, for EXPLAIN ANALYZE, and
// the wall clock that processes share (pg_mergepath.debug_timeline's points).
// Trivially destructible, so it may live on frames that an ERROR longjmps over.
#pragma once

#include <time.h>

#include "pg_mergepath.h"

// Milliseconds of the wall clock (the same in every process of the host).
inline double mp_wall_ms() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return double(now.tv_sec) * 1000.0 + double(now.tv_nsec) / 1e6;
}

struct MpStopwatch {
    instr_time start;

    MpStopwatch() { INSTR_TIME_SET_CURRENT(start); }

    // Milliseconds since construction or the last lap.
    double lap_ms() {
        instr_time now, elapsed;
        INSTR_TIME_SET_CURRENT(now);
        elapsed = now;
        INSTR_TIME_SUBTRACT(elapsed, start);
        start = now;
        return INSTR_TIME_GET_MILLISEC(elapsed);
    }
};
