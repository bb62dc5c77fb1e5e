// thread_team.cpp — the kept helper threads of ThreadTeam (see thread_team.h): a run
// publishes its parts under the mutex and wakes the helpers; every thread (the caller
// too) claims the next part until none is left; the caller waits until every part has
// finished.
#include "cpu/thread_team.h"

#include <system_error>

#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {

ThreadTeam::~ThreadTeam() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
}

void ThreadTeam::start_helpers() {
    started_ = true;
    SignalsBlocked blocked;  // the helpers inherit the mask
    try {
        helpers_.reserve(wanted_);
        for (unsigned i = 0; i < wanted_; ++i) helpers_.emplace_back([this] { helper_loop(); });
    } catch (const std::system_error&) {
        // fewer helpers: the caller's thread takes their parts
    } catch (const std::bad_alloc&) {
    }
}

// Claims and runs parts of the current run until none is left (mutex_ not held).
void ThreadTeam::work_on_current_run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (next_ < parts_) {
        const size_t i = next_++;
        const std::function<void(size_t)>& part = *part_;
        lock.unlock();
        part(i);
        lock.lock();
        if (++finished_ == parts_) done_.notify_all();
    }
}

void ThreadTeam::helper_loop() {
    unsigned long seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
        }
        work_on_current_run();
    }
}

void ThreadTeam::run(size_t parts, const std::function<void(size_t)>& part) {
    if (parts == 0) return;
    if (parts > 1 && !started_) start_helpers();
    if (parts == 1 || helpers_.empty()) {
        for (size_t i = 0; i < parts; ++i) part(i);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        part_ = &part;
        parts_ = parts;
        next_ = finished_ = 0;
        ++generation_;
    }
    wake_.notify_all();
    work_on_current_run();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_ == parts_; });
    part_ = nullptr;
    parts_ = next_ = finished_ = 0;
}

}  // namespace cpu
}  // namespace mergepath
