// parallel.h — how the CPU backend spreads a partitioned operation over threads:
// the output path is cut into chunks at equally spaced cross-diagonals (Merge Path
// or Balanced Path search per cut, exactly as the GPU cuts tiles), and worker threads
// take chunks one at a time, running the same serial steps as a GPU thread. Between
// chunks every worker polls the context's interrupt callback.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "mergepath/context.h"

namespace mergepath {
namespace cpu {

// Blocks every signal in the calling thread while alive, so that threads it starts
// (which inherit the mask) never run a host process's signal handlers: in a
// PostgreSQL backend those must only run in the backend's own thread.
class SignalsBlocked {
public:
    SignalsBlocked();
    ~SignalsBlocked();
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;

private:
    sigset_t saved_;
};

// Runs task(i) for i in [0, n_tasks) on the context's threads (started with all
// signals blocked); tasks are claimed in increasing order. Rethrows the first
// exception (Cancelled included) after all workers stopped; `stopped`, if given, is
// set as soon as a task fails, for tasks that wait on each other to poll.
void parallel_for(const Context& ctx, size_t n_tasks, const std::function<void(size_t)>& task,
                  std::atomic<bool>* stopped = nullptr);

// The CPU form of a single-pass scan with decoupled look-back: task i runs
// count(i), waits for the sum of all earlier counts (published by task i - 1 as soon
// as its own count is known), publishes its own, then runs write(i, offset). As
// tasks are claimed in order, the waits are short and each chunk is written while
// its inputs are still in cache: the inputs are read from memory once, not twice
// as with a count pass followed by a write pass. Returns the total count.
size_t parallel_chained_scan(const Context& ctx, size_t n_tasks, const std::function<size_t(size_t)>& count,
                             const std::function<void(size_t, size_t)>& write);

// A chunk of a two-input path: A[a0, a1) and B[b0, b1), starting at output `diag0`.
struct PathChunk {
    size_t a0, a1, b0, b1, diag0;
};

struct PathPoint {
    size_t a, b;
};

// Number of chunks for `total` path steps: enough to balance threads and to poll
// for interrupts about every few million elements.
size_t chunk_count(const Context& ctx, size_t total);

// At least chunk_count(), and chunks small enough (64K path steps) that a chunk's
// inputs stay in a core's cache between two passes over it.
size_t cache_chunk_count(const Context& ctx, size_t total);

// Cuts the path of length `total` into `chunks` pieces; split(diag) gives the point.
std::vector<PathChunk> cut_path(size_t total, size_t chunks, const std::function<PathPoint(size_t)>& split);

// Chunk c of the same cut, found on its own (two searches): for tasks that find their
// own range in parallel instead of cutting the whole path up front.
template <class Split>
PathChunk path_chunk(size_t total, size_t chunks, size_t c, const Split& split) {
    size_t d0 = total * c / chunks, d1 = total * (c + 1) / chunks;
    PathPoint p0 = split(d0), p1 = split(d1);
    return {p0.a, p1.a, p0.b, p1.b, d0};
}

// Exclusive prefix sum in place; returns the total.
size_t exclusive_scan(std::vector<size_t>& counts);

}  // namespace cpu
}  // namespace mergepath
