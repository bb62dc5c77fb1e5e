// runtime.cu — the CUDA backend's device handling: probing for a usable device
// (quietly: a machine without a driver only yields a reason string), opening one
// (stream + stream-ordered memory pool that keeps freed memory cached, so no
// cudaMalloc per call), the pool-backed budgeted allocator, which also keeps the
// context's pinned staging buffers (staging.cuh), and host copies (large downloads
// through those buffers).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/common.cuh"
#include "cuda/staging.cuh"
#include "cuda_runtime_api.h"

namespace mergepath {
namespace detail {
namespace {

// The device memory of one context's stream, and the pinned host buffers its
// asynchronous uploads are staged through.
class CudaPoolAllocator final : public BudgetedAllocator {
public:
    CudaPoolAllocator(cudaStream_t stream, cudaMemPool_t pool) : stream_(stream), pool_(pool) {}
    cuda::PinnedStaging& staging() { return staging_; }

protected:
    // The pool keeps its device memory cached, unless the memory is reserved in a shared
    // ledger that did not let it keep it: then other contexts (other processes) are to
    // get the device memory given back to the ledger, so the pool returns it to the
    // device. The pinned staging stays (staging.cuh: it is small and slow to make).
    void drop_cached(bool keep_pool) noexcept override {
        if (!has_ledger() || keep_pool) return;
        cudaStreamSynchronize(stream_);  // frees on the stream have reached the pool
        cudaMemPoolTrimTo(pool_, 0);
        cudaGetLastError();
    }
    void* raw_allocate(size_t bytes) override {
        void* p = nullptr;
        cudaError_t status = cudaMallocAsync(&p, bytes, stream_);
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            return nullptr;
        }
        cuda::check(status, "cudaMallocAsync");
        return p;
    }
    void raw_release(void* p, size_t) noexcept override { cudaFreeAsync(p, stream_); }
    std::string space_name() const override { return "GPU"; }

private:
    cudaStream_t stream_;
    cudaMemPool_t pool_;
    cuda::PinnedStaging staging_;
};

}  // namespace

bool cuda_probe(int device, std::string* why_not) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        if (why_not) *why_not = std::string("no usable CUDA driver/device: ") + cudaGetErrorString(status);
        return false;
    }
    if (device >= count) {
        if (why_not) *why_not = "CUDA device " + std::to_string(device) + " not present (" + std::to_string(count) + " found)";
        return false;
    }
    if (why_not) why_not->clear();
    return true;
}

CudaDevice cuda_open(int device) {
    std::string why;
    if (!cuda_probe(device, &why)) throw NoDevice("mergepath: " + why);
    cuda::check(cudaSetDevice(device), "cudaSetDevice");
    cudaMemPool_t pool;
    cuda::check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    uint64_t keep_all = UINT64_MAX;  // keep freed blocks cached in the pool
    cuda::check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all), "cudaMemPoolSetAttribute");
    cudaStream_t stream;
    cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaDeviceProp prop;
    cuda::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    CudaDevice d;
    d.stream = stream;
    auto* allocator = new CudaPoolAllocator(stream, pool);
    d.allocator.reset(allocator);
    try {
        allocator->staging().reserve();
    } catch (const Error&) {  // none now: the first large copy tries again (and reports a failure)
        cudaGetLastError();
    }
    d.name = prop.name;
    d.memory_bytes = prop.totalGlobalMem;
    return d;
}

void cuda_close(CudaDevice& device) noexcept {
    if (!device.stream) return;
    cudaStream_t stream = static_cast<cudaStream_t>(device.stream);
    cudaStreamSynchronize(stream);
    device.allocator.reset();
    cudaStreamDestroy(stream);
    device.stream = nullptr;
}

void cuda_copy_in(CudaDevice& device, void* dst, const void* src, size_t bytes) {
    cudaStream_t s = static_cast<cudaStream_t>(device.stream);
    cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

void cuda_copy_out(CudaDevice& device, const void* src, const HostSpan* spans, size_t count, int host_threads) {
    constexpr size_t kStagedDownload = size_t(1) << 20;  // pageable downloads run at a fraction of PCIe speed
    cudaStream_t s = static_cast<cudaStream_t>(device.stream);
    size_t bytes = 0;
    for (size_t i = 0; i < count; ++i) bytes += spans[i].bytes;
    if (bytes >= kStagedDownload) {
        static_cast<CudaPoolAllocator*>(device.allocator.get())->staging().copy_to_host(src, spans, count, s, host_threads);
        return;
    }
    const char* from = static_cast<const char*>(src);
    for (size_t i = 0; i < count; from += spans[i++].bytes)
        cuda::check(cudaMemcpyAsync(spans[i].data, from, spans[i].bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
    cuda::check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

}  // namespace detail

namespace cuda {

PinnedStaging& staging_of(Context& ctx) {
    auto* pool = dynamic_cast<detail::CudaPoolAllocator*>(&ctx.allocator());
    if (!pool) throw Error("mergepath: pinned staging needs a CUDA context");
    return pool->staging();
}

}  // namespace cuda
}  // namespace mergepath
