// datagen.hpp — the benchmark's data generator: pairs of UNLOGGED tables a/b built
// server-side with generate_series and hashing (deterministic, seedable), for a key
// shape (int4, int8, pair = (int8, int4), text of 8-40 characters, numeric), a key
// distribution (uniform ~2 copies per key, Zipf skew, disjoint, identical), a row
// count per side and a NULL fraction; then VACUUM ANALYZE. Tables are reused when a
// table comment records the same parameters. A fact x dimension pair (fact_dim) is made
// of a = fact (rows) and b = dimension (dim_rows): (k int8, p1 int8, p2 int4) each, the
// dimension's keys unique, each fact key that of a uniformly drawn dimension row (a
// fraction `match` of them; the others match none); it is filled in parts of 2M rows
// that run concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpbench {

enum class Shape { Int4, Int8, Pair, Text, Numeric, Decimal, Names, CharNames };
enum class Dist { Uniform, Zipf, Disjoint, Identical };

struct Dataset {
    Shape shape = Shape::Int8;
    Dist dist = Dist::Uniform;
    int64_t rows = 0;       // per side
    double null_frac = 0;   // per column
    double zipf_s = 1.0;    // Zipf exponent (dist = zipf only)
    int64_t seed = 42;
    std::string text_collation;  // empty = database default
    std::string schema = "mp_bench";
    // fact x dimension (--fact-dim): shape int8, dist uniform, null_frac 0 are ignored
    bool fact_dim = false;
    int64_t dim_rows = 0;  // rows of the dimension (side b); `rows` is the fact's (side a)
    double match = 0.95;   // fraction of fact rows whose key is in the dimension

    std::string tag() const;                 // e.g. int8_uniform_10m_n0
    std::string table(char side) const;      // schema-qualified name of side 'a' or 'b'
    int64_t side_rows(char side) const;      // rows of side 'a' or 'b'
    std::vector<std::string> columns() const;  // key column names
    std::vector<std::string> all_columns() const;  // every column (keys, then payloads)
    std::string comment() const;             // parameters, stored as the table comment
    // The statements that make one side (no VACUUM): `create` first (DROP + CREATE TABLE
    // AS, or DROP + CREATE TABLE when there are `fill` parts), then the `fill` parts
    // (INSERT ... SELECT of a range of rows each; they may run concurrently), then
    // `comment` (COMMENT ON TABLE: marks the table complete, with a hash of the SQL).
    struct TableSql {
        std::vector<std::string> create, fill;
        std::string comment;
    };
    TableSql table_sql(char side) const;
    // All of table_sql's statements in order (the comment last).
    std::vector<std::string> create_sql(char side) const;
};

const char* shape_name(Shape s);
const char* dist_name(Dist d);
bool parse_shape(const std::string& s, Shape& out);
bool parse_dist(const std::string& s, Dist& out);
std::string rows_tag(int64_t rows);  // 20000 -> 20k, 10000000 -> 10m

struct GenStats {
    int created = 0, reused = 0;
    double seconds = 0;
};

// Creates (or reuses) both tables of every dataset, `jobs` tables at a time, each over its
// own connection. Progress goes to stderr via the logger. Throws on failure.
GenStats generate(const std::string& conninfo, const std::vector<Dataset>& sets, int jobs,
                  bool regen);

}  // namespace mpbench
