// staging.cu — the double-buffered pinned staging of copies between pageable host
// memory and the device (see staging.cuh): wait for a buffer's last copy (its event),
// memcpy into it and cudaMemcpyAsync out of it (to the device), or cudaMemcpyAsync into
// it and memcpy out of it one piece later (to the host); each memcpy cut into parts on
// the staging's thread team.
#include <algorithm>
#include <cstring>
#include <thread>

#include "cuda/common.cuh"
#include "cuda/staging.cuh"

namespace mergepath {
namespace cuda {
namespace {

// Copies go through the buffers in pieces small enough for the host's memcpy of one to
// overlap the device's copy of the other.
constexpr size_t kPiece = size_t(8) << 20;
// Threads that copy a piece into or out of its buffer (the caller and helpers), and the
// least a part is worth a helper for.
constexpr unsigned kCopyThreads = 8;
constexpr size_t kMinCopyPart = size_t(1) << 20;

unsigned copy_helpers() {
    const unsigned cores = std::thread::hardware_concurrency();
    return std::min(kCopyThreads, cores > 1 ? cores : 1u) - 1;
}

// Copies the next n bytes at `cursor` in up to `threads` parts on the team (fewer when a
// part would be under kMinCopyPart): copy(at, offset, bytes) copies the bytes from
// cursor `at`, `offset` bytes into the piece; the cursor then moves past all n.
template <class Span, class Copy>
void copy_on_team(cpu::ThreadTeam& team, SpanCursor<Span>& cursor, size_t n, int threads, Copy copy) {
    const size_t parts = std::min({size_t(team.size()), size_t(std::max(1, threads)), std::max<size_t>(1, n / kMinCopyPart)});
    if (parts == 1) {
        copy(cursor, 0, n);  // (moves the cursor itself)
        return;
    }
    team.run(parts, [&](size_t p) {
        const size_t begin = n * p / parts, end = n * (p + 1) / parts;
        SpanCursor<Span> at = cursor.advanced(begin);
        copy(at, begin, end - begin);
    });
    cursor = cursor.advanced(n);
}

}  // namespace

PinnedStaging::PinnedStaging() : team_(copy_helpers()) {}

PinnedStaging::~PinnedStaging() { release(); }

void PinnedStaging::release() noexcept {
    for (Slot& s : slots_) {
        if (s.read) {
            cudaEventSynchronize(s.read);
            cudaEventDestroy(s.read);
        }
        if (s.host) cudaFreeHost(s.host);
        s = Slot{};
    }
}

void PinnedStaging::reserve() {
    for (int i = 0; i < 2; ++i) next_slot();
}

PinnedStaging::Slot& PinnedStaging::next_slot() {
    Slot& s = slots_[next_];
    next_ ^= 1;
    if (!s.read) check(cudaEventCreateWithFlags(&s.read, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventSynchronize(s.read), "staging buffer reuse");  // its previous copy has read it
    if (!s.host) {  // made once (reserve), or at its first piece if that failed
        void* host = nullptr;
        check(cudaHostAlloc(&host, kPiece, cudaHostAllocDefault), "cudaHostAlloc (staging)");
        s.host = host;
    }
    return s;
}

// The host gathers piece i + 1 into one buffer while the device copies piece i out of
// the other (next_slot waits for that copy only when the host gets two pieces ahead).
void PinnedStaging::copy_to_device(void* dst, const HostSource* sources, size_t count, cudaStream_t stream,
                                   int host_threads) {
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += sources[i].bytes;
    char* to = static_cast<char*>(dst);
    SpanCursor<HostSource> from{sources};
    while (bytes > 0) {
        size_t n = std::min(bytes, kPiece);
        Slot& s = next_slot();
        char* buffer = static_cast<char*>(s.host);
        copy_on_team(team_, from, n, host_threads,
                     [buffer](SpanCursor<HostSource>& at, size_t offset, size_t len) { at.gather(buffer + offset, len); });
        check(cudaMemcpyAsync(to, s.host, n, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (staged)");
        check(cudaEventRecord(s.read, stream), "cudaEventRecord");
        to += n;
        bytes -= n;
    }
}

// The device copies piece i + 1 into one buffer while the host copies piece i out of
// the other into the spans.
void PinnedStaging::copy_to_host(const void* src, const HostSpan* spans, size_t count, cudaStream_t stream,
                                 int host_threads) {
    struct Piece {
        Slot* slot = nullptr;
        size_t n = 0;
    };
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += spans[i].bytes;
    const char* from = static_cast<const char*>(src);
    SpanCursor<HostSpan> to{spans};
    Piece pending;  // on its way into a buffer
    while (bytes > 0 || pending.slot) {
        Piece next;
        if (bytes > 0) {  // the buffer taken was emptied by the host one piece ago
            next.n = std::min(bytes, kPiece);
            next.slot = &next_slot();
            check(cudaMemcpyAsync(next.slot->host, from, next.n, cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync (staged)");
            check(cudaEventRecord(next.slot->read, stream), "cudaEventRecord");
            from += next.n;
            bytes -= next.n;
        }
        if (pending.slot) {
            check(cudaEventSynchronize(pending.slot->read), "staged download");
            const char* buffer = static_cast<const char*>(pending.slot->host);
            copy_on_team(team_, to, pending.n, host_threads,
                         [buffer](SpanCursor<HostSpan>& at, size_t offset, size_t len) { at.scatter(buffer + offset, len); });
        }
        pending = next;
    }
}

}  // namespace cuda
}  // namespace mergepath
