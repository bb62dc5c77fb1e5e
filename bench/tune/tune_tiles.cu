// tune_tiles.cu — launch-box sweep for the select and search kernels on the GPU it
// runs on: for 64-bit keys (100M per side, ~2 copies per key, sorted), it times the
// Balanced Path intersection and the Merge Path merge with several (threads per
// block, elements per thread) shapes and prints one row per shape. The winners are
// recorded in gpu/src/cuda/common.cuh (TileBox) and bench/RESULTS.md.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/select_kernel.cuh"

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

template <int NT, int VT>
void sweep_one(Context& ctx, const uint64_t* a, const uint64_t* b, int64_t n, uint64_t* out) {
    using Box = LaunchBox<NT, VT>;
    TaggedOut<uint64_t> keys_only{out, nullptr};
    size_t count = 0;
    float inter = time_ms(ctx, [&] {
        count = run_select<BalancedPathKind, SetOpStep<SetOp::Intersection>, true, uint64_t, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    float merge = time_ms(ctx, [&] {
        run_select<MergePathKind<algo::Ties::AFirst>, MergeStep, false, uint64_t, Box>(ctx, a, n, b, n, keys_only);
    }, 5);
    double inter_bytes = 16.0 * n + 8.0 * count, merge_bytes = 32.0 * n;
    std::printf("| %d | %d | %.3f | %.0f | %.3f | %.0f |\n", NT, VT, inter, inter_bytes / inter / 1e6, merge,
                merge_bytes / merge / 1e6);
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
    std::vector<uint64_t> host(n);
    uint64_t state = 12345;
    auto fill_sorted = [&] {
        for (auto& x : host) x = (state = state * 6364136223846793005ull + 1442695040888963407ull) % (n / 2);
        std::sort(host.begin(), host.end());
    };
    fill_sorted();
    Buffer<uint64_t> a = ctx.upload(host.data(), n);
    fill_sorted();
    Buffer<uint64_t> b = ctx.upload(host.data(), n);
    Buffer<uint64_t> out = ctx.alloc<uint64_t>(2 * n);
    std::printf("%s, %lld keys per side, 64-bit, ~2 copies per key\n", ctx.describe().c_str(), (long long)n);
    std::printf("| NT | VT | intersection ms | GB/s | merge ms | GB/s |\n|---|---|---|---|---|---|\n");
    sweep_one<128, 7>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<128, 11>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<128, 15>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<128, 19>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<256, 7>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<256, 11>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<256, 13>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<128, 23>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<512, 5>(ctx, a.data(), b.data(), n, out.data());
    sweep_one<64, 23>(ctx, a.data(), b.data(), n, out.data());
    return 0;
}
