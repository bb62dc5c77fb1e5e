// threads.cpp — see threads.h.
#include "threads.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

void mp_run_on_threads(unsigned threads, const std::function<void()>& work) noexcept {
    if (threads <= 1) return work();
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());  // sysfs: read once
    unsigned n = std::max(1u, std::min(threads, cores));
    std::vector<std::thread> pool;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
        pool.reserve(n - 1);
        for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
    } catch (...) {  // fewer threads: the others (and this one) do the rest
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    work();
    for (std::thread& t : pool) t.join();
}

void mp_run_pieces(unsigned threads, uint64_t begin, uint64_t end, uint64_t piece,
                   const std::function<void(uint64_t, uint64_t)>& work) noexcept {
    if (begin >= end) return;
    const uint64_t pieces = (end - begin + piece - 1) / piece;
    std::atomic<uint64_t> next{begin};
    mp_run_on_threads(unsigned(std::min<uint64_t>(std::max(threads, 1u), pieces)), [&] {
        for (uint64_t at; (at = next.fetch_add(piece)) < end;) work(at, std::min(at + piece, end));
    });
}
