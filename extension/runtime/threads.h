// threads.h — a few helper threads for a backend's bulk memory work (faulting pages in,
// rewriting a large array): the same work function runs on up to `threads` threads,
// this one included, and returns when all are done. Pure C++: the work must not call
// PostgreSQL (no palloc, no ereport, no dynamic shared memory attach) and must not
// throw. The helpers start with every signal blocked, so PostgreSQL's handlers keep
// running in the backend's own thread only.
#pragma once

#include <cstdint>
#include <functional>

// Threads a parallel node's combiner maps other participants' pages with (prefault.h)
// while everyone else waits for it (row_directory.h turns row numbers into references
// on up to a thread per core instead).
constexpr int kMpCombinerThreads = 8;

// Runs work() on min(threads, the machine's cores) threads; with fewer when threads
// cannot be started (this thread always runs it). Never throws.
void mp_run_on_threads(unsigned threads, const std::function<void()>& work) noexcept;

// Elements [begin, end) cut into pieces of `piece` elements, each claimed by one of up
// to `threads` threads (mp_run_on_threads; never more threads than pieces), which runs
// work(piece_begin, piece_end) on it. Returns when every piece is done; the same rules
// for work as above.
void mp_run_pieces(unsigned threads, uint64_t begin, uint64_t end, uint64_t piece,
                   const std::function<void(uint64_t, uint64_t)>& work) noexcept;
