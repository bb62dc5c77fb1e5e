// timing.h — milliseconds between points of a backend's work, for EXPLAIN ANALYZE.
// Trivially destructible, so it may live on frames that an ERROR longjmps over.
#pragma once

#include "pg_mergepath.h"

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
