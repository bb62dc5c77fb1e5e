// prefault.cpp — the ranges cut into pieces of a few MB that a handful of threads
// populate, for writing or for reading (see prefault.h).
#include "prefault.h"

#include "threads.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
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

void populate_write(const Piece& piece) {
    if (madvise(piece.data, piece.bytes, MADV_POPULATE_WRITE) == 0) return;
    std::memset(piece.data, 0, piece.bytes);  // its contents are not kept (see prefault.h)
}

void populate_read(const Piece& piece) { (void)madvise(piece.data, piece.bytes, MADV_POPULATE_READ); }

// Runs `populate` over the pieces of the ranges on up to max_threads threads.
template <class Populate>
void populate_all(const MpMemoryRange* ranges, int count, unsigned max_threads, Populate populate) noexcept {
    try {
        std::vector<Piece> pieces = cut(ranges, count);
        mp_run_pieces(max_threads, 0, pieces.size(), 1, [&](uint64_t i, uint64_t) { populate(pieces[i]); });
    } catch (...) {  // out of memory for the list: the accesses take the faults
    }
}

}  // namespace

void mp_prefault(const MpMemoryRange* ranges, int count) noexcept {
    populate_all(ranges, count, kMaxThreads, populate_write);
}

void mp_premap(const MpMemoryRange* ranges, int count, int threads) noexcept {
    populate_all(ranges, count, unsigned(std::max(1, threads)), populate_read);
}

void mp_prefault_block(void* data, size_t bytes) noexcept {
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    uintptr_t begin = (uintptr_t(data) + page - 1) & ~(page - 1);
    uintptr_t end = (uintptr_t(data) + bytes) & ~(page - 1);
    if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}
