// test_allocator.cpp — the CPU backend's host allocator: freed large blocks are kept
// for reuse up to a limit, and when a newly freed block would exceed it, the least
// recently freed blocks are given back (blocks of sizes no longer asked for must not
// keep newer sizes out of the cache). Blocks are allocated but never touched, so the
// gigabyte sizes cost no physical memory.
#include <gtest/gtest.h>

#include "allocator.h"

namespace {

using mergepath::detail::HostAllocator;
constexpr size_t kGiB = size_t(1) << 30;

TEST(HostAllocatorCache, KeepsFreedBlocksAndReusesThem) {
    HostAllocator host;
    void* p = host.allocate(kGiB);
    host.release(p);
    EXPECT_EQ(host.cached_bytes(), kGiB);
    void* again = host.allocate(kGiB);
    EXPECT_EQ(again, p) << "a block of the same size comes from the cache";
    EXPECT_EQ(host.cached_bytes(), 0u);
    host.release(again);
}

TEST(HostAllocatorCache, NewSizesEvictTheLeastRecentlyFreed) {
    HostAllocator host;
    void* old_block = host.allocate(3 * kGiB);
    host.release(old_block);
    EXPECT_EQ(host.cached_bytes(), 3 * kGiB);
    void* newer = host.allocate(2 * kGiB);  // 3 + 2 GiB exceed the 4 GiB limit
    host.release(newer);
    EXPECT_EQ(host.cached_bytes(), 2 * kGiB) << "the 3 GiB block freed first must have been given back";
    void* reused = host.allocate(2 * kGiB);
    EXPECT_EQ(reused, newer) << "the newer size is the one kept";
    host.release(reused);
    host.release_cached();
    EXPECT_EQ(host.cached_bytes(), 0u);
}

TEST(HostAllocatorCache, SmallBlocksAreNotCached) {
    HostAllocator host;
    void* p = host.allocate(4096);
    host.release(p);
    EXPECT_EQ(host.cached_bytes(), 0u);
}

}  // namespace
