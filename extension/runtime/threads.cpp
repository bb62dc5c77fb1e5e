// threads.cpp — see threads.h.
#include "threads.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
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
