// test_sql_ship.cpp — SqlSetOp shipping sorted runs while keys are added (the GPU
// overlaps copying and sorting with reading; the CPU backend runs the same run logic
// when set_ship_rows turns it on), on both backends and all key types:
//  - for ship_rows 1, 7 and 1000, all four SQL forms, keys only and with rows, on
//    inputs of size 0 and 1, sizes that are no multiple of ship_rows, heavy
//    duplicates and many tiny batches (A and B batches interleaved): the result is
//    exactly the unshipped pipeline's (sorted sides, row numbers, result positions)
//    and exactly a std:: reference (std::stable_sort of (key, row), std::set_* by
//    rank, std::unique for the DISTINCT forms), and timings().runs counts one run per
//    shipment the batches call for;
//  - the backend defaults: no shipping on the CPU, one run per 1 << 22 keys on the GPU;
//  - out of memory: a budget that holds the host keys (they are charged to it) but not
//    the runs stops shipping, and finish() reports OutOfMemory with nothing but the
//    keys' charge left; rebound to an unlimited CPU context, finish() gives the
//    reference answer.
#include "test_support.h"

namespace mptest {
namespace {

struct Form {
    SetOp op;
    bool all, with_rows;
    std::string name() const {
        return std::string(op == SetOp::Intersection ? "INTERSECT" : "EXCEPT") + (all ? " ALL" : "") +
               (with_rows ? " with_rows" : " keys_only");
    }
};

std::vector<Form> all_forms() {
    std::vector<Form> forms;
    for (SetOp op : {SetOp::Intersection, SetOp::Difference})
        for (bool all : {true, false})
            for (bool with_rows : {false, true}) forms.push_back({op, all, with_rows});
    return forms;
}

// Unsorted inputs and the batch sizes they are added in.
template <class K>
struct Input {
    std::string name;
    std::vector<K> a, b;
    std::vector<size_t> batches_a, batches_b;  // each sums to the side's size
};

template <class K>
std::vector<Input<K>> inputs(uint64_t seed) {
    struct Spec {
        const char* name;
        size_t na, nb;
        uint64_t range;
        bool tiny_batches;
    };
    const Spec specs[] = {
        {"empty/empty", 0, 0, 1, false},           {"0/5", 0, 5, 3, false},
        {"5/0", 5, 0, 3, false},                   {"1/1 equal", 1, 1, 1, false},
        {"1/0", 1, 0, 1, false},                   {"0/1", 0, 1, 1, false},
        {"dups 3000/2000 range 3", 3000, 2000, 3, false},
        {"all equal 2000/1999", 2000, 1999, 1, false},
        {"mixed 20011/17389", 20011, 17389, 10000, false},
        {"distinct 10007/10009", 10007, 10009, uint64_t(1) << 40, false},
        {"tiny batches 5003/4999", 5003, 4999, 500, true},
    };
    std::vector<Input<K>> out;
    Rng rng(seed);
    for (const Spec& s : specs) {
        Input<K> in;
        in.name = s.name;
        in.a = random_keys<K>(rng, s.na, s.range);
        in.b = random_keys<K>(rng, s.nb, s.range);
        in.batches_a = batch_sizes(s.na, rng, s.tiny_batches);
        in.batches_b = batch_sizes(s.nb, rng, s.tiny_batches);
        out.push_back(std::move(in));
    }
    return out;
}

// What a finished pipeline shows.
template <class K>
struct Outcome {
    std::vector<K> result_keys, keys[2];
    std::vector<uint64_t> rows[2], positions;
    bool operator==(const Outcome& o) const {
        return result_keys == o.result_keys && keys[0] == o.keys[0] && keys[1] == o.keys[1] &&
               rows[0] == o.rows[0] && rows[1] == o.rows[1] && positions == o.positions;
    }
};

// Adds A and B batch by batch, interleaved.
template <class K>
void add_batches(SqlSetOp<K>& p, const Input<K>& in) {
    size_t pa = 0, pb = 0;
    for (size_t i = 0; i < std::max(in.batches_a.size(), in.batches_b.size()); ++i) {
        if (i < in.batches_a.size()) {
            p.add(Side::A, in.a.data() + pa, in.batches_a[i]);
            pa += in.batches_a[i];
        }
        if (i < in.batches_b.size()) {
            p.add(Side::B, in.b.data() + pb, in.batches_b[i]);
            pb += in.batches_b[i];
        }
    }
}

template <class K>
Outcome<K> outcome_of(const SqlSetOp<K>& p, const Form& f) {
    Outcome<K> o;
    if (!f.with_rows) {
        o.result_keys = p.result_keys();
        return o;
    }
    o.positions = p.result_positions();
    for (int s = 0; s < 2; ++s) {
        o.keys[s] = p.sorted_keys(s == 0 ? Side::A : Side::B);
        o.rows[s] = p.sorted_rows(s == 0 ? Side::A : Side::B);
    }
    return o;
}

// The std:: reference: sides stably sorted with their row numbers; the result's keys
// (keys only) or positions in sorted A (with rows), by rank as SQL counts copies.
template <class K>
Outcome<K> reference(const Input<K>& in, const Form& f) {
    Outcome<K> o;
    const std::vector<K>* sides[2] = {&in.a, &in.b};
    for (int s = 0; s < 2; ++s) {
        std::vector<std::pair<K, uint64_t>> pairs;
        for (size_t i = 0; i < sides[s]->size(); ++i) pairs.push_back({(*sides[s])[i], uint64_t(i)});
        std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& p : pairs) {
            o.keys[s].push_back(p.first);
            o.rows[s].push_back(p.second);
        }
    }
    std::vector<K> a = o.keys[0], b = o.keys[1];
    std::vector<uint64_t> firsts;  // sorted-A position of each key of a
    if (f.all) {
        for (size_t i = 0; i < a.size(); ++i) firsts.push_back(i);
    } else {
        firsts = ref_unique(a);
        a.erase(std::unique(a.begin(), a.end()), a.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
    }
    TaggedRef<K> r = ref_set_op(f.op, a, b);
    if (!(r.keys == std_set_op(f.op, a, b))) throw std::logic_error("test reference disagrees with std::set_*");
    if (!f.with_rows) return Outcome<K>{r.keys, {}, {}, {}};
    for (uint64_t t : r.indices) o.positions.push_back(firsts[t]);
    return o;
}

template <class K>
::testing::AssertionResult same_outcome(const std::string& what, const Outcome<K>& want, const Outcome<K>& got) {
    MP_RETURN_IF_FAILED(same_array(what + " result_keys", want.result_keys, got.result_keys));
    MP_RETURN_IF_FAILED(same_array(what + " result_positions", want.positions, got.positions));
    for (int s = 0; s < 2; ++s) {
        std::string side = s == 0 ? " A" : " B";
        MP_RETURN_IF_FAILED(same_array(what + side + " sorted_keys", want.keys[s], got.keys[s]));
        MP_RETURN_IF_FAILED(same_array(what + side + " sorted_rows", want.rows[s], got.rows[s]));
    }
    return ::testing::AssertionSuccess();
}

// One pipeline; checks rows() and the runs count, returns what it shows.
template <class K>
::testing::AssertionResult run_pipeline(Context& ctx, const Input<K>& in, const Form& f, size_t ship_rows,
                                        size_t want_runs, Outcome<K>* out) {
    SqlSetOp<K> p(ctx, f.op, f.all, f.with_rows);
    p.set_ship_rows(ship_rows);
    add_batches(p, in);
    if (p.rows(Side::A) != in.a.size() || p.rows(Side::B) != in.b.size())
        return ::testing::AssertionFailure() << "rows() = " << p.rows(Side::A) << "/" << p.rows(Side::B);
    if (p.timings().runs != want_runs)
        return ::testing::AssertionFailure() << "runs shipped while adding: " << p.timings().runs << ", expected "
                                             << want_runs;
    p.finish();
    const PipelineTimings& t = p.timings();
    if (!(t.ship_ms >= 0 && t.transfer_ms >= 0 && t.sort_ms >= 0 && t.kernel_ms >= 0))
        return ::testing::AssertionFailure() << "negative or NaN timings";
    *out = outcome_of(p, f);
    return ::testing::AssertionSuccess();
}

template <class K>
::testing::AssertionResult check_input(Context& ctx, const Input<K>& in) {
    for (const Form& f : all_forms()) {
        const std::string tag = "'" + in.name + "' " + f.name();
        Outcome<K> want = reference(in, f), unshipped, shipped;
        MP_RETURN_IF_FAILED(run_pipeline(ctx, in, f, SqlSetOp<K>::kNoShipping, 0, &unshipped));
        MP_RETURN_IF_FAILED(same_outcome(tag + " unshipped vs std::", want, unshipped));
        for (size_t ship_rows : {size_t(1), size_t(7), size_t(1000)}) {
            const std::string stag = tag + " ship_rows=" + std::to_string(ship_rows);
            size_t runs = expected_runs(in.batches_a, ship_rows) + expected_runs(in.batches_b, ship_rows);
            ::testing::AssertionResult r = run_pipeline(ctx, in, f, ship_rows, runs, &shipped);
            if (!r) return ::testing::AssertionFailure() << stag << ": " << r.message();
            MP_RETURN_IF_FAILED(same_outcome(stag + " vs unshipped", unshipped, shipped));
            MP_RETURN_IF_FAILED(same_outcome(stag + " vs std::", want, shipped));
        }
    }
    return ::testing::AssertionSuccess();
}

template <class C>
class SqlShipTest : public BackendTest<C> {};
TYPED_TEST_SUITE(SqlShipTest, AllConfigs);

TYPED_TEST(SqlShipTest, ShippedRunsGiveTheUnshippedAnswer) {
    using K = typename TestFixture::K;
    int failures = 0;
    for (const Input<K>& in : inputs<K>(base_seed() ^ 0x5417)) {
        ::testing::AssertionResult r = check_input(this->ctx(), in);
        if (!r && ++failures <= 3) ADD_FAILURE() << KeyTraits<K>::name() << ": " << r.message();
    }
}

// ---------------------------------------------------------------------------------------
// Backend defaults and out of memory (64-bit keys).

class SqlShipOnBackend : public OnBackend {};

TEST_P(SqlShipOnBackend, DefaultShipsOnlyOnTheGpu) {
    Context ctx(options());
    const size_t batch = size_t(1) << 18, batches = 17;  // 1 << 22 keys plus one batch
    Rng rng(base_seed());
    std::vector<uint64_t> a = random_keys<uint64_t>(rng, batch * batches, 1 << 20);
    std::vector<uint64_t> b = random_keys<uint64_t>(rng, 1000, 1 << 20);
    SqlSetOp<uint64_t> p(ctx, SetOp::Intersection, true, false);
    for (size_t i = 0; i < batches; ++i) p.add(Side::A, a.data() + i * batch, batch);
    p.add(Side::B, b.data(), b.size());
    EXPECT_EQ(p.timings().runs, GetParam() == Backend::Cuda ? 1u : 0u);
    p.finish();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_TRUE(same_array("INTERSECT ALL", std_set_op(SetOp::Intersection, a, b), p.result_keys()));
}

TEST_P(SqlShipOnBackend, OutOfMemoryWhileShippingThenRebindIsExact) {
    const size_t n = 200000, ship_rows = 1000, batch = 4096;
    Rng rng(base_seed() ^ 0x0031);
    Input<uint64_t> in;
    in.a = random_keys<uint64_t>(rng, n, n / 2);
    in.b = random_keys<uint64_t>(rng, n, n / 2);
    for (size_t left = n; left > 0; left -= std::min(left, batch)) in.batches_a.push_back(std::min(left, batch));
    in.batches_b = in.batches_a;
    const size_t all_runs = expected_runs(in.batches_a, ship_rows) + expected_runs(in.batches_b, ship_rows);
    for (Form f : {Form{SetOp::Difference, true, true}, Form{SetOp::Intersection, false, true},
                   Form{SetOp::Intersection, true, false}}) {
        const size_t key_bytes = 2 * n * sizeof(uint64_t);
        Options tiny = options();
        tiny.memory_budget = key_bytes + (64 << 10);  // the keys, not the runs, the merge, a whole side
        Options cpu;
        cpu.backend = Backend::Cpu;
        Context small(tiny), big(cpu);
        SqlSetOp<uint64_t> p(small, f.op, f.all, f.with_rows);
        p.set_ship_rows(ship_rows);
        add_batches(p, in);
        EXPECT_GT(p.timings().runs, 0u) << f.name() << ": no run fitted";
        EXPECT_LT(p.timings().runs, all_runs) << f.name() << ": shipping went on after running out of memory";
        EXPECT_THROW(p.finish(), OutOfMemory) << f.name();
        EXPECT_EQ(small.memory_in_use(), key_bytes) << f.name() << ": memory left after OutOfMemory";
        p.rebind(big);
        p.finish();

        Outcome<uint64_t> want = reference(in, f);
        EXPECT_FALSE(want.result_keys.empty() && want.positions.empty()) << f.name() << ": a trivial case";
        EXPECT_TRUE(same_outcome(f.name() + " after rebind vs std::", want, outcome_of(p, f)));
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, SqlShipOnBackend, ::testing::Values(Backend::Cpu, Backend::Cuda));

}  // namespace
}  // namespace mptest
