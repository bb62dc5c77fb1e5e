// parallel.cpp — thread fan-out, path cutting and chunk-count scan for the CPU backend.
#include "cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace mergepath {
namespace cpu {

SignalsBlocked::SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
}

SignalsBlocked::~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

void parallel_for(const Context& ctx, size_t n_tasks, const std::function<void(size_t)>& task,
                  std::atomic<bool>* stopped) {
    size_t n_threads = std::min<size_t>(std::max(1, ctx.cpu_threads()), n_tasks);
    std::atomic<size_t> next{0};
    std::atomic<bool> local_failed{false};
    std::atomic<bool>& failed = stopped ? *stopped : local_failed;
    std::exception_ptr first_error;
    std::mutex error_mutex;
    auto worker = [&] {
        for (size_t i; !failed && (i = next++) < n_tasks;) {
            try {
                ctx.check_interrupt();
                task(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!first_error) first_error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> threads;
    {
        SignalsBlocked blocked;
        for (size_t t = 1; t < n_threads; ++t) threads.emplace_back(worker);
    }
    worker();
    for (auto& th : threads) th.join();
    if (first_error) std::rethrow_exception(first_error);
}

size_t parallel_chained_scan(const Context& ctx, size_t n_tasks, const std::function<size_t(size_t)>& count,
                             const std::function<void(size_t, size_t)>& write) {
    constexpr size_t kUnknown = ~size_t(0);
    std::vector<std::atomic<size_t>> prefix(n_tasks + 1);
    for (auto& p : prefix) p.store(kUnknown, std::memory_order_relaxed);
    prefix[0].store(0, std::memory_order_relaxed);
    std::atomic<bool> stopped{false};
    parallel_for(
        ctx, n_tasks,
        [&](size_t i) {
            size_t mine = count(i), before;
            while ((before = prefix[i].load(std::memory_order_acquire)) == kUnknown) {
                if (stopped.load(std::memory_order_relaxed)) return;  // a predecessor failed
                std::this_thread::yield();
            }
            prefix[i + 1].store(before + mine, std::memory_order_release);
            write(i, before);
        },
        &stopped);
    return prefix[n_tasks].load(std::memory_order_acquire);
}

size_t chunk_count(const Context& ctx, size_t total) {
    const size_t min_chunk = 1 << 14, max_chunk = 1 << 22;
    size_t by_threads = static_cast<size_t>(ctx.cpu_threads()) * 4;
    size_t chunks = std::max(by_threads, (total + max_chunk - 1) / max_chunk);
    chunks = std::min(chunks, std::max<size_t>(1, total / min_chunk));
    return std::max<size_t>(1, chunks);
}

size_t cache_chunk_count(const Context& ctx, size_t total) {
    const size_t cache_chunk = 1 << 16;
    return std::max(chunk_count(ctx, total), (total + cache_chunk - 1) / cache_chunk);
}

std::vector<PathChunk> cut_path(size_t total, size_t chunks, const std::function<PathPoint(size_t)>& split) {
    std::vector<PathPoint> cuts(chunks + 1);
    for (size_t c = 0; c <= chunks; ++c) cuts[c] = split(total * c / chunks);
    std::vector<PathChunk> out(chunks);
    for (size_t c = 0; c < chunks; ++c)
        out[c] = {cuts[c].a, cuts[c + 1].a, cuts[c].b, cuts[c + 1].b, total * c / chunks};
    return out;
}

size_t exclusive_scan(std::vector<size_t>& counts) {
    size_t sum = 0;
    for (auto& c : counts) {
        size_t v = c;
        c = sum;
        sum += v;
    }
    return sum;
}

}  // namespace cpu
}  // namespace mergepath
