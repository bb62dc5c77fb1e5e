// datagen.hpp — the benchmark's data generator: pairs of UNLOGGED tables a/b built
// server-side with generate_series and hashing (deterministic, seedable), for a key
// shape (int4, int8, pair = (int8, int4), text of 8-40 characters, numeric), a key
// distribution (uniform ~2 copies per key, Zipf skew, disjoint, identical), a row
// count per side and a NULL fraction; then VACUUM ANALYZE. Tables are reused when a
// table comment records the same parameters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpbench {

enum class Shape { Int4, Int8, Pair, Text, Numeric };
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

    std::string tag() const;                 // e.g. int8_uniform_10m_n0
    std::string table(char side) const;      // schema-qualified name of side 'a' or 'b'
    std::vector<std::string> columns() const;  // key column names
    std::string comment() const;             // parameters, stored as the table comment
    // DROP + CREATE TABLE AS + COMMENT statements for one side (no VACUUM).
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
