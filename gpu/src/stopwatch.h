// stopwatch.h — milliseconds between points of the library's host-side work, for the
// timings the SQL stage and pipeline report.
#pragma once

#include <chrono>

namespace mergepath {

class Stopwatch {
public:
    // Milliseconds since construction or the last lap.
    double lap_ms() {
        auto now = std::chrono::steady_clock::now();
        double ms = std::chrono::duration<double, std::milli>(now - start_).count();
        start_ = now;
        return ms;
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace mergepath
