// ship_run.cu — one run of the sorted-sides stage shipped to the GPU without waiting
// (see ship_run.h): the host slices go one after another through the context's pinned
// staging buffers into fresh device memory (their values too, when they carry them;
// else row numbers are generated on the device),
// and CUB's radix sort (sort_into) orders them into the run's buffers. Everything is
// queued on the context's stream; the unsorted copies are returned to the
// stream-ordered pool right away, which is safe because the pool reuses memory only
// in stream order. Nothing here synchronizes.
#include <vector>

#include "backends.h"
#include "cuda/for_each.cuh"
#include "cuda/sort.cuh"
#include "cuda/staging.cuh"
#include "ship_run.h"

namespace mergepath {
namespace cuda {
namespace {

struct RowNumbers {
    uint64_t* rows;
    uint64_t first;
    __device__ void operator()(int64_t i) const { rows[i] = first + uint64_t(i); }
};

template <class K>
DeviceRun<K> allocate_run(Context& ctx, size_t n, bool with_rows) {
    DeviceRun<K> r;
    r.keys = ctx.alloc<K>(n);
    if (with_rows) r.rows = ctx.alloc<uint64_t>(n);
    return r;
}

}  // namespace

template <class K>
DeviceRun<K> ship_run(Context& ctx, const HostSlice<K>* slices, size_t count, uint64_t first_row, bool with_rows) {
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) n += slices[i].n;
    // Everything is allocated first: a budget failure throws before any copy is queued.
    std::vector<HostSource> sources(count), values(count);
    for (size_t i = 0; i < count; ++i) {
        sources[i] = {slices[i].keys, slices[i].n * sizeof(K)};
        values[i] = {slices[i].values, slices[i].n * sizeof(uint64_t)};
    }
    const bool carries_values = with_rows && count > 0 && slices[0].values;
    DeviceRun<K> unsorted = allocate_run<K>(ctx, n, with_rows);
    DeviceRun<K> run = n > 1 ? allocate_run<K>(ctx, n, with_rows) : DeviceRun<K>();
    PinnedStaging& staging = staging_of(ctx);
    staging.copy_to_device(unsorted.keys.data(), sources.data(), count, stream_of(ctx), ctx.cpu_threads());
    if (carries_values)
        staging.copy_to_device(unsorted.rows.data(), values.data(), count, stream_of(ctx), ctx.cpu_threads());
    else if (with_rows) for_each_index(ctx, int64_t(n), RowNumbers{unsorted.rows.data(), first_row}, "row numbers");
    if (n < 2) return unsorted;
    sort_into<K>(ctx, unsorted.keys.data(), run.keys.data(), unsorted.rows.data(), run.rows.data(), n);
    return run;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_SHIP_RUN)

}  // namespace cuda
}  // namespace mergepath
