// prefault.h — memory faulted in on several threads before a large download writes it.
// A node's result arrays in shared memory are new pages, and the rooms a combiner
// downloads into inside other participants' chunks are pages it never mapped: a device
// download that fills them from one thread takes a page fault (and a new page's
// zeroing) every 4 kB in turn, ~1.5 GB/s; faulted in first on threads of their own
// (madvise's MADV_POPULATE_WRITE, or a write per page where the kernel lacks it) it runs
// at memory speed. Pages other processes wrote are mapped for reading instead
// (mp_premap) where their contents are still read. Pure C++ and system calls, no
// PostgreSQL call: it cannot raise an ERROR, and any failure (no threads) just leaves
// the faults to the download.
#pragma once

#include <cstddef>

struct MpMemoryRange {
    void* data;
    size_t bytes;
};

// Maps every whole page of the ranges for writing, on threads, and returns when all are
// mapped: fresh memory, or pages other processes wrote whose contents nothing reads any
// more (a join's range rooms, a set operation's keys its results overwrite). Their
// contents are not kept: where the kernel lacks MADV_POPULATE_WRITE each page is zeroed.
void mp_prefault(const MpMemoryRange* ranges, int count) noexcept;

// Maps into this process, on up to `threads` threads, the pages of ranges other
// processes wrote (MADV_POPULATE_READ: contents kept), so that random reads there do
// not take a minor fault each the first time. Where the kernel lacks it, nothing.
void mp_premap(const MpMemoryRange* ranges, int count, int threads) noexcept;

// One block just allocated (a chunk or a block of stored rows): faulted in at once
// (MADV_POPULATE_WRITE, one call instead of a fault every 4 kB).
void mp_prefault_block(void* data, size_t bytes) noexcept;
