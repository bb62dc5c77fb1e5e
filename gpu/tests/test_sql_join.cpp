// test_sql_join.cpp — the SqlJoin<K> stage (the extension's MergePath Join: both sides
// sorted with their row numbers, then the ranges of equal keys of sorted A in sorted B
// and B's match flags) on both backends and all key types. Every result is checked
// against a brute-force reference built from the input keys as added (row r of a side
// is the r-th key added to it):
//  - a_rows / b_rows are permutations of the side's rows with keys non-decreasing and
//    equal keys in ascending row order (the sort is stable);
//  - a_count[i] is the number of B keys equal to A[a_rows[i]], a_lower[i] the lower
//    bound of that key in sorted B, and b_rows[a_lower[i], +a_count[i]) are exactly the
//    B rows of that key, ascending; b_match[j] == 1 iff B[b_rows[j]] equals some A key;
//    the sum of a_count equals the join's pair count (nested loops where small, a
//    merge walk otherwise).
//  - with ranges by A row (set_ranges_by_a_row, a second run of every input): the range
//    of A row r, downloaded in pieces, is the lower bound and count of its key in B
//    sorted by b_rows, and A's sorted arrays are refused.
// Inputs: random keys with duplicates, sizes 0, 1, 1000 and 100000 (both sides empty,
// one side empty), added
//  - in one add per side, or in many uneven batches (A and B interleaved, add and
//    add_chunk alternating, empty batches among them);
//  - from several threads at once (each chunk's keys in its own key range, so the
//    order the chunks got their row numbers in can be read back from the result);
//  - with small ship_rows (runs shipped while adding; runs counted) or the backend's
//    default.
// And the API's rules: set_want_b_match(false) (no flags: a b_match pointer throws),
// download before finish, add after finish, finish twice; downloads of any subset of
// the output arrays (the others nullptr: a_count without a_lower is computed a piece at
// a time, so A is larger than several pieces there); and
// an out-of-memory in finish() (a context with a small budget; in the sort, or after
// it in the sorted search) followed by rebind() to an unlimited CPU context, which must
// give the reference answer and leave no memory charged to the small context. No
// memory may stay in use once a SqlJoin is destroyed.
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "mergepath/sql_join.h"
#include "test_support.h"

namespace mptest {
namespace {

// What download() returns, in vectors prefilled with values no correct result holds.
struct JoinOut {
    std::vector<uint64_t> a_rows, a_lower, a_count, b_rows;
    std::vector<uint8_t> b_match;
    bool operator==(const JoinOut& o) const {
        return a_rows == o.a_rows && a_lower == o.a_lower && a_count == o.a_count && b_rows == o.b_rows &&
               b_match == o.b_match;
    }
};

constexpr uint64_t kUnwritten = 0xdeadbeefdeadbeefull;
constexpr uint8_t kUnwrittenFlag = 0xee;

template <class K>
JoinOut download_all(SqlJoin<K>& j, bool with_match) {
    const size_t na = j.rows(Side::A), nb = j.rows(Side::B);
    JoinOut o;
    o.a_rows.assign(na, kUnwritten);
    o.a_lower.assign(na, kUnwritten);
    o.a_count.assign(na, kUnwritten);
    o.b_rows.assign(nb, kUnwritten);
    if (with_match) o.b_match.assign(nb, kUnwrittenFlag);
    JoinRangesOut out{o.a_rows.data(), o.a_lower.data(), o.a_count.data(), o.b_rows.data(),
                      with_match ? o.b_match.data() : nullptr};
    j.download(out);
    return o;
}

// rows is a permutation of [0, input.size()) listing the input's keys non-decreasing,
// equal keys by ascending row.
template <class K>
::testing::AssertionResult check_sorted_rows(const std::string& what, const std::vector<K>& input,
                                             const std::vector<uint64_t>& rows) {
    if (rows.size() != input.size())
        return ::testing::AssertionFailure() << what << ": " << rows.size() << " rows, expected " << input.size();
    std::vector<uint8_t> seen(input.size(), 0);
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] >= input.size() || seen[rows[i]])
            return ::testing::AssertionFailure() << what << "[" << i << "] = " << rows[i]
                                                 << " is out of range or repeated";
        seen[rows[i]] = 1;
        if (i == 0) continue;
        const K &prev = input[rows[i - 1]], &cur = input[rows[i]];
        if (cur < prev)
            return ::testing::AssertionFailure() << what << ": key of row " << rows[i] << " at [" << i
                                                 << "] = " << key_str(cur) << " < key of row " << rows[i - 1]
                                                 << " at [" << i - 1 << "] = " << key_str(prev);
        if (cur == prev && rows[i] < rows[i - 1])
            return ::testing::AssertionFailure() << what << ": equal keys " << key_str(cur) << " at [" << i - 1
                                                 << ".." << i << "] in descending rows " << rows[i - 1] << ", "
                                                 << rows[i] << " (not stable)";
    }
    return ::testing::AssertionSuccess();
}

// Checks a downloaded join of inputs a and b (row r = a[r], b[r]) against brute force.
template <class K>
::testing::AssertionResult check_join(const std::string& what, const std::vector<K>& a, const std::vector<K>& b,
                                      const JoinOut& got, bool with_match) {
    const size_t na = a.size(), nb = b.size();
    if (got.a_lower.size() != na || got.a_count.size() != na || got.b_match.size() != (with_match ? nb : 0))
        return ::testing::AssertionFailure() << what << ": output sizes do not match the inputs";
    MP_RETURN_IF_FAILED(check_sorted_rows(what + " a_rows", a, got.a_rows));
    MP_RETURN_IF_FAILED(check_sorted_rows(what + " b_rows", b, got.b_rows));

    std::map<K, uint64_t> b_count;
    for (const K& k : b) ++b_count[k];
    std::vector<K> sorted_b(nb);  // B's keys in b_rows order: sorted, as just checked
    for (size_t j = 0; j < nb; ++j) sorted_b[j] = b[got.b_rows[j]];

    uint64_t pairs = 0;
    for (size_t i = 0; i < na; ++i) {
        const K& key = a[got.a_rows[i]];
        auto it = b_count.find(key);
        const uint64_t want_count = it == b_count.end() ? 0 : it->second;
        const uint64_t want_lower = std::lower_bound(sorted_b.begin(), sorted_b.end(), key) - sorted_b.begin();
        if (got.a_count[i] != want_count || got.a_lower[i] != want_lower)
            return ::testing::AssertionFailure()
                   << what << ": sorted A[" << i << "] (row " << got.a_rows[i] << ", key " << key_str(key)
                   << "): a_lower = " << got.a_lower[i] << ", a_count = " << got.a_count[i] << ", expected "
                   << want_lower << ", " << want_count;
        pairs += got.a_count[i];
        if (i > 0 && a[got.a_rows[i - 1]] == key) continue;  // same range as the previous A key
        uint64_t prev_row = 0;
        for (uint64_t k = 0; k < got.a_count[i]; ++k) {
            const uint64_t j = got.a_lower[i] + k, row = got.b_rows[j];
            if (!(b[row] == key) || (k > 0 && row <= prev_row))
                return ::testing::AssertionFailure()
                       << what << ": sorted A[" << i << "] (key " << key_str(key) << "): b_rows[" << j << "] = row "
                       << row << " with key " << key_str(b[row]) << (k > 0 ? ", after row " : "")
                       << (k > 0 ? std::to_string(prev_row) : "");
            prev_row = row;
        }
    }

    if (with_match) {
        std::set<K> a_keys(a.begin(), a.end());
        for (size_t j = 0; j < nb; ++j) {
            const uint8_t want = a_keys.count(b[got.b_rows[j]]) ? 1 : 0;
            if (got.b_match[j] != want)
                return ::testing::AssertionFailure() << what << ": b_match[" << j << "] (row " << got.b_rows[j]
                                                     << ", key " << key_str(b[got.b_rows[j]]) << ") = "
                                                     << int(got.b_match[j]) << ", expected " << int(want);
        }
    }

    // The pair count: nested loops where that is cheap, a merge walk of the sorted inputs otherwise.
    uint64_t want_pairs = 0;
    if (uint64_t(na) * nb <= 2000000) {
        for (const K& x : a)
            for (const K& y : b) want_pairs += x == y;
    } else {
        want_pairs = inner_pair_count(sorted(a), sorted(b));
    }
    if (pairs != want_pairs)
        return ::testing::AssertionFailure() << what << ": " << pairs << " pairs (sum of a_count), expected "
                                             << want_pairs;
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------
// Inputs and the ways of adding them.

struct Spec {
    const char* name;
    size_t na, nb;
    uint64_t range;  // distinct key values the keys are drawn from
};

const Spec kSpecs[] = {
    {"empty/empty", 0, 0, 1},
    {"0/1", 0, 1, 1},
    {"1/0", 1, 0, 1},
    {"1/1 equal", 1, 1, 1},
    {"1/1 range 2", 1, 1, 2},
    {"0/1000", 0, 1000, 300},
    {"1000/0", 1000, 0, 300},
    {"1/1000", 1, 1000, 3},
    {"1000/1", 1000, 1, 3},
    {"1000/1000 range 300", 1000, 1000, 300},
    {"1000/1000 range 3", 1000, 1000, 3},
    {"1000/1000 range 2000", 1000, 1000, 2000},
    {"1000/100000 range 5000", 1000, 100000, 5000},
    {"100000/1000 range 5000", 100000, 1000, 5000},
    {"100000/100000 range 30000", 100000, 100000, 30000},
    {"100000/100000 range 7", 100000, 100000, 7},
};

template <class K>
struct Input {
    std::string name;
    std::vector<K> a, b;
};

template <class K>
Input<K> make_input(const Spec& s, uint64_t seed) {
    Rng rng(seed);
    Input<K> in;
    in.name = s.name;
    in.a = random_keys<K>(rng, s.na, s.range);
    in.b = random_keys<K>(rng, s.nb, s.range);
    return in;
}

// Adds the input in the given batches, A and B interleaved, add and add_chunk
// alternating; checks rows() after every call.
template <class K>
::testing::AssertionResult add_batches(SqlJoin<K>& j, const Input<K>& in, const std::vector<size_t>& batches_a,
                                       const std::vector<size_t>& batches_b) {
    size_t pos[2] = {0, 0};
    int call = 0;
    for (size_t i = 0; i < std::max(batches_a.size(), batches_b.size()); ++i) {
        for (int s = 0; s < 2; ++s) {
            const std::vector<size_t>& batches = s == 0 ? batches_a : batches_b;
            if (i >= batches.size()) continue;
            const Side side = s == 0 ? Side::A : Side::B;
            const K* keys = (s == 0 ? in.a : in.b).data() + pos[s];
            if (call++ % 2) j.add_chunk(side, keys, batches[i]);
            else j.add(side, keys, batches[i]);
            pos[s] += batches[i];
            if (j.rows(side) != pos[s])
                return ::testing::AssertionFailure() << "rows(" << (s == 0 ? "A" : "B") << ") = " << j.rows(side)
                                                     << " after adding " << pos[s] << " keys";
        }
    }
    return ::testing::AssertionSuccess();
}

// A join finished with ranges by A row (set_ranges_by_a_row): the ranges downloaded in
// pieces of random sizes are, for every A row r, the lower bound and the count of a[r]
// in B sorted by the b_rows it downloads (still allowed), and A's sorted arrays are
// refused.
template <class K>
::testing::AssertionResult check_by_a_row(const std::string& what, SqlJoin<K>& j, const std::vector<K>& a,
                                          const std::vector<K>& b, uint64_t seed) {
    const size_t na = a.size(), nb = b.size();
    std::vector<uint64_t> b_rows(nb, kUnwritten), a_rows(na);
    j.download(JoinRangesOut{nullptr, nullptr, nullptr, b_rows.data(), nullptr});
    MP_RETURN_IF_FAILED(check_sorted_rows(what + " b_rows", b, b_rows));
    try {
        if (na > 0) j.download(JoinRangesOut{a_rows.data(), nullptr, nullptr, nullptr, nullptr});
        if (na > 0) return ::testing::AssertionFailure() << what << ": sorted A rows downloaded though kept by A row";
    } catch (const Error&) {
    }
    std::vector<K> sorted_b(nb);
    for (size_t k = 0; k < nb; ++k) sorted_b[k] = b[b_rows[k]];
    std::vector<JoinRange> by_row(na, JoinRange{kUnwritten, kUnwritten});
    Rng rng(seed ^ 0xb7a0);
    // pieces of random length, some into one array, some cut into spans (empty ones too),
    // each span a buffer of its own between two guards; the first piece of a large A is
    // over 1 MB (the CUDA backend stages it through pinned buffers)
    const JoinRange guard{kUnwritten - 1, kUnwritten - 1};
    for (size_t first = 0; first < na;) {
        size_t n = std::min<size_t>(na - first, first == 0 && na > 70000 ? 70000 : 1 + rng() % 5000);
        if (n < 70000 && rng() % 2) {
            j.download_by_a_row(first, n, by_row.data() + first);
            first += n;
            continue;
        }
        std::vector<size_t> lengths;
        for (size_t left = n;;) {
            size_t len = std::min<size_t>(left, n >= 70000 ? n / 3 + 1 : rng() % 700);
            lengths.push_back(len);
            left -= len;
            if (left == 0 && len == 0) break;  // the last span is an empty one
        }
        std::vector<std::vector<JoinRange>> buffers;
        std::vector<HostSpan> spans;
        for (size_t len : lengths) buffers.emplace_back(len + 2, guard);
        for (auto& buf : buffers) spans.push_back(HostSpan{buf.data() + 1, (buf.size() - 2) * sizeof(JoinRange)});
        j.download_by_a_row(first, spans.data(), spans.size());
        size_t at = first;
        for (const auto& buf : buffers) {
            const JoinRange& lo = buf.front();
            const JoinRange& hi = buf.back();
            const bool kept = lo.lower == guard.lower && lo.count == guard.count && hi.lower == guard.lower &&
                              hi.count == guard.count;
            if (!kept)
                return ::testing::AssertionFailure() << what << ": a download into spans wrote past a span";
            for (size_t k = 1; k + 1 < buf.size(); ++k) by_row[at++] = buf[k];
        }
        first += n;
    }
    for (size_t r = 0; r < na; ++r) {
        auto range = std::equal_range(sorted_b.begin(), sorted_b.end(), a[r]);
        const uint64_t lower = range.first - sorted_b.begin(), count = range.second - range.first;
        if (by_row[r].lower != lower || by_row[r].count != count)
            return ::testing::AssertionFailure() << what << ": A row " << r << " (key " << key_str(a[r]) << ") has ("
                                                 << by_row[r].lower << ", " << by_row[r].count << "), expected ("
                                                 << lower << ", " << count << ")";
    }
    return ::testing::AssertionSuccess();
}

enum class AddMode { OneAddPerSide, Batches };

// One SqlJoin run on ctx: adds the input, finishes, downloads (twice: a download may be
// repeated) and checks against the reference. ship_rows and runs: see SqlJoin.
template <class K>
::testing::AssertionResult run_and_check(Context& ctx, const Input<K>& in, AddMode mode, size_t ship_rows,
                                         bool want_b_match, uint64_t seed) {
    const std::string tag = "'" + in.name + "' " + (mode == AddMode::OneAddPerSide ? "one add" : "batches") +
                            (ship_rows == SqlJoin<K>::kNoShipping ? std::string()
                             : ship_rows == SqlJoin<K>::kBackendDefault
                                 ? std::string(" ship_rows=default")
                                 : " ship_rows=" + std::to_string(ship_rows)) +
                            (want_b_match ? "" : " no b_match");
    std::vector<size_t> batches_a{in.a.size()}, batches_b{in.b.size()};
    if (mode == AddMode::Batches) {
        Rng rng(seed ^ 0xba7c4);
        batches_a = batch_sizes(in.a.size(), rng);
        batches_b = batch_sizes(in.b.size(), rng);
    }
    {
        SqlJoin<K> j(ctx);
        if (&j.context() != &ctx) return ::testing::AssertionFailure() << tag << ": context() is not ctx";
        j.set_ship_rows(ship_rows);
        j.set_want_b_match(want_b_match);
        ::testing::AssertionResult added = add_batches(j, in, batches_a, batches_b);
        if (!added) return ::testing::AssertionFailure() << tag << ": " << added.message();
        if (ship_rows != SqlJoin<K>::kBackendDefault) {
            const size_t want_runs = ship_rows == SqlJoin<K>::kNoShipping
                                         ? 0
                                         : expected_runs(batches_a, ship_rows) + expected_runs(batches_b, ship_rows);
            if (j.timings().runs != want_runs)
                return ::testing::AssertionFailure() << tag << ": " << j.timings().runs
                                                     << " runs shipped while adding, expected " << want_runs;
        }
        j.finish();
        JoinOut got = download_all(j, want_b_match);
        MP_RETURN_IF_FAILED(check_join(tag, in.a, in.b, got, want_b_match));
        if (!(download_all(j, want_b_match) == got))
            return ::testing::AssertionFailure() << tag << ": a second download differs from the first";
        const PipelineTimings t = j.timings();
        if (!(t.transfer_ms >= 0 && t.sort_ms >= 0 && t.kernel_ms >= 0 && t.ship_ms >= 0))
            return ::testing::AssertionFailure() << tag << ": negative or NaN timings";
    }
    {
        SqlJoin<K> j(ctx);  // the same, with A's ranges by A row
        j.set_ship_rows(ship_rows);
        j.set_want_b_match(want_b_match);
        j.set_ranges_by_a_row(true);
        j.set_keep_b_keys(true);  // and B's sorted keys kept for a streamed outer side
        ::testing::AssertionResult added = add_batches(j, in, batches_a, batches_b);
        if (!added) return ::testing::AssertionFailure() << tag << " by A row: " << added.message();
        j.finish();
        MP_RETURN_IF_FAILED(check_by_a_row(tag + " by A row", j, in.a, in.b, seed));
        std::vector<K> b_keys(in.b.size());
        j.download_b_keys(b_keys.data());
        if (b_keys != sorted(in.b)) return ::testing::AssertionFailure() << tag << ": B's kept keys are not B sorted";
    }
    {
        SqlJoin<K> j(ctx);  // B's keys are not kept unless asked for
        ::testing::AssertionResult added = add_batches(j, in, batches_a, batches_b);
        if (!added) return ::testing::AssertionFailure() << tag << ": " << added.message();
        j.finish();
        std::vector<K> b_keys(in.b.size());
        bool threw = false;
        try {
            j.download_b_keys(b_keys.data());
        } catch (const Error&) {
            threw = true;
        }
        if (!threw) return ::testing::AssertionFailure() << tag << ": download_b_keys without keeping them did not throw";
    }
    if (ctx.memory_in_use() != 0)
        return ::testing::AssertionFailure() << tag << ": " << ctx.memory_in_use()
                                             << " bytes still in use after the SqlJoin was destroyed";
    return ::testing::AssertionSuccess();
}

template <class C>
class SqlJoinTest : public BackendTest<C> {
protected:
    using K = typename C::Key;

    // Runs every spec through run_and_check(mode, ship_rows); reports the first few failures.
    void run_specs(AddMode mode, size_t ship_rows, bool want_b_match = true) {
        int failures = 0;
        uint64_t index = 0;
        for (const Spec& s : kSpecs) {
            const uint64_t seed = base_seed() * 1000003 + 0x701 + index++;
            ::testing::AssertionResult r =
                run_and_check(this->ctx(), make_input<K>(s, seed), mode, ship_rows, want_b_match, seed);
            if (!r && ++failures <= 3)
                ADD_FAILURE() << "[" << backend_name(C::backend) << " " << KeyTraits<K>::name() << " seed=" << seed
                              << "] " << r.message();
        }
    }
};
TYPED_TEST_SUITE(SqlJoinTest, AllConfigs);

TYPED_TEST(SqlJoinTest, RandomKeysOneAddPerSide) {
    this->run_specs(AddMode::OneAddPerSide, SqlJoin<typename TestFixture::K>::kNoShipping);
}

// Row numbers are positions in add order: the reference numbers the keys so.
TYPED_TEST(SqlJoinTest, RandomKeysInBatchesAndChunksRowsInAddOrder) {
    this->run_specs(AddMode::Batches, SqlJoin<typename TestFixture::K>::kNoShipping);
}

TYPED_TEST(SqlJoinTest, BackendDefaultShipping) {
    this->run_specs(AddMode::Batches, SqlJoin<typename TestFixture::K>::kBackendDefault);
}

TYPED_TEST(SqlJoinTest, RunsShippedWhileAdding) {
    this->run_specs(AddMode::Batches, 64);
    this->run_specs(AddMode::OneAddPerSide, 64);
}

TYPED_TEST(SqlJoinTest, WithoutBMatch) {
    using K = typename TestFixture::K;
    this->run_specs(AddMode::Batches, SqlJoin<K>::kNoShipping, /*want_b_match=*/false);

    Rng rng(base_seed() ^ 0xb3a7);
    std::vector<K> a = random_keys<K>(rng, 500, 100), b = random_keys<K>(rng, 700, 100);
    SqlJoin<K> j(this->ctx());
    j.set_want_b_match(false);
    j.add(Side::A, a.data(), a.size());
    j.add(Side::B, b.data(), b.size());
    j.finish();
    EXPECT_THROW(j.set_want_b_match(true), Error) << "set_want_b_match after finish";
    JoinOut got = download_all(j, false);
    EXPECT_TRUE(check_join("no b_match", a, b, got, false));
    std::vector<uint8_t> flags(b.size(), kUnwrittenFlag);
    JoinRangesOut with_flags{got.a_rows.data(), got.a_lower.data(), got.a_count.data(), got.b_rows.data(),
                             flags.data()};
    EXPECT_THROW(j.download(with_flags), Error) << "b_match downloaded though finish() did not compute it";
    // Still usable after the refused download.
    EXPECT_TRUE(download_all(j, false) == got);
}

TYPED_TEST(SqlJoinTest, MisuseThrows) {
    using K = typename TestFixture::K;
    Rng rng(base_seed() ^ 0x3150);
    std::vector<K> a = random_keys<K>(rng, 300, 50), b = random_keys<K>(rng, 200, 50);
    SqlJoin<K> j(this->ctx());
    j.add(Side::A, a.data(), a.size());
    j.add_chunk(Side::B, b.data(), b.size());
    EXPECT_THROW(j.add(Side::A, nullptr, 3), Error) << "keys with a size but no data";
    EXPECT_EQ(j.rows(Side::A), a.size());
    {
        std::vector<uint64_t> a_rows(a.size()), a_lower(a.size()), a_count(a.size()), b_rows(b.size());
        std::vector<uint8_t> flags(b.size());
        JoinRangesOut out{a_rows.data(), a_lower.data(), a_count.data(), b_rows.data(), flags.data()};
        EXPECT_THROW(j.download(out), Error) << "download before finish";
        std::vector<JoinRange> by_row(a.size());
        EXPECT_THROW(j.download_by_a_row(0, a.size(), by_row.data()), Error) << "by A row before finish";
    }
    j.finish();
    EXPECT_THROW(j.add(Side::A, a.data(), 1), Error) << "add after finish";
    EXPECT_THROW(j.add_chunk(Side::B, b.data(), 1), Error) << "add_chunk after finish";
    EXPECT_THROW(j.finish(), Error) << "finish twice";
    EXPECT_THROW(j.rebind(this->ctx()), Error) << "rebind after a successful finish";
    EXPECT_EQ(j.rows(Side::A), a.size());
    EXPECT_EQ(j.rows(Side::B), b.size());
    std::vector<JoinRange> by_row(a.size());
    EXPECT_THROW(j.download_by_a_row(0, a.size(), by_row.data()), Error) << "by A row, not kept by A row";
    EXPECT_THROW(j.set_ranges_by_a_row(true), Error) << "set_ranges_by_a_row after finish";
    // The join is intact after all of that.
    EXPECT_TRUE(check_join("after misuse", a, b, download_all(j, true), true));

    SqlJoin<K> by_a_row(this->ctx());
    by_a_row.set_ranges_by_a_row(true);
    by_a_row.add(Side::A, a.data(), a.size());
    by_a_row.add(Side::B, b.data(), b.size());
    by_a_row.finish();
    by_row.resize(a.size() + 1);
    EXPECT_THROW(by_a_row.download_by_a_row(0, a.size() + 1, by_row.data()), Error) << "by A row past the last row";
    EXPECT_THROW(by_a_row.download_by_a_row(a.size() + 1, 0, by_row.data()), Error) << "by A row from past the end";
    const HostSpan part{by_row.data(), sizeof(JoinRange) + 1};
    EXPECT_THROW(by_a_row.download_by_a_row(0, &part, 1), Error) << "by A row into part of a range";
    EXPECT_TRUE(check_by_a_row("after misuse", by_a_row, a, b, 7));

    // Empty sides need no arrays at all.
    SqlJoin<K> empty(this->ctx());
    empty.finish();
    empty.download(JoinRangesOut{nullptr, nullptr, nullptr, nullptr, nullptr});
    EXPECT_EQ(empty.rows(Side::A) + empty.rows(Side::B), 0u);
}

// B's keys may carry values (the extension's row references) in place of row numbers:
// b_rows then gives each sorted B key's value, exactly where the same join without
// values gives its row number, and A's ranges by A row are unchanged; A's keys may not
// carry values (its ranges go by A row number).
TYPED_TEST(SqlJoinTest, BKeysCarryValuesInPlaceOfRowNumbers) {
    using K = typename TestFixture::K;
    Rng rng(base_seed() ^ 0x7a1e);
    std::vector<K> a = random_keys<K>(rng, 3000, 400), b = random_keys<K>(rng, 5000, 400);
    std::vector<uint64_t> values(b.size());
    for (size_t r = 0; r < b.size(); ++r) values[r] = ~uint64_t(r) * 3;
    SqlJoin<K> plain(this->ctx()), carrying(this->ctx());
    for (SqlJoin<K>* j : {&plain, &carrying}) j->add(Side::A, a.data(), a.size());
    plain.add_chunk(Side::B, b.data(), 2000);
    plain.add_chunk(Side::B, b.data() + 2000, b.size() - 2000);
    carrying.add_chunk(Side::B, b.data(), 2000, false, values.data());
    carrying.add_chunk(Side::B, b.data() + 2000, b.size() - 2000, false, values.data() + 2000);
    EXPECT_THROW(carrying.add_chunk(Side::A, a.data(), 1, false, values.data()), Error) << "values on A";
    EXPECT_EQ(carrying.rows(Side::A), a.size());
    plain.finish();
    carrying.finish();
    std::vector<uint64_t> rows(b.size()), carried(b.size());
    plain.download(JoinRangesOut{nullptr, nullptr, nullptr, rows.data(), nullptr});
    carrying.download(JoinRangesOut{nullptr, nullptr, nullptr, carried.data(), nullptr});
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(carried[i], values[rows[i]]) << "sorted B " << i;
    std::vector<uint64_t> a_lower(a.size()), a_count(a.size()), c_lower(a.size()), c_count(a.size());
    plain.download(JoinRangesOut{nullptr, a_lower.data(), a_count.data(), nullptr, nullptr});
    carrying.download(JoinRangesOut{nullptr, c_lower.data(), c_count.data(), nullptr, nullptr});
    EXPECT_EQ(a_lower, c_lower);
    EXPECT_EQ(a_count, c_count);

    // as the extension runs it: ranges by A row, B's match flags and sorted keys kept
    SqlJoin<K> ext_plain(this->ctx()), ext_carrying(this->ctx());
    for (SqlJoin<K>* j : {&ext_plain, &ext_carrying}) {
        j->set_ranges_by_a_row(true);
        j->set_want_b_match(true);
        j->set_keep_b_keys(true);
        j->add_chunk(Side::A, a.data(), a.size());
    }
    ext_plain.add_chunk(Side::B, b.data(), b.size());
    ext_carrying.add_chunk(Side::B, b.data(), b.size(), false, values.data());
    ext_plain.finish();
    ext_carrying.finish();
    std::vector<uint8_t> match(b.size()), c_match(b.size());
    ext_plain.download(JoinRangesOut{nullptr, nullptr, nullptr, rows.data(), match.data()});
    ext_carrying.download(JoinRangesOut{nullptr, nullptr, nullptr, carried.data(), c_match.data()});
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(carried[i], values[rows[i]]) << "sorted B " << i << ", by A row";
    EXPECT_EQ(match, c_match);
    std::vector<JoinRange> by_row(a.size()), c_by_row(a.size());
    ext_plain.download_by_a_row(0, a.size(), by_row.data());
    ext_carrying.download_by_a_row(0, a.size(), c_by_row.data());
    for (size_t r = 0; r < a.size(); ++r) {
        ASSERT_EQ(by_row[r].lower, c_by_row[r].lower) << "A row " << r;
        ASSERT_EQ(by_row[r].count, c_by_row[r].count) << "A row " << r;
    }
    std::vector<K> keys(b.size()), c_keys(b.size());
    ext_plain.download_b_keys(keys.data());
    ext_carrying.download_b_keys(c_keys.data());
    EXPECT_TRUE(keys == c_keys);
}

// Every subset of the five output arrays may be downloaded (the rest nullptr): each array
// downloaded equals the full download's, which is checked against the reference. A is
// larger than two of the pieces (1 << 17) a_count comes through without a_lower.
TYPED_TEST(SqlJoinTest, DownloadsOfAnySubsetOfTheArrays) {
    using K = typename TestFixture::K;
    Rng rng(base_seed() ^ 0x5b5e7);
    const size_t na = (size_t(1) << 18) + 4321, nb = 50000;
    std::vector<K> a = random_keys<K>(rng, na, 40000), b = random_keys<K>(rng, nb, 40000);
    SqlJoin<K> j(this->ctx());
    j.add_chunk(Side::A, a.data(), na);
    j.add(Side::B, b.data(), nb);
    j.finish();
    const JoinOut full = download_all(j, true);
    ASSERT_TRUE(check_join("full download", a, b, full, true));
    for (unsigned mask = 0; mask < 32; ++mask) {
        JoinOut got;
        got.a_rows.assign(mask & 1 ? na : 0, kUnwritten);
        got.a_lower.assign(mask & 2 ? na : 0, kUnwritten);
        got.a_count.assign(mask & 4 ? na : 0, kUnwritten);
        got.b_rows.assign(mask & 8 ? nb : 0, kUnwritten);
        got.b_match.assign(mask & 16 ? nb : 0, kUnwrittenFlag);
        j.download(JoinRangesOut{mask & 1 ? got.a_rows.data() : nullptr, mask & 2 ? got.a_lower.data() : nullptr,
                                 mask & 4 ? got.a_count.data() : nullptr, mask & 8 ? got.b_rows.data() : nullptr,
                                 mask & 16 ? got.b_match.data() : nullptr});
        const std::string tag = "arrays mask " + std::to_string(mask);
        if (mask & 1) EXPECT_TRUE(same_array(tag + " a_rows", full.a_rows, got.a_rows));
        if (mask & 2) EXPECT_TRUE(same_array(tag + " a_lower", full.a_lower, got.a_lower));
        if (mask & 4) EXPECT_TRUE(same_array(tag + " a_count", full.a_count, got.a_count));
        if (mask & 8) EXPECT_TRUE(same_array(tag + " b_rows", full.b_rows, got.b_rows));
        if (mask & 16) EXPECT_TRUE(same_array(tag + " b_match", full.b_match, got.b_match));
    }
}

// ---------------------------------------------------------------------------------------
// Several producer threads.
//
// Rows are numbered in the order keys reach a side, which threads do not fix. Each chunk
// c (of kChunks per side, both sides laid out alike) draws its keys from its own key
// range [c * R, (c + 1) * R) (A from the lower 3/4, B from the upper 3/4, so some keys
// match nothing), so sorted order puts the chunks in chunk order and the rows there name
// the first row each chunk got. The rows of a chunk must then be consecutive, in the
// chunk's order: the input as numbered is rebuilt from that and checked as above.

template <class K>
::testing::AssertionResult check_threads(Context& ctx, size_t threads, size_t ship_rows, uint64_t seed) {
    const size_t kChunks = 48;
    const uint64_t R = 40, domain = kChunks * R;
    const std::string tag = std::to_string(threads) + " threads, ship_rows=" +
                            (ship_rows == SqlJoin<K>::kNoShipping ? std::string("none") : std::to_string(ship_rows));
    Rng rng(seed);
    std::vector<std::vector<K>> chunks[2];
    for (int s = 0; s < 2; ++s)
        for (size_t c = 0; c < kChunks; ++c) {
            static const size_t sizes[] = {0, 1, 5, 63, 64, 65, 700, 1500, 3001};
            size_t n = sizes[rng() % (sizeof sizes / sizeof sizes[0])];
            chunks[s].push_back(random_keys<K>(rng, n, 3 * R / 4, c * R + (s == 0 ? 0 : R / 4), domain));
        }

    SqlJoin<K> j(ctx);
    j.set_ship_rows(ship_rows);
    std::atomic<size_t> ready{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready++;
            while (ready.load() < threads) std::this_thread::yield();
            for (size_t c = t; c < kChunks; c += threads)
                for (int s = 0; s < 2; ++s) {
                    const Side side = s == 0 ? Side::A : Side::B;
                    const std::vector<K>& keys = chunks[s][c];
                    if ((c / threads) % 2) j.add(side, keys.data(), keys.size());
                    else j.add_chunk(side, keys.data(), keys.size());
                }
        });
    for (auto& th : pool) th.join();

    size_t total[2] = {0, 0};
    for (int s = 0; s < 2; ++s)
        for (const auto& ch : chunks[s]) total[s] += ch.size();
    if (j.rows(Side::A) != total[0] || j.rows(Side::B) != total[1])
        return ::testing::AssertionFailure() << tag << ": rows() = " << j.rows(Side::A) << "/" << j.rows(Side::B)
                                             << ", expected " << total[0] << "/" << total[1];
    j.finish();
    JoinOut got = download_all(j, true);
    if (got.a_rows.size() != total[0] || got.b_rows.size() != total[1])
        return ::testing::AssertionFailure() << tag << ": wrong output sizes";

    // Rebuild each side as numbered: chunk c holds sorted positions [off, off + n).
    std::vector<K> numbered[2];
    for (int s = 0; s < 2; ++s) {
        const std::vector<uint64_t>& rows = s == 0 ? got.a_rows : got.b_rows;
        std::vector<K>& side = numbered[s];
        side.resize(total[s]);
        std::vector<uint8_t> filled(total[s], 0);
        size_t off = 0;
        for (size_t c = 0; c < kChunks; ++c) {
            const std::vector<K>& keys = chunks[s][c];
            if (keys.empty()) continue;
            uint64_t first = UINT64_MAX;
            for (size_t i = off; i < off + keys.size(); ++i) first = std::min(first, rows[i]);
            for (size_t k = 0; k < keys.size(); ++k) {
                if (first + k >= total[s] || filled[first + k])
                    return ::testing::AssertionFailure()
                           << tag << ": side " << (s == 0 ? "A" : "B") << " chunk " << c << " (" << keys.size()
                           << " keys, first row " << first << ") does not own consecutive rows";
                filled[first + k] = 1;
                side[first + k] = keys[k];
            }
            off += keys.size();
        }
    }
    return check_join(tag, numbered[0], numbered[1], got, true);
}

TYPED_TEST(SqlJoinTest, ChunksFromSeveralThreads) {
    using K = typename TestFixture::K;
    uint64_t seed = base_seed() ^ 0x7472;
    for (size_t threads : {size_t(1), size_t(2), size_t(4), size_t(8)})
        for (size_t ship_rows : {SqlJoin<K>::kNoShipping, size_t(64), size_t(1000)})
            EXPECT_TRUE(check_threads<K>(this->ctx(), threads, ship_rows, seed++));
}

// ---------------------------------------------------------------------------------------
// Out of memory, then rebind.
//
// A context of the configuration's backend whose budget holds the host keys (they are
// charged to it) and a growing share of what finish() needs: finish() either succeeds or
// throws OutOfMemory; after a throw, adding is refused, rebind() moves the keys to an
// unlimited CPU context (leaving nothing charged to the small one) and finish() there
// gives the reference answer. The smallest budget must fail.

TYPED_TEST(SqlJoinTest, OutOfMemoryThenRebind) {
    using K = typename TestFixture::K;
    const size_t n = 30000;
    Rng rng(base_seed() ^ 0x00e1);
    Input<K> in;
    in.name = "oom";
    in.a = random_keys<K>(rng, n, n / 3);
    in.b = random_keys<K>(rng, n + 123, n / 3);
    const size_t key_bytes = (in.a.size() + in.b.size()) * sizeof(K);
    size_t failures = 0, successes = 0;
    for (size_t ship_rows : {SqlJoin<K>::kNoShipping, size_t(64)})
        for (double extra : {0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0}) {
            const std::string tag = "budget = keys + " + std::to_string(extra) + " x keys, ship_rows=" +
                                    (ship_rows == SqlJoin<K>::kNoShipping ? "none" : std::to_string(ship_rows));
            Options tiny;
            tiny.backend = TypeParam::backend;
            tiny.memory_budget = key_bytes + size_t(extra * key_bytes) + 1024;
            Options cpu;
            cpu.backend = Backend::Cpu;
            Context small(tiny), big(cpu);
            bool oom = false;
            {
                SqlJoin<K> j(small);
                j.set_ship_rows(ship_rows);
                ASSERT_TRUE(add_batches(j, in, batch_sizes(in.a.size(), rng), batch_sizes(in.b.size(), rng))) << tag;
                try {
                    j.finish();
                } catch (const OutOfMemory&) {
                    oom = true;
                }
                if (oom) {
                    ++failures;
                    EXPECT_THROW(j.add(Side::A, in.a.data(), 1), Error) << tag << ": add after a failed finish";
                    EXPECT_THROW(download_all(j, true), Error) << tag << ": download after a failed finish";
                    j.rebind(big);
                    EXPECT_EQ(&j.context(), &big) << tag;
                    EXPECT_EQ(small.memory_in_use(), 0u) << tag << ": memory left on the small context after rebind";
                    j.finish();
                } else {
                    ++successes;
                }
                EXPECT_TRUE(check_join(tag + (oom ? " after rebind" : " within budget"), in.a, in.b,
                                       download_all(j, true), true));
                EXPECT_THROW(j.rebind(big), Error) << tag << ": rebind after a successful finish";
            }
            EXPECT_EQ(small.memory_in_use(), 0u) << tag << ": memory left after destruction";
            EXPECT_EQ(big.memory_in_use(), 0u) << tag << ": memory left after destruction";
            if (extra == 0.0) {
                EXPECT_TRUE(oom) << tag << ": the smallest budget did not run out of memory";
            }
        }
    EXPECT_GT(failures, 0u) << "no budget ran out of memory";
    std::cout << "[ info     ] " << failures << " budgets ran out of memory, " << successes << " did not\n";
}

// The same after the sort succeeded: budgets between what the sorted sides need and
// what the search adds, found by probing with the stage alone (SortedSides sorts, the
// join's finish() does not), so the out-of-memory comes from the sorted search. It must
// leave the stage where rebind() can take it; no memory stays charged to the small
// context after rebind(). With ranges by A row too (their move needs room of its own).
// On the GPU the sort's scratch exceeds what the search needs,
// so no such budget exists there: the test then reports SKIPPED.
TYPED_TEST(SqlJoinTest, OutOfMemoryInTheSearchThenRebind) {
    using K = typename TestFixture::K;
    const size_t na = 20000, nb = 25000;
    Rng rng(base_seed() ^ 0x5ea4);
    Input<K> in;
    in.name = "search oom";
    in.a = random_keys<K>(rng, na, 6000);
    in.b = random_keys<K>(rng, nb, 6000);
    const size_t key_bytes = (na + nb) * sizeof(K), sides_bytes = (na + nb) * (sizeof(K) + sizeof(uint64_t));
    Options cpu;
    cpu.backend = Backend::Cpu;
    size_t found = 0;
    for (bool by_a_row : {false, true}) {  // by A row: the search's ranges, then their move
    const size_t search_bytes = 2 * na * sizeof(uint64_t) + nb + (by_a_row ? na * sizeof(JoinRange) : 0);
    for (size_t step = 0; step <= 8; ++step) {
        Options tiny;
        tiny.backend = TypeParam::backend;
        tiny.memory_budget = key_bytes + sides_bytes + search_bytes * step / 8;
        bool sorts = false;
        {
            Context probe(tiny);
            SortedSides<K> sides(probe, true);
            sides.add(Side::A, in.a.data(), na);
            sides.add(Side::B, in.b.data(), nb);
            try {
                sides.sort();
                sorts = true;
            } catch (const OutOfMemory&) {
            }
        }
        if (!sorts) continue;
        Context small(tiny), big(cpu);
        {
            SqlJoin<K> j(small);
            j.set_ranges_by_a_row(by_a_row);
            j.add_chunk(Side::A, in.a.data(), na);
            j.add(Side::B, in.b.data(), nb);
            try {
                j.finish();
                break;  // larger budgets succeed too
            } catch (const OutOfMemory&) {
            }
            ++found;
            const std::string tag = "budget " + std::to_string(tiny.memory_budget) + " (search step " +
                                    std::to_string(step) + "/8" + (by_a_row ? ", by A row)" : ")");
            EXPECT_THROW(j.finish(), Error) << tag << ": finish twice without rebind";
            if (!by_a_row) EXPECT_THROW(download_all(j, true), Error) << tag << ": download after a failed finish";
            j.rebind(big);
            EXPECT_EQ(small.memory_in_use(), 0u) << tag << ": memory left on the small context after rebind";
            j.finish();
            if (by_a_row) EXPECT_TRUE(check_by_a_row(tag + " after rebind", j, in.a, in.b, step));
            else EXPECT_TRUE(check_join(tag + " after rebind", in.a, in.b, download_all(j, true), true));
        }
        EXPECT_EQ(big.memory_in_use(), 0u);
    }
    }
    std::cout << "[ info     ] " << found << " budgets ran out of memory in the search\n";
    if (found == 0 && TypeParam::backend == Backend::Cuda)
        GTEST_SKIP() << "on the GPU the sort needs more memory than the sorted sides and the search together: "
                        "no budget lets the sort succeed and the search run out of memory";
    EXPECT_GT(found, 0u) << "no budget let the sort succeed and the search run out of memory";
}

}  // namespace
}  // namespace mptest
