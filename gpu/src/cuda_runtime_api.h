// cuda_runtime_api.h — what the backend-neutral front end needs from the CUDA
// backend: probing for a usable device, its allocator and stream, and copies.
// Implemented in cuda/runtime.cu, or in nocuda/runtime.cpp when built without CUDA.
#pragma once

#include <memory>
#include <string>

#include "allocator.h"

namespace mergepath {
namespace detail {

struct CudaDevice {
    std::unique_ptr<BudgetedAllocator> allocator;
    void* stream = nullptr;  // cudaStream_t
    std::string name;
    size_t memory_bytes = 0;  // the device's global memory
};

bool cuda_probe(int device, std::string* why_not);
CudaDevice cuda_open(int device);  // throws NoDevice
void cuda_close(CudaDevice& device) noexcept;
// A synchronous upload.
void cuda_copy_in(CudaDevice& device, void* dst, const void* src, size_t bytes);
// A synchronous download of consecutive device bytes into host spans; large ones go
// through the device's pinned staging buffers (copied out of them on up to host_threads).
void cuda_copy_out(CudaDevice& device, const void* src, const HostSpan* spans, size_t count, int host_threads);

}  // namespace detail
}  // namespace mergepath
