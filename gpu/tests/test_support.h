// test_support.h — what every mergepath test file shares:
//  - the typed-test configurations: {Cpu, Cuda} x {uint32_t, uint64_t, Key128}, and the
//    fixture BackendTest that opens a Context for one of them (CUDA configurations call
//    GTEST_SKIP() when no usable GPU is present, so ctest reports them as skipped);
//  - input generators: the scenario groups (Small, Tiles, Dups, Shapes, Large) that every
//    two-input operation is checked on, each a list of named pairs of sorted arrays built
//    from a fixed seed (override with MP_TEST_SEED=<n>);
//  - host reference algorithms written as plain serial loops with std:: semantics
//    (std::merge, std::set_*, std::lower_bound ...), whose keys are themselves checked
//    against the std:: algorithms;
//  - comparison helpers that report the first difference instead of dumping arrays.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mergepath/mergepath.h"
#include "mergepath/sql_setop.h"

namespace mergepath {
// gtest printing of backends (test parameters) and 128-bit keys.
inline void PrintTo(Backend b, std::ostream* os) {
    *os << (b == Backend::Cpu ? "Cpu" : b == Backend::Cuda ? "Cuda" : "Auto");
}
inline void PrintTo(const Key128& k, std::ostream* os) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "{0x%" PRIx64 ",0x%" PRIx64 "}", k.hi, k.lo);
    *os << buf;
}
}  // namespace mergepath

namespace mptest {

using namespace mergepath;  // NOLINT: test code

// ---------------------------------------------------------------------------------------
// Keys: names, extremes, printing, and a strictly increasing map from small integers onto
// the whole key domain (so high bits, and the sign bit of every 64-bit word, are exercised).

template <class K>
struct KeyTraits;
template <>
struct KeyTraits<uint32_t> {
    static const char* name() { return "u32"; }
    static uint32_t max() { return std::numeric_limits<uint32_t>::max(); }
    static uint32_t spread(uint64_t v, uint64_t range) {
        uint64_t stride = range > 1 ? uint64_t(UINT32_MAX) / (range - 1) : 1;
        return uint32_t(v * (stride ? stride : 1));
    }
    static std::vector<uint32_t> extremes() { return {0u, 1u, max() - 1, max()}; }
};
template <>
struct KeyTraits<uint64_t> {
    static const char* name() { return "u64"; }
    static uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
    static uint64_t spread(uint64_t v, uint64_t range) {
        uint64_t stride = range > 1 ? UINT64_MAX / (range - 1) : 1;
        return v * stride;
    }
    static std::vector<uint64_t> extremes() {
        return {0u, 1u, (uint64_t(1) << 63) - 1, uint64_t(1) << 63, max() - 1, max()};
    }
};
template <>
struct KeyTraits<Key128> {
    static const char* name() { return "k128"; }
    static Key128 max() { return Key128{UINT64_MAX, UINT64_MAX}; }
    // Pairs of consecutive v share hi and differ in lo (one lo with the top bit set).
    static Key128 spread(uint64_t v, uint64_t range) {
        uint64_t half = (range + 1) / 2;
        uint64_t stride = half > 1 ? UINT64_MAX / (half - 1) : 1;
        return Key128{(v >> 1) * stride, (v & 1) ? 0x8000000000000001ull : 0x7fffffffffffffffull};
    }
    static std::vector<Key128> extremes() {
        const uint64_t M = UINT64_MAX, S = uint64_t(1) << 63;
        return {{0, 0}, {0, 1}, {0, S}, {0, M}, {1, 0}, {S - 1, M}, {S, 0}, {M, M - 1}, {M, M}};
    }
};

template <class K>
std::string key_str(const K& k) {
    std::ostringstream os;
    ::testing::internal::UniversalPrint(k, &os);
    return os.str();
}

// ---------------------------------------------------------------------------------------
// Typed-test configurations and the fixture.

template <class KeyT, Backend B>
struct Config {
    using Key = KeyT;
    static constexpr Backend backend = B;
};

// Named configurations, so that ctest shows e.g. "MergeTest.Small<mptest::Cuda_k128>".
struct Cpu_u32 : Config<uint32_t, Backend::Cpu> {};
struct Cpu_u64 : Config<uint64_t, Backend::Cpu> {};
struct Cpu_k128 : Config<Key128, Backend::Cpu> {};
struct Cuda_u32 : Config<uint32_t, Backend::Cuda> {};
struct Cuda_u64 : Config<uint64_t, Backend::Cuda> {};
struct Cuda_k128 : Config<Key128, Backend::Cuda> {};
using AllConfigs = ::testing::Types<Cpu_u32, Cpu_u64, Cpu_k128, Cuda_u32, Cuda_u64, Cuda_k128>;

inline const char* backend_name(Backend b) {
    return b == Backend::Cpu ? "Cpu" : b == Backend::Cuda ? "Cuda" : "Auto";
}

// Skips the running test (from SetUp or a test body) when b is CUDA and no GPU is usable.
#define MP_SKIP_IF_NO_GPU(b)                                                        \
    do {                                                                            \
        std::string why_not_;                                                       \
        if ((b) == ::mergepath::Backend::Cuda &&                                    \
            !::mergepath::Context::cuda_available(&why_not_))                       \
            GTEST_SKIP() << "no usable CUDA device: " << why_not_;                  \
    } while (0)

// A test run once per backend (Cpu, Cuda); the Cuda run is skipped without a GPU.
class OnBackend : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override { MP_SKIP_IF_NO_GPU(GetParam()); }
    Options options() const {
        Options o;
        o.backend = GetParam();
        return o;
    }
};

// Host <-> context-space copies.
template <class T>
Buffer<T> put(Context& ctx, const std::vector<T>& v) {
    return ctx.upload(v.data(), v.size());
}
template <class T>
std::vector<T> get(Context& ctx, const Buffer<T>& b, size_t n) {
    std::vector<T> out(n);
    ctx.download(View<const T>(b.data(), n), out.data());
    return out;
}

// ---------------------------------------------------------------------------------------
// Scenarios: named pairs of sorted inputs.

enum class Group { Small, Tiles, Dups, Shapes, Large };

inline const char* group_name(Group g) {
    switch (g) {
        case Group::Small: return "Small";
        case Group::Tiles: return "Tiles";
        case Group::Dups: return "Dups";
        case Group::Shapes: return "Shapes";
        case Group::Large: return "Large";
    }
    return "?";
}

inline uint64_t base_seed() {
    static const uint64_t seed = [] {
        const char* s = std::getenv("MP_TEST_SEED");
        return s ? std::strtoull(s, nullptr, 0) : uint64_t(0x5eed2024);
    }();
    return seed;
}

template <class K>
struct Case {
    std::string name;
    uint64_t seed = 0;
    std::vector<K> a, b;
    std::string describe() const {
        std::ostringstream os;
        os << "case '" << name << "' |A|=" << a.size() << " |B|=" << b.size() << " seed=" << seed
           << " key=" << KeyTraits<K>::name();
        return os.str();
    }
};

using Rng = std::mt19937_64;

// Batch sizes summing to total, for adding keys the way a reader does: a mix of empty,
// tiny and large batches (tiny_only: batches of at most 8 keys).
inline std::vector<size_t> batch_sizes(size_t total, Rng& rng, bool tiny_only = false) {
    static const size_t mix[] = {0, 1, 2, 3, 6, 7, 8, 13, 64, 999, 1000, 1001, 4097};
    const size_t choices = tiny_only ? 8 : sizeof mix / sizeof mix[0];
    std::vector<size_t> out{0};
    for (size_t left = total; left > 0;) {
        size_t n = std::min(left, mix[rng() % choices]);
        out.push_back(n);
        left -= n;
    }
    out.push_back(0);
    return out;
}

// Runs a sorted-sides stage ships while one side's batches are added: one whenever at
// least ship_rows keys are waiting.
inline size_t expected_runs(const std::vector<size_t>& batches, size_t ship_rows) {
    size_t waiting = 0, runs = 0;
    for (size_t n : batches) {
        waiting += n;
        if (waiting > 0 && waiting >= ship_rows) {
            ++runs;
            waiting = 0;
        }
    }
    return runs;
}

// n keys drawn uniformly from `range` distinct values spread over the key domain.
template <class K>
std::vector<K> random_keys(Rng& rng, size_t n, uint64_t range, uint64_t offset = 0, uint64_t domain = 0) {
    if (range == 0) range = 1;
    if (domain == 0) domain = offset + range;
    std::uniform_int_distribution<uint64_t> d(0, range - 1);
    std::vector<K> v(n);
    for (auto& k : v) k = KeyTraits<K>::spread(offset + d(rng), domain);
    return v;
}
template <class K>
std::vector<K> sorted(std::vector<K> v) {
    std::sort(v.begin(), v.end());
    return v;
}
template <class K>
std::vector<K> random_sorted(Rng& rng, size_t n, uint64_t range, uint64_t offset = 0, uint64_t domain = 0) {
    return sorted(random_keys<K>(rng, n, range, offset, domain));
}
template <class K>
std::vector<K> concat(std::vector<K> x, const std::vector<K>& y) {
    x.insert(x.end(), y.begin(), y.end());
    return x;
}

// The CPU thread-count checks (results must not depend on how many threads a partition
// is split over): inputs of odd sizes with a long run in A, the thread counts that cut
// them at odd places, and a CPU context's options for one of them.
struct ThreadCountInputs {
    std::vector<uint64_t> a, b;
};
inline ThreadCountInputs thread_count_inputs() {
    Rng rng(base_seed());
    ThreadCountInputs in;
    in.a = random_sorted<uint64_t>(rng, 100003, 30000);
    in.b = random_sorted<uint64_t>(rng, 77777, 30000);
    in.a.insert(in.a.begin() + 5000, 20000, in.a[5000]);  // a long run
    std::sort(in.a.begin(), in.a.end());
    return in;
}
constexpr int kOddThreadCounts[] = {1, 3, 5, 7, 13, 64};
inline Options cpu_options(int threads) {
    Options o;
    o.backend = Backend::Cpu;
    o.cpu_threads = threads;
    return o;
}

// The out-of-memory checks of the operations: two sorted inputs of 1M 64-bit keys put
// into a context, which then gets a budget of only 4 KB above the memory in use.
struct InputsOverBudget {
    std::vector<uint64_t> ha, hb;  // the inputs on the host
    Buffer<uint64_t> a, b;         // and in the context
    size_t base = 0;               // memory in use with them; the budget is base + 4096
};
inline InputsOverBudget inputs_over_budget(Context& ctx) {
    Rng rng(base_seed());
    const size_t n = 1 << 20;
    InputsOverBudget in;
    in.ha = random_sorted<uint64_t>(rng, n, n);
    in.hb = random_sorted<uint64_t>(rng, n, n);
    in.a = put(ctx, in.ha);
    in.b = put(ctx, in.hb);
    in.base = ctx.memory_in_use();
    ctx.set_memory_budget(in.base + 4096);
    return in;
}

// Calls fn(const Case<K>&) for every scenario of the group, one at a time.
template <class K>
void for_each_case(Group g, const std::function<void(const Case<K>&)>& fn) {
    uint64_t index = 0;
    auto emit = [&](std::string name, std::function<void(Rng&, Case<K>&)> make) {
        Case<K> c;
        c.name = std::move(name);
        c.seed = base_seed() * 1000003 + uint64_t(g) * 10007 + index++;
        Rng rng(c.seed);
        make(rng, c);
        fn(c);
    };
    auto rand_pair = [&](size_t na, size_t nb, uint64_t range) {
        return [=](Rng& rng, Case<K>& c) {
            c.a = random_sorted<K>(rng, na, range);
            c.b = random_sorted<K>(rng, nb, range);
        };
    };
    const K x = KeyTraits<K>::spread(5, 11), below = KeyTraits<K>::spread(2, 11),
            above = KeyTraits<K>::spread(8, 11);
    switch (g) {
        case Group::Small: {
            emit("empty/empty", rand_pair(0, 0, 1));
            emit("empty/5", rand_pair(0, 5, 3));
            emit("5/empty", rand_pair(5, 0, 3));
            emit("1/0", rand_pair(1, 0, 1));
            emit("0/1", rand_pair(0, 1, 1));
            emit("1/1 equal", [&](Rng&, Case<K>& c) { c.a = {x}; c.b = {x}; });
            emit("1/1 a<b", [&](Rng&, Case<K>& c) { c.a = {below}; c.b = {x}; });
            emit("1/1 a>b", [&](Rng&, Case<K>& c) { c.a = {above}; c.b = {x}; });
            emit("2/1 equal", [&](Rng&, Case<K>& c) { c.a = {x, x}; c.b = {x}; });
            emit("1/2 equal", [&](Rng&, Case<K>& c) { c.a = {x}; c.b = {x, x}; });
            Rng sizes(base_seed());
            for (int i = 0; i < 60; ++i) {
                size_t na = sizes() % 41, nb = sizes() % 41;
                const uint64_t ranges[] = {1, 2, 5, na + nb + 1, 1000};
                uint64_t range = ranges[sizes() % 5];
                emit("tiny random range=" + std::to_string(range), rand_pair(na, nb, range));
            }
            break;
        }
        case Group::Tiles: {
            // Tile sizes are not fixed yet: probe around plausible (block x grain) products.
            const size_t bases[] = {128, 256, 512, 1024, 128 * 15, 2048, 256 * 11, 4096, 128 * 7 * 11, 65536};
            std::vector<size_t> sizes;
            for (size_t s : bases)
                for (int d = -1; d <= 1; ++d) sizes.push_back(s + d);
            for (size_t i = 0; i < sizes.size(); ++i) {
                size_t s = sizes[i], t = sizes[(i * 7 + 3) % sizes.size()];
                std::string n = std::to_string(s);
                emit(n + "/" + n + " 2 copies", rand_pair(s, s, s / 2 + 1));
                emit(n + "/" + std::to_string(t) + " mixed", rand_pair(s, t, (s + t) / 3 + 1));
                emit(n + "/" + n + " distinct-ish", rand_pair(s, s, 64 * s));
                if (i % 3 == 1) {
                    emit(n + "/3", rand_pair(s, 3, s));
                    emit("3/" + n, rand_pair(3, s, s));
                }
            }
            break;
        }
        case Group::Dups: {
            auto all_equal = [&](size_t na, size_t nb) {
                return [=](Rng&, Case<K>& c) {
                    c.a.assign(na, x);
                    c.b.assign(nb, x);
                };
            };
            emit("all equal 1000/1000", all_equal(1000, 1000));
            emit("all equal 3000/1000", all_equal(3000, 1000));
            emit("all equal 1000/3000", all_equal(1000, 3000));
            emit("all equal 100001/1", all_equal(100001, 1));
            emit("all equal 1/100001", all_equal(1, 100001));
            emit("all equal 100000/100000", all_equal(100000, 100000));
            emit("all equal 100000/70001", all_equal(100000, 70001));
            // A B run longer than the CUDA pair join's packed per-needle count (2^20 - 1;
            // bench/pair_join/cuda_pair_join.cu).
            emit("all equal 2/1200000", all_equal(2, 1200000));
            // A run much longer than a tile and a partition, starting at odd offsets,
            // with other keys around it on both sides.
            auto long_run = [&](size_t run_a, size_t run_b) {
                return [=](Rng& rng, Case<K>& c) {
                    const uint64_t dom = 1 << 20, mid = dom / 2;
                    c.a = random_keys<K>(rng, 777 + 30011, dom / 2 - 1, 0, dom);  // below mid
                    auto hi = random_keys<K>(rng, 20000, dom / 2 - 1, mid + 1, dom);
                    c.a.insert(c.a.end(), hi.begin(), hi.end());
                    c.a.insert(c.a.end(), run_a, KeyTraits<K>::spread(mid, dom));
                    c.b = random_keys<K>(rng, 25013, dom - 1, 0, dom);
                    c.b.insert(c.b.end(), run_b, KeyTraits<K>::spread(mid, dom));
                    std::sort(c.a.begin(), c.a.end());
                    std::sort(c.b.begin(), c.b.end());
                };
            };
            emit("long run 100000/20", long_run(100000, 20));
            emit("long run 20/100000", long_run(20, 100000));
            emit("long run 100000/70000", long_run(100000, 70000));
            emit("long run 70000/100003", long_run(70000, 100003));
            // Several long runs of the same keys in both inputs with different counts.
            emit("3 keys x ~40000", [&](Rng&, Case<K>& c) {
                for (uint64_t k = 0; k < 3; ++k) {
                    c.a.insert(c.a.end(), 40000 + 1000 * k, KeyTraits<K>::spread(k * 3, 9));
                    c.b.insert(c.b.end(), 42000 - 3000 * k, KeyTraits<K>::spread(k * 3, 9));
                }
            });
            emit("range 3, 50000/50000", rand_pair(50000, 50000, 3));
            emit("range 20, 2000/3000", rand_pair(2000, 3000, 20));
            emit("range 200, 20000/20000", rand_pair(20000, 20000, 200));
            break;
        }
        case Group::Shapes: {
            const size_t n = 50000;
            emit("disjoint A<B", [&](Rng& rng, Case<K>& c) {
                c.a = random_sorted<K>(rng, n, n, 0, 4 * n);
                c.b = random_sorted<K>(rng, n + 17, n, 2 * n, 4 * n);
            });
            emit("disjoint B<A", [&](Rng& rng, Case<K>& c) {
                c.a = random_sorted<K>(rng, n + 5, n, 2 * n, 4 * n);
                c.b = random_sorted<K>(rng, n, n, 0, 4 * n);
            });
            emit("disjoint interleaved", [&](Rng& rng, Case<K>& c) {
                std::uniform_int_distribution<uint64_t> d(0, n - 1);
                for (size_t i = 0; i < n; ++i) c.a.push_back(KeyTraits<K>::spread(2 * d(rng), 2 * n));
                for (size_t i = 0; i < n + 3; ++i) c.b.push_back(KeyTraits<K>::spread(2 * d(rng) + 1, 2 * n));
                std::sort(c.a.begin(), c.a.end());
                std::sort(c.b.begin(), c.b.end());
            });
            emit("identical, dups", [&](Rng& rng, Case<K>& c) {
                c.a = random_sorted<K>(rng, n, n / 2);
                c.b = c.a;
            });
            emit("identical, distinct", [&](Rng& rng, Case<K>& c) {
                c.a = random_sorted<K>(rng, n, uint64_t(1) << 30);
                c.b = c.a;
            });
            auto extremes = [&](size_t na, size_t nb) {
                return [=](Rng& rng, Case<K>& c) {
                    auto ex = KeyTraits<K>::extremes();
                    std::uniform_int_distribution<size_t> d(0, ex.size() - 1);
                    for (size_t i = 0; i < na; ++i) c.a.push_back(ex[d(rng)]);
                    for (size_t i = 0; i < nb; ++i) c.b.push_back(ex[d(rng)]);
                    std::sort(c.a.begin(), c.a.end());
                    std::sort(c.b.begin(), c.b.end());
                };
            };
            emit("extreme keys 3000/2000", extremes(3000, 2000));
            emit("extreme keys 7/9", extremes(7, 9));
            emit("full range + extremes", [&](Rng& rng, Case<K>& c) {
                auto ex = KeyTraits<K>::extremes();
                c.a = concat(random_keys<K>(rng, 10000, UINT64_MAX), ex);
                c.b = concat(random_keys<K>(rng, 9000, UINT64_MAX), ex);
                c.a.push_back(KeyTraits<K>::max());
                std::sort(c.a.begin(), c.a.end());
                std::sort(c.b.begin(), c.b.end());
            });
            emit("only max 5/3", [&](Rng&, Case<K>& c) {
                c.a.assign(5, KeyTraits<K>::max());
                c.b.assign(3, KeyTraits<K>::max());
            });
            emit("only zero 3/5", [&](Rng&, Case<K>& c) {
                c.a.assign(3, K{});
                c.b.assign(5, K{});
            });
            emit("|A|>>|B| 600000/10", rand_pair(600000, 10, 600000));
            emit("|B|>>|A| 10/600000", rand_pair(10, 600000, 600000));
            emit("|A|>>|B| 300000/1", rand_pair(300000, 1, 1000));
            emit("|B|>>|A| 1/300000", rand_pair(1, 300000, 1000));
            emit("|A|>>|B| 200000/3000 dups", rand_pair(200000, 3000, 50000));
            emit("|B|>>|A| 3000/200000 dups", rand_pair(3000, 200000, 50000));
            break;
        }
        case Group::Large: {
            emit("2M/2M ~2 copies", rand_pair(2000000, 2000000, 1000000));
            break;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reference algorithms (serial, std:: semantics).

template <class K>
struct TaggedRef {
    std::vector<K> keys;
    std::vector<uint64_t> indices;
};

inline uint64_t tag_a(size_t i) { return uint64_t(i); }
inline uint64_t tag_b(size_t j) { return uint64_t(j) | kFromB; }

// std::merge: stable, A before B on ties.
template <class K>
TaggedRef<K> ref_merge(const std::vector<K>& a, const std::vector<K>& b) {
    TaggedRef<K> r;
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        bool take_b = i == a.size() || (j < b.size() && b[j] < a[i]);
        if (take_b) { r.keys.push_back(b[j]); r.indices.push_back(tag_b(j++)); }
        else { r.keys.push_back(a[i]); r.indices.push_back(tag_a(i++)); }
    }
    return r;
}

inline const char* setop_name(SetOp op) {
    switch (op) {
        case SetOp::Intersection: return "Intersection";
        case SetOp::Difference: return "Difference";
        case SetOp::Union: return "Union";
        case SetOp::SymmetricDifference: return "SymmetricDifference";
    }
    return "?";
}
constexpr SetOp kAllSetOps[] = {SetOp::Intersection, SetOp::Difference, SetOp::Union,
                                SetOp::SymmetricDifference};

// std::set_* on multisets by key + rank; equal elements taken from A (as std does).
template <class K>
TaggedRef<K> ref_set_op(SetOp op, const std::vector<K>& a, const std::vector<K>& b) {
    TaggedRef<K> r;
    auto out_a = [&](size_t i) { r.keys.push_back(a[i]); r.indices.push_back(tag_a(i)); };
    auto out_b = [&](size_t j) { r.keys.push_back(b[j]); r.indices.push_back(tag_b(j)); };
    const bool keep_a_only = op != SetOp::Intersection;
    const bool keep_b_only = op == SetOp::Union || op == SetOp::SymmetricDifference;
    const bool keep_both = op == SetOp::Intersection || op == SetOp::Union;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] < b[j]) { if (keep_a_only) out_a(i); ++i; }
        else if (b[j] < a[i]) { if (keep_b_only) out_b(j); ++j; }
        else { if (keep_both) out_a(i); ++i; ++j; }
    }
    for (; i < a.size(); ++i) if (keep_a_only) out_a(i);
    for (; j < b.size(); ++j) if (keep_b_only) out_b(j);
    return r;
}

// The same keys straight from the std:: algorithm (cross-check of the reference).
template <class K>
std::vector<K> std_set_op(SetOp op, const std::vector<K>& a, const std::vector<K>& b) {
    std::vector<K> out;
    auto it = std::back_inserter(out);
    switch (op) {
        case SetOp::Intersection: std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), it); break;
        case SetOp::Difference: std::set_difference(a.begin(), a.end(), b.begin(), b.end(), it); break;
        case SetOp::Union: std::set_union(a.begin(), a.end(), b.begin(), b.end(), it); break;
        case SetOp::SymmetricDifference:
            std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), it);
            break;
    }
    return out;
}

// A SQL set operation's name: "INTERSECT ALL", "UNION", ...
inline std::string sql_form_name(SetOp op, bool all) {
    const char* name = op == SetOp::Intersection ? "INTERSECT" : op == SetOp::Difference ? "EXCEPT" : "UNION";
    return std::string(name) + (all ? " ALL" : "");
}

// The SQL set operation's result of sorted a and b: the ALL forms of INTERSECT / EXCEPT
// are the multiset operations, UNION ALL is the merge; the DISTINCT forms run on both
// sides made distinct.
template <class K>
std::vector<K> sql_expected(SetOp op, bool all, const std::vector<K>& a, const std::vector<K>& b) {
    if (all && op == SetOp::Union) {
        std::vector<K> out;
        std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
        return out;
    }
    if (all) return std_set_op(op, a, b);
    std::vector<K> ua = a, ub = b;
    ua.erase(std::unique(ua.begin(), ua.end()), ua.end());
    ub.erase(std::unique(ub.begin(), ub.end()), ub.end());
    return std_set_op(op, ua, ub);
}

template <class K>
std::vector<uint64_t> ref_unique(const std::vector<K>& v) {
    std::vector<uint64_t> r;
    for (size_t i = 0; i < v.size(); ++i)
        if (i == 0 || v[i - 1] != v[i]) r.push_back(i);
    return r;
}

// A reference that disagrees with the std:: algorithm is a bug in the test itself.
inline void assert_eq_std(size_t expected, size_t actual, const char* what) {
    if (expected != actual) throw std::logic_error(std::string("test reference disagrees with std::") + what);
}

struct SearchRef {
    std::vector<uint64_t> lower, upper;
    std::vector<uint8_t> a_match, b_match;
};

template <class K>
void ref_ranges(const std::vector<K>& a, const std::vector<K>& b, std::vector<size_t>& lo, std::vector<size_t>& hi);

template <class K>
SearchRef ref_search(const std::vector<K>& a, const std::vector<K>& b) {
    SearchRef r;
    std::vector<size_t> lo, hi;
    ref_ranges(a, b, lo, hi);
    r.lower.assign(lo.begin(), lo.end());
    r.upper.assign(hi.begin(), hi.end());
    r.a_match.resize(a.size());
    r.b_match.assign(b.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) {
        r.a_match[i] = lo[i] != hi[i] ? 1 : 0;
        for (size_t j = lo[i]; j < hi[i] && !r.b_match[j]; ++j) r.b_match[j] = 1;
    }
    for (size_t j = 0; j < b.size(); j += 1 + b.size() / 64)
        assert_eq_std(size_t(std::binary_search(a.begin(), a.end(), b[j])), size_t(r.b_match[j]), "binary_search");
    return r;
}

// Number of inner-join pairs (to skip cases whose output would be too large).
template <class K>
uint64_t inner_pair_count(const std::vector<K>& a, const std::vector<K>& b) {
    uint64_t n = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] < b[j]) ++i;
        else if (b[j] < a[i]) ++j;
        else {
            size_t i2 = i, j2 = j;
            while (i2 < a.size() && a[i2] == a[i]) ++i2;
            while (j2 < b.size() && b[j2] == b[j]) ++j2;
            n += uint64_t(i2 - i) * (j2 - j);
            i = i2;
            j = j2;
        }
    }
    return n;
}

// equal_range of every A in B, by one merge-like walk: [lo[i], hi[i]).
template <class K>
void ref_ranges(const std::vector<K>& a, const std::vector<K>& b, std::vector<size_t>& lo, std::vector<size_t>& hi) {
    lo.resize(a.size());
    hi.resize(a.size());
    size_t j = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i > 0 && a[i - 1] == a[i]) {
            lo[i] = lo[i - 1];
            hi[i] = hi[i - 1];
            continue;
        }
        while (j < b.size() && b[j] < a[i]) ++j;
        lo[i] = j;
        size_t k = j;
        while (k < b.size() && !(a[i] < b[k])) ++k;
        hi[i] = k;
    }
    // Spot-check the walk against the std:: algorithms.
    for (size_t i = 0; i < a.size(); i += 1 + a.size() / 64) {
        assert_eq_std(size_t(std::lower_bound(b.begin(), b.end(), a[i]) - b.begin()), lo[i], "lower_bound");
        assert_eq_std(size_t(std::upper_bound(b.begin(), b.end(), a[i]) - b.begin()), hi[i], "upper_bound");
    }
}

// ---------------------------------------------------------------------------------------
// Comparisons that name the first difference.

template <class T>
std::string value_str(const T& v) {
    if constexpr (std::is_same_v<T, uint8_t>) return std::to_string(int(v));
    else if constexpr (std::is_same_v<T, uint64_t>) {
        if (v & kFromB) return "B:" + std::to_string(untag(v));
        return std::to_string(v);
    } else return key_str(v);
}

template <class T>
::testing::AssertionResult same_array(const std::string& what, const std::vector<T>& expected,
                                      const std::vector<T>& actual) {
    size_t n = std::min(expected.size(), actual.size());
    size_t i = 0;
    while (i < n && expected[i] == actual[i]) ++i;
    if (i == n && expected.size() == actual.size()) return ::testing::AssertionSuccess();
    auto r = ::testing::AssertionFailure();
    r << what << ": ";
    if (expected.size() != actual.size()) r << "expected " << expected.size() << " elements, got " << actual.size() << "; ";
    else r << expected.size() << " elements; ";
    {
        r << "first difference at [" << i << "]";
        size_t from = i >= 2 ? i - 2 : 0;
        r << "\n    expected[" << from << "..]:";
        for (size_t k = from; k < std::min(expected.size(), i + 3); ++k) r << ' ' << value_str(expected[k]);
        r << "\n    actual  [" << from << "..]:";
        for (size_t k = from; k < std::min(actual.size(), i + 3); ++k) r << ' ' << value_str(actual[k]);
    }
    return r;
}

#define MP_RETURN_IF_FAILED(expr)                         \
    do {                                                  \
        ::testing::AssertionResult mp_r_ = (expr);        \
        if (!mp_r_) return mp_r_;                         \
    } while (0)

// A result buffer holds `count` valid elements: size >= count when requested, empty when not.
template <class T>
::testing::AssertionResult buffer_shape(const std::string& what, const Buffer<T>& b, size_t count,
                                        bool requested) {
    if (requested && b.size() < count)
        return ::testing::AssertionFailure() << what << ": buffer holds " << b.size() << " < count " << count;
    if (!requested && !b.empty())
        return ::testing::AssertionFailure() << what << ": not requested but holds " << b.size();
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------
// The fixture: one Context of the configuration's backend per test.

template <class C>
class BackendTest : public ::testing::Test {
protected:
    using K = typename C::Key;

    void SetUp() override {
        MP_SKIP_IF_NO_GPU(C::backend);
        Options o;
        o.backend = C::backend;
        ctx_ = std::make_unique<Context>(o);
        ASSERT_EQ(ctx_->backend(), C::backend);
    }
    void TearDown() override { ctx_.reset(); }

    Context& ctx() { return *ctx_; }

    // Runs check(ctx, case) on every scenario of the group; reports the first few failures.
    template <class Check>
    void run_group(Group g, Check check) {
        int failures = 0, cases = 0;
        for_each_case<K>(g, [&](const Case<K>& c) {
            if (failures >= 3) return;
            ++cases;
            ::testing::AssertionResult r = check(ctx(), c);
            if (!r) {
                ++failures;
                ADD_FAILURE() << "[" << backend_name(C::backend) << " " << group_name(g) << "] "
                              << c.describe() << "\n  " << r.message();
            }
        });
        EXPECT_GT(cases, 0);
    }

    std::unique_ptr<Context> ctx_;
};

// One test per scenario group, each running `check<K>(Context&, const Case<K>&)`.
#define MP_GROUP_TESTS(Suite, check)                                                              \
    TYPED_TEST(Suite, Small) { this->run_group(::mptest::Group::Small, &check<typename TestFixture::K>); } \
    TYPED_TEST(Suite, Tiles) { this->run_group(::mptest::Group::Tiles, &check<typename TestFixture::K>); } \
    TYPED_TEST(Suite, Dups) { this->run_group(::mptest::Group::Dups, &check<typename TestFixture::K>); }   \
    TYPED_TEST(Suite, Shapes) { this->run_group(::mptest::Group::Shapes, &check<typename TestFixture::K>); } \
    TYPED_TEST(Suite, Large) { this->run_group(::mptest::Group::Large, &check<typename TestFixture::K>); }

}  // namespace mptest
