// join_keys.h — how the equality clauses of a join become one sort key per row (see
// keys.h for the column codecs). A join compares two inputs that may have different
// types (int4 = int8, float4 = float8): each key column has a codec per side, chosen so
// that values equal by the clause's operator encode to the same bits on both sides.
// Lossless codecs also give different values different bits. Numeric columns of a
// declared precision and scale on both sides are keyed exactly by their values as
// integers (numeric_keys.h). A column whose type has
// only a canonical byte image (text, varchar, bpchar, bytea, numeric, interval, name,
// arrays, composites: images.h) takes the image's 64-bit hash (ImageHash): equal values
// hash alike, but two different values may collide, so the join rechecks every pair of
// equal keys with the clause itself (join_plan.cpp puts those clauses first in the
// join filter) and a collision never makes a wrong pair; except that a numeric's key is
// its value itself where that fits 63 bits (mp_numeric_exact_key: top bit set), which
// needs no recheck. The columns are packed
// first-most-significant into a 32-, 64- or 128-bit key. Rows with a NULL in a key column never match (SQL
// equality) and get no key at all: the node keeps them aside for the outer joins.
#pragma once

#include <cstdint>

#include "keys.h"
#include "numeric_keys.h"

// One equality clause: the codec of each side (0 outer, 1 inner) and its width; for an
// image column (codec ImageHash on both sides) the operator's input type, the operator
// and its collation, which the executor's image plan needs; for numeric(p, s) columns
// (Numeric64 / Numeric128 on both sides) the decimal scale their integers carry.
struct MpJoinKeyColumn {
    MpCodec codec[2];
    int bits;
    Oid image_type;
    Oid eqop;
    Oid collation;
    int scale;
};

// Planner: can `outer_expr opno inner_expr` (compared under `collation`) be a key
// column, lossless or by image hash? Fills *col, or returns false with a palloc'd reason.
// typmods: each operand's declared type modifier where every value it yields keeps it
// (a stored table column's), else -1.
// An operand that is an integer column cast to numeric (mp_integer_cast_to_numeric)
// is keyed as that integer when the other is a declared numeric (ScaledInt*).
bool mp_join_key_column(Oid opno, const Oid types[2], const int32 typmods[2], Oid collation, MpJoinKeyColumn* col,
                        char** why_not, const Oid integer_under_cast[2]);

// The key width (32, 64 or 128) for these columns, or 0 when they need more than 128 bits.
int mp_join_key_bits(const MpJoinKeyColumn* cols, int ncols);

struct MpImagePlan;
struct MpImageScratch;

// One side's key columns as the executor reads them: the column of the child's tuple
// (0-based) and the codec of each; with image columns, this process's image plan of
// them (image_column: each key column's column in it, -1 for a lossless one) and its
// scratch, else NULL.
struct MpJoinKeySide {
    int ncols;
    const int* columns;
    const MpCodec* codecs;
    const int* bits;
    const MpImagePlan* images;
    MpImageScratch* scratch;
    const int* image_column;
    const int* scales;  // each key column's decimal scale (numeric(p, s) keys), else 0
};

// A key's expression without the binary-compatible casts over it (a Var for our keys).
inline Node* mp_strip_relabel(Node* expr) {
    while (IsA(expr, RelabelType)) expr = (Node*)((RelabelType*)expr)->arg;
    return expr;
}

// The column under a key operand: a Var's binary-compatible casts stripped, and an
// integer column's cast to numeric (the planner's, for `numeric_col = int_col`),
// whose integer the key encodes (ScaledInt*). Returns expr itself when neither applies.
Node* mp_join_key_operand(Node* expr);
// The integer type under an operand's cast to numeric, or InvalidOid.
Oid mp_integer_cast_to_numeric(Node* expr);

// The hash of key column c's canonical image, or a numeric's exact key (join_keys.cpp).
uint64_t mp_join_image_hash(const MpJoinKeySide* side, int c, Datum value);

inline mp_u128 mp_join_column_bits(const MpJoinKeySide* side, int c, Datum value) {
    switch (side->codecs[c]) {
        case MpCodec::Uuid: return mp_encode_uuid(value);
        case MpCodec::ImageHash: return mp_join_image_hash(side, c, value);
        case MpCodec::Numeric64: return mp_encode_numeric_scaled(value, side->scales[c], 64);
        case MpCodec::Numeric128: return mp_encode_numeric_scaled(value, side->scales[c], 128);
        case MpCodec::ScaledInt16: return mp_encode_scaled_integer(DatumGetInt16(value), side->scales[c], side->bits[c]);
        case MpCodec::ScaledInt32: return mp_encode_scaled_integer(DatumGetInt32(value), side->scales[c], side->bits[c]);
        case MpCodec::ScaledInt64: return mp_encode_scaled_integer(DatumGetInt64(value), side->scales[c], side->bits[c]);
        default: return mp_encode_column(side->codecs[c], value);
    }
}

// The key of a row with no NULL key column (values: the child's deformed tuple).
template <class K>
inline K mp_encode_join_key(const MpJoinKeySide* side, const Datum* values) {
    K key;
    if (side->ncols == 1) {
        mp_key_from_u128(mp_join_column_bits(side, 0, values[side->columns[0]]), &key);
        return key;
    }
    mp_u128 acc = 0;
    for (int c = 0; c < side->ncols; ++c) {
        mp_u128 v = mp_join_column_bits(side, c, values[side->columns[c]]);
        acc = side->bits[c] == 128 ? v : (acc << side->bits[c]) | v;
    }
    mp_key_from_u128(acc, &key);
    return key;
}

// True when a key column of the row is NULL.
inline bool mp_join_key_has_null(const MpJoinKeySide* side, const bool* isnull) {
    for (int c = 0; c < side->ncols; ++c)
        if (isnull[side->columns[c]]) return true;
    return false;
}
