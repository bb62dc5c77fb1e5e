// tune_tiles.cu — launch-box sweep for the select and search kernels on the GPU it
// runs on: for 64- and 32-bit keys (100M per side, ~2 copies per key, sorted), it times the
// Balanced Path intersection and the Merge Path merge with several (threads per
// block, elements per thread) shapes and prints one row per shape; then each multiset
// operation with the branching serial step against its flag form (SetOpFlagStep). The winners are
// recorded in gpu/src/cuda/common.cuh (TileBox) and bench/RESULTS.md.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/select_kernel.cuh"
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
    std::printf("| key bits | NT | VT | intersection ms | GB/s | merge ms | GB/s |\n|---|---|---|---|---|---|---|\n");
    {
        SortedInputs<uint64_t> in(ctx, n);
        sweep_one<256, 13>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 15>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 17>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 18>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    {
        SortedInputs<uint32_t> in(ctx, n);
        sweep_one<256, 19>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 23>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        sweep_one<256, 27>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    std::printf("\n| key bits | box | op | branching step ms | flag step ms | check |\n|---|---|---|---|---|---|\n");
    {
        SortedInputs<uint64_t> in(ctx, n);
        compare_steps<256, 17>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        compare_steps<256, 18>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    {
        SortedInputs<uint32_t> in(ctx, n);
        compare_steps<256, 23>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        compare_steps<256, 27>(ctx, in.a.data(), in.b.data(), n, in.out.data());
        compare_steps<256, 31>(ctx, in.a.data(), in.b.data(), n, in.out.data());
    }
    return 0;
}
