// ship_run.h — the CUDA backend's step of the SQL pipeline's run building
// (sorted_runs.cpp): a slice of host keys shipped to the GPU as one sorted run
// without waiting for it. Implemented in cuda/ship_run.cu (nocuda/ops.cpp without nvcc).
#pragma once

#include <cstdint>

#include "mergepath/context.h"

namespace mergepath {
namespace cuda {

// A run in device memory: keys ascending, each with its row (rows empty for keys only).
template <class K>
struct DeviceRun {
    Buffer<K> keys;
    Buffer<uint64_t> rows;
};

// Queues on the context's stream: host_keys[0, n) copied to the device through the
// pinned staging buffers, then radix-sorted, stably, with a row per key when
// with_rows: host_rows[i] when host_rows is given (copied too), else first_row + i
// (made on the device). Returns once host_keys and host_rows may be reused, without
// waiting for the copy or the sort. Throws OutOfMemory when the budget, the device or
// the pinned host memory is exhausted.
template <class K>
DeviceRun<K> ship_run(Context& ctx, const K* host_keys, const uint64_t* host_rows, size_t n, uint64_t first_row,
                      bool with_rows);

#define MERGEPATH_INSTANTIATE_SHIP_RUN(K) \
    template DeviceRun<K> ship_run<K>(Context&, const K*, const uint64_t*, size_t, uint64_t, bool);

}  // namespace cuda
}  // namespace mergepath
