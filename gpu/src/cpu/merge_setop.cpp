// merge_setop.cpp — CPU backend of Merge Path merge and the Balanced Path multiset
// operations. The path is cut into chunks (cut_path); each chunk runs the same serial
// step as a GPU thread (algo/serial_steps.h). Merge writes at the chunk's diagonal;
// the set operations run each chunk once into scratch space, learn its output offset
// by a chained scan (the CPU form of the GPU's decoupled look-back) and copy it into
// place while it is still in cache.
#include <algorithm>

#include "algo/path_search.h"
#include "algo/serial_steps.h"
#include "backends.h"
#include "cpu/parallel.h"

namespace mergepath {
namespace cpu {
namespace {

template <class K>
TaggedResult<K> allocate_tagged(Context& ctx, size_t count, Outputs want) {
    TaggedResult<K> r;
    r.count = count;
    if (want.keys) r.keys = ctx.alloc<K>(count);
    if (want.indices) r.indices = ctx.alloc<uint64_t>(count);
    return r;
}

template <class K>
void write_tagged(TaggedResult<K>& r, size_t o, const algo::Emit<K, size_t>& e) {
    if (r.keys.data()) r.keys.data()[o] = e.key;
    if (r.indices.data()) r.indices.data()[o] = e.from_b ? (e.pos | kFromB) : e.pos;
}

// Runs a chunk's serial steps, storing its outputs from position o; returns the end
// position. While both sides have an element after the current one, the branch-free
// step runs on an interior cursor and every candidate is stored (the position only
// advances for real outputs); the last elements take the ordinary checked step.
template <class K, class SelectStep, class Step>
size_t run_chunk(const K* a, const K* b, const PathChunk& ch, size_t o, TaggedResult<K>& r, SelectStep select_step,
                 Step step) {
    algo::Emit<K, size_t> e;
    size_t ai = ch.a0, bi = ch.b0;
    if (ai < ch.a1 && bi < ch.b1) {
        algo::InteriorCursor<K, size_t> c(a, ai, b, bi);
        while (c.ai + 1 < ch.a1 && c.bi + 1 < ch.b1) {
            bool emitted = select_step(c, e);
            write_tagged(r, o, e);
            o += emitted;
        }
        ai = c.ai;
        bi = c.bi;
    }
    auto c = algo::make_cursor(a, ai, ch.a1, b, bi, ch.b1);
    while (!c.done())
        if (step(c, e)) write_tagged(r, o++, e);
    return o;
}

// Runs the chunk's serial steps, writing its outputs from position o; returns how many.
template <SetOp Op, class K>
size_t write_set_op(const K* a, const K* b, const PathChunk& ch, size_t o, TaggedResult<K>& r) {
    size_t end = run_chunk(
        a, b, ch, o, r, [](auto& c, auto& e) { return algo::set_op_step_select<Op>(c, e); },
        [](auto& c, auto& e) { return algo::set_op_step<Op>(c, e); });
    return end - o;
}

template <class K>
void copy_tagged(const TaggedResult<K>& from, size_t from_pos, size_t n, TaggedResult<K>& to, size_t to_pos) {
    if (from.keys.data()) std::copy_n(from.keys.data() + from_pos, n, to.keys.data() + to_pos);
    if (from.indices.data()) std::copy_n(from.indices.data() + from_pos, n, to.indices.data() + to_pos);
}

// Largest possible output of the operation (the buffers are allocated before the
// count is known, as on the GPU).
size_t set_op_capacity(SetOp op, size_t na, size_t nb) {
    switch (op) {
        case SetOp::Intersection: return std::min(na, nb);
        case SetOp::Difference: return na;
        default: return na + nb;
    }
}

// Each chunk finds its own range (Balanced Path, in parallel), runs its serial steps
// once into scratch space at its diagonal (a chunk emits at most what it consumes),
// and copies the result to its final place once the chained scan gives its offset:
// the scratch is still in cache then, and the inputs are read and stepped through once.
template <SetOp Op, class K>
TaggedResult<K> run_set_op(Context& ctx, View<const K> a, View<const K> b, Outputs want) {
    size_t total = a.size + b.size, chunks = cache_chunk_count(ctx, total);
    auto split = [&](size_t d) {
        auto p = algo::balanced_path(a.data, a.size, b.data, b.size, d);
        return PathPoint{p.a, p.b(d)};
    };
    TaggedResult<K> scratch = allocate_tagged<K>(ctx, total, want);
    TaggedResult<K> r = allocate_tagged<K>(ctx, set_op_capacity(Op, a.size, b.size), want);
    std::vector<size_t> counts(chunks), diag0(chunks);
    r.count = parallel_chained_scan(
        ctx, chunks,
        [&](size_t i) {
            PathChunk ch = path_chunk(total, chunks, i, split);
            diag0[i] = ch.diag0;
            return counts[i] = write_set_op<Op>(a.data, b.data, ch, ch.diag0, scratch);
        },
        [&](size_t i, size_t offset) { copy_tagged(scratch, diag0[i], counts[i], r, offset); });
    return r;
}

}  // namespace

template <class K>
TaggedResult<K> merge(Context& ctx, View<const K> a, View<const K> b, Outputs want) {
    size_t total = a.size + b.size;
    auto chunks = cut_path(total, chunk_count(ctx, total), [&](size_t d) {
        size_t ai = algo::merge_path<algo::Ties::AFirst>(a.data, a.size, b.data, b.size, d);
        return PathPoint{ai, d - ai};
    });
    TaggedResult<K> r = allocate_tagged<K>(ctx, total, want);
    parallel_for(ctx, chunks.size(), [&](size_t i) {
        run_chunk(
            a.data, b.data, chunks[i], chunks[i].diag0, r,
            [](auto& c, auto& e) { return algo::merge_step_select(c, e); },
            [](auto& c, auto& e) {
                algo::merge_step(c, e);
                return true;
            });
    });
    return r;
}

template <class K>
TaggedResult<K> set_op(Context& ctx, SetOp op, View<const K> a, View<const K> b, Outputs want) {
    switch (op) {
        case SetOp::Intersection: return run_set_op<SetOp::Intersection>(ctx, a, b, want);
        case SetOp::Difference: return run_set_op<SetOp::Difference>(ctx, a, b, want);
        case SetOp::Union: return run_set_op<SetOp::Union>(ctx, a, b, want);
        case SetOp::SymmetricDifference: return run_set_op<SetOp::SymmetricDifference>(ctx, a, b, want);
    }
    throw Error("mergepath: unknown set operation");
}

MERGEPATH_FOR_EACH_KEY(MERGEPATH_INSTANTIATE_MERGE_SET_OP)

}  // namespace cpu
}  // namespace mergepath
