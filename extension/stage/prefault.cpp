// prefault.cpp — the ranges cut into pieces of a few MB that a handful of threads
// populate (see prefault.h).
#include "prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace {

constexpr size_t kPieceBytes = size_t(4) << 20;
constexpr unsigned kMaxThreads = 16;

struct Piece {
    char* data;
    size_t bytes;
};

// Page-aligned pieces inside the ranges (a partial page at either end is left alone:
// it is shared with other allocations, which may be in use).
std::vector<Piece> cut(const MpMemoryRange* ranges, int count) {
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    std::vector<Piece> pieces;
    for (int r = 0; r < count; ++r) {
        uintptr_t begin = (uintptr_t(ranges[r].data) + page - 1) & ~(page - 1);
        uintptr_t end = (uintptr_t(ranges[r].data) + ranges[r].bytes) & ~(page - 1);
        for (uintptr_t p = begin; p < end; p += kPieceBytes)
            pieces.push_back({reinterpret_cast<char*>(p), size_t(std::min<uintptr_t>(kPieceBytes, end - p))});
    }
    return pieces;
}

void populate(const Piece& piece) {
    if (madvise(piece.data, piece.bytes, MADV_POPULATE_WRITE) == 0) return;
    std::memset(piece.data, 0, piece.bytes);  // nothing is written there yet (see prefault.h)
}

}  // namespace

void mp_prefault(const MpMemoryRange* ranges, int count) noexcept {
    try {
        std::vector<Piece> pieces = cut(ranges, count);
        std::atomic<size_t> next{0};
        auto work = [&] {
            for (size_t i; (i = next.fetch_add(1)) < pieces.size();) populate(pieces[i]);
        };
        unsigned threads = std::min<size_t>({kMaxThreads, std::max(1u, std::thread::hardware_concurrency()), pieces.size()});
        std::vector<std::thread> pool;
        try {
            for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
        } catch (...) {  // fewer threads: the others (and this one) do the rest
        }
        work();
        for (std::thread& t : pool) t.join();
    } catch (...) {  // out of memory for the list: the download takes the faults
    }
}
