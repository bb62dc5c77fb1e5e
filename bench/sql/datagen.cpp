// datagen.cpp — SQL text of the data generator (see datagen.hpp) and its parallel
// driver. Every key is a function of (row number i, seed): hashint8extended(i, seed)
// gives a uniform 63-bit value, from which the key index v in [0, K) is drawn, K = rows/2:
//   uniform   v = h mod K                          (~2 copies per key per side, Poisson)
//   zipf      v = floor(x) - 1, x = inverse CDF of a power law on [1, K] (s = 1: K^u)
//   disjoint  v = 2 (h mod K) + side              (a even, b odd: no common key)
//   identical b is a copy of a (same seeds)
// and v is mapped to the key shape:
//   int4 (v-K)::int4   int8 (v-K)*4294967311   pair ((v>>2)-(K>>2))*4294967311, (v&3)-1
//   text (v mod 33) pseudo-random hex digits (from a hash of v) || 8 hex digits of v
//        (8..40 characters, unique per v; md5 would be 2x slower to generate)
//   numeric round((v-K)/100, 2 or 3)  (scales mixed per row: 1.50 and 1.500 are equal)
//   decimal round((v-K)/100, 2) as numeric(14,2) in a, numeric(15,3) in b (declared
//        precisions and scales, as a schema's amounts and ids: 1.50 in a meets 1.500 in b)
//   names  (lname text, fname text, d date): lname = 4..16 pseudo-random hex digits (from a
//        hash of v) || hex of v >> 12, fname = 3..11 digits of another hash of v,
//        d = 2000-01-01 + (v & 4095) days
//   charnames  the same as (lname char(30), fname char(20), d date): the decision-support
//        shape, whose equality ignores trailing blanks
// A column is NULL when another hash of i falls below null_frac; with null_frac 0 every
// column is declared NOT NULL.
// Fact x dimension (fact_dim), both sides (k int8, p1 int8, p2 int4), no NULLs:
//   dimension row i (1..D): v = i - 1, k = hashint8extended(v, seed') (unique: a 64-bit
//        hash of 1M values collides with probability ~3e-8; the rows are in no key
//        order), p1 = a hash of v mod 1e9, p2 = another mod 1e6
//   fact row i: v = h mod D (uniform over the dimension's rows) for a fraction `match`
//        of the rows (drawn by another hash of i), else D + h mod D (a key the dimension
//        lacks); k = hashint8extended(v, seed') as above; p1, p2 hashes of i
// Both are created empty and filled by INSERT ... SELECT parts of 2M rows, which the
// driver runs concurrently (a 100M-row fact table in one CREATE TABLE AS would take one
// core minutes).
#include "datagen.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "log.hpp"
#include "pg.hpp"

namespace mpbench {

const char* shape_name(Shape s) {
    switch (s) {
        case Shape::Int4: return "int4";
        case Shape::Int8: return "int8";
        case Shape::Pair: return "pair";
        case Shape::Text: return "text";
        case Shape::Numeric: return "numeric";
        case Shape::Decimal: return "decimal";
        case Shape::Names: return "names";
        case Shape::CharNames: return "charnames";
    }
    return "?";
}

const char* dist_name(Dist d) {
    switch (d) {
        case Dist::Uniform: return "uniform";
        case Dist::Zipf: return "zipf";
        case Dist::Disjoint: return "disjoint";
        case Dist::Identical: return "identical";
    }
    return "?";
}

bool parse_shape(const std::string& s, Shape& out) {
    for (Shape c : {Shape::Int4, Shape::Int8, Shape::Pair, Shape::Text, Shape::Numeric, Shape::Decimal,
                    Shape::Names, Shape::CharNames})
        if (s == shape_name(c)) return out = c, true;
    if (s == "int8_int4" || s == "two") return out = Shape::Pair, true;
    return false;
}

bool parse_dist(const std::string& s, Dist& out) {
    for (Dist c : {Dist::Uniform, Dist::Zipf, Dist::Disjoint, Dist::Identical})
        if (s == dist_name(c)) return out = c, true;
    return false;
}

std::string rows_tag(int64_t r) {
    if (r >= 1000000 && r % 1000000 == 0) return std::to_string(r / 1000000) + "m";
    if (r >= 1000 && r % 1000 == 0) return std::to_string(r / 1000) + "k";
    return std::to_string(r);
}

static std::string fmt_double(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", x);
    return buf;
}

static int64_t permille(double f) { return static_cast<int64_t>(std::llround(f * 1000)); }

std::string Dataset::tag() const {
    if (fact_dim)
        return "factdim_" + rows_tag(rows) + "_" + rows_tag(dim_rows) + "_m" + std::to_string(permille(match));
    std::string t = std::string(shape_name(shape)) + "_" + dist_name(dist) + "_" + rows_tag(rows) +
                    "_n" + std::to_string(static_cast<long long>(std::llround(null_frac * 1000)));
    return t;
}

std::string Dataset::table(char side) const { return schema + "." + tag() + "_" + side; }

int64_t Dataset::side_rows(char side) const { return fact_dim && side == 'b' ? dim_rows : rows; }

std::vector<std::string> Dataset::columns() const {
    if (fact_dim) return {"k"};
    if (shape == Shape::Pair) return {"k1", "k2"};
    if (shape == Shape::Names || shape == Shape::CharNames) return {"lname", "fname", "d"};
    return {"k"};
}

std::vector<std::string> Dataset::all_columns() const {
    if (fact_dim) return {"k", "p1", "p2"};
    return columns();
}

std::string Dataset::comment() const {
    std::ostringstream o;
    if (fact_dim) {
        o << "mp_bench v1 fact-dim rows=" << rows << " dim=" << dim_rows << " match=" << fmt_double(match)
          << " seed=" << seed;
        return o.str();
    }
    o << "mp_bench v1 shape=" << shape_name(shape) << " dist=" << dist_name(dist) << " rows=" << rows
      << " null=" << fmt_double(null_frac) << " seed=" << seed;
    if (dist == Dist::Zipf) o << " s=" << fmt_double(zipf_s);
    if (shape == Shape::Text || shape == Shape::Names) o << " collation=" << text_collation;
    return o.str();
}

// the comment: the parameters and a hash of the SQL, so that a changed generator does
// not reuse stale tables
static std::string comment_sql(const Dataset& d, char side, const std::string& sql) {
    uint64_t fnv = 1469598103934665603ull;
    for (unsigned char ch : sql) fnv = (fnv ^ ch) * 1099511628211ull;
    char hex[32];
    std::snprintf(hex, sizeof hex, " sql=%016llx", static_cast<unsigned long long>(fnv));
    return "COMMENT ON TABLE " + d.table(side) + " IS '" + d.comment() + hex + "'";
}

static const int64_t kPartRows = 2000000;  // rows per fill part of a fact x dimension table

static Dataset::TableSql fact_dim_sql(const Dataset& d, char side) {
    const std::string t = d.table(side);
    const int64_t S = d.seed * 1000;
    const std::string D = std::to_string(std::max<int64_t>(1, d.dim_rows)) + "::int8";
    auto hs = [&](const std::string& x, int64_t s) {
        return "hashint8extended(" + x + ", " + std::to_string(S + s) + ")";
    };
    auto h = [&](int64_t s) { return "(" + hs("i", s) + " & 9223372036854775807)"; };
    auto frac = [&](int64_t s) {
        return "((" + hs("i", s) + " & 4503599627370495)::float8 / 4503599627370496.0)";
    };
    std::string v, p1, p2;
    if (side == 'b') {  // dimension
        v = "i - 1";
        p1 = hs("v", 55) + " % 1000000000";
        p2 = "(" + hs("v", 56) + " % 1000000)::int4";
    } else {  // fact
        v = "CASE WHEN " + frac(51) + " < " + fmt_double(d.match) + " THEN " + h(52) + " % " + D + " ELSE " + D +
            " + " + h(52) + " % " + D + " END";
        p1 = hs("i", 53) + " % 1000000000";
        p2 = "(" + hs("i", 54) + " % 1000000)::int4";
    }
    Dataset::TableSql ts;
    ts.create = {"DROP TABLE IF EXISTS " + t,
                 "CREATE UNLOGGED TABLE " + t +
                     " (k int8, p1 int8, p2 int4) WITH (autovacuum_enabled = false)"};
    const int64_t n = d.side_rows(side);
    for (int64_t lo = 1; lo <= n; lo += kPartRows) {
        const int64_t hi = std::min(n, lo + kPartRows - 1);
        ts.fill.push_back("INSERT INTO " + t + " SELECT " + hs("v", 50) + ", " + p1 + ", " + p2 +
                          " FROM (SELECT i, " + v + " AS v FROM generate_series(" + std::to_string(lo) +
                          "::int8, " + std::to_string(hi) + "::int8) AS g(i) OFFSET 0) q");
    }
    std::string all;
    for (auto& x : ts.create) all += x + ";";
    for (auto& x : ts.fill) all += x + ";";
    ts.comment = comment_sql(d, side, all);
    return ts;
}

std::vector<std::string> Dataset::create_sql(char side) const {
    TableSql ts = table_sql(side);
    std::vector<std::string> out = ts.create;
    out.insert(out.end(), ts.fill.begin(), ts.fill.end());
    out.push_back(ts.comment);
    return out;
}

Dataset::TableSql Dataset::table_sql(char side) const {
    if (fact_dim) return fact_dim_sql(*this, side);
    const int sidx = (dist == Dist::Identical || side == 'a') ? 0 : 1;
    const int64_t K = std::max<int64_t>(1, rows / 2);
    const std::string Ks = std::to_string(K) + "::int8";
    auto h = [&](int64_t s) {
        return "(hashint8extended(i, " + std::to_string(s) + ") & 9223372036854775807)";
    };
    auto frac = [&](int64_t s) {
        return "((hashint8extended(i, " + std::to_string(s) +
               ") & 4503599627370495)::float8 / 4503599627370496.0)";
    };
    const int64_t key_seed = seed * 1000 + sidx;

    std::string v;
    switch (dist) {
        case Dist::Uniform:
        case Dist::Identical: v = h(key_seed) + " % " + Ks; break;
        case Dist::Disjoint:
            v = "2 * (" + h(key_seed) + " % " + Ks + ") + " + std::to_string(side == 'a' ? 0 : 1);
            break;
        case Dist::Zipf: {
            std::string x;
            if (std::fabs(zipf_s - 1.0) < 1e-9) {
                x = "exp(" + frac(key_seed) + " * ln(" + std::to_string(K) + "::float8))";
            } else {
                std::string e = fmt_double(1.0 - zipf_s);
                x = "power((power(" + std::to_string(K) + "::float8, " + e + ") - 1) * " +
                    frac(key_seed) + " + 1, 1.0 / " + e + ")";
            }
            v = "least(" + Ks + " - 1, greatest(0::int8, floor(" + x + ")::int8 - 1))";
            break;
        }
    }

    struct Col {
        std::string name, type, expr;
        int64_t null_seed;
    };
    std::vector<Col> cols;
    const std::string coll = text_collation.empty() ? "" : " COLLATE \"" + text_collation + "\"";
    switch (shape) {
        case Shape::Int4: cols.push_back({"k", "int4", "(v - " + Ks + ")::int4", 10}); break;
        case Shape::Int8: cols.push_back({"k", "int8", "(v - " + Ks + ") * 4294967311", 10}); break;
        case Shape::Pair:
            cols.push_back({"k1", "int8", "((v >> 2) - (" + Ks + " >> 2)) * 4294967311", 10});
            cols.push_back({"k2", "int4", "((v & 3) - 1)::int4", 20});
            break;
        case Shape::Text:
            cols.push_back({"k", "text" + coll,
                            "substr(repeat(to_hex(hashint8extended(v, 7) | (1::int8 << 62)), 3), 2, (v % 33)::int)"
                            " || right(to_hex(v | (1::int8 << 32)), 8)", 10});
            break;
        case Shape::Names:
        case Shape::CharNames: {
            const bool chars = shape == Shape::CharNames;
            cols.push_back({"lname", chars ? "char(30)" : "text" + coll,
                            "substr(repeat(to_hex(hashint8extended(v, 11) | (1::int8 << 62)), 2), 2, 4 + (v % 13)::int)"
                            " || to_hex(v >> 12)", 10});
            cols.push_back({"fname", chars ? "char(20)" : "text" + coll,
                            "substr(to_hex(hashint8extended(v, 13) | (1::int8 << 62)), 2, 3 + (v % 9)::int)", 20});
            cols.push_back({"d", "date", "date '2000-01-01' + (v & 4095)::int", 30});
            break;
        }
        case Shape::Decimal:
            cols.push_back({"k", sidx == 0 ? "numeric(14,2)" : "numeric(15,3)",
                            "round((v - " + Ks + ")::numeric / 100, 2)", 10});
            break;
        case Shape::Numeric:
            cols.push_back({"k", "numeric",
                            "round((v - " + Ks + ")::numeric / 100, 2 + (hashint8extended(i, " +
                                std::to_string(seed * 1000 + 30 + sidx) + ") & 1)::int)",
                            10});
            break;
    }

    // CREATE TABLE AS (bulk insert path: ~40% faster than INSERT ... SELECT)
    const std::string t = table(side);
    std::string sel;
    for (size_t c = 0; c < cols.size(); ++c) {
        std::string e = cols[c].expr;
        if (null_frac > 0)
            e = "CASE WHEN " + frac(seed * 1000 + cols[c].null_seed + sidx) + " < " +
                fmt_double(null_frac) + " THEN NULL ELSE " + e + " END";
        sel += (c ? ", " : "") + ("(" + e + ")::" + cols[c].type + " AS " + cols[c].name);
    }
    std::string ctas = "CREATE UNLOGGED TABLE " + t + " WITH (autovacuum_enabled = false) AS SELECT " +
                       sel + " FROM (SELECT i, " + v + " AS v FROM generate_series(1::int8, " +
                       std::to_string(rows) + "::int8) AS g(i) OFFSET 0) q";
    TableSql ts;
    ts.create = {"DROP TABLE IF EXISTS " + t, ctas};
    // a table without NULLs says so, as a schema would: ordered output of several
    // columns needs the later ones proven never NULL
    if (null_frac <= 0)
        for (const auto& c : cols) ts.create.push_back("ALTER TABLE " + t + " ALTER " + c.name + " SET NOT NULL");
    ts.comment = comment_sql(*this, side, ctas);
    return ts;
}

// Runs tasks[0..n) over `jobs` connections, each task on one of them; the first error
// stops the rest and is thrown.
static void run_parallel(const std::string& conninfo, int jobs,
                         const std::vector<std::function<void(Conn&)>>& tasks) {
    if (tasks.empty()) return;
    jobs = std::max(1, std::min<int>(jobs, static_cast<int>(tasks.size())));
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::string first_error;
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j)
        threads.emplace_back([&] {
            try {
                Conn c(conninfo);
                c.must("SET synchronous_commit = off");
                for (size_t k; (k = next++) < tasks.size();) {
                    {
                        std::lock_guard<std::mutex> g(mu);
                        if (!first_error.empty()) return;
                    }
                    tasks[k](c);
                }
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> g(mu);
                if (first_error.empty()) first_error = e.what();
            }
        });
    for (auto& t : threads) t.join();
    if (!first_error.empty()) throw std::runtime_error("data generation failed: " + first_error);
}

static double since(std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

GenStats generate(const std::string& conninfo, const std::vector<Dataset>& sets, int jobs,
                  bool regen) {
    GenStats st;
    auto t0 = std::chrono::steady_clock::now();
    {
        Conn c(conninfo);
        for (const auto& d : sets) c.must("CREATE SCHEMA IF NOT EXISTS " + d.schema);
    }
    struct Job {
        const Dataset* d;
        char side;
        Dataset::TableSql sql;
    };
    std::vector<Job> todo;
    {
        Conn c(conninfo);
        for (const auto& d : sets)
            for (char side : {'a', 'b'}) {
                Dataset::TableSql ts = d.table_sql(side);
                bool reuse = false;
                if (!regen) {
                    QResult r = c.exec("SELECT obj_description('" + d.table(side) +
                                       "'::regclass, 'pg_class')");
                    reuse = r.ok && !r.rows.empty() &&
                            ts.comment == "COMMENT ON TABLE " + d.table(side) + " IS '" + r.at(0, 0) + "'";
                    // UNLOGGED tables come back empty after a crash restart (a device
                    // call's end kills the server): never reuse an empty table.
                    if (reuse) {
                        QResult e = c.exec("SELECT EXISTS (SELECT 1 FROM " + d.table(side) + ")");
                        reuse = e.ok && !e.rows.empty() && e.at(0, 0) == "t";
                    }
                }
                if (reuse) {
                    ++st.reused;
                } else {
                    todo.push_back({&d, side, std::move(ts)});
                }
            }
    }
    if (!todo.empty()) {
        size_t parts = 0;
        for (const Job& jb : todo) parts += jb.sql.fill.size();
        jobs = std::max(1, jobs);
        logf("generating %zu tables with %d connections%s", todo.size(), jobs,
             parts ? (" (" + std::to_string(parts) + " fill parts of fact x dimension tables)").c_str() : "");
        auto finish = [](Conn& c, const Job& jb, std::chrono::steady_clock::time_point a, const char* how) {
            c.must(jb.sql.comment);
            c.must("VACUUM (ANALYZE) " + jb.d->table(jb.side));
            logf("  %-32s %lld rows in %.1f s%s", jb.d->table(jb.side).c_str(),
                 static_cast<long long>(jb.d->side_rows(jb.side)), since(a), how);
        };
        // tables made in parts: created empty first (one connection), then their parts
        // run concurrently with the whole tables (parts first: they are the bulk), then
        // each is commented and vacuumed
        std::vector<const Job*> parted;
        auto fill_start = std::chrono::steady_clock::now();
        {
            Conn c(conninfo);
            for (const Job& jb : todo)
                if (!jb.sql.fill.empty()) {
                    for (const auto& q : jb.sql.create) c.must(q);
                    parted.push_back(&jb);
                }
        }
        std::vector<std::function<void(Conn&)>> tasks;
        for (const Job* jb : parted)
            for (const std::string& q : jb->sql.fill) tasks.push_back([&q](Conn& c) { c.must(q); });
        for (const Job& jb : todo)
            if (jb.sql.fill.empty())
                tasks.push_back([&jb, &finish](Conn& c) {
                    auto a = std::chrono::steady_clock::now();
                    for (const auto& q : jb.sql.create) c.must(q);
                    finish(c, jb, a, "");
                });
        run_parallel(conninfo, jobs, tasks);
        if (!parted.empty()) {
            logf("  fill parts done in %.1f s; VACUUM ANALYZE of the tables made in parts", since(fill_start));
            tasks.clear();
            for (const Job* jb : parted)
                tasks.push_back([jb, &finish](Conn& c) {
                    auto a = std::chrono::steady_clock::now();
                    finish(c, *jb, a, (" (comment + VACUUM ANALYZE, after " +
                                       std::to_string(jb->sql.fill.size()) + " parts)").c_str());
                });
            run_parallel(conninfo, jobs, tasks);
        }
        st.created = static_cast<int>(todo.size());
    }
    st.seconds = since(t0);
    return st;
}

}  // namespace mpbench
