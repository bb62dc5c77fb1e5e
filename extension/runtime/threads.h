// threads.h — a few helper threads for a backend's bulk memory work (faulting pages in,
// rewriting a large array): the same work function runs on up to `threads` threads,
// this one included, and returns when all are done. Pure C++: the work must not call
// PostgreSQL (no palloc, no ereport, no dynamic shared memory attach) and must not
// throw. The helpers start with every signal blocked, so PostgreSQL's handlers keep
// running in the backend's own thread only.
#pragma once

#include <functional>

// Threads a parallel node's combiner maps other participants' pages with (prefault.h)
// while everyone else waits for it (row_directory.h turns row numbers into references
// on up to a thread per core instead).
constexpr int kMpCombinerThreads = 8;

// Runs work() on min(threads, the machine's cores) threads; with fewer when threads
// cannot be started (this thread always runs it). Never throws.
void mp_run_on_threads(unsigned threads, const std::function<void()>& work) noexcept;
