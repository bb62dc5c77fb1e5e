// serial_steps.h — the serial step of every partitioned operation: what one thread
// (GPU) or one chunk (CPU) does after its range was found by Merge Path or Balanced
// Path. A step looks at the next A and B element of the range, consumes one or both,
// and emits at most one output. The CUDA kernels unroll VT steps over shared memory;
// the CPU backend loops until the range is exhausted. Both call these functions.
#pragma once

#include "algo/path_search.h"
#include "mergepath/types.h"

namespace mergepath {
namespace algo {

// One output of a step: the position of the emitted element within its input
// (A or B) of the range being processed.
template <class I>
struct Emit {
    I pos;
    bool from_b;
};

// Merge step (A before B on ties): consumes and emits exactly one element.
template <class K, class I>
MP_HD Emit<I> merge_step(const K* a, I& ai, I a_end, const K* b, I& bi, I b_end) {
    bool take_a = bi >= b_end || (ai < a_end && !(b[bi] < a[ai]));
    if (take_a) return {ai++, false};
    return {bi++, true};
}

// Multiset step with std::set_* semantics. Elements only in A are emitted by
// Difference, Union and SymmetricDifference; only in B by Union and
// SymmetricDifference; an equal pair (consumed together) by Intersection and Union,
// which emit the A element. Returns false when the step emits nothing.
template <SetOp Op, class K, class I>
MP_HD bool set_op_step(const K* a, I& ai, I a_end, const K* b, I& bi, I b_end, Emit<I>& out) {
    bool has_a = ai < a_end;
    bool has_b = bi < b_end;
    if (has_a && (!has_b || a[ai] < b[bi])) {
        out = {ai++, false};
        return Op != SetOp::Intersection;
    }
    if (has_b && (!has_a || b[bi] < a[ai])) {
        out = {bi++, true};
        return Op == SetOp::Union || Op == SetOp::SymmetricDifference;
    }
    if (!has_a) return false;  // both exhausted
    out = {ai++, false};
    ++bi;
    return Op == SetOp::Intersection || Op == SetOp::Union;
}

// Sorted-search step: walks needles A through haystack B in merge order. With
// Ties::AFirst a needle is consumed before equal haystack elements, so `bi` at that
// moment is its lower bound; with Ties::BFirst it is its upper bound. Returns true
// when needle `pos` was consumed (its bound in `bound`), false when haystack element
// `pos` was consumed. A and B are anything indexable (see Counting).
template <Ties T, class AKeys, class BKeys, class I>
MP_HD bool search_step(const AKeys& a, I& ai, I a_end, const BKeys& b, I& bi, I b_end, I& pos, I& bound) {
    bool take_a = bi >= b_end ||
                  (ai < a_end && (T == Ties::AFirst ? !(b[bi] < a[ai]) : a[ai] < b[bi]));
    if (take_a) {
        pos = ai++;
        bound = bi;
        return true;
    }
    pos = bi++;
    return false;
}

}  // namespace algo
}  // namespace mergepath
