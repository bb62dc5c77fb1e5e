// staging.cuh — pinned host staging for the CUDA backend's copies between pageable host
// memory and the device: the runs the stage ships while it reads (ship_run.cu), and
// large downloads (results into shared memory), which the driver would otherwise move
// at pageable speed. Two page-locked buffers of 8 MB are used in turn (double
// buffering), a piece of the copy in each:
//  - to the device: the host gathers the next piece of its pageable sources into the next
//    buffer, queues cudaMemcpyAsync out of it on the stream and records an event after
//    that copy; the buffer is written again only once its event has completed, so the
//    host waits only when it gets two pieces ahead of the device;
//  - to the host: the device copies the next piece into one buffer while the host
//    memcpy's the previous piece out of the other into the spans.
// Either way the host's memcpy of a piece is cut into parts on up to kCopyThreads
// threads (a kept team: cpu/thread_team.h), since one thread's memcpy to or from shared
// memory (6-7 GB/s measured) is far slower than the PCIe copy: a run still to ship when
// the reading ends (up to ship_rows keys and their values per side) is on the query's
// critical path, every other participant waiting.
//
// One PinnedStaging belongs to each CUDA context (it lives in the device's pool
// allocator, runtime.cu: staging_of), so its buffers are reused by every pipeline on
// that context, query after query, until the context closes: 16 MB page-locked,
// which cudaHostAlloc takes 3-4 ms per buffer to make (measured on the H200 host), too
// much to pay again in every query. reserve() makes them when the context opens. Pinned
// host memory is not counted in the context's GPU budget; a failed cudaHostAlloc throws
// OutOfMemory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cpu/thread_team.h"
#include "mergepath/context.h"
#include "span_cursor.h"

namespace mergepath {
namespace cuda {

class PinnedStaging {
public:
    PinnedStaging();
    ~PinnedStaging();  // release()
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;

    // Copies the pageable host sources, one after another, to device memory `dst`,
    // ordered on `stream`. Returns once they have been read (they may be reused), before
    // the device has the data. Each piece is gathered into its buffer on up to
    // host_threads threads (as copy_to_host's).
    void copy_to_device(void* dst, const HostSource* sources, size_t count, cudaStream_t stream, int host_threads);

    // Copies consecutive bytes from device memory `src` into the pageable host spans, in
    // order, after the work queued on `stream`; returns when the spans hold them. Each
    // piece is copied out of its buffer on up to host_threads threads (the context's
    // CPU threads: pg_mergepath.cpu_threads), at most kCopyThreads.
    void copy_to_host(const void* src, const HostSpan* spans, size_t count, cudaStream_t stream, int host_threads);

    // Makes both buffers now rather than at the first copies.
    void reserve();

    // Waits for copies still reading the buffers and frees them (they are allocated
    // again by the next copy); the destructor calls it.
    void release() noexcept;

private:
    struct Slot {
        void* host = nullptr;        // page-locked buffer of a piece (8 MB)
        cudaEvent_t read = nullptr;  // recorded after the last copy out of host
    };
    Slot& next_slot();  // the next buffer, free (its last copy done), made if need be

    Slot slots_[2];
    int next_ = 0;
    cpu::ThreadTeam team_;
};

// The staging of a CUDA context (runtime.cu).
PinnedStaging& staging_of(Context& ctx);

}  // namespace cuda
}  // namespace mergepath
