// merge_setop.cpp — CPU backend of Merge Path merge and the Balanced Path multiset
// operations. The path is cut into chunks (cut_path); each chunk runs the same serial
// step as a GPU thread (algo/serial_steps.h). Merge writes at the chunk's diagonal;
// the set operations count per chunk, scan the counts, then write (two passes
// instead of the GPU's bitmask scan).
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
void write_tagged(TaggedResult<K>& r, size_t o, algo::Emit<size_t> e, const K* a, const K* b) {
    if (r.keys.data()) r.keys.data()[o] = e.from_b ? b[e.pos] : a[e.pos];
    if (r.indices.data()) r.indices.data()[o] = e.from_b ? (e.pos | kFromB) : e.pos;
}

template <SetOp Op, class K>
size_t count_set_op(const K* a, const K* b, const PathChunk& c) {
    size_t ai = c.a0, bi = c.b0, n = 0;
    algo::Emit<size_t> e;
    while (ai < c.a1 || bi < c.b1) n += algo::set_op_step<Op>(a, ai, c.a1, b, bi, c.b1, e);
    return n;
}

template <SetOp Op, class K>
void write_set_op(const K* a, const K* b, const PathChunk& c, size_t o, TaggedResult<K>& r) {
    size_t ai = c.a0, bi = c.b0;
    algo::Emit<size_t> e;
    while (ai < c.a1 || bi < c.b1)
        if (algo::set_op_step<Op>(a, ai, c.a1, b, bi, c.b1, e)) write_tagged(r, o++, e, a, b);
}

template <SetOp Op, class K>
TaggedResult<K> run_set_op(Context& ctx, View<const K> a, View<const K> b, Outputs want) {
    size_t total = a.size + b.size;
    auto chunks = cut_path(total, chunk_count(ctx, total), [&](size_t d) {
        auto p = algo::balanced_path(a.data, a.size, b.data, b.size, d);
        return PathPoint{p.a, p.b(d)};
    });
    std::vector<size_t> offsets(chunks.size());
    parallel_for(ctx, chunks.size(),
                 [&](size_t i) { offsets[i] = count_set_op<Op>(a.data, b.data, chunks[i]); });
    TaggedResult<K> r = allocate_tagged<K>(ctx, exclusive_scan(offsets), want);
    parallel_for(ctx, chunks.size(),
                 [&](size_t i) { write_set_op<Op>(a.data, b.data, chunks[i], offsets[i], r); });
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
        const PathChunk& c = chunks[i];
        size_t ai = c.a0, bi = c.b0, o = c.diag0;
        while (ai < c.a1 || bi < c.b1)
            write_tagged(r, o++, algo::merge_step(a.data, ai, c.a1, b.data, bi, c.b1), a.data, b.data);
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

#define INSTANTIATE(K)                                                                        \
    template TaggedResult<K> merge<K>(Context&, View<const K>, View<const K>, Outputs);       \
    template TaggedResult<K> set_op<K>(Context&, SetOp, View<const K>, View<const K>, Outputs);
MERGEPATH_FOR_EACH_KEY(INSTANTIATE)
#undef INSTANTIATE

}  // namespace cpu
}  // namespace mergepath
