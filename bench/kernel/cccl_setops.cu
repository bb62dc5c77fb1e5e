// cccl_setops.cu — CCCL baselines for the multiset operations: thrust::set_intersection,
// set_difference, set_union and set_symmetric_difference on device pointers.
#include <thrust/set_operations.h>

#include "bench.h"
#include "cccl_cache.cuh"

namespace bench {

template <class K>
size_t thrust_set_op(mergepath::SetOp op, const K* a, size_t na, const K* b, size_t nb, K* out, cudaStream_t s) {
    auto p = thrust_policy(s);
    K* end = out;
    switch (op) {
        case mergepath::SetOp::Intersection: end = thrust::set_intersection(p, a, a + na, b, b + nb, out); break;
        case mergepath::SetOp::Difference: end = thrust::set_difference(p, a, a + na, b, b + nb, out); break;
        case mergepath::SetOp::Union: end = thrust::set_union(p, a, a + na, b, b + nb, out); break;
        case mergepath::SetOp::SymmetricDifference:
            end = thrust::set_symmetric_difference(p, a, a + na, b, b + nb, out);
            break;
    }
    return size_t(end - out);
}

template size_t thrust_set_op<uint32_t>(mergepath::SetOp, const uint32_t*, size_t, const uint32_t*, size_t,
                                        uint32_t*, cudaStream_t);
template size_t thrust_set_op<uint64_t>(mergepath::SetOp, const uint64_t*, size_t, const uint64_t*, size_t,
                                        uint64_t*, cudaStream_t);

}  // namespace bench
