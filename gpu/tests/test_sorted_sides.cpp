// test_sorted_sides.cpp — the sorted-sides stage (sorted_sides.h) that every SQL node
// builds on, on both backends and all key types:
//  - several producer threads hand it chunks (read in place; some ascending already,
//    which the CPU backend makes runs of their own and never sorts) and batches
//    (copied) of both sides at once, with runs shipped while they do (ship_rows small,
//    and the backend default): each side comes out sorted, every key with the row number its
//    add returned, equal keys in ascending rows, and the same as one producer adding
//    everything; the chunks are never written;
//  - (CUDA) runs shipped through several pieces of the pinned staging, each gathered
//    from many chunks;
//  - keys whose chunks carry values (a join's row references) come out with their values
//    in place of row numbers, equal keys in the order added, beside a side of row
//    numbers, shipped in small runs, the backend's default and (CUDA) runs across
//    staging pieces; a side's keys added both with and without values is an Error that
//    adds nothing; values read in place are charged with their keys;
//  - empty sides and a side of one key;
//  - the host keys are charged to the context's budget and discharged when the stage
//    goes; an out-of-memory in sort() leaves the keys, and after rebind() onto an
//    unlimited CPU context sort() gives the same sides.
#include <thread>
#include <unordered_map>

#include "mergepath/sorted_sides.h"
#include "test_support.h"

namespace mptest {
namespace {

// What one producer added: its keys of one side, each piece with the first row it got.
template <class K>
struct Added {
    std::vector<std::pair<uint64_t, std::vector<K>>> pieces[2];
};

// The side as the stage numbered it: keys by row number (rows are dense from 0).
template <class K>
::testing::AssertionResult keys_by_row(const std::vector<Added<K>>& producers, int side, std::vector<K>* out) {
    size_t n = 0;
    for (const Added<K>& p : producers)
        for (const auto& piece : p.pieces[side]) n += piece.second.size();
    out->assign(n, K{});
    std::vector<bool> seen(n, false);
    for (const Added<K>& p : producers)
        for (const auto& piece : p.pieces[side])
            for (size_t i = 0; i < piece.second.size(); ++i) {
                uint64_t row = piece.first + i;
                if (row >= n || seen[row])
                    return ::testing::AssertionFailure() << "row " << row << " given twice or out of range " << n;
                seen[row] = true;
                (*out)[row] = piece.second[i];
            }
    return ::testing::AssertionSuccess();
}

// The stage's sorted side against the keys by row: sorted, stable, consistent.
template <class K>
::testing::AssertionResult check_side(Context& ctx, const SortedSides<K>& stage, Side side,
                                      const std::vector<K>& by_row) {
    View<const K> kv = stage.sorted_keys(side);
    View<const uint64_t> rv = stage.sorted_rows(side);
    std::vector<K> keys(kv.size);
    std::vector<uint64_t> rows(rv.size);
    ctx.download(kv, keys.data());
    ctx.download(rv, rows.data());
    MP_RETURN_IF_FAILED(same_array("sorted keys", sorted(by_row), keys));
    if (rows.size() != keys.size()) return ::testing::AssertionFailure() << rows.size() << " rows for " << keys.size();
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] >= by_row.size() || !(by_row[rows[i]] == keys[i]))
            return ::testing::AssertionFailure() << "sorted row " << i << " names row " << rows[i] << " of another key";
        if (i > 0 && keys[i - 1] == keys[i] && rows[i - 1] >= rows[i])
            return ::testing::AssertionFailure() << "equal keys out of row order at " << i;
    }
    return ::testing::AssertionSuccess();
}

// One producer: random pieces of both sides, chunks (kept alive in `chunks`; ascending
// ones among them) or copies.
template <class K>
Added<K> produce(SortedSides<K>& stage, uint64_t seed, size_t keys_per_side, std::vector<std::vector<K>>* chunks) {
    Rng rng(seed);
    Added<K> added;
    size_t left[2] = {keys_per_side, keys_per_side / 3};
    while (left[0] + left[1] > 0) {
        int side = left[0] == 0 ? 1 : left[1] == 0 ? 0 : int(rng() % 2);
        size_t n = std::min<size_t>(left[side], rng() % 3000);
        std::vector<K> keys = random_keys<K>(rng, n, 500);
        Side s = side == 0 ? Side::A : Side::B;
        uint64_t first;
        int how = int(rng() % 3);
        if (how == 2) std::sort(keys.begin(), keys.end());
        if (how > 0) {
            chunks->push_back(keys);
            first = stage.add_chunk(s, chunks->back().data(), n, how == 2);
        } else {
            first = stage.add(s, keys.data(), n);
        }
        added.pieces[side].push_back({first, keys});
        left[side] -= n;
    }
    return added;
}

template <class C>
class SortedSidesTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SortedSidesTest, AllConfigs);

TYPED_TEST(SortedSidesTest, SeveralProducersGiveSortedStableSides) {
    using K = typename TestFixture::K;
    const int kProducers = 4;
    for (size_t ship_rows : {size_t(700), SortedSides<K>::kBackendDefault}) {
        SortedSides<K> stage(this->ctx(), true);
        stage.set_ship_rows(ship_rows);
        std::vector<std::vector<std::vector<K>>> chunks(kProducers);
        for (auto& c : chunks) c.reserve(1000);  // chunk addresses must stay put
        std::vector<Added<K>> added(kProducers);
        std::vector<std::thread> threads;
        for (int p = 0; p < kProducers; ++p)
            threads.emplace_back([&, p] { added[p] = produce(stage, base_seed() + p, 20000, &chunks[p]); });
        for (auto& t : threads) t.join();
        std::vector<std::vector<std::vector<K>>> untouched = chunks;
        stage.sort();
        for (int side = 0; side < 2; ++side) {
            std::vector<K> by_row;
            ASSERT_TRUE(keys_by_row(added, side, &by_row));
            EXPECT_EQ(stage.rows(side == 0 ? Side::A : Side::B), by_row.size());
            EXPECT_TRUE(check_side(this->ctx(), stage, side == 0 ? Side::A : Side::B, by_row))
                << "side " << side << ", ship_rows " << ship_rows;
        }
        EXPECT_TRUE(chunks == untouched) << "the stage wrote into a chunk";
    }
}

// Runs large enough to go to the GPU through several pieces of the pinned staging (8 MB),
// each piece gathered from many chunks, one of which the piece's end cuts.
TYPED_TEST(SortedSidesTest, ShippedRunsGatheredFromManyChunksAcrossStagingPieces) {
    using K = typename TestFixture::K;
    if (this->ctx().host_memory()) GTEST_SKIP() << "the pinned staging is the CUDA backend's";
    const size_t kShipRows = size_t(5) << 20;  // 20-80 MB runs of 4-16 byte keys
    SortedSides<K> stage(this->ctx(), true);
    stage.set_ship_rows(kShipRows);
    std::vector<std::vector<std::vector<K>>> chunks(1);
    chunks[0].reserve(8000);  // chunk addresses must stay put
    std::vector<Added<K>> added(1);
    added[0] = produce(stage, base_seed(), kShipRows + kShipRows / 2, &chunks[0]);
    ASSERT_LT(chunks[0].size(), 8000u);
    stage.sort();
    for (int side = 0; side < 2; ++side) {
        std::vector<K> by_row;
        ASSERT_TRUE(keys_by_row(added, side, &by_row));
        EXPECT_TRUE(check_side(this->ctx(), stage, side == 0 ? Side::A : Side::B, by_row)) << "side " << side;
    }
}

TYPED_TEST(SortedSidesTest, EmptyAndSingleKeySides) {
    using K = typename TestFixture::K;
    SortedSides<K> stage(this->ctx(), true);
    K one = KeyTraits<K>::max();
    EXPECT_EQ(stage.add(Side::B, &one, 1), 0u);
    stage.sort();
    EXPECT_EQ(stage.sorted_keys(Side::A).size, 0u);
    EXPECT_TRUE(check_side(this->ctx(), stage, Side::B, std::vector<K>{one}));
    EXPECT_THROW(stage.add(Side::A, &one, 1), Error) << "keys added after sort()";
}

// The value a key of row `row` carries in ValuesRideThroughTheSort: distinct per row,
// in no order.
uint64_t value_of_row(uint64_t row) { return (row * 0x9E3779B97F4A7C15ull) ^ 0x5EEDull; }

TYPED_TEST(SortedSidesTest, ValuesRideThroughTheSort) {
    using K = typename TestFixture::K;
    const bool cuda = !this->ctx().host_memory();
    for (size_t ship_rows : {size_t(700), SortedSides<K>::kBackendDefault, size_t(3) << 20}) {
        if (ship_rows == (size_t(3) << 20) && !cuda) continue;  // the staging's pieces are the CUDA backend's
        const size_t keys_b = ship_rows == (size_t(3) << 20) ? (size_t(5) << 20) : 30000;
        Rng rng(base_seed() ^ ship_rows);
        SortedSides<K> stage(this->ctx(), true);
        stage.set_ship_rows(ship_rows);
        std::vector<std::vector<K>> chunks;
        std::vector<std::vector<uint64_t>> values;
        chunks.reserve(4000);
        values.reserve(4000);
        std::vector<K> a = random_keys<K>(rng, 5000, 300), b_by_row;
        stage.add(Side::A, a.data(), a.size());
        for (size_t left = keys_b; left > 0;) {
            size_t n = std::min<size_t>(left, 1 + rng() % (keys_b / 8));
            chunks.push_back(random_keys<K>(rng, n, 500));
            const bool ascending = rng() % 3 == 0;
            if (ascending) std::sort(chunks.back().begin(), chunks.back().end());
            values.emplace_back(n);
            const uint64_t first = b_by_row.size();
            for (size_t i = 0; i < n; ++i) values.back()[i] = value_of_row(first + i);
            EXPECT_EQ(stage.add_chunk(Side::B, chunks.back().data(), n, ascending, values.back().data()), first);
            b_by_row.insert(b_by_row.end(), chunks.back().begin(), chunks.back().end());
            left -= n;
        }
        K one = KeyTraits<K>::max();
        const uint64_t no_values[1] = {7};
        EXPECT_THROW(stage.add(Side::B, &one, 1), Error) << "a copied key beside keys with values";
        EXPECT_THROW(stage.add_chunk(Side::A, &one, 1, false, no_values), Error) << "values beside row numbers";
        EXPECT_EQ(stage.rows(Side::B), b_by_row.size()) << "a refused add added keys";
        stage.sort();
        EXPECT_TRUE(check_side(this->ctx(), stage, Side::A, a));
        // B: its values in place of row numbers, each naming a row of an equal key, in row order
        std::vector<K> keys(b_by_row.size());
        std::vector<uint64_t> got(b_by_row.size());
        ASSERT_EQ(stage.sorted_rows(Side::B).size, got.size());
        this->ctx().download(stage.sorted_keys(Side::B), keys.data());
        this->ctx().download(stage.sorted_rows(Side::B), got.data());
        ASSERT_TRUE(same_array("sorted keys of B", sorted(b_by_row), keys));
        std::unordered_map<uint64_t, uint64_t> row_of;
        for (uint64_t r = 0; r < b_by_row.size(); ++r) row_of[value_of_row(r)] = r;
        for (size_t i = 0; i < got.size(); ++i) {
            auto it = row_of.find(got[i]);
            ASSERT_TRUE(it != row_of.end()) << "sorted B " << i << " carries a value no key was given";
            ASSERT_TRUE(b_by_row[it->second] == keys[i]) << "sorted B " << i << " carries another key's value";
            if (i > 0 && keys[i - 1] == keys[i])
                ASSERT_LT(row_of[got[i - 1]], it->second) << "equal keys out of the order added at " << i;
        }
    }
}

// Keys and their values read in place are charged to the context's budget together
// (nothing shipped: too few keys for a run on either backend, none ascending).
TYPED_TEST(SortedSidesTest, ValuesReadInPlaceAreChargedWithTheirKeys) {
    using K = typename TestFixture::K;
    Rng rng(base_seed() ^ 0xC4A6);
    std::vector<K> keys = random_keys<K>(rng, 1000, 100), copied = random_keys<K>(rng, 300, 100);
    std::vector<uint64_t> values(keys.size(), 42);
    const size_t before = this->ctx().memory_in_use();
    {
        SortedSides<K> stage(this->ctx(), true);
        stage.add(Side::A, copied.data(), copied.size());
        stage.add_chunk(Side::B, keys.data(), keys.size(), false, values.data());
        EXPECT_EQ(this->ctx().memory_in_use() - before, copied.size() * sizeof(K) + keys.size() * (sizeof(K) + 8));
    }
    EXPECT_EQ(this->ctx().memory_in_use(), before) << "the charge outlived the stage";
}

class SortedSidesOnBackend : public OnBackend {};

TEST_P(SortedSidesOnBackend, HostKeysAreChargedAndOutOfMemoryCanBeRedone) {
    const size_t n = 50000;
    Rng rng(base_seed() ^ 0x51de);
    std::vector<uint64_t> a = random_keys<uint64_t>(rng, n, n), b = random_keys<uint64_t>(rng, n, n);
    const size_t key_bytes = 2 * n * sizeof(uint64_t);
    Options tiny = options();
    tiny.memory_budget = key_bytes + 4096;  // the keys fit, sorting them does not
    Context small(tiny), big(Options{Backend::Cpu});
    {
        SortedSides<uint64_t> stage(small, false);
        stage.add_chunk(Side::A, a.data(), n);
        stage.add(Side::B, b.data(), n);
        EXPECT_EQ(small.memory_in_use(), key_bytes);
        EXPECT_THROW(stage.sort(), OutOfMemory);
        EXPECT_EQ(small.memory_in_use(), key_bytes) << "memory other than the keys' charge left after OutOfMemory";
        stage.rebind(big);
        EXPECT_EQ(small.memory_in_use(), 0u);
        stage.sort();
        std::vector<uint64_t> got(n);
        big.download(stage.sorted_keys(Side::A), got.data());
        EXPECT_TRUE(same_array("side A after rebind", sorted(a), got));
        big.download(stage.sorted_keys(Side::B), got.data());
        EXPECT_TRUE(same_array("side B after rebind", sorted(b), got));
    }
    EXPECT_EQ(big.memory_in_use(), 0u) << "the stage left memory or a charge behind";
}

INSTANTIATE_TEST_SUITE_P(Backends, SortedSidesOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

}  // namespace
}  // namespace mptest
