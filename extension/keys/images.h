// images.h — canonical byte images of rows, for set operations over keys that do not
// fit a lossless integer (text, numeric, floats, intervals, multi-column rows wider than
// 128 bits): each row is turned once, while it is read, into an "image" — a dense
// string of its canonical column values — such that two rows are equal by the set
// operation's grouping equality (NULL = NULL) exactly when their images are equal
// byte for byte. Sorting and grouping then need no PostgreSQL function call per row:
// the key is a 64-bit hash of the image, and equal hashes are proved (or split, after
// a collision) by comparing image bytes (image_groups.cpp).
//
// The canonical value of each supported type (images.cpp, MpImageRule):
//   by-value fixed-width types whose equality is bit equality (integers, date, time,
//       timestamps, oid, bool, "char", money, pg_lsn): the value's typlen bytes;
//   float4 / float8: the value with -0 as 0 and every NaN as one NaN (float4eq/float8eq);
//   uuid: its 16 bytes;  interval: interval_eq's 128-bit span (months as 30 days);
//   text / varchar / bytea: the detoasted bytes (deterministic collations only: there
//       texteq is byte equality);  bpchar: the bytes without trailing spaces (bpchareq);
//   name: the bytes before its NUL padding (nameeq), printed by padding them again;
//   numeric: the value with its display scale trimmed (trim_scale: 1.0 = 1.00; NaN,
//       Infinity as one byte each);
//   an array of one of those types (array_eq): the number of dimensions, each
//       dimension's length and lower bound, then for each element a NULL flag byte and,
//       when not NULL, its canonical value's length (4 bytes) and bytes. An array
//       always keeps its original (its image does not print it);
//   a named composite type whose attributes all have one (record_eq: attributes by
//       their type's default equality, under the attribute's collation, NULLs equal):
//       for each attribute not dropped, a NULL flag byte and, when not NULL, its
//       canonical value's length (4 bytes) and bytes (attributes that are arrays or
//       composites themselves included). A composite always keeps its original.
//
// A row's record (image_records.cpp) is packed, with no alignment and no per-row
// header beyond a length, so that the node holds little more than the key bytes read:
//   record := varint(|image|) image originals
//   image  := null bitmap (one bit a column, set = NULL), then each non-NULL column's
//             canonical value: fixed-width values as their bytes, variable-length ones
//             as a varlena with a 1-byte header when it fits (else a 4-byte one)
//   originals := for each non-NULL column that does not print as its canonical value
//             (floats, interval, bpchar, numeric, arrays), the value as it was read, packed
//             the same way; a char(n) column's value first has one byte: 0 when it
//             has exactly n characters (it is then rebuilt from the image: the
//             trimmed value padded with spaces to n characters, as bpchar() pads,
//             and nothing else is stored), 1 when its original follows
// Output rebuilds the row's Datums from the record (pointing into it where the type's
// alignment allows, else through a per-row copy).
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
    Name,      // name: the bytes before its NUL padding (nameeq)
    Array,     // an array of a type above (array_eq: dimensions, lower bounds, elements)
    Record,    // a named composite type (record_eq: attribute by attribute)
};

struct MpImageColumn {
    MpImageRule rule;
    int16 typlen;         // Bits8: the type's length (1, 2, 4, 8)
    bool keeps_original;  // its canonical value may print differently (originals kept)
    int32 pad_to;         // bpchar of a char(n) column: n; else -1
    // Array: its elements' type (base type) and rule, and how they are stored
    Oid elem_type;
    MpImageRule elem_rule;
    int16 elem_typlen;
    bool elem_byval;
    char elem_align;
    // Record: its row type and its attributes that are not dropped, each a column of
    // its own (att_index: its place among the row type's attributes)
    TupleDesc rowdesc;
    int natts;
    MpImageColumn* atts;
    int* att_index;
};

// How the rows of one node become images (executor; built by mp_images_init).
struct MpImagePlan {
    int ncols;
    MpImageColumn* cols;
    int null_bytes;           // of the image's null bitmap
    bool self_printing;       // no column keeps its original
    int hash_bits;            // 64, or fewer under pg_mergepath.debug_hash_bits
};

// Planner: the rule for a column of `type` grouped by `eqop` under `collation`; false
// (with a palloc'd reason) when its equality is not byte equality of a canonical form.
bool mp_image_rule(Oid type, Oid eqop, Oid collation, MpImageRule* rule, char** why_not);

// Planner: a plan over image keys of a composite column is made again when the type (or
// a composite inside it) changes (ALTER TYPE: its rule may change, attributes are added).
void mp_image_plan_depends(PlannerInfo* root, Oid type);

// Executor: the plan for the node's columns (in CurrentMemoryContext); typmods: of the
// node's output columns (-1 where unknown).
void mp_images_init(MpImagePlan* plan, int ncols, const Oid* types, const int32* typmods, const Oid* eqops,
                    const Oid* collations);

// One column's value as the record stores it: `len` bytes at `data`, written as a
// packed varlena (is_varlena) or as they are; a char(n) original (padded_flag) after
// its flag byte, or only the flag (rebuilt: the value has n characters).
struct MpImagePiece {
    const char* data;
    uint32 len;
    bool is_varlena;
    bool padded_flag;
    bool rebuilt;
};

// One process's scratch for turning rows into images.
struct MpImageScratch {
    MpImagePiece* canonical;  // per column, of the row being imaged
    MpImagePiece* original;
    bool* isnull;
    char** buffers;           // per column: a canonical value built here
    MemoryContext temp;       // detoasted values, numeric's trim_scale results: reset per row
    Datum zero;               // numeric 0
    MemoryContext copies;     // output: values that need alignment, reset per output row
};
void mp_image_scratch_init(MpImageScratch* s, const MpImagePlan* plan);
// The row's canonical and original values (and NULLs) into the scratch (images.cpp;
// for image_records.cpp).
void mp_image_pieces(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row);

// Whether a varlena's bytes are where it is: not compressed, not out of line (a TOAST
// pointer's 1-byte header passes VARATT_IS_SHORT too). A text, varchar or bytea value
// in line is its own image (MpImageRule::Text).
inline bool mp_varlena_in_place(const varlena* v) { return !VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v); }

// Whether two varlenas in line (mp_varlena_in_place) hold the same bytes.
inline bool mp_varlena_bytes_equal(const varlena* a, const varlena* b) {
    const size_t len = VARSIZE_ANY_EXHDR(a);
    return len == VARSIZE_ANY_EXHDR(b) && memcmp(VARDATA_ANY(a), VARDATA_ANY(b), len) == 0;
}

// The hash of one value's canonical image, as column c of the plan (truncated to
// plan->hash_bits): for join keys (join_keys.h), which keep no record.
uint64 mp_image_value_hash(const MpImagePlan* plan, MpImageScratch* s, int c, Datum value);

// A row's canonical (and original) values into the scratch; returns its record's size.
// Between this and mp_image_write_record no other row may be imaged.
uint64 mp_image_measure(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row);
// Writes the record of the measured row at `at` (`bytes` as measured); returns the
// image's hash (truncated to plan->hash_bits).
uint64 mp_image_write_record(const MpImagePlan* plan, const MpImageScratch* s, char* at, uint64 bytes);

// The image of a record: its bytes (after the length) and their number.
struct MpImageBytes {
    const unsigned char* bytes;
    uint32 len;
};
inline MpImageBytes mp_record_image(const char* record) {
    const unsigned char* p = (const unsigned char*)record;
    uint32 len = 0;
    for (int shift = 0;; shift += 7) {
        len |= uint32(*p & 0x7f) << shift;
        if (!(*p++ & 0x80)) break;
    }
    return {p, len};
}
inline bool mp_images_equal(const char* a, const char* b) {
    MpImageBytes x = mp_record_image(a), y = mp_record_image(b);
    return x.len == y.len && memcmp(x.bytes, y.bytes, x.len) == 0;
}
// A total order of images (shorter first, then bytewise): for splitting collided runs.
inline bool mp_image_less(const char* a, const char* b) {
    MpImageBytes x = mp_record_image(a), y = mp_record_image(b);
    return x.len != y.len ? x.len < y.len : memcmp(x.bytes, y.bytes, x.len) < 0;
}

// The bytes of a record (its length, image and originals), read from the record.
uint64 mp_image_record_size(const MpImagePlan* plan, const char* record);

// Puts a record's row into the first ncols columns of `out` (values point into the
// record, or into s->copies, which is reset first).
void mp_image_output(const MpImagePlan* plan, MpImageScratch* s, const char* record, TupleTableSlot* out);
