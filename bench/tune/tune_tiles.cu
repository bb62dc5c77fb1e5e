// tune_tiles.cu — launch-box sweep for the select and search kernels on the GPU it
// runs on: for 64- and 32-bit keys (100M per side, ~2 copies per key, sorted), it times the
// Balanced Path intersection and the Merge Path merge with several (threads per
// block, elements per thread) shapes and prints one row per shape; then each multiset
// operation with the branching serial step against its flag form (SetOpFlagStep); then the
// persistent, double-buffered select kernel (select_pipelined.cuh) against run_select for
// intersection and union, checking that both write the same outputs. The winners are
// recorded in gpu/src/cuda/common.cuh (TileBox) and bench/RESULTS.md.
//
// Usage: mergepath_tune_tiles [n] [sweep|steps|pipelined|all]  (default: 100000000 all)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/select_kernel.cuh"
#include "cuda/select_pipelined.cuh"
#include "mergepath/ops.h"

using namespace mergepath;
using namespace mergepath::cuda;

namespace {

template <class Fn>
float time_ms(Context& ctx, Fn fn, int reps) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    fn();  // warm-up
    std::vector<float> times;
    for (int i = 0; i < reps; ++i) {
        cudaEventRecord(start, stream_of(ctx));
        fn();
        cudaEventRecord(stop, stream_of(ctx));
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

template <int NT, int VT, class K>
void sweep_one(Context& ctx, const K* a, const K* b, int64_t n, K* out) {
    using Box = LaunchBox<NT, VT>;
    TaggedOut<K> keys_only{out, nullptr};
    size_t count = 0;
    float inter = time_ms(ctx, [&] {
        count = run_select<BalancedPathKind, SetOpStep<SetOp::Intersection>, true, K, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    float merge = time_ms(ctx, [&] {
        run_select<MergePathKind<algo::Ties::AFirst>, MergeStep, false, K, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    double w = sizeof(K), inter_bytes = 2 * w * n + w * count, merge_bytes = 4 * w * n;
    std::printf("| %d | %d | %d | %.3f | %.0f | %.3f | %.0f |\n", int(8 * sizeof(K)), NT, VT, inter, inter_bytes / inter / 1e6, merge,
                merge_bytes / merge / 1e6);
}

// Two sorted arrays of n keys, uniform in [0, n/2) (~2 copies per key), on the GPU,
// and room for a merged output.
template <class K>
struct SortedInputs {
    Buffer<K> a, b, out;
    SortedInputs(Context& ctx, int64_t n) {
        std::vector<K> host(n);
        uint64_t state = 12345;
        auto sorted_on_gpu = [&] {
            for (auto& x : host) x = K((state = state * 6364136223846793005ull + 1442695040888963407ull) % (n / 2));
            Buffer<K> keys = ctx.upload(host.data(), n);
            sort_keys<K>(ctx, View<K>(keys));
            return keys;
        };
        a = sorted_on_gpu();
        b = sorted_on_gpu();
        out = ctx.alloc<K>(2 * n);
    }
};

// Branching multiset step (SetOpStep) against the flag form (SetOpFlagStep), same box.
template <int NT, int VT, SetOp Op, class K>
void compare_step(Context& ctx, const K* a, const K* b, int64_t n, K* out, const char* name) {
    using Box = LaunchBox<NT, VT>;
    TaggedOut<K> keys_only{out, nullptr};
    size_t count = 0;
    float branching = time_ms(ctx, [&] {
        count = run_select<BalancedPathKind, SetOpStep<Op>, true, K, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    size_t flag_count = 0;
    float flags = time_ms(ctx, [&] {
        flag_count = run_select<BalancedPathKind, SetOpFlagStep<Op>, true, K, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    std::printf("| %d | %d x %d | %s | %.3f | %.3f | %s |\n", int(8 * sizeof(K)), NT, VT, name, branching, flags,
                count == flag_count ? "same count" : "COUNT DIFFERS");
}

template <int NT, int VT, class K>
void compare_steps(Context& ctx, const K* a, const K* b, int64_t n, K* out) {
    compare_step<NT, VT, SetOp::Intersection>(ctx, a, b, n, out, "intersection");
    compare_step<NT, VT, SetOp::Difference>(ctx, a, b, n, out, "difference");
    compare_step<NT, VT, SetOp::Union>(ctx, a, b, n, out, "union");
    compare_step<NT, VT, SetOp::SymmetricDifference>(ctx, a, b, n, out, "symmetric_difference");
}

// --- Pipelined (persistent, double-buffered) select kernel against run_select ---

// Elements where x[0, n) and y[0, n) differ, counted on the GPU.
template <class T>
__global__ void count_differences(const T* x, const T* y, size_t n, unsigned long long* diffs) {
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        mine += x[i] != y[i];
    if (mine) atomicAdd(diffs, mine);
}

template <class T>
unsigned long long differences(Context& ctx, const T* x, const T* y, size_t n) {
    Buffer<unsigned long long> diffs = ctx.alloc<unsigned long long>(1);
    check(cudaMemsetAsync(diffs.data(), 0, sizeof(unsigned long long), stream_of(ctx)), "cudaMemsetAsync");
    if (n) count_differences<<<1024, 256, 0, stream_of(ctx)>>>(x, y, n, diffs.data());
    launched("count_differences");
    unsigned long long host = 0;
    ctx.download(View<const unsigned long long>(diffs.data(), 1), &host);
    return host;
}

// One run's outputs: keys and tagged indices (room for a union of n + n), and the count.
template <class K>
struct Outputs {
    Buffer<K> keys;
    Buffer<uint64_t> indices;
    size_t count = 0;
    Outputs(Context& ctx, int64_t n) : keys(ctx.alloc<K>(2 * n)), indices(ctx.alloc<uint64_t>(2 * n)) {}
    TaggedOut<K> keys_only() const { return {keys.data(), nullptr}; }
    TaggedOut<K> both() const { return {keys.data(), indices.data()}; }
};

// Whether select_kernel's static shared memory for this box fits the 48 KB limit.
template <class Box, class K>
constexpr bool select_fits_static() {
    return sizeof(typename cub::BlockScan<int, Box::NT>::TempStorage) + sizeof(TilePrefix::TempStorage) +
               (Box::NV + 2) * sizeof(K) + (Box::NT + 1) * sizeof(int2) + Box::NV * sizeof(uint16_t) + 64 <=
           48 * 1024;
}

template <class Box, class Step, class K>
int select_blocks_per_sm() {
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, select_kernel<Box, BalancedPathKind, Step, true, K>,
                                                        Box::NT, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor(select_kernel)");
    return blocks;
}

// run_select with the current TileBox: its time (keys only) and its keys and indices.
template <class Step, class K>
float reference_run(Context& ctx, const SortedInputs<K>& in, int64_t n, Outputs<K>& ref) {
    const K *a = in.a.data(), *b = in.b.data();
    float ms = time_ms(ctx, [&] { run_select<BalancedPathKind, Step, true>(ctx, a, n, b, n, ref.keys_only()); }, 5);
    ref.count = run_select<BalancedPathKind, Step, true>(ctx, a, n, b, n, ref.both());
    return ms;
}

// "identical", or the loud verdict when the pipelined outputs differ from the reference.
template <class K>
const char* verdict(Context& ctx, const Outputs<K>& ref, const Outputs<K>& got, bool& all_ok) {
    if (ref.count != got.count) {
        all_ok = false;
        return "*** MISMATCH: COUNT DIFFERS ***";
    }
    if (differences(ctx, ref.keys.data(), got.keys.data(), ref.count) != 0 ||
        differences(ctx, ref.indices.data(), got.indices.data(), ref.count) != 0) {
        all_ok = false;
        return "*** MISMATCH: OUTPUTS DIFFER ***";
    }
    return "identical";
}

// The TileBox reference's columns: its time and residency.
struct Reference {
    float ms;
    int blocks_per_sm;
};

// One box: run_select with this box (where its static shared memory fits) and the
// pipelined kernel, against the TileBox reference; checks keys and indices.
template <int NT, int VT, class Step, class K>
void pipelined_row(Context& ctx, const SortedInputs<K>& in, int64_t n, const Outputs<K>& ref, Reference tilebox,
                   Outputs<K>& got, const char* op, bool& all_ok) {
    using Box = LaunchBox<NT, VT>;
    const K *a = in.a.data(), *b = in.b.data();
    int select_occ = 0;
    float same_box = 0;
    if constexpr (select_fits_static<Box, K>()) {
        select_occ = select_blocks_per_sm<Box, Step, K>();
        same_box = time_ms(ctx, [&] {
            run_select<BalancedPathKind, Step, true, K, Box>(ctx, a, n, b, n, got.keys_only());
        }, 5);
    }
    int piped_occ = pipelined_blocks_per_sm<Box, BalancedPathKind, Step, true, K>();
    float piped = time_ms(ctx, [&] {
        run_select_pipelined<BalancedPathKind, Step, true, K, Box>(ctx, a, n, b, n, got.keys_only());
    }, 5);
    got.count = run_select_pipelined<BalancedPathKind, Step, true, K, Box>(ctx, a, n, b, n, got.both());
    char same_col[32] = "-";
    if (same_box > 0) std::snprintf(same_col, sizeof same_col, "%.3f (%d/SM)", same_box, select_occ);
    std::printf("| %d | %d x %d | %s | %.3f (%d/SM) | %s | %.3f (%d/SM, %zu B dyn) | %.2fx | %s |\n",
                int(8 * sizeof(K)), NT, VT, op, tilebox.ms, tilebox.blocks_per_sm, same_col, piped, piped_occ,
                pipelined_smem_bytes<Box, K>(), tilebox.ms / piped, verdict(ctx, ref, got, all_ok));
    std::fflush(stdout);
}

// Every box for one operation and key width, against one TileBox reference run.
template <class Step, class K>
void pipelined_op(Context& ctx, const SortedInputs<K>& in, int64_t n, Outputs<K>& ref, Outputs<K>& got,
                  const char* op, bool& all_ok) {
    Reference tilebox{reference_run<Step>(ctx, in, n, ref), select_blocks_per_sm<TileBox<K>, Step, K>()};
    if constexpr (sizeof(K) == 8) {
        pipelined_row<256, 17, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<256, 13, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<256, 11, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<128, 17, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<128, 11, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<512, 11, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
    } else {
        pipelined_row<256, 23, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<256, 17, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<256, 15, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<128, 23, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
        pipelined_row<512, 15, Step>(ctx, in, n, ref, tilebox, got, op, all_ok);
    }
}

// Returns false when any pipelined run's outputs differed from run_select's.
template <class K>
bool compare_pipelined(Context& ctx, int64_t n) {
    SortedInputs<K> in(ctx, n);
    Outputs<K> ref(ctx, n), got(ctx, n);
    bool all_ok = true;
    pipelined_op<SetOpStep<SetOp::Intersection>>(ctx, in, n, ref, got, "intersection", all_ok);
    pipelined_op<SetOpFlagStep<SetOp::Union>>(ctx, in, n, ref, got, "union (flags)", all_ok);
    return all_ok;
}

void sweep_section(Context& ctx, int64_t n) {
    std::printf("| key bits | NT | VT | intersection ms | GB/s | merge ms | GB/s |\n|---|---|---|---|---|---|---|\n");
    {
        SortedInputs<uint64_t> in(ctx, n);
        sweep_one<256, 13>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 15>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 17>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    {
        SortedInputs<uint32_t> in(ctx, n);
        sweep_one<256, 19>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 23>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 27>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
}

void steps_section(Context& ctx, int64_t n) {
    std::printf("\n| key bits | box | op | branching step ms | flag step ms | check |\n|---|---|---|---|---|---|\n");
    {
        SortedInputs<uint64_t> in(ctx, n);
        compare_steps<256, 17>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        compare_steps<256, 13>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    {
        SortedInputs<uint32_t> in(ctx, n);
        compare_steps<256, 23>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
}

bool pipelined_section(Context& ctx, int64_t n) {
    std::printf("\n| key bits | box | op | run_select TileBox ms | run_select same box ms | pipelined ms | TileBox / pipelined | check |\n"
                "|---|---|---|---|---|---|---|---|\n");
    bool ok = compare_pipelined<uint64_t>(ctx, n);
    ok = compare_pipelined<uint32_t>(ctx, n) && ok;
    if (!ok) std::printf("\n*** MISMATCH: the pipelined kernel wrote different outputs than run_select ***\n");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    std::string why;
    if (!Context::cuda_available(&why)) {
        std::printf("tune_tiles: no GPU (%s)\n", why.c_str());
        return 2;
    }
    int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000000;
    Options opt;
    opt.backend = Backend::Cuda;
    Context ctx(opt);
    std::printf("%s, %lld keys per side, ~2 copies per key\n", ctx.describe().c_str(), (long long)n);
    const char* section = argc > 2 ? argv[2] : "all";
    bool all = std::strcmp(section, "all") == 0;
    if (all || std::strcmp(section, "sweep") == 0) sweep_section(ctx, n);
    if (all || std::strcmp(section, "steps") == 0) steps_section(ctx, n);
    bool ok = true;
    if (all || std::strcmp(section, "pipelined") == 0) ok = pipelined_section(ctx, n);
    return ok ? 0 : 1;
}
