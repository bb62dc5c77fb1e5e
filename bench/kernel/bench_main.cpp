// bench_main.cpp — the kernel benchmark (issue 2, item 7). For each key width (32, 64 bit)
// and size per side (default 1M, 10M, 100M) it generates two sorted inputs on the GPU with
// ~2 copies per key (uniform in [0, n/2), spread over the key domain, sorted with CUB) and
// measures, with data resident on the device:
//   merge                 ours (keys only)            vs cub::DeviceMerge::MergeKeys
//   intersection ...      ours set_op (keys only)     vs thrust::set_intersection / _difference /
//                                                        _union / _symmetric_difference
//   sorted_search         ours (lower + A/B match)    vs thrust::lower_bound, sorted needles
//   join_inner            the pair join (bench/pair_join: sorted search + scan + load-
//                         balancing search; not what SQL runs), against its byte floor
//                         (read both inputs + write the pairs)
// and, on host copies of the same data, our CPU backend (all threads) and single-threaded
// std:: (std::merge, std::set_*, std::lower_bound loops, a serial merge join).
// GPU times are CUDA-event medians over --reps runs after one warm-up run (which is also
// the run whose result is checked); GB/s = (bytes read + bytes written) / time. Every
// result is checked against CCCL's on the device (and the CPU backend's against std::);
// a difference prints MISMATCH and the program exits with status 3. Without a usable GPU
// it says so and exits with status 2. Output: a markdown table on stdout.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "mergepath/mergepath.h"
#include "pair_join.h"

namespace {

using namespace mergepath;  // NOLINT
using bench::cuda_check;
using bench::DeviceArray;

// ----------------------------------------------------------------------------------------
// Command line.

enum class Op { Merge, Intersection, Difference, Union, SymDiff, Search, Join };

struct OpName {
    Op op;
    const char* name;
};
const OpName kOps[] = {{Op::Merge, "merge"},       {Op::Intersection, "intersection"}, {Op::Difference, "difference"},
                       {Op::Union, "union"},       {Op::SymDiff, "symdiff"},           {Op::Search, "search"},
                       {Op::Join, "join"}};

struct Args {
    std::vector<size_t> sizes = {1000000, 10000000, 100000000};
    std::vector<int> key_bits = {32, 64};
    std::vector<Op> ops = {Op::Merge, Op::Intersection, Op::Difference, Op::Union, Op::SymDiff, Op::Search, Op::Join};
    int reps = 10;
    bool cpu = true;
    bool std_ref = true;
    size_t cpu_max_n = 100000000;  // CPU backend / std:: only up to this size per side
    int cpu_reps = 3;
    int std_reps = 3;              // 1 at sizes >= 100M
    int cpu_threads = 0;
    int device = 0;
    uint64_t seed = 42;
};

void usage(FILE* f) {
    std::fprintf(f,
                 "usage: mergepath_kernel_bench [options]\n"
                 "  --sizes LIST       keys per side, e.g. 1000000,10M,100M (default 1M,10M,100M)\n"
                 "  --key-bits LIST    32,64 (default both)\n"
                 "  --ops LIST         merge,intersection,difference,union,symdiff,search,join (default all)\n"
                 "  --reps N           timed GPU runs after one warm-up; the median is reported (default 10)\n"
                 "  --cpu / --no-cpu   run our CPU backend on host copies (default on)\n"
                 "  --std / --no-std   run single-threaded std:: (default on)\n"
                 "  --cpu-max-n N      largest size per side for CPU backend and std:: (default 100M)\n"
                 "  --cpu-reps N       timed CPU-backend runs (default 3)\n"
                 "  --std-reps N       timed std:: runs (default 3; always 1 at >= 100M per side)\n"
                 "  --cpu-threads N    CPU backend threads (default: all)\n"
                 "  --device N         CUDA device ordinal (default 0)\n"
                 "  --seed N           input seed (default 42)\n");
}

size_t parse_size(const std::string& s) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string suffix = end ? end : "";
    if (suffix == "k" || suffix == "K") v *= 1e3;
    else if (suffix == "m" || suffix == "M") v *= 1e6;
    else if (suffix == "g" || suffix == "G") v *= 1e9;
    else if (!suffix.empty() || end == s.c_str()) throw std::runtime_error("bad size '" + s + "'");
    return size_t(v);
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t c = s.find(',', pos);
        if (c == std::string::npos) c = s.size();
        if (c > pos) out.push_back(s.substr(pos, c - pos));
        pos = c + 1;
    }
    return out;
}

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string k = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error("option " + k + " needs a value");
            return argv[++i];
        };
        if (k == "--help" || k == "-h") { usage(stdout); std::exit(0); }
        else if (k == "--sizes") { a.sizes.clear(); for (auto& s : split(value())) a.sizes.push_back(parse_size(s)); }
        else if (k == "--key-bits") {
            a.key_bits.clear();
            for (auto& s : split(value())) {
                int b = std::atoi(s.c_str());
                if (b != 32 && b != 64) throw std::runtime_error("--key-bits takes 32 and/or 64");
                a.key_bits.push_back(b);
            }
        } else if (k == "--ops") {
            a.ops.clear();
            for (auto& s : split(value())) {
                std::string n = s == "symmetric_difference" ? "symdiff" : s == "sorted_search" ? "search" : s;
                auto it = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpName& o) { return n == o.name; });
                if (it == std::end(kOps)) throw std::runtime_error("unknown op '" + s + "'");
                a.ops.push_back(it->op);
            }
        } else if (k == "--reps") a.reps = std::max(1, std::atoi(value().c_str()));
        else if (k == "--cpu") a.cpu = true;
        else if (k == "--no-cpu") a.cpu = false;
        else if (k == "--std") a.std_ref = true;
        else if (k == "--no-std") a.std_ref = false;
        else if (k == "--cpu-max-n") a.cpu_max_n = parse_size(value());
        else if (k == "--cpu-reps") a.cpu_reps = std::max(1, std::atoi(value().c_str()));
        else if (k == "--std-reps") a.std_reps = std::max(1, std::atoi(value().c_str()));
        else if (k == "--cpu-threads") a.cpu_threads = std::atoi(value().c_str());
        else if (k == "--device") a.device = std::atoi(value().c_str());
        else if (k == "--seed") a.seed = std::strtoull(value().c_str(), nullptr, 0);
        else { usage(stderr); throw std::runtime_error("unknown option '" + k + "'"); }
    }
    return a;
}

// ----------------------------------------------------------------------------------------
// Timing and reporting.

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median of CUDA-event times of f() on stream s (the caller has already warmed up).
template <class F>
double gpu_ms(cudaStream_t s, int reps, F f) {
    cudaEvent_t e0, e1;
    cuda_check(cudaEventCreate(&e0), "cudaEventCreate");
    cuda_check(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        cuda_check(cudaEventRecord(e0, s), "cudaEventRecord");
        f();
        cuda_check(cudaEventRecord(e1, s), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        t.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return median(t);
}

template <class F>
double host_ms(int reps, F f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
}

struct Row {
    std::string op;
    int bits = 0;
    size_t n = 0;
    double ours_ms = -1, ours_bytes = 0;
    double cccl_ms = -1, cccl_bytes = 0;
    double cpu_ms = -1, std_ms = -1;
    std::string notes;
};

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}
std::string ms_str(double ms) { return ms < 0 ? "-" : fmt(ms < 10 ? "%.3f" : ms < 1000 ? "%.1f" : "%.0f", ms); }
std::string gbs_str(double bytes, double ms) { return ms <= 0 ? "-" : fmt("%.0f", bytes / (ms * 1e6)); }
std::string n_str(size_t n) {
    if (n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
    if (n % 1000 == 0) return std::to_string(n / 1000) + "k";
    return std::to_string(n);
}

void print_row(const Row& r) {
    std::string ratio = r.cccl_ms > 0 && r.ours_ms > 0 ? fmt("%.2fx", r.cccl_ms / r.ours_ms) : "-";
    std::string speedup = r.cpu_ms > 0 && r.std_ms > 0 ? fmt("%.1fx", r.std_ms / r.cpu_ms) : "-";
    std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.op.c_str(), r.bits,
                n_str(r.n).c_str(), ms_str(r.ours_ms).c_str(), gbs_str(r.ours_bytes, r.ours_ms).c_str(),
                ms_str(r.cccl_ms).c_str(), gbs_str(r.cccl_bytes, r.cccl_ms).c_str(), ratio.c_str(),
                ms_str(r.cpu_ms).c_str(), ms_str(r.std_ms).c_str(), speedup.c_str(), r.notes.c_str());
    std::fflush(stdout);
}

int g_mismatches = 0;
void mismatch(const std::string& what) {
    ++g_mismatches;
    std::fprintf(stderr, "\n!!!!!!!! MISMATCH: %s !!!!!!!!\n\n", what.c_str());
    std::printf("\n**MISMATCH: %s**\n\n", what.c_str());
    std::fflush(stdout);
}

template <class T>
bool same_host(const T* x, const T* y, size_t n) {
    return n == 0 || std::memcmp(x, y, n * sizeof(T)) == 0;
}

template <class T>
std::vector<T> to_host(Context& ctx, const Buffer<T>& b, size_t n) {
    std::vector<T> v(n);
    ctx.download(View<const T>(b.data(), n), v.data());
    return v;
}

// ----------------------------------------------------------------------------------------
// One size and key width.

struct Env {
    Args args;
    Context* gpu = nullptr;
    Context* cpu = nullptr;  // null when --no-cpu
    cudaStream_t stream = nullptr;
    double copy_gbps = 0;
};

const char* setop_label(SetOp op) {
    switch (op) {
        case SetOp::Intersection: return "intersection";
        case SetOp::Difference: return "difference";
        case SetOp::Union: return "union";
        case SetOp::SymmetricDifference: return "symmetric_difference";
    }
    return "?";
}

template <class K>
class SizeRun {
public:
    SizeRun(Env& env, size_t n) : env_(env), n_(n), a_(n), b_(n) {
        const uint64_t range = std::max<uint64_t>(1, n / 2);
        bench::generate_sorted_keys<K>(a_.data(), n, range, env.args.seed * 2 + 1, env.stream);
        bench::generate_sorted_keys<K>(b_.data(), n, range, env.args.seed * 2 + 2, env.stream);
        host_ = (env.cpu || env.args.std_ref) && n <= env.args.cpu_max_n;
        if (host_) {
            ha_.resize(n);
            hb_.resize(n);
            cuda_check(cudaMemcpy(ha_.data(), a_.data(), n * sizeof(K), cudaMemcpyDeviceToHost), "download A");
            cuda_check(cudaMemcpy(hb_.data(), b_.data(), n * sizeof(K), cudaMemcpyDeviceToHost), "download B");
        }
        std_reps_ = n >= 100000000 ? 1 : env.args.std_reps;
    }

    void run(Op op) {
        switch (op) {
            case Op::Merge: merge_row(); break;
            case Op::Intersection: setop_row(SetOp::Intersection); break;
            case Op::Difference: setop_row(SetOp::Difference); break;
            case Op::Union: setop_row(SetOp::Union); break;
            case Op::SymDiff: setop_row(SetOp::SymmetricDifference); break;
            case Op::Search: search_row(); break;
            case Op::Join: join_row(); break;
        }
    }

private:
    static constexpr double kb = sizeof(K);
    Context& gpu() { return *env_.gpu; }
    cudaStream_t s() const { return env_.stream; }
    View<const K> va() const { return View<const K>(a_.data(), n_); }
    View<const K> vb() const { return View<const K>(b_.data(), n_); }
    View<const K> hva() const { return View<const K>(ha_.data(), n_); }
    View<const K> hvb() const { return View<const K>(hb_.data(), n_); }
    bool cpu_on() const { return host_ && env_.cpu; }
    bool std_on() const { return host_ && env_.args.std_ref; }
    Row row(const std::string& op) const {
        Row r;
        r.op = op;
        r.bits = int(sizeof(K) * 8);
        r.n = n_;
        return r;
    }
    std::string where(const std::string& op) const {
        return op + ", " + std::to_string(sizeof(K) * 8) + "-bit keys, n = " + std::to_string(n_) + " per side";
    }

    void merge_row() {
        Row r = row("merge");
        const Outputs keys_only{true, false};
        DeviceArray<K> ref(2 * n_);
        bench::cub_merge_keys<K>(a_.data(), n_, b_.data(), n_, ref.data(), s());
        cuda_check(cudaStreamSynchronize(s()), "cub merge");
        {
            TaggedResult<K> ours = mergepath::merge<K>(gpu(), va(), vb(), keys_only);
            if (ours.count != 2 * n_ || !bench::device_equal<K>(ours.keys.data(), ref.data(), 2 * n_, s()))
                mismatch(where("merge") + ": ours != cub::DeviceMerge::MergeKeys (count " +
                         std::to_string(ours.count) + ")");
        }
        r.ours_ms = gpu_ms(s(), env_.args.reps, [&] { mergepath::merge<K>(gpu(), va(), vb(), keys_only); });
        r.cccl_ms = gpu_ms(s(), env_.args.reps, [&] { bench::cub_merge_keys<K>(a_.data(), n_, b_.data(), n_, ref.data(), s()); });
        r.ours_bytes = r.cccl_bytes = 4 * n_ * kb;
        ref.free();
        std::vector<K> std_out;
        if (std_on()) {
            std_out.assign(2 * n_, K(0));
            r.std_ms = host_ms(std_reps_, [&] { std::merge(ha_.begin(), ha_.end(), hb_.begin(), hb_.end(), std_out.begin()); });
        }
        if (cpu_on()) {
            {
                TaggedResult<K> c = mergepath::merge<K>(*env_.cpu, hva(), hvb(), keys_only);
                if (std_on() && (c.count != std_out.size() || !same_host(c.keys.data(), std_out.data(), c.count)))
                    mismatch(where("merge") + ": CPU backend != std::merge");
            }
            r.cpu_ms = host_ms(env_.args.cpu_reps, [&] { mergepath::merge<K>(*env_.cpu, hva(), hvb(), keys_only); });
        }
        print_row(r);
    }

    size_t std_setop(SetOp op, std::vector<K>& out) {
        auto a0 = ha_.begin(), a1 = ha_.end(), b0 = hb_.begin(), b1 = hb_.end();
        switch (op) {
            case SetOp::Intersection: return size_t(std::set_intersection(a0, a1, b0, b1, out.begin()) - out.begin());
            case SetOp::Difference: return size_t(std::set_difference(a0, a1, b0, b1, out.begin()) - out.begin());
            case SetOp::Union: return size_t(std::set_union(a0, a1, b0, b1, out.begin()) - out.begin());
            case SetOp::SymmetricDifference:
                return size_t(std::set_symmetric_difference(a0, a1, b0, b1, out.begin()) - out.begin());
        }
        return 0;
    }

    void setop_row(SetOp op) {
        const std::string name = setop_label(op);
        Row r = row(name);
        const Outputs keys_only{true, false};
        DeviceArray<K> ref(2 * n_);
        size_t ref_count = bench::thrust_set_op<K>(op, a_.data(), n_, b_.data(), n_, ref.data(), s());
        cuda_check(cudaStreamSynchronize(s()), "thrust set op");
        {
            TaggedResult<K> ours = mergepath::set_op<K>(gpu(), op, va(), vb(), keys_only);
            if (ours.count != ref_count)
                mismatch(where(name) + ": count " + std::to_string(ours.count) + ", thrust " + std::to_string(ref_count));
            else if (!bench::device_equal<K>(ours.keys.data(), ref.data(), ref_count, s()))
                mismatch(where(name) + ": keys differ from thrust::set_" + name);
        }
        r.ours_ms = gpu_ms(s(), env_.args.reps, [&] { mergepath::set_op<K>(gpu(), op, va(), vb(), keys_only); });
        r.cccl_ms = gpu_ms(s(), env_.args.reps,
                           [&] { bench::thrust_set_op<K>(op, a_.data(), n_, b_.data(), n_, ref.data(), s()); });
        r.ours_bytes = r.cccl_bytes = (2 * n_ + ref_count) * kb;
        ref.free();
        std::vector<K> std_out;
        size_t std_count = 0;
        if (std_on()) {
            std_out.assign(2 * n_, K(0));
            r.std_ms = host_ms(std_reps_, [&] { std_count = std_setop(op, std_out); });
            if (std_count != ref_count) mismatch(where(name) + ": std:: count differs from thrust");
        }
        if (cpu_on()) {
            {
                TaggedResult<K> c = mergepath::set_op<K>(*env_.cpu, op, hva(), hvb(), keys_only);
                if (c.count != ref_count || (std_on() && !same_host(c.keys.data(), std_out.data(), c.count)))
                    mismatch(where(name) + ": CPU backend differs from std::set_" + name + " / thrust");
            }
            r.cpu_ms = host_ms(env_.args.cpu_reps, [&] { mergepath::set_op<K>(*env_.cpu, op, hva(), hvb(), keys_only); });
        }
        print_row(r);
    }

    void search_row() {
        Row r = row("sorted_search");
        const SearchOutputs want{true, false, true, true};
        DeviceArray<uint64_t> ref(n_);
        bench::thrust_lower_bound<K>(b_.data(), n_, a_.data(), n_, ref.data(), s());
        cuda_check(cudaStreamSynchronize(s()), "thrust::lower_bound");
        {
            SearchResult ours = mergepath::sorted_search<K>(gpu(), va(), vb(), want);
            if (!bench::device_equal<uint64_t>(ours.a_lower.data(), ref.data(), n_, s()))
                mismatch(where("sorted_search") + ": lower bounds differ from thrust::lower_bound");
            else if (uint64_t bad = bench::search_flag_errors<K>(a_.data(), n_, b_.data(), n_, ref.data(),
                                                                 ours.a_match.data(), ours.b_match.data(), s()))
                mismatch(where("sorted_search") + ": " + std::to_string(bad) + " wrong match flags");
        }
        r.ours_ms = gpu_ms(s(), env_.args.reps, [&] { mergepath::sorted_search<K>(gpu(), va(), vb(), want); });
        r.cccl_ms = gpu_ms(s(), env_.args.reps,
                           [&] { bench::thrust_lower_bound<K>(b_.data(), n_, a_.data(), n_, ref.data(), s()); });
        r.ours_bytes = 2 * n_ * kb + n_ * 8.0 + 2 * n_;  // + lower bounds + A and B flags
        r.cccl_bytes = 2 * n_ * kb + n_ * 8.0;
        r.notes = "needles/s: ours " + fmt("%.1f", n_ / (r.ours_ms * 1e6)) + " G, thrust " +
                  fmt("%.1f", n_ / (r.cccl_ms * 1e6)) + " G (thrust: lower bounds only)";
        ref.free();
        std::vector<uint64_t> lower;
        std::vector<uint8_t> a_match, b_match;
        if (std_on()) {
            lower.assign(n_, 0);
            a_match.assign(n_, 0);
            b_match.assign(n_, 0);
            r.std_ms = host_ms(std_reps_, [&] {
                for (size_t i = 0; i < n_; ++i) {
                    size_t l = size_t(std::lower_bound(hb_.begin(), hb_.end(), ha_[i]) - hb_.begin());
                    lower[i] = l;
                    a_match[i] = l < n_ && hb_[l] == ha_[i];
                }
                for (size_t j = 0; j < n_; ++j) b_match[j] = std::binary_search(ha_.begin(), ha_.end(), hb_[j]);
            });
        }
        if (cpu_on()) {
            {
                SearchResult c = mergepath::sorted_search<K>(*env_.cpu, hva(), hvb(), want);
                if (std_on() && (!same_host(c.a_lower.data(), lower.data(), n_) ||
                                 !same_host(c.a_match.data(), a_match.data(), n_) ||
                                 !same_host(c.b_match.data(), b_match.data(), n_)))
                    mismatch(where("sorted_search") + ": CPU backend differs from std::lower_bound loop");
            }
            r.cpu_ms = host_ms(env_.args.cpu_reps, [&] { mergepath::sorted_search<K>(*env_.cpu, hva(), hvb(), want); });
        }
        print_row(r);
    }

    // Serial sort-merge inner join: pairs in A order, B ascending within an A row.
    void std_join(std::vector<int64_t>& ar, std::vector<int64_t>& br) {
        ar.clear();
        br.clear();
        size_t j = 0;
        for (size_t i = 0; i < n_; ++i) {
            if (i > 0 && ha_[i - 1] == ha_[i]) {
                for (size_t k = j; k < n_ && hb_[k] == ha_[i]; ++k) ar.push_back(int64_t(i)), br.push_back(int64_t(k));
                continue;
            }
            j = size_t(std::lower_bound(hb_.begin() + j, hb_.end(), ha_[i]) - hb_.begin());
            for (size_t k = j; k < n_ && hb_[k] == ha_[i]; ++k) ar.push_back(int64_t(i)), br.push_back(int64_t(k));
        }
    }

    void join_row() {
        Row r = row("join_inner");
        size_t count = 0;
        {
            JoinResult ours = mergepath::pair_join<K>(gpu(), JoinKind::Inner, va(), vb());
            count = ours.count;
            uint64_t expect = bench::inner_join_pair_count<K>(a_.data(), n_, b_.data(), n_, s());
            if (ours.count != expect)
                mismatch(where("join_inner") + ": " + std::to_string(ours.count) + " pairs, expected " +
                         std::to_string(expect));
            else if (uint64_t bad = bench::join_pair_errors<K>(a_.data(), n_, b_.data(), n_, ours.a_rows.data(),
                                                               ours.b_rows.data(), count, s()))
                mismatch(where("join_inner") + ": " + std::to_string(bad) + " bad or misordered pairs");
        }
        r.ours_ms = gpu_ms(s(), env_.args.reps, [&] { mergepath::pair_join<K>(gpu(), JoinKind::Inner, va(), vb()); });
        r.ours_bytes = 2 * n_ * kb + count * 16.0;
        double gbs = r.ours_bytes / (r.ours_ms * 1e6);
        r.notes = fmt("%.0f M pairs; ", count / 1e6) + fmt("%.0f%% of D2D copy bandwidth", 100 * gbs / env_.copy_gbps);
        std::vector<int64_t> ar, br;
        if (std_on()) {
            ar.reserve(count);
            br.reserve(count);
            r.std_ms = host_ms(std_reps_, [&] { std_join(ar, br); });
        }
        if (cpu_on()) {
            {
                JoinResult c = mergepath::pair_join<K>(*env_.cpu, JoinKind::Inner, hva(), hvb());
                if (c.count != count || (std_on() && (c.count != ar.size() || !same_host(c.a_rows.data(), ar.data(), count) ||
                                                       !same_host(c.b_rows.data(), br.data(), count))))
                    mismatch(where("join_inner") + ": CPU backend differs from the serial merge join / GPU");
            }
            r.cpu_ms =
                host_ms(env_.args.cpu_reps, [&] { mergepath::pair_join<K>(*env_.cpu, JoinKind::Inner, hva(), hvb()); });
        }
        print_row(r);
    }

    Env& env_;
    size_t n_;
    DeviceArray<K> a_, b_;
    std::vector<K> ha_, hb_;
    bool host_ = false;
    int std_reps_ = 1;
};

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    return b;
}

int run(const Args& args) {
    std::string why;
    if (!Context::cuda_available(&why)) {
        std::fprintf(stderr,
                     "mergepath_kernel_bench: no usable CUDA device (%s).\n"
                     "This benchmark compares GPU kernels and needs a GPU; nothing was measured.\n",
                     why.c_str());
        return 2;
    }
    Options go;
    go.backend = Backend::Cuda;
    go.cuda_device = args.device;
    Context gpu(go);
    cuda_check(cudaSetDevice(args.device), "cudaSetDevice");
    std::unique_ptr<Context> cpu;
    if (args.cpu) {
        Options co;
        co.backend = Backend::Cpu;
        co.cpu_threads = args.cpu_threads;
        cpu = std::make_unique<Context>(co);
    }
    Env env;
    env.args = args;
    env.gpu = &gpu;
    env.cpu = cpu.get();
    env.stream = static_cast<cudaStream_t>(gpu.cuda_stream());
    env.copy_gbps = bench::d2d_copy_gbps(env.stream);

    cudaDeviceProp p{};
    cuda_check(cudaGetDeviceProperties(&p, args.device), "cudaGetDeviceProperties");
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    std::printf("## mergepath kernel benchmark — %s\n\n", utc_now().c_str());
    std::printf("GPU: %s, sm_%d%d, %d SMs, %.1f GiB; CUDA runtime %d.%d, driver %d.%d; D2D copy %.0f GB/s (read+write).  \n",
                p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem / double(1 << 30), rt / 1000,
                rt % 1000 / 10, drv / 1000, drv % 1000 / 10, env.copy_gbps);
    std::printf("Host: %u hardware threads; CPU backend: %s.  \n", std::thread::hardware_concurrency(),
                cpu ? cpu->describe().c_str() : "off");
    std::printf(
        "Inputs: two sorted arrays of n keys each, uniform in [0, n/2) (~2 copies per key) spread over the key "
        "domain. GPU: median of %d runs (CUDA events) after a warm-up; CPU backend: median of %d; std:: "
        "single-threaded, median of %d (1 at >= 100M). GB/s = (bytes read + bytes written) / time; "
        "CCCL/ours = CCCL ms / ours ms (> 1: ours faster). Our outputs: keys only for merge and set ops; lower "
        "bounds + A and B match flags for sorted_search; (a, b) int64 pairs for join (the benchmark's pair "
        "join; GB/s against the byte floor: read both inputs + write the pairs; no CCCL equivalent).\n\n",
        args.reps, args.cpu_reps, args.std_reps);
    std::printf("| op | key bits | n per side | ours ms | ours GB/s | CCCL ms | CCCL GB/s | CCCL/ours | CPU backend ms | "
                "std ms | CPU speedup vs std | notes |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);

    for (int bits : args.key_bits)
        for (size_t n : args.sizes) {
            if (bits == 32) {
                SizeRun<uint32_t> run(env, n);
                for (Op op : args.ops) run.run(op);
            } else {
                SizeRun<uint64_t> run(env, n);
                for (Op op : args.ops) run.run(op);
            }
            bench::release_cccl_cache();
        }

    if (g_mismatches) {
        std::printf("\n**%d MISMATCH(ES): results above are not trustworthy.**\n", g_mismatches);
        std::fprintf(stderr, "mergepath_kernel_bench: %d MISMATCH(ES)\n", g_mismatches);
        return 3;
    }
    std::printf("\nAll results matched CCCL (and the CPU backend matched std::).\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse_args(argc, argv));
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "mergepath_kernel_bench: error: %s\n", e.what());
        return 1;
    }
}
