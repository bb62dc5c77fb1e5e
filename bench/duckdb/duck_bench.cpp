// duck_bench.cpp — times queries in DuckDB, the reference the SQL benchmark compares
// against, on the same host and data: loads tables from CSV files (the benchmark's
// PostgreSQL tables, copied out), then runs each query `reps` times as
// SELECT count(*) FROM (query) s, as mp_bench times PostgreSQL, and prints one line per
// query: its row count (checked by the caller against PostgreSQL's) and the times.
//
//   duck_bench LIBDUCKDB.so --threads N --reps R
//              --table NAME=FILE.csv:COLUMN_DEFS ...   e.g. a=/tmp/a.csv:"k BIGINT"
//              --query ID=SQL ...
//   output:    DUCKDB ID rows=N best_ms=M runs_ms=M1,M2,...
//
// libduckdb.so comes from npm's @duckdb/node-bindings-linux-x64 (the only DuckDB build a
// package registry here serves); it is loaded with dlopen and driven through the few
// functions of DuckDB's stable C API declared below (duckdb.h, which that package does
// not ship).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// DuckDB's C API: opaque handles, and duckdb_result (48 bytes in 1.x; room for more).
typedef void* duckdb_database;
typedef void* duckdb_connection;
struct duckdb_result {
    unsigned char opaque[256];
};
typedef int duckdb_state;  // 0: DuckDBSuccess

struct Api {
    duckdb_state (*open)(const char*, duckdb_database*);
    duckdb_state (*connect)(duckdb_database, duckdb_connection*);
    duckdb_state (*query)(duckdb_connection, const char*, duckdb_result*);
    const char* (*result_error)(duckdb_result*);
    int64_t (*value_int64)(duckdb_result*, uint64_t, uint64_t);
    void (*destroy_result)(duckdb_result*);
    void (*disconnect)(duckdb_connection*);
    void (*close)(duckdb_database*);
};

template <class F>
void bind(void* lib, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f) {
        std::fprintf(stderr, "duck_bench: %s not found in libduckdb\n", name);
        std::exit(2);
    }
}

struct Duck {
    Api api;
    duckdb_database db = nullptr;
    duckdb_connection con = nullptr;

    // Runs sql; returns the first column of the first row (int64), or exits on an error.
    int64_t run(const std::string& sql) {
        duckdb_result r;
        std::memset(&r, 0, sizeof r);
        if (api.query(con, sql.c_str(), &r) != 0) {
            std::fprintf(stderr, "duck_bench: %s\n  in: %s\n", api.result_error(&r), sql.c_str());
            std::exit(1);
        }
        int64_t v = api.value_int64(&r, 0, 0);
        api.destroy_result(&r);
        return v;
    }
};

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: duck_bench LIBDUCKDB.so --threads N --reps R --table NAME=FILE:COLS ... --query ID=SQL ...\n");
        return 2;
    }
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::fprintf(stderr, "duck_bench: %s\n", dlerror());
        return 2;
    }
    Duck d;
    bind(lib, "duckdb_open", d.api.open);
    bind(lib, "duckdb_connect", d.api.connect);
    bind(lib, "duckdb_query", d.api.query);
    bind(lib, "duckdb_result_error", d.api.result_error);
    bind(lib, "duckdb_value_int64", d.api.value_int64);
    bind(lib, "duckdb_destroy_result", d.api.destroy_result);
    bind(lib, "duckdb_disconnect", d.api.disconnect);
    bind(lib, "duckdb_close", d.api.close);
    if (d.api.open(nullptr, &d.db) != 0 || d.api.connect(d.db, &d.con) != 0) {
        std::fprintf(stderr, "duck_bench: cannot open an in-memory database\n");
        return 2;
    }
    int threads = 16, reps = 3;
    std::vector<std::pair<std::string, std::string>> tables, queries;  // name -> spec, id -> sql
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string opt = argv[i], val = argv[i + 1];
        size_t eq = val.find('=');
        if (opt == "--threads")
            threads = std::atoi(val.c_str());
        else if (opt == "--reps")
            reps = std::max(1, std::atoi(val.c_str()));
        else if ((opt == "--table" || opt == "--query") && eq != std::string::npos)
            (opt == "--table" ? tables : queries).emplace_back(val.substr(0, eq), val.substr(eq + 1));
        else {
            std::fprintf(stderr, "duck_bench: bad option %s %s\n", opt.c_str(), val.c_str());
            return 2;
        }
    }
    d.run("SET threads = " + std::to_string(threads));
    for (const auto& [name, spec] : tables) {
        size_t colon = spec.find(':');
        std::string file = spec.substr(0, colon), cols = spec.substr(colon + 1);
        double t = now_ms();
        d.run("CREATE TABLE " + name + " (" + cols + ")");
        d.run("COPY " + name + " FROM '" + file + "' (FORMAT csv, HEADER false)");
        int64_t n = d.run("SELECT count(*) FROM " + name);
        std::printf("DUCKDB-LOAD %s rows=%lld ms=%.0f\n", name.c_str(), (long long)n, now_ms() - t);
    }
    for (const auto& [id, sql] : queries) {
        const std::string timed = "SELECT count(*) FROM (" + sql + ") s";
        int64_t rows = d.run(timed);  // warm-up, and the answer's row count
        std::vector<double> ms;
        for (int r = 0; r < reps; r++) {
            double t = now_ms();
            int64_t n = d.run(timed);
            ms.push_back(now_ms() - t);
            if (n != rows) {
                std::fprintf(stderr, "duck_bench: %s gave %lld rows, then %lld\n", id.c_str(), (long long)rows,
                             (long long)n);
                return 1;
            }
        }
        std::string all;
        for (double m : ms) all += (all.empty() ? "" : ",") + std::to_string(int64_t(m + 0.5));
        std::printf("DUCKDB %s rows=%lld best_ms=%.0f runs_ms=%s\n", id.c_str(), (long long)rows,
                    *std::min_element(ms.begin(), ms.end()), all.c_str());
        std::fflush(stdout);
    }
    d.api.disconnect(&d.con);
    d.api.close(&d.db);
    return 0;
}
