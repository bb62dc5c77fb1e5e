// test_thread_team.cpp — ThreadTeam (cpu/thread_team.h), the kept helpers of the CUDA
// staging's downloads: every part of a run runs exactly once and the run returns only
// after all of them, run after run on the same team (helpers woken again), with more
// parts than threads, one part, none, and a team without helpers; and the parts of a
// run do run on more than one thread when the team has helpers.
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "cpu/thread_team.h"
#include "test_support.h"

namespace mptest {
namespace {

using mergepath::cpu::ThreadTeam;

TEST(ThreadTeam, EveryPartRunsOnceAndTheRunWaitsForAll) {
    for (unsigned helpers : {0u, 1u, 3u, 7u}) {
        ThreadTeam team(helpers);
        EXPECT_EQ(team.size(), helpers + 1);
        for (size_t parts : {size_t(0), size_t(1), size_t(2), size_t(8), size_t(100)}) {
            for (int round = 0; round < 20; ++round) {
                std::vector<std::atomic<int>> runs(parts);
                for (auto& r : runs) r = 0;
                std::atomic<size_t> done{0};
                team.run(parts, [&](size_t i) {
                    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
                    runs[i]++;
                    done++;
                });
                ASSERT_EQ(done.load(), parts) << "helpers " << helpers << ", parts " << parts;
                for (size_t i = 0; i < parts; ++i)
                    ASSERT_EQ(runs[i].load(), 1) << "part " << i << " of " << parts << ", helpers " << helpers;
            }
        }
    }
}

TEST(ThreadTeam, PartsRunOnTheHelpersToo) {
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core";
    ThreadTeam team(3);
    std::set<std::thread::id> seen;
    std::mutex m;
    for (int round = 0; round < 50 && seen.size() < 2; ++round)
        team.run(4, [&](size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));  // no thread takes them all
            std::lock_guard<std::mutex> lock(m);
            seen.insert(std::this_thread::get_id());
        });
    EXPECT_GE(seen.size(), 2u);
}

}  // namespace
}  // namespace mptest
