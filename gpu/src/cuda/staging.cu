// staging.cu — the double-buffered pinned staging of host-to-device copies (see
// staging.cuh): wait for a buffer's last copy (its event), grow it if needed,
// memcpy into it, cudaMemcpyAsync out of it, record its event.
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

}  // namespace cuda
}  // namespace mergepath
