// sort.cuh — the CUDA backend's radix sort as a building block: sort_into orders n
// keys (with their rows when rows_in is given) from one device array into another,
// queued on the context's stream, and returns without waiting (its scratch goes back
// to the stream-ordered pool). sort.cu implements it with CUB and builds the in-place
// sort_pairs / sort_keys on it; ship_run.cu sorts each shipped run with it.
#pragma once

#include <cstdint>

#include "mergepath/context.h"

namespace mergepath {
namespace cuda {

template <class K>
void sort_into(Context& ctx, const K* keys_in, K* keys_out, const uint64_t* rows_in, uint64_t* rows_out, size_t n);

}  // namespace cuda
}  // namespace mergepath
