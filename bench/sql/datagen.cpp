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
// A column is NULL when another hash of i falls below null_frac.
#include "datagen.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
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
    for (Shape c : {Shape::Int4, Shape::Int8, Shape::Pair, Shape::Text, Shape::Numeric})
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

std::string Dataset::tag() const {
    std::string t = std::string(shape_name(shape)) + "_" + dist_name(dist) + "_" + rows_tag(rows) +
                    "_n" + std::to_string(static_cast<long long>(std::llround(null_frac * 1000)));
    return t;
}

std::string Dataset::table(char side) const { return schema + "." + tag() + "_" + side; }

std::vector<std::string> Dataset::columns() const {
    if (shape == Shape::Pair) return {"k1", "k2"};
    return {"k"};
}

std::string Dataset::comment() const {
    std::ostringstream o;
    o << "mp_bench v1 shape=" << shape_name(shape) << " dist=" << dist_name(dist) << " rows=" << rows
      << " null=" << fmt_double(null_frac) << " seed=" << seed;
    if (dist == Dist::Zipf) o << " s=" << fmt_double(zipf_s);
    if (shape == Shape::Text) o << " collation=" << text_collation;
    return o.str();
}

std::vector<std::string> Dataset::create_sql(char side) const {
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
    // the comment records the parameters and a hash of the SQL, so that a changed generator
    // does not reuse stale tables
    uint64_t fnv = 1469598103934665603ull;
    for (unsigned char ch : ctas) fnv = (fnv ^ ch) * 1099511628211ull;
    char hex[32];
    std::snprintf(hex, sizeof hex, " sql=%016llx", static_cast<unsigned long long>(fnv));
    return {"DROP TABLE IF EXISTS " + t, ctas,
            "COMMENT ON TABLE " + t + " IS '" + comment() + hex + "'"};
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
    };
    std::vector<Job> todo;
    {
        Conn c(conninfo);
        for (const auto& d : sets)
            for (char side : {'a', 'b'}) {
                bool reuse = false;
                if (!regen) {
                    QResult r = c.exec("SELECT obj_description('" + d.table(side) +
                                       "'::regclass, 'pg_class')");
                    const std::string want = d.create_sql(side).back();
                    reuse = r.ok && !r.rows.empty() &&
                            want == "COMMENT ON TABLE " + d.table(side) + " IS '" + r.at(0, 0) + "'";
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
                    todo.push_back({&d, side});
                }
            }
    }
    if (!todo.empty()) {
        jobs = std::max(1, std::min<int>(jobs, static_cast<int>(todo.size())));
        logf("generating %zu tables with %d connections", todo.size(), jobs);
        std::atomic<size_t> next{0};
        std::mutex mu;
        std::string first_error;
        std::vector<std::thread> threads;
        for (int j = 0; j < jobs; ++j)
            threads.emplace_back([&] {
                try {
                    Conn c(conninfo);
                    c.must("SET synchronous_commit = off");
                    for (size_t k; (k = next++) < todo.size();) {
                        const Job& jb = todo[k];
                        {
                            std::lock_guard<std::mutex> g(mu);
                            if (!first_error.empty()) return;
                        }
                        auto a = std::chrono::steady_clock::now();
                        for (const auto& s : jb.d->create_sql(jb.side)) c.must(s);
                        c.must("VACUUM (ANALYZE) " + jb.d->table(jb.side));
                        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a)
                                       .count();
                        logf("  %-32s %lld rows in %.1f s", jb.d->table(jb.side).c_str(),
                             static_cast<long long>(jb.d->rows), s);
                    }
                } catch (const std::exception& e) {
                    std::lock_guard<std::mutex> g(mu);
                    if (first_error.empty()) first_error = e.what();
                }
            });
        for (auto& t : threads) t.join();
        if (!first_error.empty()) throw std::runtime_error("data generation failed: " + first_error);
        st.created = static_cast<int>(todo.size());
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return st;
}

}  // namespace mpbench
