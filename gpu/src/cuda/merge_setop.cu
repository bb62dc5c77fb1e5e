// merge_setop.cu — CUDA backend of merge (Merge Path, ties A-first) and the four
// multiset operations (Balanced Path + the flag form of the serial set step); both
// are the select kernel with a different path and serial step. Outputs are allocated
// for the largest possible result; TaggedResult::count says how many were written.
#include "backends.h"
#include "cuda/select_kernel.cuh"

namespace mergepath {
namespace cuda {
namespace {

template <class K>
TaggedResult<K> allocate_tagged(Context& ctx, size_t capacity, Outputs want) {
    TaggedResult<K> r;
    if (want.keys) r.keys = ctx.alloc<K>(capacity);
    if (want.indices) r.indices = ctx.alloc<uint64_t>(capacity);
    return r;
}

// The flag form of the serial step (no divergent branches in a warp): the H100
// measured it as fast as the branching form or faster for every operation at the
// tuned boxes (bench/RESULTS.md; bench/tune compares the two).
template <SetOp Op, class K>
size_t launch_set_op(Context& ctx, View<const K> a, View<const K> b, TaggedOut<K> out) {
    return run_select<BalancedPathKind, SetOpFlagStep<Op>, true>(ctx, a.data, a.size, b.data, b.size, out);
}

size_t set_op_capacity(SetOp op, size_t na, size_t nb) {
    switch (op) {
        case SetOp::Intersection: return na < nb ? na : nb;
        case SetOp::Difference: return na;
        default: return na + nb;
    }
}

}  // namespace

template <class K>
TaggedResult<K> merge(Context& ctx, View<const K> a, View<const K> b, Outputs want) {
    TaggedResult<K> r = allocate_tagged<K>(ctx, a.size + b.size, want);
    TaggedOut<K> out{r.keys.data(), r.indices.data()};
    r.count = run_select<MergePathKind<algo::Ties::AFirst>, MergeStep, false, K, MergeBox<K>>(ctx, a.data, a.size, b.data,
                                                                                           b.size, out);
    return r;
}

template <class K>
TaggedResult<K> set_op(Context& ctx, SetOp op, View<const K> a, View<const K> b, Outputs want) {
    TaggedResult<K> r = allocate_tagged<K>(ctx, set_op_capacity(op, a.size, b.size), want);
    TaggedOut<K> out{r.keys.data(), r.indices.data()};
    switch (op) {
        case SetOp::Intersection: r.count = launch_set_op<SetOp::Intersection>(ctx, a, b, out); break;
        case SetOp::Difference: r.count = launch_set_op<SetOp::Difference>(ctx, a, b, out); break;
        case SetOp::Union: r.count = launch_set_op<SetOp::Union>(ctx, a, b, out); break;
        case SetOp::SymmetricDifference: r.count = launch_set_op<SetOp::SymmetricDifference>(ctx, a, b, out); break;
    }
    return r;
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_MERGE_SET_OP)

}  // namespace cuda
}  // namespace mergepath
