// join_keys.h — how the equality clauses of a join become one sort key per row (see
// keys.h for the column codecs). A join compares two inputs that may have different
// types (int4 = int8, float4 = float8): each key column has a codec per side, chosen so
// that values equal by the clause's operator encode to the same bits, and different
// values to different bits, on both sides. The columns are packed first-most-significant
// into a 32-, 64- or 128-bit key. Rows with a NULL in a key column never match (SQL
// equality) and get no key at all: the node keeps them aside for the outer joins.
#pragma once

#include <cstdint>

#include "keys.h"

// One equality clause: the codec of each side (0 outer, 1 inner) and its width.
struct MpJoinKeyColumn {
    MpCodec codec[2];
    int bits;
};

// Planner: can `outer_expr opno inner_expr` be a lossless key column? Fills *col, or
// returns false with a palloc'd reason.
bool mp_join_key_column(Oid opno, Oid outer_type, Oid inner_type, MpJoinKeyColumn* col, char** why_not);

// The key width (32, 64 or 128) for these columns, or 0 when they need more than 128 bits.
int mp_join_key_bits(const MpJoinKeyColumn* cols, int ncols);

// One side's key columns as the executor reads them: the column of the child's tuple
// (0-based) and the codec of each.
struct MpJoinKeySide {
    int ncols;
    const int* columns;
    const MpCodec* codecs;
    const int* bits;
};

// The key of a row with no NULL key column (values: the child's deformed tuple).
template <class K>
inline K mp_encode_join_key(const MpJoinKeySide* side, const Datum* values) {
    K key;
    if (side->ncols == 1 && side->codecs[0] != MpCodec::Uuid) {
        mp_key_from_u128(mp_encode_column(side->codecs[0], values[side->columns[0]]), &key);
        return key;
    }
    mp_u128 acc = 0;
    for (int c = 0; c < side->ncols; ++c) {
        Datum value = values[side->columns[c]];
        mp_u128 v = side->codecs[c] == MpCodec::Uuid ? mp_encode_uuid(value)
                                                     : mp_u128(mp_encode_column(side->codecs[c], value));
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
