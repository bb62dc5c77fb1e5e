// staging.cu — the double-buffered pinned staging of copies between pageable host
// memory and the device (see staging.cuh): wait for a buffer's last copy (its event),
// grow it if needed, memcpy into it and cudaMemcpyAsync out of it (to the device), or
// cudaMemcpyAsync into it and memcpy out of it one piece later (to the host).
#include <algorithm>
#include <cstring>

#include "cuda/common.cuh"
#include "cuda/staging.cuh"

namespace mergepath {
namespace cuda {
namespace {

size_t slot_size(size_t bytes) {
    size_t size = size_t(1) << 20;
    while (size < bytes && size < PinnedStaging::kMaxChunk) size <<= 1;
    return size;
}

}  // namespace

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

PinnedStaging::Slot& PinnedStaging::next_slot(size_t bytes) {
    Slot& s = slots_[next_];
    next_ ^= 1;
    if (!s.read) check(cudaEventCreateWithFlags(&s.read, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventSynchronize(s.read), "staging buffer reuse");  // its previous copy has read it
    if (s.capacity < bytes) {
        if (s.host) check(cudaFreeHost(s.host), "cudaFreeHost");
        s.host = nullptr;
        s.capacity = 0;
        size_t size = slot_size(bytes);
        check(cudaHostAlloc(&s.host, size, cudaHostAllocDefault), "cudaHostAlloc (staging)");
        s.capacity = size;
    }
    return s;
}

void PinnedStaging::copy_to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    while (bytes > 0) {
        size_t chunk = bytes < kMaxChunk ? bytes : kMaxChunk;
        Slot& s = next_slot(chunk);
        std::memcpy(s.host, from, chunk);
        check(cudaMemcpyAsync(to, s.host, chunk, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (staged)");
        check(cudaEventRecord(s.read, stream), "cudaEventRecord");
        from += chunk;
        to += chunk;
        bytes -= chunk;
    }
}

namespace {

// Where the host part of a download is: the span and the offset in it.
struct SpanCursor {
    const HostSpan* spans;
    size_t span = 0, offset = 0;

    // Copies n bytes from `from` into the spans from the cursor on.
    void fill(const char* from, size_t n) {
        while (n > 0) {
            const HostSpan& s = spans[span];
            size_t take = std::min(n, s.bytes - offset);
            std::memcpy(static_cast<char*>(s.data) + offset, from, take);
            from += take;
            n -= take;
            offset += take;
            if (offset == s.bytes) {
                ++span;
                offset = 0;
            }
        }
    }
};

}  // namespace

// The device copies piece i + 1 into one buffer while the host copies piece i out of
// the other into the spans.
void PinnedStaging::copy_to_host(const void* src, const HostSpan* spans, size_t count, cudaStream_t stream) {
    constexpr size_t kPiece = size_t(8) << 20;  // small enough to overlap the two halves
    struct Piece {
        Slot* slot = nullptr;
        size_t n = 0;
    };
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += spans[i].bytes;
    const char* from = static_cast<const char*>(src);
    SpanCursor to{spans};
    Piece pending;  // on its way into a buffer
    while (bytes > 0 || pending.slot) {
        Piece next;
        if (bytes > 0) {  // the buffer taken was emptied by the host one piece ago
            next.n = std::min(bytes, kPiece);
            next.slot = &next_slot(next.n);
            check(cudaMemcpyAsync(next.slot->host, from, next.n, cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync (staged)");
            check(cudaEventRecord(next.slot->read, stream), "cudaEventRecord");
            from += next.n;
            bytes -= next.n;
        }
        if (pending.slot) {
            check(cudaEventSynchronize(pending.slot->read), "staged download");
            to.fill(static_cast<const char*>(pending.slot->host), pending.n);
        }
        pending = next;
    }
}

}  // namespace cuda
}  // namespace mergepath
