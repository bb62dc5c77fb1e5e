// images.h — canonical byte images of rows, for set operations over keys that do not
// fit a lossless integer (text, numeric, floats, intervals, multi-column rows wider than
// 128 bits): each row is turned once, while it is read, into an "image" — a
// MinimalTuple of canonical column values — such that two rows are equal by the set
// operation's grouping equality (NULL = NULL) exactly when their images are equal
// byte for byte. Sorting and grouping then need no PostgreSQL function call per row:
// the key is a 64-bit hash of the image, and equal hashes are proved (or split, after
// a collision) by comparing image bytes (image_groups.cpp).
//
// The canonical value of each supported type (images.cpp, MpImageRule):
//   by-value fixed-width types whose equality is bit equality (integers, date, time,
//       timestamps, oid, bool, "char", money, pg_lsn): the value, as an int8;
//   float4 / float8: the value with -0 as 0 and every NaN as one NaN (float4eq/float8eq);
//   uuid: its 16 bytes;  interval: interval_eq's 128-bit span (months as 30 days);
//   text / varchar / bytea: the detoasted bytes (deterministic collations only: there
//       texteq is byte equality);  bpchar: the bytes without trailing spaces (bpchareq);
//   numeric: the value with its display scale trimmed (trim_scale: 1.0 = 1.00; NaN,
//       Infinity as they are).
// Values that print as they are (all but floats, intervals, bpchar and numeric) are
// rebuilt from the image for output; when any column's canonical value differs from
// what it prints, the row's original columns are kept right after its image.
#pragma once

#include "pg_mergepath.h"

enum class MpImageRule : uint8_t {
    Bits8,     // by-value, <= 8 bytes, equality is bit equality
    Float4,
    Float8,
    Uuid,
    Interval,
    Text,      // text, varchar, bytea
    Bpchar,
    Numeric,
};

struct MpImageColumn {
    MpImageRule rule;
    int16 typlen;  // Bits8: the type's length (1, 2, 4, 8)
};

// How the rows of one node become images (executor; built by mp_images_init).
struct MpImagePlan {
    int ncols;
    MpImageColumn* cols;
    TupleDesc image_desc;     // the canonical columns: int8, uuid or bytea each
    TupleDesc original_desc;  // the row's own columns (kept when !self_printing)
    bool self_printing;       // every column prints as its image holds it
    int hash_bits;            // 64, or fewer under pg_mergepath.debug_hash_bits
};

// Planner: the rule for a column of `type` grouped by `eqop` under `collation`; false
// (with a palloc'd reason) when its equality is not byte equality of a canonical form.
bool mp_image_rule(Oid type, Oid eqop, Oid collation, MpImageRule* rule, char** why_not);

// Executor: the plan for the node's columns (in CurrentMemoryContext). `row_desc` has
// the row's columns first (further columns are ignored).
void mp_images_init(MpImagePlan* plan, int ncols, const Oid* types, const Oid* eqops, const Oid* collations,
                    TupleDesc row_desc);

// One process's scratch for turning rows into images.
struct MpImageScratch {
    Datum* values;
    bool* isnull;
    char** buffers;     // per column: a canonical value built here (bpchar, interval)
    size_t* capacity;
    MemoryContext cxt;   // of the buffers
    MemoryContext temp;  // detoasted values, numeric's trim_scale results: reset per row
    Datum zero;          // numeric 0
};
void mp_image_scratch_init(MpImageScratch* s, const MpImagePlan* plan);

// The record of a row: its image, then (not self_printing) its original columns.
// Returns the record's size (MAXALIGNed) and writes it with mp_image_write_record
// into `bytes` of room the caller reserved. Between the two calls the scratch holds
// the row's canonical values: no other row may be imaged.
struct MpImageSizes {
    uint64 image_hoff, image_data, image_bytes;        // image_bytes MAXALIGNed
    uint64 original_hoff, original_data, original_bytes;
};
uint64 mp_image_measure(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row, MpImageSizes* sizes);
// Writes the record; returns the image's hash (truncated to plan->hash_bits).
uint64 mp_image_write_record(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row,
                             const MpImageSizes* sizes, char* at);

// The image at the start of a record, and the equality of two images.
inline MinimalTuple mp_record_image(const char* record) { return (MinimalTuple)record; }
inline bool mp_images_equal(const char* a, const char* b) {
    uint32 len = ((const MinimalTuple)a)->t_len;
    return len == ((const MinimalTuple)b)->t_len && memcmp(a, b, len) == 0;
}
// The original columns of a record (not self_printing).
inline MinimalTuple mp_record_original(const char* record) {
    return (MinimalTuple)(record + MAXALIGN(((const MinimalTuple)record)->t_len));
}

// Puts a record's row into the first ncols columns of `out` (values point into the
// record). image_slot / original_slot: MinimalTuple slots of the plan's two descs.
void mp_image_output(const MpImagePlan* plan, const char* record, TupleTableSlot* image_slot,
                     TupleTableSlot* original_slot, TupleTableSlot* out);
