// test_copy.cpp — Context::copy_out_scattered, the download the parallel node uses to put
// results into many chunks of shared memory: consecutive bytes of the context's memory
// land in the host spans in order, on both backends, for spans of 0 bytes, odd sizes,
// and totals under and over the size where the GPU switches to its double-buffered
// pinned staging (several 8 MB pieces, a span crossing pieces).
#include "test_support.h"

namespace mptest {
namespace {

class CopyOnBackend : public OnBackend {};

void check_scatter(Context& ctx, const std::vector<size_t>& sizes, uint64_t seed) {
    size_t total = 0;
    for (size_t s : sizes) total += s;
    Rng rng(seed);
    std::vector<uint8_t> source(total);
    for (auto& b : source) b = uint8_t(rng());
    Buffer<uint8_t> on_context = put(ctx, source);
    std::vector<std::vector<uint8_t>> blocks;
    std::vector<HostSpan> spans;
    for (size_t s : sizes) blocks.emplace_back(s, uint8_t(0xAA));
    for (auto& b : blocks) spans.push_back({b.data(), b.size()});
    ctx.copy_out_scattered(on_context.data(), spans.data(), spans.size());
    std::vector<uint8_t> joined;
    for (auto& b : blocks) joined.insert(joined.end(), b.begin(), b.end());
    EXPECT_TRUE(same_array("scattered download of " + std::to_string(total) + " bytes", source, joined));
}

TEST_P(CopyOnBackend, ScatteredDownloadFillsTheSpansInOrder) {
    Context ctx(options());
    const size_t mb = size_t(1) << 20;
    check_scatter(ctx, {0, 3, 1000, 0, 17}, base_seed());                                  // small: one pass
    check_scatter(ctx, {0, 3, mb + 5, 9 * mb, 0, 2 * mb - 1, 7}, base_seed() + 1);         // staged pieces
    check_scatter(ctx, std::vector<size_t>(40, 256 * 1024 + 8), base_seed() + 2);          // many chunks
    check_scatter(ctx, {25 * mb}, base_seed() + 3);                                        // one span, pieces
}

INSTANTIATE_TEST_SUITE_P(Backends, CopyOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

}  // namespace
}  // namespace mptest
