// ship_run.h — the CUDA backend's step of the sorted-sides stage's run building
// (sorted_runs.cpp): slices of host keys shipped to the GPU as one sorted run without
// waiting for it. Implemented in cuda/ship_run.cu (nocuda/ops.cpp without nvcc).
#pragma once

#include <cstdint>

#include "mergepath/context.h"

namespace mergepath {

// A stretch of keys in host memory that a stage holds (its own copy or a caller's
// chunk it reads in place).
template <class K>
struct HostSlice {
    const K* keys = nullptr;
    size_t n = 0;
    const uint64_t* values = nullptr;  // what each key carries instead of its row number, or none
};

namespace cuda {

// A run in device memory: keys ascending, each with its row (rows empty for keys only).
template <class K>
struct DeviceRun {
    Buffer<K> keys;
    Buffer<uint64_t> rows;
};

// Queues on the context's stream: the slices' keys, concatenated, copied to the device
// through the pinned staging buffers, then radix-sorted, stably, with row numbers
// first_row, first_row + 1, ... in concatenated order when with_rows (made on the
// device), or with the slices' values when they carry them (copied like the keys). Returns once the slices may be reused, without waiting for the copy or the
// sort. Throws OutOfMemory when the budget, the device or the pinned host memory is
// exhausted (nothing is queued then).
template <class K>
DeviceRun<K> ship_run(Context& ctx, const HostSlice<K>* slices, size_t count, uint64_t first_row, bool with_rows);

#define MERGEPATH_INSTANTIATE_SHIP_RUN(K) \
    template DeviceRun<K> ship_run<K>(Context&, const HostSlice<K>*, size_t, uint64_t, bool);

}  // namespace cuda
}  // namespace mergepath
