// mp_bench.cpp — end-to-end SQL benchmark of pg_mergepath against stock PostgreSQL.
//
// Generates the data (datagen.hpp), then for every dataset (rows x distribution x key
// shape, and the fact x dimension pairs of --fact-dim) and every query of queries.hpp
// that applies to it (set operations, joins; fact x dimension joins) runs each variant — stock (pg_mergepath off,
// default settings), stock tuned (work_mem 4GB, 8 workers), pg_mergepath device=gpu,
// pg_mergepath device=cpu (both with --par-workers workers per Gather, so that the parallel
// node can be planned) — plus two floors that only read both inputs: one process, and
// parallel (--par-workers workers). --table-workers N sets the tables' parallel_workers.
// Answers: the stock answer (row count + order-independent checksum
// sum(hash_record_extended(row, 0)), + order check for ordered queries) is the reference;
// every other variant first runs the same checksum query (its warm-up), then --reps timed
// runs of SELECT count(*) FROM (query), each count checked. A different answer is a
// FAILURE: printed loudly, counted, exit status 1, never a number in the table. A variant
// that errors (no GPU, extension not loaded) is "n/a" with its error, unless --require'd.
// With --ref-jobs N a reference phase per dataset races the stock variants concurrently:
// the fastest gives the reference and is timed first; a stock variant slower than
// --stock-cutoff times the best is stopped and shown as "> ms" (it cannot be the best).
// --budget-s bounds the whole run (statement_timeout, and skipping what no longer fits).
// Output: a markdown report (stdout and --out; with the workers launched per pg_mergepath
// variant, and with --peak-rss the backend's peak RSS over its timed runs), a log (--log)
// with plans, per-run times and EXPLAIN ANALYZE of the pg_mergepath variants; last stdout
// line "RESULT passed=N failed=M na=K skipped=S nocustom=C". Options: --help; README.md.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "datagen.hpp"
#include "log.hpp"
#include "pg.hpp"
#include "queries.hpp"

using namespace mpbench;

namespace {

const char* kUsage = R"(usage: mp_bench [options]
  --conn STR          libpq connection string (default: PG* environment)
  --rows LIST         rows per side, e.g. 20k,1M,10M,50M (default 1M)
  --shapes LIST       int4,int8,pair,text,numeric,decimal,names,charnames (default: all, in that
                      order; names: (text, text, date), charnames: (char(30), char(20), date))
  --dists LIST        uniform,zipf,disjoint,identical; DIST:F sets a NULL fraction F
                      for that entry, e.g. uniform,uniform:0.1 (default uniform)
  --null-frac F       NULL fraction for entries without :F (default 0)
  --zipf-s S          Zipf exponent (default 1.0)
  --seed N            data seed (default 42)
  --text-collation C  collation of the text key column (default: database default)
  --ops LIST          query ids of queries.hpp and groups: setops (the four set ops),
                      joins (join_inner,join_left,join_right,join_full,join_semi,
                      join_anti), factdim (fact_dim_sum,fact_dim_rows), all (default:
                      setops, and fact_dim_sum for --fact-dim; a fact x dimension query
                      runs on the --fact-dim pairs only, the others on the
                      --rows x --dists x --shapes pairs only, and a dataset with no query
                      is not generated: --ops fact_dim_sum --fact-dim 100M:1M runs that
                      alone)
  --fact-dim LIST     fact x dimension pairs FACT_ROWS:DIM_ROWS[:MATCH], e.g. 100M:1M
                      (MATCH: the fraction of fact rows whose key is in the dimension,
                      default --fact-dim-match); both sides (k int8, p1 int8, p2 int4),
                      dimension keys unique, fact keys uniform over them. Only generated
                      when given (100M rows: ~5 GB); with --ops not naming a fact x
                      dimension query, fact_dim_sum runs on them
  --fact-dim-match F  default MATCH of --fact-dim (0.95)
  --skip LIST         (dataset, query) pairs not to run, as SHAPE/DIST/QUERY patterns (each
                      part a name or *; QUERY an id or a group), e.g. text/zipf/joins
                      (default: none; --small: the Zipf joins of int4, text, numeric,
                      names and charnames)
  --variants LIST     stock,tuned,gpu,cpu (the default), gpu-full (gpu with keys of their
                      types' widths: pg_mergepath.ranged_keys off); the first stock one is
                      the reference
  --reps N            timed runs per variant after the verifying warm-up (default 5)
  --stock-reps N      timed runs for the stock variants (default = --reps); 0: a stock
                      variant is timed by its verifying run alone (count + checksum,
                      a little slower than count(*)), for inputs where stock takes minutes
  --variant-budget-s S  fewer timed runs (at least 1) for a variant whose verifying run
                      shows that --reps runs would take longer than S seconds
  --quick-stock       stock variants after the reference: check the row count only
  --stock-cutoff F    stop the other stock variants at F x the reference stock time (shown
                      as "> ms": they cannot be the best stock plan; 0 = off, default)
  --ref-jobs N        reference phase: before each dataset's runs, run all its stock
                      variants concurrently over N connections; the fastest gives the
                      reference (and runs first), the others are checked against it and
                      stopped at the cut-off (default 1: no such phase; the first stock
                      variant's verifying run is the reference)
  --par-workers N     max_parallel_workers_per_gather of the pg_mergepath variants and of
                      the parallel read floor (default 16)
  --table-workers N   ALTER TABLE ... SET (parallel_workers = N) on both tables of every
                      dataset, so that a parallel scan of one can use N workers (default 0:
                      leave the tables as they are)
  --peak-rss          peak RSS (VmHWM) of the backend over the timed runs of the pg_mergepath
                      variants, from /proc (the server must run on this host; needs root
                      or the server's user); "-" when /proc is not accessible
  --no-floor          skip both floors (one process, parallel)
  --set NAME=VALUE    extra session setting for every variant (repeatable)
  --require LIST      variants whose n/a (error) counts as a failure, e.g. gpu,cpu
  --require-gpu       same as --require gpu
  --budget-s S        overall time budget: statement_timeout and skipping what no longer fits
  --explain-stock     EXPLAIN ANALYZE the stock variants too (default: plain EXPLAIN)
  --jobs N            tables generated in parallel (default: CPU cores)
  --regen             regenerate tables even when they exist with the same parameters
  --gen-only          generate the data and stop
  --no-gen            use the existing tables (error if missing)
  --schema NAME       schema of the tables (default mp_bench)
  --print-sql         print the generation SQL of the datasets and stop
  --out FILE          also write the markdown report to FILE
  --log FILE          plans, EXPLAIN ANALYZE, per-run times (default: none)
  --small             CI preset: 20k rows, all shapes, dists uniform,zipf,disjoint,identical,
                      uniform:0.1, ops setops,joins,factdim with --fact-dim 200k:20k,
                      --skip the Zipf joins of int4, text, numeric, names, charnames (a
                      Zipf join outputs 4.6M rows here: int8 and pair keep them), variants
                      stock,tuned,cpu, reps 1
)";

struct Options {
    std::string conn;
    std::vector<int64_t> rows = {1000000};
    std::vector<Shape> shapes = {Shape::Int4, Shape::Int8, Shape::Pair, Shape::Text, Shape::Numeric, Shape::Decimal,
                                 Shape::Names, Shape::CharNames};
    std::vector<std::pair<Dist, double>> dists;  // null frac < 0: use null_frac
    struct FactDim {
        int64_t fact, dim;
        double match;  // < 0: fact_dim_match
    };
    std::vector<FactDim> fact_dims;
    double fact_dim_match = 0.95;
    std::vector<std::vector<std::string>> skip;  // --skip: {shape, dist, query} patterns
    double null_frac = 0, zipf_s = 1.0;
    int64_t seed = 42;
    std::string text_collation, schema = "mp_bench";
    std::vector<const QueryDef*> ops;
    std::vector<const Variant*> variants;               // points into variant_defs
    std::vector<std::unique_ptr<Variant>> variant_defs;  // the variants with their settings
    int reps = 5, stock_reps = -1;
    int par_workers = 16, table_workers = 0;
    bool quick_stock = false, floor = true, explain_stock = false, peak_rss = false;
    double stock_cutoff = 0, variant_budget_s = 0;
    int ref_jobs = 1;
    std::vector<std::string> sets;
    std::set<std::string> require;
    double budget_s = 0;
    int jobs = 0;
    bool regen = false, gen_only = false, no_gen = false, print_sql = false, small = false;
    std::string out, log;
};

[[noreturn]] void usage_error(const std::string& m) {
    std::fprintf(stderr, "mp_bench: %s\n%s", m.c_str(), kUsage);
    std::exit(2);
}

std::vector<std::string> split(const std::string& s, char sep = ',') {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) out.push_back(cur);
    return out;
}

int64_t parse_count(const std::string& s) {
    char* end = nullptr;
    double x = std::strtod(s.c_str(), &end);
    std::string suf = end ? end : "";
    if (suf == "k" || suf == "K") x *= 1e3;
    else if (suf == "m" || suf == "M") x *= 1e6;
    else if (suf == "g" || suf == "G") x *= 1e9;
    else if (!suf.empty()) usage_error("bad row count '" + s + "'");
    if (x < 1) usage_error("bad row count '" + s + "'");
    return static_cast<int64_t>(std::llround(x));
}

Options parse_args(int argc, char** argv) {
    Options o;
    std::vector<std::string> a(argv + 1, argv + argc);
    // split --opt=value
    std::vector<std::string> args;
    for (auto& s : a) {
        auto eq = s.find('=');
        if (s.rfind("--", 0) == 0 && eq != std::string::npos && s.rfind("--set", 0) != 0) {
            args.push_back(s.substr(0, eq));
            args.push_back(s.substr(eq + 1));
        } else if (s.rfind("--set=", 0) == 0) {
            args.push_back("--set");
            args.push_back(s.substr(6));
        } else {
            args.push_back(s);
        }
    }
    std::string ops = "", variants = "stock,tuned,gpu,cpu", dists = "uniform", fact_dims, skip;
    if (std::find(args.begin(), args.end(), "--small") != args.end()) {
        o.small = true;
        o.rows = {20000};
        dists = "uniform,zipf,disjoint,identical,uniform:0.1";
        variants = "stock,tuned,cpu";
        ops = "setops,joins,factdim";
        fact_dims = "200k:20k";
        skip = "int4/zipf/joins,text/zipf/joins,numeric/zipf/joins,decimal/zipf/joins,names/zipf/joins,charnames/zipf/joins";
        o.reps = 1;
    }
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& k = args[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= args.size()) usage_error(k + " needs a value");
            return args[++i];
        };
        if (k == "--help" || k == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (k == "--conn") o.conn = val();
        else if (k == "--rows") {
            o.rows.clear();
            for (auto& s : split(val())) o.rows.push_back(parse_count(s));
        } else if (k == "--shapes") {
            o.shapes.clear();
            for (auto& s : split(val())) {
                Shape sh;
                if (!parse_shape(s, sh)) usage_error("unknown shape '" + s + "'");
                o.shapes.push_back(sh);
            }
        } else if (k == "--dists") dists = val();
        else if (k == "--null-frac") o.null_frac = std::atof(val().c_str());
        else if (k == "--zipf-s") o.zipf_s = std::atof(val().c_str());
        else if (k == "--seed") o.seed = std::atoll(val().c_str());
        else if (k == "--text-collation") o.text_collation = val();
        else if (k == "--ops") ops = val();
        else if (k == "--fact-dim") fact_dims = val();
        else if (k == "--skip") skip = val();
        else if (k == "--fact-dim-match") o.fact_dim_match = std::atof(val().c_str());
        else if (k == "--variants") variants = val();
        else if (k == "--reps") o.reps = std::atoi(val().c_str());
        else if (k == "--stock-reps") o.stock_reps = std::atoi(val().c_str());
        else if (k == "--quick-stock") o.quick_stock = true;
        else if (k == "--no-floor") o.floor = false;
        else if (k == "--par-workers") o.par_workers = std::atoi(val().c_str());
        else if (k == "--table-workers") o.table_workers = std::atoi(val().c_str());
        else if (k == "--peak-rss") o.peak_rss = true;
        else if (k == "--stock-cutoff") o.stock_cutoff = std::atof(val().c_str());
        else if (k == "--variant-budget-s") o.variant_budget_s = std::atof(val().c_str());
        else if (k == "--ref-jobs") o.ref_jobs = std::max(1, std::atoi(val().c_str()));
        else if (k == "--set") o.sets.push_back(val());
        else if (k == "--require") {
            for (auto& s : split(val())) o.require.insert(s);
        } else if (k == "--require-gpu") o.require.insert("gpu");
        else if (k == "--budget-s") o.budget_s = std::atof(val().c_str());
        else if (k == "--explain-stock") o.explain_stock = true;
        else if (k == "--jobs") o.jobs = std::atoi(val().c_str());
        else if (k == "--regen") o.regen = true;
        else if (k == "--gen-only") o.gen_only = true;
        else if (k == "--no-gen") o.no_gen = true;
        else if (k == "--schema") o.schema = val();
        else if (k == "--print-sql") o.print_sql = true;
        else if (k == "--out") o.out = val();
        else if (k == "--log") o.log = val();
        else if (k == "--small") {
        } else usage_error("unknown option '" + k + "'");
    }
    for (auto& s : split(dists)) {
        auto c = s.find(':');
        Dist d;
        if (!parse_dist(s.substr(0, c), d)) usage_error("unknown distribution '" + s + "'");
        o.dists.push_back({d, c == std::string::npos ? -1.0 : std::atof(s.c_str() + c + 1)});
    }
    for (auto& s : split(fact_dims)) {
        auto f = split(s, ':');
        if (f.size() < 2 || f.size() > 3) usage_error("bad --fact-dim '" + s + "' (FACT_ROWS:DIM_ROWS[:MATCH])");
        double m = f.size() == 3 ? std::atof(f[2].c_str()) : -1.0;
        if (f.size() == 3 && (m < 0 || m > 1)) usage_error("bad MATCH in --fact-dim '" + s + "' (0..1)");
        o.fact_dims.push_back({parse_count(f[0]), parse_count(f[1]), m});
    }
    if (o.fact_dim_match < 0 || o.fact_dim_match > 1) usage_error("--fact-dim-match must be in 0..1");
    for (auto& s : split(skip)) {
        auto f = split(s, '/');
        if (f.size() != 3) usage_error("bad --skip '" + s + "' (SHAPE/DIST/QUERY)");
        Shape sh;
        Dist di;
        if (f[0] != "*" && !parse_shape(f[0], sh)) usage_error("unknown shape in --skip '" + s + "'");
        if (f[1] != "*" && !parse_dist(f[1], di)) usage_error("unknown distribution in --skip '" + s + "'");
        if (f[2] != "*" && std::none_of(query_table().begin(), query_table().end(), [&](const QueryDef& q) {
                return f[2] == q.id || f[2] == q.group;
            }))
            usage_error("unknown query or group in --skip '" + s + "'");
        o.skip.push_back(f);
    }
    // --ops: ids and groups, in the order given, each query once
    auto add_op = [&](const QueryDef* q) {
        if (std::find(o.ops.begin(), o.ops.end(), q) == o.ops.end()) o.ops.push_back(q);
    };
    if (ops.empty()) {
        for (const auto& q : query_table())
            if (q.default_on && q.scope == Scope::Pairs) add_op(&q);
    } else {
        for (auto& s : split(ops)) {
            bool found = false;
            for (const auto& q : query_table())
                if (s == "all" || s == q.id || s == q.group) {
                    add_op(&q);
                    found = true;
                }
            if (!found) usage_error("unknown query or group '" + s + "'");
        }
    }
    // --fact-dim without a fact x dimension query in --ops: its default ones
    if (!o.fact_dims.empty() &&
        std::none_of(o.ops.begin(), o.ops.end(), [](const QueryDef* q) { return q->scope == Scope::FactDim; }))
        for (const auto& q : query_table())
            if (q.default_on && q.scope == Scope::FactDim) add_op(&q);
    if (o.par_workers < 0) usage_error("--par-workers must be >= 0");
    if (o.table_workers < 0) usage_error("--table-workers must be >= 0");
    for (auto& s : split(variants)) {
        const Variant* f = nullptr;
        for (const auto& v : variant_table())
            if (s == v.id) f = &v;
        if (!f) usage_error("unknown variant '" + s + "'");
        o.variant_defs.push_back(std::make_unique<Variant>(with_parallel_workers(*f, o.par_workers)));
        o.variants.push_back(o.variant_defs.back().get());
    }
    if (o.reps < 1) usage_error("--reps must be >= 1");
    if (o.stock_reps < 0) o.stock_reps = o.reps;
    if (o.stock_reps < 0) usage_error("--stock-reps must be >= 0");
    if (o.jobs <= 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
    bool has_stock = false;
    for (auto* v : o.variants) has_stock |= !v->mp;
    if (!has_stock) usage_error("--variants needs stock or tuned: the reference answer comes from stock");
    return o;
}

std::string subst(std::string t, const std::map<std::string, std::string>& m) {
    for (const auto& [k, v] : m) {
        std::string key = "{" + k + "}";
        for (size_t p; (p = t.find(key)) != std::string::npos;) t.replace(p, key.size(), v);
    }
    return t;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

std::string fmt_ms(double ms) {
    char b[32];
    if (ms < 10) std::snprintf(b, sizeof b, "%.2f", ms);
    else if (ms < 100) std::snprintf(b, sizeof b, "%.1f", ms);
    else std::snprintf(b, sizeof b, "%.0f", ms);
    return b;
}

std::string fmt_x(double x) {
    char b[32];
    std::snprintf(b, sizeof b, x < 10 ? "%.2fx" : "%.1fx", x);
    return b;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string shell_out(const char* cmd) {
    std::string out;
    if (FILE* p = popen(cmd, "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            return p == std::string::npos ? line : line.substr(p + 2);
        }
    return "unknown CPU";
}

// The value of the first "Label: value" line of an EXPLAIN text ("" when it has none).
std::string explain_field(const std::string& plan, const std::string& label) {
    size_t p = plan.find(label + ": ");
    if (p == std::string::npos) return "";
    p += label.size() + 2;
    return plan.substr(p, plan.find('\n', p) - p);
}

// Peak RSS of a server backend, from /proc on this host. "" when /proc/<pid> is a
// PostgreSQL process that we may read, else why not (another host, another user).
std::string backend_proc_problem(int pid) {
    if (pid <= 0) return "no backend pid";
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    if (!comm || !std::getline(comm, name))
        return "/proc/" + std::to_string(pid) + " is not accessible (is the server on another host?)";
    if (name.rfind("postgres", 0) != 0)
        return "/proc/" + std::to_string(pid) + " is '" + name +
               "', not the backend (is the server on another host?)";
    return "";
}

// Resets the backend's peak RSS (VmHWM) to its current RSS: "5" into clear_refs.
// Returns "" or why it could not.
std::string reset_peak_rss(int pid) {
    std::string problem = backend_proc_problem(pid);
    if (!problem.empty()) return problem;
    std::string path = "/proc/" + std::to_string(pid) + "/clear_refs";
    FILE* f = std::fopen(path.c_str(), "w");
    bool ok = f && std::fputs("5", f) >= 0;
    int err = errno;
    if (f && std::fclose(f) != 0) {
        ok = false;
        err = errno;
    }
    return ok ? "" : "cannot write " + path + ": " + std::strerror(err);
}

// VmHWM of the backend in kB, or -1 with the reason in `why`.
long peak_rss_kb(int pid, std::string& why) {
    std::string path = "/proc/" + std::to_string(pid) + "/status";
    std::ifstream in(path);
    std::string line;
    while (in && std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    why = "no VmHWM in " + path;
    return -1;
}

// ---------------------------------------------------------------------------------------
enum class CellKind { Number, NA, Fail, Skip, Timeout, Cut };

struct Cell {
    CellKind kind = CellKind::Skip;
    double ms = 0;           // median (Number) or the cut-off (Cut)
    std::string note;        // error message for n/a / failure / skip
    bool no_custom = false;  // pg_mergepath variant whose plan has no Custom Scan
    bool serial = false;     // parallel read floor whose plan has no Gather
    bool checksum_checked = false;
    std::string workers;     // pg_mergepath: Workers Launched in its EXPLAIN ANALYZE ("" none)
    long peak_rss_kb = -1;   // --peak-rss: the backend's VmHWM over the timed runs
    std::string rss_note;    // --peak-rss: why there is no peak RSS
};

struct Answer {
    bool ok = false;
    std::string count, sum, disorder, error, sqlstate;
    double ms = 0;
};

// one (dataset, query) of the matrix
struct Item {
    const Dataset* d = nullptr;
    const QueryDef* q = nullptr;
    std::string sql;
    Answer ref;                      // the stock reference answer
    bool ref_done = false;           // computed by the reference phase
    const Variant* refv = nullptr;   // the stock variant it came from (the fastest there)
    std::map<std::string, Answer> stock;  // reference-phase answers, by stock variant id
    std::set<std::string> stock_bad;      // stock variants that disagreed with refv
};

struct RowResult {
    std::string size, shape, dist, nulls, query;
    std::string rows_out;  // reference count
    Cell floor, par_floor;
    std::map<std::string, Cell> cells;  // by variant id
};

// --skip: is (dataset, query) one not to run? (pairs of --rows x --dists x --shapes only)
bool skipped_by(const Options& o, const Dataset& d, const QueryDef& q) {
    if (d.fact_dim) return false;
    for (const auto& p : o.skip) {
        Shape sh = d.shape;
        Dist di = d.dist;
        if ((p[0] == "*" || (parse_shape(p[0], sh) && sh == d.shape)) &&
            (p[1] == "*" || (parse_dist(p[1], di) && di == d.dist)) &&
            (p[2] == "*" || p[2] == q.id || p[2] == q.group))
            return true;
    }
    return false;
}

std::string build_sql(const Dataset& d, const QueryDef& q) {
    std::vector<std::string> ac, bc, on;
    for (auto& col : d.columns()) {
        ac.push_back("a." + col);
        bc.push_back("b." + col);
        on.push_back("a." + col + " = b." + col);
    }
    return subst(q.sql, {{"A", d.table('a')},
                         {"B", d.table('b')},
                         {"COLS", join(d.columns(), ", ")},
                         {"ACOLS", join(ac, ", ")},
                         {"BCOLS", join(bc, ", ")},
                         {"ON", join(on, " AND ")}});
}

// count, order-independent checksum (hash_record_extended is consistent with the types'
// equality: 1.5 and 1.50 hash alike), and for ordered queries the number of inversions.
// An aggregate query (one row, its count in column n): that count and the row's hash.
std::string checksum_sql(const QueryDef& def, const std::string& q) {
    const bool ordered = def.ordered;
    if (def.aggregate)
        return "SELECT s.n, hash_record_extended(s, 0), 0 FROM (" + q + ") s";
    if (!ordered)
        return "SELECT count(*), coalesce(sum(hash_record_extended(s, 0)), 0), 0 FROM (" + q + ") s";
    return "SELECT count(*), coalesce(sum(h), 0), count(*) FILTER (WHERE p > r) FROM "
           "(SELECT hash_record_extended(s, 0) AS h, s AS r, lag(s) OVER () AS p FROM (" +
           q + ") s) t";
}

// RESET ALL, jit off, --set, the variant's settings, statement_timeout (0 = none)
std::string settings_sql(const Options& o, const std::vector<std::string>& sets, long timeout_ms) {
    std::string sql = "RESET ALL; SET jit = off";
    for (const auto& s : o.sets) {
        auto eq = s.find('=');
        sql += "; SET " + s.substr(0, eq) + " = '" + s.substr(eq + 1) + "'";
    }
    for (const auto& s : sets) sql += "; SET " + s;
    if (timeout_ms > 0) sql += "; SET statement_timeout = " + std::to_string(timeout_ms);
    return sql;
}

class Runner {
public:
    explicit Runner(const Options& o) : o_(o) {
        for (const auto& s : o_.sets)
            if (s.find('=') == std::string::npos) usage_error("bad --set '" + s + "'");
        if (!o_.log.empty()) {
            log_ = std::fopen(o_.log.c_str(), "w");
            if (!log_) throw std::runtime_error("cannot write " + o_.log);
        }
        for (const Variant* v : o_.variants)
            if (!v->mp) {
                refv_ = v;
                break;
            }
    }
    ~Runner() {
        if (log_) std::fclose(log_);
    }

    int run();

private:
    const Options& o_;
    const Variant* refv_ = nullptr;  // the stock variant giving the reference answer
    FILE* log_ = nullptr;
    std::vector<RowResult> rows_;
    std::vector<std::string> failures_;
    int passed_ = 0, failed_ = 0, na_ = 0, skipped_ = 0, nocustom_ = 0, cut_ = 0;
    bool mp_loaded_ = false;
    std::string mp_missing_, mp_how_;
    // optional_settings() that the loaded pg_mergepath does not define: left out
    std::set<std::string> absent_settings_;
    std::vector<std::string> variant_sets(const Variant& v) const {
        std::vector<std::string> out;
        for (const std::string& s : v.sets)
            if (!absent_settings_.count(s.substr(0, s.find(' ')))) out.push_back(s);
        return out;
    }
    int backend_pid_ = 0;           // of the connection that runs the variants (--peak-rss)
    std::set<std::string> rss_notes_;  // why a peak RSS is missing
    double ref_s_ = 0;
    // time estimate of the next query, for the budget: the slowest query of the current
    // dataset so far, else the fastest per-dataset average seen (another shape may differ)
    double ds_max_s_ = 0, min_avg_s_ = 0;
    double estimate_s() const { return ds_max_s_ > 0 ? ds_max_s_ : min_avg_s_; }
    std::vector<std::string> notes_;  // footnotes, numbered from 1
    std::string date_, host_, gpu_, cpu_, pgver_, settings_, gen_line_, ref_line_, table_workers_;

    bool skipped(const Dataset& d, const QueryDef& q) const { return skipped_by(o_, d, q); }

    void L(const std::string& s) {
        if (log_) {
            std::fputs(s.c_str(), log_);
            if (s.empty() || s.back() != '\n') std::fputc('\n', log_);
            std::fflush(log_);
        }
    }

    double remaining_s() const { return o_.budget_s > 0 ? o_.budget_s - elapsed_s() : 1e9; }
    long budget_timeout_ms() const {
        return o_.budget_s > 0 ? std::max(1000L, static_cast<long>(remaining_s() * 1000)) : 0;
    }

    int note(const std::string& s) {
        for (size_t i = 0; i < notes_.size(); ++i)
            if (notes_[i] == s) return static_cast<int>(i + 1);
        notes_.push_back(s);
        return static_cast<int>(notes_.size());
    }

    void fail(const std::string& what, Cell& cell, const std::string& why) {
        cell.kind = CellKind::Fail;
        cell.note = why;
        ++failed_;
        failures_.push_back(what + ": " + why);
        std::fprintf(stderr,
                     "\n**************** FAILURE ****************\n%s\n  %s\n"
                     "*****************************************\n\n",
                     what.c_str(), why.c_str());
        L("*** FAILURE: " + what + ": " + why);
    }

    void reference_phase(std::vector<Item*>& items);
    void set_table_workers(Conn& c, const std::vector<Dataset>& sets);
    std::string table_workers_now(Conn& c, const std::vector<Dataset>& sets);
    void run_floors(Conn& c, const Dataset& d, Cell& floor, Cell& par_floor);
    std::string run_floor(Conn& c, const Dataset& d, const std::string& name,
                          const std::vector<std::string>& sets, Cell& cell);
    void run_item(Conn& c, Item& it, RowResult& row);
    Cell timed_by_verifying_run(const std::string& what, Cell& cell, double verify_ms, bool reference);
    Cell run_variant(Conn& c, Item& it, const Variant& v, bool reference, double ref_ms,
                     const std::string& what);
    void log_parallel_run(const std::string& what, const std::string& plan, Cell& cell);
    void collect_header(Conn& c, const std::vector<Dataset>& sets, const GenStats& gs);
    std::string report();
    std::vector<const Variant*> mp_variants() const;
    bool runs(const std::string& id) const;  // is the variant `id` in --variants?
    std::string report_header();
    std::string report_row(const RowResult& r);
    std::string cell_text(const Cell& c);
};

void Runner::collect_header(Conn& c, const std::vector<Dataset>& sets, const GenStats& gs) {
    std::time_t now = std::time(nullptr);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    date_ = b;
    char h[256] = {0};
    gethostname(h, sizeof h - 1);
    host_ = h;
    gpu_ = shell_out(
        "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null");
    if (gpu_.empty()) gpu_ = "none (no nvidia-smi or no GPU)";
    cpu_ = cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores";
    pgver_ = c.must("SHOW server_version").at(0, 0);
    QResult s = c.must(
        "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ("
        "'shared_buffers','work_mem','hash_mem_multiplier','max_parallel_workers_per_gather',"
        "'max_parallel_workers','max_worker_processes','shared_preload_libraries',"
        "'effective_cache_size','lc_collate','dynamic_shared_memory_type') "
        "OR name LIKE 'pg_mergepath.%' ORDER BY name");
    std::vector<std::string> kv;
    for (auto& r : s.rows) kv.push_back(r[0] + "=" + r[1]);
    settings_ = join(kv, ", ");
    std::set<int64_t> rows;
    size_t pairs = 0;
    std::vector<std::string> fds;
    for (const Dataset& d : sets) {
        if (!d.fact_dim) {
            rows.insert(d.rows);
            ++pairs;
            continue;
        }
        char m[32];
        std::snprintf(m, sizeof m, "%g%%", d.match * 100);
        fds.push_back(std::to_string(d.rows) + " x " + std::to_string(d.dim_rows) + " rows, " + m +
                      " of fact keys in the dimension");
    }
    std::vector<std::string> rs;
    for (int64_t n : rows) rs.push_back(std::to_string(n));
    char g[64];
    std::snprintf(g, sizeof g, "%.1f s", gs.seconds);
    gen_line_ = pairs ? std::to_string(pairs) + " datasets x 2 tables of " + join(rs, ", ") + " rows" : "";
    if (!fds.empty())
        gen_line_ += std::string(pairs ? "; " : "") + "fact x dimension (a = fact, b = dimension, " +
                     "each k int8, p1 int8, p2 int4; dimension keys unique, fact keys uniform over " +
                     "them): " + join(fds, "; ");
    gen_line_ += " (" + std::to_string(gs.created) + " tables generated, " + std::to_string(gs.reused) +
                 " reused, " + g + ")";
    table_workers_ = table_workers_now(c, sets);
}

// --table-workers N: a parallel scan of each benchmark table may use N workers (stock
// plans too, up to their max_parallel_workers_per_gather).
void Runner::set_table_workers(Conn& c, const std::vector<Dataset>& sets) {
    if (o_.table_workers <= 0) return;
    for (const Dataset& d : sets)
        for (char side : {'a', 'b'})
            c.must("ALTER TABLE " + d.table(side) + " SET (parallel_workers = " +
                   std::to_string(o_.table_workers) + ")");
    logf("tables: parallel_workers = %d", o_.table_workers);
}

// The tables' parallel_workers reloption as the report states it: "16", or "not set
// (PostgreSQL's size heuristic)", or several of these.
std::string Runner::table_workers_now(Conn& c, const std::vector<Dataset>& sets) {
    std::vector<std::string> names;
    for (const Dataset& d : sets)
        for (char side : {'a', 'b'}) names.push_back("'" + d.table(side) + "'::regclass");
    QResult r = c.exec(
        "SELECT DISTINCT coalesce((SELECT option_value FROM pg_options_to_table(reloptions) "
        "WHERE option_name = 'parallel_workers'), 'not set (size heuristic)') FROM pg_class "
        "WHERE oid IN (" + join(names, ", ") + ") ORDER BY 1");
    if (!r.ok) return "unknown (" + r.error + ")";
    std::vector<std::string> v;
    for (auto& row : r.rows) v.push_back(row[0]);
    return join(v, ", ");
}

// Runs every stock variant of the dataset's queries concurrently (--ref-jobs connections)
// with the checksum query. Per query the fastest stock variant gives the reference; the
// others are cross-checked against it, and stopped (PQcancel) once they take longer than
// --stock-cutoff times the fastest: they cannot be the best stock plan.
void Runner::reference_phase(std::vector<Item*>& items) {
    struct Task {
        Item* it;
        const Variant* v;
        std::chrono::steady_clock::time_point start;
        bool started = false, finished = false, cancelled = false;
        PGcancel* cancel = nullptr;
    };
    std::vector<Task> tasks;
    for (Item* it : items)
        for (const Variant* v : o_.variants)
            if (!v->mp) tasks.push_back({it, v, {}, false, false, false, nullptr});
    int jobs = std::min<int>(o_.ref_jobs, static_cast<int>(tasks.size()));
    logf("reference phase: %zu stock runs of %s, %d at a time", tasks.size(),
         items.empty() ? "-" : items[0]->d->tag().c_str(), jobs);
    double t0 = elapsed_s();
    std::atomic<size_t> next{0};
    std::atomic<int> running{jobs};
    std::mutex mu;
    std::string conn_error;
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j)
        threads.emplace_back([&] {
            try {
                Conn c(o_.conn);
                for (size_t k; (k = next++) < tasks.size();) {
                    Task& t = tasks[k];
                    QResult r = c.exec(settings_sql(o_, variant_sets(*t.v), budget_timeout_ms()));
                    if (!r.ok && r.sqlstate == "57014")  // a late cancel meant for the last task
                        r = c.exec(settings_sql(o_, variant_sets(*t.v), budget_timeout_ms()));
                    if (r.ok) {
                        {
                            std::lock_guard<std::mutex> g(mu);
                            t.cancel = c.cancel_handle();
                            t.start = std::chrono::steady_clock::now();
                            t.started = true;
                        }
                        r = c.exec(checksum_sql(*t.it->q, t.it->sql));
                    }
                    Answer a;
                    a.ok = r.ok;
                    a.ms = r.ms;
                    a.error = r.error;
                    a.sqlstate = r.sqlstate;
                    a.count = r.at(0, 0);
                    a.sum = r.at(0, 1);
                    a.disorder = r.at(0, 2);
                    std::lock_guard<std::mutex> g(mu);
                    if (t.cancel) PQfreeCancel(t.cancel);
                    t.cancel = nullptr;
                    t.finished = true;
                    if (t.cancelled && !a.ok) a.error = "cut off";
                    t.it->stock[t.v->id] = a;
                    logf("  ref %s %s, %s: %s (%.1f s)", t.it->d->tag().c_str(), t.it->q->title,
                         t.v->title, a.ok ? ("count " + a.count).c_str() : a.error.c_str(),
                         a.ms / 1000);
                }
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> g(mu);
                conn_error = e.what();
            }
            --running;
        });
    // watchdog: stop the stock runs that already lost
    while (running > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (o_.stock_cutoff <= 0) continue;
        std::lock_guard<std::mutex> g(mu);
        auto now = std::chrono::steady_clock::now();
        for (Task& t : tasks) {
            if (!t.started || t.finished || t.cancelled || !t.cancel) continue;
            double best = 0;
            for (auto& [id, a] : t.it->stock)
                if (a.ok && (best == 0 || a.ms < best)) best = a.ms;
            double ran = std::chrono::duration<double, std::milli>(now - t.start).count();
            if (best > 0 && ran > o_.stock_cutoff * best + 1000) {
                char buf[256];
                PQcancel(t.cancel, buf, sizeof buf);
                t.cancelled = true;
            }
        }
    }
    for (auto& t : threads) t.join();
    if (!conn_error.empty()) throw std::runtime_error("reference phase: " + conn_error);

    for (Item* it : items) {
        it->ref_done = true;
        const Variant* best = nullptr;
        for (const Variant* v : o_.variants) {
            auto f = it->stock.find(v->id);
            if (f != it->stock.end() && f->second.ok && (!best || f->second.ms < it->stock[best->id].ms))
                best = v;
        }
        if (!best) {  // no stock answer: keep the first error
            it->refv = refv_;
            it->ref = it->stock[refv_->id];
            it->ref.ok = false;
            continue;
        }
        it->refv = best;
        it->ref = it->stock[best->id];
        L("ref " + it->d->tag() + " | " + it->q->title + " | " + best->title + ": count=" +
          it->ref.count + " checksum=" + it->ref.sum + " disorder=" + it->ref.disorder + " (" +
          fmt_ms(it->ref.ms) + " ms)");
        for (auto& [id, a] : it->stock) {
            if (id == best->id) continue;
            L("    " + id + ": " +
              (a.ok ? "count=" + a.count + " checksum=" + a.sum + " disorder=" + a.disorder
                    : a.error) +
              " (" + fmt_ms(a.ms) + " ms)");
            if (a.ok && (a.count != it->ref.count || a.sum != it->ref.sum ||
                         a.disorder != it->ref.disorder)) {
                it->stock_bad.insert(id);
                Cell dummy;
                fail(it->d->tag() + " " + it->q->title + ", " + id, dummy,
                     "two stock plans disagree: count " + a.count + " checksum " + a.sum + " vs " +
                         best->title + " count " + it->ref.count + " checksum " + it->ref.sum);
            }
        }
    }
    ref_s_ += elapsed_s() - t0;
    char b[200];
    std::snprintf(b, sizeof b,
                  "per dataset a reference phase first runs the stock variants concurrently (%d "
                  "at a time; %.1f s in all): the fastest gives the reference answer, the others "
                  "are checked against it",
                  o_.ref_jobs, ref_s_);
    ref_line_ = b;
}

// Both floors of a dataset: one process, then parallel (--par-workers workers). They read
// the same rows, so their counts must agree.
void Runner::run_floors(Conn& c, const Dataset& d, Cell& floor, Cell& par_floor) {
    std::string one = run_floor(c, d, "floor", floor_sets(), floor);
    if (remaining_s() <= 0) return;
    std::string par = run_floor(c, d, "par floor", par_floor_sets(o_.par_workers), par_floor);
    if (!one.empty() && !par.empty() && one != par)
        fail(d.tag() + " par floor", par_floor,
             "the parallel read floor counted " + par + ", the one-process floor " + one);
}

// One floor: SELECT count(cols) FROM (a UNION ALL b) under `sets`, a warm-up and --reps
// timed runs; returns the counts ("" when it did not run).
std::string Runner::run_floor(Conn& c, const Dataset& d, const std::string& name,
                              const std::vector<std::string>& sets, Cell& cell) {
    // every column a query may read: the keys, and a fact x dimension pair's payloads
    std::vector<std::string> counts;
    for (auto& col : d.all_columns()) counts.push_back("count(" + col + ")");
    std::string sql = subst(floor_sql(), {{"A", d.table('a')},
                                          {"B", d.table('b')},
                                          {"COLS", join(d.all_columns(), ", ")},
                                          {"COUNTS", join(counts, ", ")}});
    L("==== " + d.tag() + " | " + name + " ====\nsettings: " + join(sets, "; ") + "\n" + sql);
    QResult s = c.exec(settings_sql(o_, sets, budget_timeout_ms()));
    if (!s.ok) {
        cell.kind = CellKind::NA;
        cell.note = s.error;
        return "";
    }
    QResult plan = c.exec("EXPLAIN " + sql);
    if (plan.ok) {
        std::string p;
        for (auto& r : plan.rows) p += r[0] + "\n";
        L("plan:\n" + p);
        cell.serial = name == "par floor" && p.find("Gather") == std::string::npos;
    }
    std::vector<double> ms;
    std::string answer;
    for (int i = 0; i <= o_.reps; ++i) {  // the first run warms up
        QResult r = c.exec(sql);
        if (!r.ok) {
            cell.kind = r.sqlstate == "57014" ? CellKind::Timeout : CellKind::NA;
            cell.note = r.error;
            L("error: " + r.error);
            return "";
        }
        if (!r.rows.empty()) answer = join(r.rows[0], ",");
        if (i > 0) ms.push_back(r.ms);
    }
    cell.kind = CellKind::Number;
    cell.ms = median(ms);
    std::string runs;
    for (double x : ms) runs += fmt_ms(x) + " ";
    L("counts: " + answer + "\nruns ms: " + runs + "-> median " + fmt_ms(cell.ms));
    logf("%s %s: %s ms%s", d.tag().c_str(), name.c_str(), fmt_ms(cell.ms).c_str(),
         cell.serial ? " (plan has no Gather: it ran in one process)" : "");
    return answer;
}

Cell Runner::run_variant(Conn& c, Item& it, const Variant& v, bool reference, double ref_ms,
                         const std::string& what) {
    Cell cell;
    Answer& ref = it.ref;
    const bool required = o_.require.count(v.id) > 0;
    auto unavailable = [&](const std::string& err) {
        cell.kind = CellKind::NA;
        cell.note = err;
        L("n/a: " + err);
        if (required) {
            fail(what, cell, "required variant unavailable: " + err);
        } else {
            ++na_;
            logf("%s: n/a (%s)", what.c_str(), err.c_str());
        }
        return cell;
    };
    L("==== " + it.d->tag() + " | " + it.q->title + " | " + v.title + " ====");
    if (v.mp && !mp_loaded_) return unavailable(mp_missing_);

    // self-test of the checks: MP_BENCH_FAULT=VARIANT:count|value corrupts that variant's
    // answer (drops a row, or replaces one by a copy of another)
    std::string sql = it.sql;
    if (const char* f = std::getenv("MP_BENCH_FAULT")) {
        std::string fs = f;
        if (!reference && fs.rfind(std::string(v.id) + ":", 0) == 0) {
            std::string mode = fs.substr(fs.find(':') + 1);
            if (mode == "count")
                sql = "SELECT * FROM (" + it.sql + ") f OFFSET 1";
            else
                sql = "(SELECT * FROM (" + it.sql + ") f OFFSET 1) UNION ALL (SELECT * FROM (" +
                      it.sql + ") f LIMIT 1 OFFSET 1)";
            L("MP_BENCH_FAULT: answer corrupted on purpose (" + mode + ")");
        }
    }

    // other stock variants stop at a multiple of the reference time: they cannot win
    long cutoff = 0;
    if (!v.mp && !reference && o_.stock_cutoff > 0 && ref_ms > 0)
        cutoff = std::max(1000L, static_cast<long>(o_.stock_cutoff * ref_ms));
    const std::vector<std::string> vsets = variant_sets(v);
    QResult s = c.exec(settings_sql(o_, vsets, 0));
    if (!s.ok) return unavailable(s.error);
    L("settings: " + join(vsets, "; ") + (o_.sets.empty() ? "" : "; " + join(o_.sets, "; ")) +
      (cutoff ? "; cut off at " + std::to_string(cutoff) + " ms" : ""));
    L("query: " + sql + (it.q->aggregate ? "\ntimed: the checksum query (count n + hash of the row)"
                                          : "\ntimed: SELECT count(*) FROM (query) s"));
    // every statement runs under statement_timeout = min(time budget left, cut-off)
    bool by_cutoff = false;
    auto run = [&](const std::string& q) {
        long t = budget_timeout_ms();
        by_cutoff = false;
        if (cutoff > 0 && (t == 0 || cutoff <= t)) {
            t = cutoff;
            by_cutoff = true;
        }
        if (t > 0) c.exec("SET statement_timeout = " + std::to_string(t));
        return c.exec(q);
    };

    // the plans logged are those of the timed statement (an aggregate over the query can
    // be planned in parallel where the bare query is not); an aggregate query is timed by
    // its checksum query, which checks the whole answer each time
    const std::string count_sql =
        it.q->aggregate ? checksum_sql(*it.q, sql) : "SELECT count(*) FROM (" + sql + ") s";
    QResult plan = run("EXPLAIN " + count_sql);
    if (plan.ok) {
        std::string p;
        for (auto& r : plan.rows) p += r[0] + "\n";
        L("plan:\n" + p);
        if (v.mp && p.find("Custom Scan") == std::string::npos) cell.no_custom = true;
    }

    auto errored = [&](const QResult& r) {
        if (r.sqlstate == "57014" && by_cutoff) {
            cell.kind = CellKind::Cut;
            cell.ms = static_cast<double>(cutoff);
            ++cut_;
            logf("%s: > %ld ms (cut off at %.1fx the stock time)", what.c_str(), cutoff,
                 o_.stock_cutoff);
            L("cut off");
            return cell;
        }
        if (r.sqlstate == "57014") {
            cell.kind = CellKind::Timeout;
            cell.note = "statement_timeout (time budget)";
            ++skipped_;
            logf("%s: timeout (budget)", what.c_str());
            L("timeout");
            return cell;
        }
        if (!v.mp) {  // stock itself failing means the benchmark is broken
            fail(what, cell, "stock query failed: " + r.error);
            return cell;
        }
        return unavailable(r.error);
    };

    // verifying run, also the warm-up (the reference may come from the reference phase)
    bool verified_before = false;  // by the reference phase
    if (!v.mp && !reference) {
        auto f = it.stock.find(v.id);
        verified_before = f != it.stock.end() && f->second.ok;
    }
    const bool checksum =
        (reference && !it.ref_done) || v.mp || (!reference && !o_.quick_stock && !verified_before);
    if (verified_before) cell.checksum_checked = true;
    double verify_ms = 0;
    if (checksum) {
        QResult r = run(checksum_sql(*it.q, sql));
        if (!r.ok) return errored(r);
        verify_ms = r.ms;
        Answer a;
        a.ok = true;
        a.count = r.at(0, 0);
        a.sum = r.at(0, 1);
        a.disorder = r.at(0, 2);
        L("verify: count=" + a.count + " checksum=" + a.sum + " disorder=" + a.disorder + " (" +
          fmt_ms(r.ms) + " ms)");
        if (reference) {
            ref = a;
        } else if (a.count != ref.count || a.sum != ref.sum || a.disorder != "0") {
            std::string why = r.rows.empty() ? std::string("wrong answer: no row")
                                             : "wrong answer: count " + a.count + " checksum " + a.sum;
            if (!r.rows.empty() && a.disorder != "0") why += " order inversions " + a.disorder;
            why += "; stock: count " + ref.count + " checksum " + ref.sum;
            fail(what, cell, why);
            return cell;
        }
        cell.checksum_checked = true;
    }
    if (reference && ref.disorder != "0") {
        fail(what, cell, "stock output is not in order (" + ref.disorder + " inversions)");
        return cell;
    }

    // timed runs, each checking the row count (--stock-reps 0: the verifying run's time)
    int reps = v.mp ? o_.reps : o_.stock_reps;
    if (reps == 0 && verify_ms > 0) return timed_by_verifying_run(what, cell, verify_ms, reference);
    reps = std::max(reps, 1);
    if (o_.variant_budget_s > 0 && verify_ms > 0)  // slow variants: fewer timed runs
        reps = std::max(1, std::min(reps, static_cast<int>(o_.variant_budget_s * 1000 / verify_ms)));
    // --peak-rss: the backend's peak RSS over the timed runs of a pg_mergepath variant
    const bool track_rss = o_.peak_rss && v.mp;
    if (track_rss) cell.rss_note = reset_peak_rss(backend_pid_);
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        QResult r = run(count_sql);
        if (!r.ok) return errored(r);
        if (r.at(0, 0) != ref.count || (it.q->aggregate && r.at(0, 1) != ref.sum)) {
            fail(what, cell, "wrong answer in timed run " + std::to_string(i + 1) + ": count " +
                                 r.at(0, 0) + (it.q->aggregate ? " checksum " + r.at(0, 1) : "") +
                                 ", stock " + ref.count +
                                 (it.q->aggregate ? " checksum " + ref.sum : ""));
            return cell;
        }
        ms.push_back(r.ms);
    }
    if (track_rss && cell.rss_note.empty()) cell.peak_rss_kb = peak_rss_kb(backend_pid_, cell.rss_note);
    if (!cell.rss_note.empty()) rss_notes_.insert(cell.rss_note);
    std::string rss;
    if (track_rss)
        rss = cell.peak_rss_kb >= 0 ? ", peak RSS " + fmt_ms(cell.peak_rss_kb / 1024.0) + " MB"
                                    : ", peak RSS unknown (" + cell.rss_note + ")";
    cell.kind = CellKind::Number;
    cell.ms = median(ms);
    if (!reference) ++passed_;
    if (cell.no_custom) ++nocustom_;
    std::string runs;
    for (double x : ms) runs += fmt_ms(x) + " ";
    L("runs ms: " + runs + "-> median " + fmt_ms(cell.ms));
    if (track_rss)
        L("peak RSS (VmHWM) of backend " + std::to_string(backend_pid_) + " over the timed runs: " +
          (cell.peak_rss_kb >= 0 ? std::to_string(cell.peak_rss_kb) + " kB" : cell.rss_note));
    logf("%s: %s ms%s%s%s", what.c_str(), fmt_ms(cell.ms).c_str(),
         reference ? " (reference)" : cell.checksum_checked ? ", checksum ok" : ", count ok",
         rss.c_str(), cell.no_custom ? " (plan has no Custom Scan)" : "");

    if (v.mp || o_.explain_stock) {
        QResult e = run("EXPLAIN (ANALYZE, BUFFERS) " + count_sql);
        if (e.ok) {
            std::string p;
            for (auto& r : e.rows) p += r[0] + "\n";
            L("EXPLAIN ANALYZE:\n" + p);
            if (v.mp) log_parallel_run(what, p, cell);
        } else {
            L("EXPLAIN ANALYZE failed: " + e.error);
        }
    }
    return cell;
}

// --stock-reps 0: a stock variant's time is its verifying run's (count + checksum).
Cell Runner::timed_by_verifying_run(const std::string& what, Cell& cell, double verify_ms, bool reference) {
    cell.kind = CellKind::Number;
    cell.ms = verify_ms;
    if (!reference) ++passed_;
    L("runs ms: none (timed by the verifying run) -> " + fmt_ms(cell.ms));
    logf("%s: %s ms (its verifying run%s)", what.c_str(), fmt_ms(cell.ms).c_str(), reference ? ", reference" : "");
    return cell;
}

// The parallelism of a pg_mergepath variant's EXPLAIN ANALYZE: keeps the workers its Gather
// launched (the table's "workers" column) in the cell, and logs them with the node's
// participants and which one combined.
void Runner::log_parallel_run(const std::string& what, const std::string& plan, Cell& cell) {
    if (plan.find("Gather") == std::string::npos) {
        logf("%s: no Gather in the plan (not parallel)", what.c_str());
        return;
    }
    cell.workers = explain_field(plan, "Workers Launched");
    auto shown = [&](const std::string& label) {
        std::string v = explain_field(plan, label);
        return v.empty() ? std::string("-") : v;
    };
    logf("%s: Workers Launched %s (Planned %s), Participants %s, Combined By %s", what.c_str(),
         shown("Workers Launched").c_str(), shown("Workers Planned").c_str(),
         shown("Participants").c_str(), shown("Combined By").c_str());
}

void Runner::run_item(Conn& c, Item& it, RowResult& row) {
    auto skip_rest = [&](const std::string& why) {
        for (const Variant* w : o_.variants)
            if (!row.cells.count(w->id)) {
                Cell s;
                s.note = why;
                row.cells[w->id] = s;
                ++skipped_;
            }
    };
    const std::string base = it.d->tag() + " " + it.q->title + ", ";
    const Variant* refv = it.refv ? it.refv : refv_;
    if (it.ref_done && !it.ref.ok) {  // the reference phase could not get the stock answer
        Cell cell;
        if (it.ref.sqlstate == "57014") {
            cell.kind = CellKind::Timeout;
            cell.note = "statement_timeout (time budget)";
            ++skipped_;
        } else {
            fail(base + refv->title, cell, "stock query failed: " + it.ref.error);
        }
        row.cells[refv->id] = cell;
        skip_rest("no stock reference");
        return;
    }
    // the reference variant first, then the others in the order given
    Cell rc = run_variant(c, it, *refv, true, 0, base + refv->title);
    row.cells[refv->id] = rc;
    if (rc.kind != CellKind::Number) {
        skip_rest("no stock reference");
        return;
    }
    row.rows_out = it.ref.count;
    for (const Variant* v : o_.variants) {
        if (v == refv) continue;
        if (it.stock_bad.count(v->id)) {  // already failed in the reference phase
            Cell f;
            f.kind = CellKind::Fail;
            row.cells[v->id] = f;
            continue;
        }
        auto f = it.stock.find(v->id);
        if (!v->mp && f != it.stock.end() && f->second.error == "cut off") {
            // lost the reference race by more than the cut-off: not the best stock plan
            Cell cut;
            cut.kind = CellKind::Cut;
            cut.ms = o_.stock_cutoff * rc.ms;
            ++cut_;
            row.cells[v->id] = cut;
            logf("%s: > %s ms (lost the reference race by over %.1fx)", (base + v->title).c_str(),
                 fmt_ms(cut.ms).c_str(), o_.stock_cutoff);
            continue;
        }
        if (v->mp && o_.peak_rss) {  // a fresh backend, whose peak RSS is this variant's alone
            Conn fresh(o_.conn);
            backend_pid_ = std::atoi(fresh.must("SELECT pg_backend_pid()").at(0, 0).c_str());
            row.cells[v->id] = run_variant(fresh, it, *v, false, rc.ms, base + v->title);
            continue;
        }
        row.cells[v->id] = run_variant(c, it, *v, false, rc.ms, base + v->title);
    }
}

int Runner::run() {
    // datasets: rows x dists x shapes, in the order given, when a query of --ops runs on
    // them; then the fact x dimension pairs of --fact-dim, when one runs on them
    auto has_scope = [&](Scope sc) {
        return std::any_of(o_.ops.begin(), o_.ops.end(), [&](const QueryDef* q) { return q->scope == sc; });
    };
    std::vector<Dataset> sets;
    for (int64_t r : (has_scope(Scope::Pairs) ? o_.rows : std::vector<int64_t>{}))
        for (auto [dist, nf] : o_.dists)
            for (Shape sh : o_.shapes) {
                Dataset d;
                d.shape = sh;
                d.dist = dist;
                d.rows = r;
                d.null_frac = nf < 0 ? o_.null_frac : nf;
                d.zipf_s = o_.zipf_s;
                d.seed = o_.seed;
                d.text_collation = o_.text_collation;
                d.schema = o_.schema;
                sets.push_back(d);
            }
    if (has_scope(Scope::FactDim))
        for (const auto& fd : o_.fact_dims) {
            Dataset d;
            d.fact_dim = true;
            d.rows = fd.fact;
            d.dim_rows = fd.dim;
            d.match = fd.match < 0 ? o_.fact_dim_match : fd.match;
            d.seed = o_.seed;
            d.schema = o_.schema;
            sets.push_back(d);
        }
    // a dataset all of whose queries --skip leaves out is not generated either
    sets.erase(std::remove_if(sets.begin(), sets.end(),
                              [&](const Dataset& d) {
                                  return std::none_of(o_.ops.begin(), o_.ops.end(), [&](const QueryDef* q) {
                                      return (q->scope == Scope::FactDim) == d.fact_dim && !skipped(d, *q);
                                  });
                              }),
               sets.end());
    if (sets.empty()) usage_error("no dataset to run: the queries of --ops need --fact-dim (or the other way round), or --skip leaves out every one");
    if (o_.print_sql) {
        for (auto& d : sets)
            for (char side : {'a', 'b'})
                for (auto& s : d.create_sql(side)) std::printf("%s;\n", s.c_str());
        return 0;
    }

    Conn c(o_.conn);
    // is pg_mergepath loaded? (placeholders of unloaded modules are not in pg_settings)
    {
        QResult av = c.exec("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_mergepath'");
        if (av.ok && !av.rows.empty()) {
            QResult ce = c.exec("CREATE EXTENSION IF NOT EXISTS pg_mergepath");
            if (!ce.ok) logf("note: CREATE EXTENSION pg_mergepath: %s", ce.error.c_str());
        }
        QResult r = c.exec("SELECT 1 FROM pg_settings WHERE name = 'pg_mergepath.enabled'");
        mp_loaded_ = r.ok && !r.rows.empty();
        if (!mp_loaded_ && av.ok && !av.rows.empty()) {
            // installed but not preloaded: load it into this session (the benchmark
            // connection) only; the report says so
            if (c.exec("LOAD 'pg_mergepath'").ok) {
                r = c.exec("SELECT 1 FROM pg_settings WHERE name = 'pg_mergepath.enabled'");
                mp_loaded_ = r.ok && !r.rows.empty();
                if (mp_loaded_) {
                    mp_how_ = "; pg_mergepath loaded with LOAD (not in shared_preload_libraries)";
                    logf("note: pg_mergepath is not preloaded: loaded with LOAD for this session");
                }
            }
        }
        if (!mp_loaded_) {
            mp_missing_ = "pg_mergepath is not loaded (shared_preload_libraries)";
            logf("note: %s: its variants are n/a", mp_missing_.c_str());
        } else {
            for (const std::string& name : optional_settings()) {
                QResult g = c.exec("SELECT 1 FROM pg_settings WHERE name = '" + name + "'");
                if (g.ok && g.rows.empty()) {
                    absent_settings_.insert(name);
                    mp_how_ += "; " + name + " is not defined by this pg_mergepath build: not set";
                    logf("note: %s is not defined by this pg_mergepath build: its variants run "
                         "without it (a join plan then keeps a native join: marked ‡)",
                         name.c_str());
                }
            }
        }
    }

    GenStats gs;
    if (o_.no_gen) {
        for (auto& d : sets)
            for (char side : {'a', 'b'})
                if (!c.exec("SELECT '" + d.table(side) + "'::regclass").ok)
                    throw std::runtime_error("--no-gen: table " + d.table(side) + " is missing");
        gs.reused = static_cast<int>(sets.size() * 2);
    } else {
        gs = generate(o_.conn, sets, o_.jobs, o_.regen);
        logf("data ready: %d tables generated, %d reused, %.1f s", gs.created, gs.reused, gs.seconds);
    }
    set_table_workers(c, sets);
    if (o_.gen_only) return 0;
    backend_pid_ = std::atoi(c.must("SELECT pg_backend_pid()").at(0, 0).c_str());
    if (o_.peak_rss) {
        std::string problem = backend_proc_problem(backend_pid_);
        if (!problem.empty()) logf("note: --peak-rss: %s: no peak RSS", problem.c_str());
    }
    collect_header(c, sets, gs);
    L("# mp_bench log " + date_ + "\nhost " + host_ + "; GPU " + gpu_ + "; CPU " + cpu_ +
      "\nPostgreSQL " + pgver_ + "; " + settings_ + "\n");

    std::vector<Item> items;
    for (const Dataset& d : sets)
        for (const QueryDef* q : o_.ops) {
            if ((q->scope == Scope::FactDim) != d.fact_dim) continue;
            if (skipped(d, *q)) continue;
            Item it;
            it.d = &d;
            it.q = q;
            it.sql = build_sql(d, *q);
            items.push_back(std::move(it));
        }

    size_t k = 0;
    for (const Dataset& d : sets) {
        double ds_sum_s = 0;
        int ds_n = 0;
        ds_max_s_ = 0;
        if (o_.ref_jobs > 1 && remaining_s() > estimate_s() * 1.1) {
            std::vector<Item*> mine;
            for (size_t j = k; j < items.size() && items[j].d == &d; ++j) mine.push_back(&items[j]);
            reference_phase(mine);
        }
        Cell floor, par_floor;
        floor.note = par_floor.note = "not run";
        if (o_.floor && remaining_s() > 0) run_floors(c, d, floor, par_floor);
        for (; k < items.size() && items[k].d == &d; ++k) {
            Item& it = items[k];
            RowResult row;
            row.size = rows_tag(d.rows) + (d.fact_dim ? " x " + rows_tag(d.dim_rows) : "");
            for (auto& ch : row.size) ch = static_cast<char>(std::toupper(ch));
            row.shape = d.fact_dim ? "int8 +2 payloads" : shape_name(d.shape);
            char mb[64];
            std::snprintf(mb, sizeof mb, "fact x dim (%g%% match)", d.match * 100);
            row.dist = d.fact_dim ? std::string(mb) : std::string(dist_name(d.dist));
            char nb[32];
            std::snprintf(nb, sizeof nb, "%g", d.null_frac);
            row.nulls = nb;
            row.query = it.q->title;
            row.floor = floor;
            row.par_floor = par_floor;
            if (remaining_s() < estimate_s() * 1.1 || remaining_s() <= 0) {
                for (const Variant* v : o_.variants) {
                    Cell s;
                    s.note = "time budget";
                    row.cells[v->id] = s;
                    ++skipped_;
                }
                logf("%s %s: skipped (time budget: %.0f s left, a query takes ~%.0f s)",
                     d.tag().c_str(), it.q->title, remaining_s(), estimate_s());
                rows_.push_back(row);
                continue;
            }
            double t0 = elapsed_s();
            run_item(c, it, row);
            double took = elapsed_s() - t0;
            ds_max_s_ = std::max(ds_max_s_, took);
            ds_sum_s += took;
            ++ds_n;
            rows_.push_back(row);
        }
        if (ds_n > 0) {
            double avg = ds_sum_s / ds_n;
            min_avg_s_ = min_avg_s_ > 0 ? std::min(min_avg_s_, avg) : avg;
        }
    }

    std::string md = report();
    std::fputs(md.c_str(), stdout);
    if (!o_.out.empty()) {
        std::ofstream f(o_.out);
        f << md;
        if (!f) throw std::runtime_error("cannot write " + o_.out);
    }
    std::printf("RESULT passed=%d failed=%d na=%d skipped=%d nocustom=%d\n", passed_, failed_, na_,
                skipped_, nocustom_);
    if (failed_)
        std::fprintf(stderr, "mp_bench: %d FAILURE(S): see the report and the log\n", failed_);
    return failed_ ? 1 : 0;
}

std::string Runner::report() {
    std::ostringstream o;
    o << "# pg_mergepath SQL benchmark\n\n";
    o << "- date: " << date_ << "; host: " << host_ << "\n";
    o << "- GPU: " << gpu_ << "\n";
    o << "- CPU: " << cpu_ << "\n";
    o << "- PostgreSQL " << pgver_ << ": " << settings_ << mp_how_
      << "; every variant runs with jit=off\n";
    o << "- data: " << gen_line_ << "; zipf s=" << o_.zipf_s << ", seed " << o_.seed
      << "; UNLOGGED tables, VACUUM ANALYZE; the tables' parallel_workers: " << table_workers_
      << "\n";
    o << "- runs: ";
    if (!ref_line_.empty()) o << ref_line_ << "; ";
    o << "each variant: one verifying warm-up (count + sum(hash_record_extended(row, 0))), then "
         "the median of "
      << o_.reps << " timed `SELECT count(*) FROM (query)`"
      << (o_.variant_budget_s > 0 ? " (fewer when they would take over " +
                                        fmt_ms(o_.variant_budget_s) + " s)"
                                  : "")
      << " (stock variants: "
      << (o_.stock_reps > 0 ? std::to_string(o_.stock_reps) : "timed by their verifying run alone")
      << (o_.quick_stock ? "; stock variants after the first checked by row count only" : "")
      << "), every count checked\n";
    o << "- variants:";
    for (const Variant* v : o_.variants) o << " **" << v->title << "** (" << join(variant_sets(*v), ", ") << ");";
    o << " **floor**: one process, `SELECT count(cols) FROM (a UNION ALL b)`; **par floor**: the "
         "same with max_parallel_workers_per_gather = "
      << o_.par_workers << " (Parallel Append of two Parallel Seq Scans)";
    if (!o_.sets.empty()) o << "; all variants: " << join(o_.sets, ", ");
    o << "\n";
    if (!o_.skip.empty()) {
        std::vector<std::string> pats;
        for (const auto& p : o_.skip) pats.push_back(join(p, "/"));
        o << "- not run (--skip, shape/dist/query): " << join(pats, ", ") << "\n";
    }
    o << "\n";

    o << report_header();
    for (const RowResult& r : rows_) o << report_row(r);
    o << "\n";
    if (nocustom_) o << "‡ the plan did not use the pg_mergepath Custom Scan (a stock plan was timed)  \n";
    bool serial = false;
    for (const RowResult& r : rows_) serial |= r.par_floor.serial;
    if (serial) o << "† the parallel read floor's plan had no Gather: it ran in one process  \n";
    if (cut_)
        o << "`> ms`: slower than " << o_.stock_cutoff
          << "x the fastest stock plan, so not the best one (stopped there, in its own run or "
             "in the concurrent race of the reference phase)  \n";
    if (!mp_variants().empty() && !runs("tuned"))
        o << "stock tuned did not run (--variants): the ratios are against stock alone, PostgreSQL's "
             "plan with its default max_parallel_workers_per_gather, which may not be the best stock plan  \n";
    if (!mp_variants().empty())
        o << "workers: Workers Launched of the Gather in the variant's EXPLAIN ANALYZE (run once "
             "after its timed runs); `-`: no Gather in its plan (or it did not run)  \n";
    if (o_.peak_rss)
        o << "peak RSS MB: VmHWM of the leader backend (a fresh connection per variant) over the "
             "variant's timed runs (reset before them through /proc/<pid>/clear_refs); parallel "
             "workers are not counted, shared memory pages the backend touched are  \n";
    for (const std::string& n : rss_notes_) o << "peak RSS `-`: " << n << "  \n";
    for (size_t i = 0; i < notes_.size(); ++i) o << "[" << i + 1 << "] " << notes_[i] << "  \n";
    o << "\nVerified variants: " << passed_ << " passed, " << failed_ << " failed, " << na_
      << " n/a, " << skipped_ << " skipped" << (cut_ ? ", " + std::to_string(cut_) + " cut off" : "")
      << ".\n";
    if (!failures_.empty()) {
        o << "\n## FAILURES\n\n";
        for (auto& f : failures_) o << "- " << f << "\n";
    }
    return o.str();
}

std::vector<const Variant*> Runner::mp_variants() const {
    std::vector<const Variant*> mpv;
    for (const Variant* v : o_.variants)
        if (v->mp) mpv.push_back(v);
    return mpv;
}

bool Runner::runs(const std::string& id) const {
    for (const Variant* v : o_.variants)
        if (id == v->id) return true;
    return false;
}

// The table's column names and alignment: the dataset and query, the floors, ms per
// variant, then the ratios, workers and (--peak-rss) peak RSS of the pg_mergepath variants.
std::string Runner::report_header() {
    std::vector<std::string> names = {"rows/side", "shape", "dist", "nulls", "query",
                                      "rows out", "floor ms", "par floor ms"};
    for (const Variant* v : o_.variants) names.push_back(std::string(v->title) + " ms");
    // the best stock plan is the faster of stock and stock tuned: without the tuned run the
    // ratio is against PostgreSQL's default plan alone, and the column says so
    const std::string against = runs("tuned") ? " vs best stock" : " vs stock (tuned not run)";
    for (const Variant* v : mp_variants()) names.push_back(std::string(v->id) + against);
    if (runs("gpu") && runs("cpu")) names.push_back("gpu vs cpu");
    if (runs("gpu")) {
        names.push_back("gpu / floor");
        names.push_back("gpu / par floor");
    }
    for (const Variant* v : mp_variants()) names.push_back(std::string(v->id) + " workers");
    if (o_.peak_rss)
        for (const Variant* v : mp_variants()) names.push_back(std::string(v->id) + " peak RSS MB");
    std::string head = "|", align = "|";
    for (size_t i = 0; i < names.size(); ++i) {
        head += " " + names[i] + " |";
        align += i >= 1 && i <= 4 ? "---|" : "---:|";  // text columns left, numbers right
    }
    return head + "\n" + align + "\n";
}

std::string Runner::cell_text(const Cell& c) {
    switch (c.kind) {
        case CellKind::Number:
            return fmt_ms(c.ms) + (c.no_custom ? " ‡" : "") + (c.serial ? " †" : "");
        case CellKind::Fail: return "**FAIL**";
        case CellKind::NA: return "n/a[" + std::to_string(note(c.note)) + "]";
        case CellKind::Timeout: return "timeout";
        case CellKind::Cut: return "> " + fmt_ms(c.ms);
        case CellKind::Skip:
            return c.note.empty() ? "skip" : "skip[" + std::to_string(note(c.note)) + "]";
    }
    return "?";
}

// a / b of two measured times (0: one is missing)
double ratio(const Cell* a, const Cell* b) { return a && b && b->ms > 0 ? a->ms / b->ms : 0; }

// A ratio, with "(target Nx)" when it misses the target: below it (at_least) or above it.
std::string ratio_text(double x, double target, bool at_least) {
    if (x <= 0) return "-";
    char t[32];
    std::snprintf(t, sizeof t, " (target %gx)", target);
    return fmt_x(x) + ((at_least ? x < target : x > target) ? t : "");
}

std::string Runner::report_row(const RowResult& r) {
    auto measured = [&](const std::string& id) -> const Cell* {
        auto it = r.cells.find(id);
        return it != r.cells.end() && it->second.kind == CellKind::Number ? &it->second : nullptr;
    };
    auto floor_of = [](const Cell& c) { return c.kind == CellKind::Number ? &c : nullptr; };
    std::ostringstream o;
    o << "| " << r.size << " | " << r.shape << " | " << r.dist << " | " << r.nulls << " | "
      << r.query << " | " << (r.rows_out.empty() ? "-" : r.rows_out) << " | "
      << cell_text(r.floor) << " | " << cell_text(r.par_floor) << " |";
    const Cell* stock = nullptr;  // the best stock time
    for (const Variant* v : o_.variants) {
        auto it = r.cells.find(v->id);
        Cell c = it == r.cells.end() ? Cell{} : it->second;
        o << " " << cell_text(c) << " |";
        const Cell* m = measured(v->id);
        if (!v->mp && m && (!stock || m->ms < stock->ms)) stock = m;
    }
    for (const Variant* v : mp_variants()) {
        double x = ratio(stock, measured(v->id));
        if (std::string(v->id) == "gpu") o << " " << ratio_text(x, 15, true) << " |";
        else if (x <= 0) o << " - |";
        else o << " " << fmt_x(x) << (x < 1 ? " (slower)" : "") << " |";
    }
    const Cell* gpu = measured("gpu");
    if (runs("gpu") && runs("cpu")) o << " " << ratio_text(ratio(measured("cpu"), gpu), 2, true) << " |";
    if (runs("gpu")) {
        o << " " << ratio_text(ratio(gpu, floor_of(r.floor)), 1.3, false) << " |";
        o << " " << ratio_text(ratio(gpu, floor_of(r.par_floor)), 2, false) << " |";
    }
    for (const Variant* v : mp_variants()) {
        const Cell* m = measured(v->id);
        o << " " << (m && !m->workers.empty() ? m->workers : "-") << " |";
    }
    if (o_.peak_rss)
        for (const Variant* v : mp_variants()) {
            const Cell* m = measured(v->id);
            o << " " << (m && m->peak_rss_kb >= 0 ? fmt_ms(m->peak_rss_kb / 1024.0) : "-") << " |";
        }
    o << "\n";
    return o.str();
}

}  // namespace

int main(int argc, char** argv) {
    log_start();
    Options o = parse_args(argc, argv);
    try {
        Runner r(o);
        return r.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mp_bench: %s\n", e.what());
        std::printf("RESULT passed=0 failed=1 na=0 skipped=0 nocustom=0\n");
        return 2;
    }
}
