// log.hpp — timestamped progress lines on stderr for the SQL benchmark
// ("[hh:mm:ss +elapsed] message"), safe to call from several threads.
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace mpbench {

inline std::chrono::steady_clock::time_point& log_start() {
    static std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    return t0;
}

inline double elapsed_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - log_start()).count();
}

inline void logf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void logf(const char* fmt, ...) {
    static std::mutex mu;
    std::lock_guard<std::mutex> g(mu);
    std::time_t now = std::time(nullptr);
    char ts[16];
    std::strftime(ts, sizeof ts, "%H:%M:%S", std::localtime(&now));
    std::fprintf(stderr, "[%s +%6.1fs] ", ts, elapsed_s());
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    std::fflush(stderr);
}

}  // namespace mpbench
