// thread_team.h — a few helper threads kept for a stretch of host work that is cut into
// parts and needed again and again within one owner's lifetime (the CUDA staging's
// copies: each 8 MB piece copied into or out of its pinned buffer by several threads,
// piece after piece, where starting threads per piece would cost as much as the copy). The
// helpers are started once, with every signal blocked (cpu/parallel.h: SignalsBlocked),
// sleep between runs and are joined when the team is destroyed. Parts must not throw
// and must not call into the host process (a PostgreSQL backend): plain memory work.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mergepath {
namespace cpu {

class ThreadTeam {
public:
    // Up to `helpers` helper threads, started at the first run that has parts for them
    // (fewer when the system refuses a thread: the caller then does more parts itself).
    explicit ThreadTeam(unsigned helpers) : wanted_(helpers) {}
    ~ThreadTeam();
    ThreadTeam(const ThreadTeam&) = delete;
    ThreadTeam& operator=(const ThreadTeam&) = delete;

    // Threads that take part in a run: the helpers and the caller.
    unsigned size() const { return wanted_ + 1; }

    // Runs part(i) for every i in [0, parts), on the helpers and the calling thread, and
    // returns when all have finished. One run at a time: its callers are serialised by
    // the owner (the staging's, by the stage that uses it).
    void run(size_t parts, const std::function<void(size_t)>& part);

private:
    void start_helpers();
    void helper_loop();
    void work_on_current_run();

    unsigned wanted_;
    bool started_ = false;
    std::vector<std::thread> helpers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(size_t)>* part_ = nullptr;  // the current run's
    size_t parts_ = 0, next_ = 0, finished_ = 0;
    unsigned long generation_ = 0;  // runs started so far
    bool stopping_ = false;
};

}  // namespace cpu
}  // namespace mergepath
