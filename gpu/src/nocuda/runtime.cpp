// runtime.cpp (no CUDA) — the CUDA backend's entry points for a build without nvcc:
// no device is ever usable, so "auto" always resolves to the CPU backend.
#include "cuda_runtime_api.h"

namespace mergepath {
namespace detail {

bool cuda_probe(int, std::string* why_not) {
    if (why_not) *why_not = "pg_mergepath was built without CUDA support";
    return false;
}

CudaDevice cuda_open(int) { throw NoDevice("mergepath: built without CUDA support"); }

void cuda_close(CudaDevice&) noexcept {}

void cuda_copy_in(CudaDevice&, void*, const void*, size_t) { throw NoDevice("mergepath: built without CUDA support"); }

void cuda_copy_out(CudaDevice&, const void*, const HostSpan*, size_t, int) {
    throw NoDevice("mergepath: built without CUDA support");
}

}  // namespace detail
}  // namespace mergepath
