// test_span_cursor.cpp — SpanCursor (span_cursor.h), the walk over host spans that the
// CUDA staging's copies go through a piece at a time: over random lists of spans (empty
// ones, null ones of 0 bytes, ones larger than a piece, a piece ending inside a span),
// gathering the sources piece by piece gives their concatenation, and scattering a
// buffer piece by piece fills the destination spans in order and nothing else, also when
// each piece is gathered or scattered in parts from cursors moved ahead (advanced), as the
// staging's threads copy a piece (uploads and downloads).
#include "span_cursor.h"
#include "test_support.h"

namespace mptest {
namespace {

// Random span sizes: a third empty, some far larger than any piece.
std::vector<size_t> random_sizes(Rng& rng) {
    std::vector<size_t> sizes(rng() % 8);
    for (size_t& s : sizes) s = rng() % 3 == 0 ? 0 : rng() % 4 == 0 ? 1000 + rng() % 5000 : 1 + rng() % 300;
    return sizes;
}

// Copies `total` bytes piece by piece through `cursor`: copy(at, offset, bytes) copies the
// bytes at cursor `at`, `offset` bytes into the whole. Each piece in one copy, or in
// `parts` parts from cursors moved ahead (the last part first), as the staging's threads
// copy a piece; the cursor then moves past the piece.
template <class Span, class Copy>
void copy_in_pieces(SpanCursor<Span>& cursor, size_t total, size_t piece, size_t parts, Copy copy) {
    for (size_t done = 0; done < total; done += std::min(piece, total - done)) {
        const size_t n = std::min(piece, total - done);
        if (parts == 1) {
            copy(cursor, done, n);
            continue;
        }
        for (size_t p = parts; p-- > 0;) {
            const size_t begin = n * p / parts, end = n * (p + 1) / parts;
            SpanCursor<Span> at = cursor.advanced(begin);
            copy(at, done + begin, end - begin);
        }
        cursor = cursor.advanced(n);
    }
}

TEST(SpanCursor, PiecesGatherTheSourcesAndScatterIntoTheSpansInOrder) {
    Rng rng(base_seed());
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<size_t> sizes = random_sizes(rng);
        size_t total = 0;
        for (size_t s : sizes) total += s;
        const size_t piece = 1 + rng() % 700;
        // sources: blocks of random bytes (an empty one with no memory at all)
        std::vector<std::vector<char>> blocks;
        std::vector<HostSource> sources;
        std::vector<char> joined;
        for (size_t s : sizes) {
            blocks.emplace_back(s);
            for (char& c : blocks.back()) c = char(rng());
            sources.push_back({s ? blocks.back().data() : nullptr, s});
            joined.insert(joined.end(), blocks.back().begin(), blocks.back().end());
        }
        const size_t parts = trial % 2 == 0 ? 1 : 1 + rng() % 4;
        std::vector<char> gathered(total);
        SpanCursor<HostSource> from{sources.data()};
        copy_in_pieces(from, total, piece, parts, [&](SpanCursor<HostSource>& at, size_t offset, size_t n) {
            at.gather(gathered.data() + offset, n);
        });
        ASSERT_EQ(gathered, joined) << "trial " << trial << ", piece " << piece;

        // destinations: the same sizes, with a guard byte after each
        std::vector<std::vector<char>> dest;
        std::vector<HostSpan> spans;
        for (size_t s : sizes) dest.emplace_back(s + 1, char(0x5A));
        for (size_t i = 0; i < sizes.size(); ++i) spans.push_back({sizes[i] ? dest[i].data() : nullptr, sizes[i]});
        SpanCursor<HostSpan> to{spans.data()};
        copy_in_pieces(to, total, piece, parts, [&](SpanCursor<HostSpan>& at, size_t offset, size_t n) {
            at.scatter(joined.data() + offset, n);
        });
        for (size_t i = 0; i < sizes.size(); ++i) {
            ASSERT_TRUE(std::equal(dest[i].begin(), dest[i].end() - 1, blocks[i].begin()))
                << "trial " << trial << ", span " << i;
            ASSERT_EQ(dest[i].back(), char(0x5A)) << "trial " << trial << ": written past span " << i;
        }
    }
}

}  // namespace
}  // namespace mptest
