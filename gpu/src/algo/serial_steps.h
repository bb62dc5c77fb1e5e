// serial_steps.h — the serial step of every partitioned operation: what one thread
// (GPU) or one chunk (CPU) does after its range was found by Merge Path or Balanced
// Path. A step looks at the next A and B element of the range, consumes one or both,
// and emits at most one output. The CUDA kernels unroll VT steps over shared memory;
// the CPU backend loops until the range is exhausted. Both call these functions.
//
// The read positions live in a Cursor that keeps the keys under them cached (in
// registers on the GPU), so each step loads only the element it advances to.
// Merge and the multiset step also come in branch-free forms with the same outputs:
// on an InteriorCursor (CPU chunk interiors, no bounds checks) and on a FlagCursor
// (GPU tiles, where a warp's threads then do not diverge); the backends pick the form
// their measurements favour (bench/RESULTS.md).
#pragma once

#include "algo/path_search.h"
#include "mergepath/types.h"

namespace mergepath {
namespace algo {

// Read positions [ai, a_end) of A and [bi, b_end) of B, with the current keys cached.
// AKeys / BKeys are pointers or anything indexable; V is their value type.
template <class AKeys, class BKeys, class V, class I>
struct Cursor {
    AKeys a;
    BKeys b;
    I ai, a_end, bi, b_end;
    V a_key, b_key;

    MP_HD Cursor(AKeys a_, I ai_, I a_end_, BKeys b_, I bi_, I b_end_)
        : a(a_), b(b_), ai(ai_), a_end(a_end_), bi(bi_), b_end(b_end_), a_key(), b_key() {
        if (ai < a_end) a_key = a[ai];
        if (bi < b_end) b_key = b[bi];
    }
    MP_HD bool has_a() const { return ai < a_end; }
    MP_HD bool has_b() const { return bi < b_end; }
    MP_HD bool done() const { return ai >= a_end && bi >= b_end; }
    MP_HD I take_a() {
        I p = ai++;
        if (ai < a_end) a_key = a[ai];
        return p;
    }
    MP_HD I take_b() {
        I p = bi++;
        if (bi < b_end) b_key = b[bi];
        return p;
    }
};

template <class K, class I>
MP_HD Cursor<const K*, const K*, K, I> make_cursor(const K* a, I ai, I a_end, const K* b, I bi, I b_end) {
    return Cursor<const K*, const K*, K, I>(a, ai, a_end, b, bi, b_end);
}

// A cursor for the interior of a range (CPU backend): the caller takes a step only
// while both sides have at least one element after the current one, so a step can
// advance both positions by flags and reload both keys without bounds checks (the
// branch-free steps below). The range's last elements are then stepped through with
// a Cursor and the ordinary steps.
template <class K, class I>
struct InteriorCursor {
    const K* a;
    const K* b;
    I ai, bi;
    K a_key, b_key;

    MP_HD InteriorCursor(const K* a_, I ai_, const K* b_, I bi_)
        : a(a_), b(b_), ai(ai_), bi(bi_), a_key(a_[ai_]), b_key(b_[bi_]) {}
    MP_HD void advance(bool take_a, bool take_b) {
        ai += take_a;
        bi += take_b;
        a_key = a[ai];
        b_key = b[bi];
    }
};

// One output of a step: the emitted key and its position within its input (A or B).
template <class V, class I>
struct Emit {
    V key;
    I pos;
    bool from_b;
};

// Merge step (A before B on ties): consumes and emits one element. Not for a done cursor.
template <class C, class V, class I>
MP_HD void merge_step(C& c, Emit<V, I>& out) {
    bool take_a = !c.has_b() || (c.has_a() && !(c.b_key < c.a_key));
    if (take_a) {
        out.key = c.a_key;
        out.pos = c.take_a();
        out.from_b = false;
    } else {
        out.key = c.b_key;
        out.pos = c.take_b();
        out.from_b = true;
    }
}

// Multiset step with std::set_* semantics. Elements only in A are emitted by
// Difference, Union and SymmetricDifference; only in B by Union and
// SymmetricDifference; an equal pair (consumed together) by Intersection and Union,
// which emit the A element. Returns false when the step emits nothing.
template <SetOp Op, class C, class V, class I>
MP_HD bool set_op_step(C& c, Emit<V, I>& out) {
    bool has_a = c.has_a(), has_b = c.has_b();
    if (has_a && (!has_b || c.a_key < c.b_key)) {
        out.key = c.a_key;
        out.pos = c.take_a();
        out.from_b = false;
        return Op != SetOp::Intersection;
    }
    if (has_b && (!has_a || c.b_key < c.a_key)) {
        out.key = c.b_key;
        out.pos = c.take_b();
        out.from_b = true;
        return Op == SetOp::Union || Op == SetOp::SymmetricDifference;
    }
    if (!has_a) return false;  // both exhausted
    out.key = c.a_key;
    out.pos = c.take_a();
    out.from_b = false;
    c.take_b();
    return Op == SetOp::Intersection || Op == SetOp::Union;
}

// Branch-free forms of merge_step and set_op_step for an InteriorCursor (CPU
// backend, where a mispredicted branch per element costs more than the step): both
// comparisons are made, the candidate output is selected, and the positions advance
// by flags. Same outputs, in the same order, as the branching steps; they return
// whether `out` is an output, and the caller stores it unconditionally and advances
// its output position by that flag.
template <class K, class I>
MP_HD bool merge_step_select(InteriorCursor<K, I>& c, Emit<K, I>& out) {
    bool take_b = c.b_key < c.a_key;
    out.key = take_b ? c.b_key : c.a_key;
    out.pos = take_b ? c.bi : c.ai;
    out.from_b = take_b;
    c.advance(!take_b, take_b);
    return true;
}

template <SetOp Op, class K, class I>
MP_HD bool set_op_step_select(InteriorCursor<K, I>& c, Emit<K, I>& out) {
    bool a_less = c.a_key < c.b_key, b_less = c.b_key < c.a_key;  // neither: an equal pair
    out.key = b_less ? c.b_key : c.a_key;  // an equal pair emits its A element
    out.pos = b_less ? c.bi : c.ai;
    out.from_b = b_less;
    bool emit = Op == SetOp::Intersection ? !a_less && !b_less
                : Op == SetOp::Difference ? a_less
                : Op == SetOp::Union      ? true
                                          : a_less || b_less;
    c.advance(!b_less, !a_less);
    return emit;
}

// A bounded cursor whose steps advance by flags and reload both keys without a
// branch (GPU tiles in shared memory): the caller guarantees that a[a_end] and
// b[b_end] are readable (their values are never used).
template <class K, class I>
struct FlagCursor {
    const K* a;
    const K* b;
    I ai, a_end, bi, b_end;
    K a_key, b_key;

    MP_HD FlagCursor(const K* a_, I ai_, I a_end_, const K* b_, I bi_, I b_end_)
        : a(a_), b(b_), ai(ai_), a_end(a_end_), bi(bi_), b_end(b_end_), a_key(a_[ai_]), b_key(b_[bi_]) {}
    MP_HD bool has_a() const { return ai < a_end; }
    MP_HD bool has_b() const { return bi < b_end; }
    MP_HD bool done() const { return ai >= a_end && bi >= b_end; }
    MP_HD void advance(bool take_a, bool take_b) {
        ai += take_a;
        bi += take_b;
        a_key = a[ai];
        b_key = b[bi];
    }
};

// set_op_step for a FlagCursor: the same outputs, computed as flags (no divergent
// branches within a warp); false once the cursor is done.
template <SetOp Op, class K, class I>
MP_HD bool set_op_step_flags(FlagCursor<K, I>& c, Emit<K, I>& out) {
    bool has_a = c.has_a(), has_b = c.has_b();
    bool a_less = has_a && (!has_b || c.a_key < c.b_key);
    bool b_less = has_b && (!has_a || c.b_key < c.a_key);
    bool pair = has_a && has_b && !a_less && !b_less;
    out.key = b_less ? c.b_key : c.a_key;
    out.pos = b_less ? c.bi : c.ai;
    out.from_b = b_less;
    bool emit = Op == SetOp::Intersection ? pair
                : Op == SetOp::Difference ? a_less
                : Op == SetOp::Union      ? a_less || b_less || pair
                                          : a_less || b_less;
    c.advance(a_less || pair, b_less || pair);
    return emit;
}

// Sorted-search step: walks needles A through haystack B in merge order. With
// Ties::AFirst a needle is consumed before equal haystack elements, so the haystack
// position at that moment is its lower bound; with Ties::BFirst it is its upper
// bound. Returns true when needle `pos` was consumed (its bound in `bound`), false
// when haystack element `pos` was. Not for a done cursor.
template <Ties T, class C, class I>
MP_HD bool search_step(C& c, I& pos, I& bound) {
    bool take_a = !c.has_b() ||
                  (c.has_a() && (T == Ties::AFirst ? !(c.b_key < c.a_key) : c.a_key < c.b_key));
    if (take_a) {
        bound = c.bi;
        pos = c.take_a();
        return true;
    }
    pos = c.take_b();
    return false;
}

}  // namespace algo
}  // namespace mergepath
