// join_keys.cpp — choosing the codecs of a join's key columns (see join_keys.h).
//
// An equality operator qualifies when its meaning is equality of our encodings:
//  - the btree integer family (int2 / int4 / int8 in any mix): same types keep their own
//    width, mixed types are both widened to int8, whose order and equality they share;
//  - the btree float family (float4 / float8 in any mix): both as canonical float8
//    (float4 -> float8 is exact; float8eq says -0 = 0 and NaN = NaN, and so do the bits);
//  - otherwise the same fixed-width type on both sides, compared with its default
//    equality, whose codec is lossless for set operations too (keys.cpp): bool, "char",
//    oid, date, time, timestamp[tz], money, pg_lsn, uuid.
//  - numeric = numeric where both sides declare a precision and scale whose values,
//    times 10^(the larger scale), fit 128 bits: those integers (numeric_keys.h);
//  - else the same type on both sides (varchar = text: both text under the operator),
//    compared with its default equality (record_eq, array_eq) under a deterministic
//    collation, when that type has a canonical byte image (images.h): its hash, the
//    pairs rechecked.
//  - numeric(p, s) = an integer column cast to numeric (the planner's cast for
//    `numeric_col = int_col`): the integer times 10^s, as the numeric side's key;
// Anything else (an integer against an undeclared numeric, date = timestamp, a
// nondeterministic collation, a type with neither) keeps the native join.
#include "join_keys.h"

#include "images.h"

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/typcache.h"
}

namespace {

// pg_opfamily.dat's btree float_ops (float4 / float8); pg_opfamily_d.h names no macro for it.
constexpr Oid kFloatBtreeFamily = 1970;

MpCodec widened_integer(Oid type) {
    switch (type) {
        case INT2OID: return MpCodec::Int16As64;
        case INT4OID: return MpCodec::Int32As64;
        case INT8OID: return MpCodec::Int64;
        default: return MpCodec::Hashed;
    }
}

MpCodec widened_float(Oid type) {
    switch (type) {
        case FLOAT4OID: return MpCodec::Float4As8;
        case FLOAT8OID: return MpCodec::Float8;
        default: return MpCodec::Hashed;
    }
}

// An image column: both sides the same type with a canonical image for this operator.
bool image_key_column(Oid opno, const Oid types[2], Oid collation, MpJoinKeyColumn* col, char** why_not) {
    MpImageRule rule;
    if (types[0] != types[1]) {
        *why_not = psprintf("operator %s compares %s with %s: no key encoding for two types", get_opname(opno),
                            format_type_be(types[0]), format_type_be(types[1]));
        return false;
    }
    if (!mp_image_rule(types[0], opno, collation, &rule, why_not)) return false;
    if (!mp_image_keys) {
        *why_not = psprintf("operator %s on %s: pg_mergepath.image_keys is off", get_opname(opno),
                            format_type_be(types[0]));
        return false;
    }
    col->codec[0] = col->codec[1] = MpCodec::ImageHash;
    col->image_type = types[0];
    col->eqop = opno;
    col->collation = collation;
    return true;
}

// numeric(p, s) = numeric(p', s') with the type's own equality, both declared and
// narrow enough: their values as integers, no recheck. An operand that is an integer
// column cast to numeric counts as numeric(5, 0), (10, 0) or (19, 0), keyed from the
// integer itself.
bool numeric_key_column(Oid opno, const Oid types[2], const int32 declared_typmods[2], const Oid integer_under_cast[2],
                        MpJoinKeyColumn* col) {
    if (types[0] != NUMERICOID || types[1] != NUMERICOID) return false;
    if (lookup_type_cache(NUMERICOID, TYPECACHE_EQ_OPR)->eq_opr != opno) return false;
    int32 typmods[2];
    MpCodec integer_codec[2];
    for (int side = 0; side < 2; side++) {
        typmods[side] = declared_typmods[side];
        integer_codec[side] = MpCodec::Hashed;
        switch (integer_under_cast[side]) {
            case INT2OID: typmods[side] = mp_numeric_integer_typmod(5), integer_codec[side] = MpCodec::ScaledInt16; break;
            case INT4OID: typmods[side] = mp_numeric_integer_typmod(10), integer_codec[side] = MpCodec::ScaledInt32; break;
            case INT8OID: typmods[side] = mp_numeric_integer_typmod(19), integer_codec[side] = MpCodec::ScaledInt64; break;
            default: break;
        }
    }
    int bits;
    if (!mp_numeric_key_fits(typmods, &col->scale, &bits)) return false;
    for (int side = 0; side < 2; side++)
        col->codec[side] = integer_codec[side] != MpCodec::Hashed ? integer_codec[side]
                           : bits == 64                          ? MpCodec::Numeric64
                                                                 : MpCodec::Numeric128;
    col->bits = bits;
    return true;
}

}  // namespace

Oid mp_integer_cast_to_numeric(Node* expr) {
    expr = mp_strip_relabel(expr);
    if (!IsA(expr, FuncExpr) || list_length(((FuncExpr*)expr)->args) != 1) return InvalidOid;
    Oid integer;
    switch (((FuncExpr*)expr)->funcid) {
        case F_NUMERIC_INT2: integer = INT2OID; break;
        case F_NUMERIC_INT4: integer = INT4OID; break;
        case F_NUMERIC_INT8: integer = INT8OID; break;
        default: return InvalidOid;
    }
    Node* arg = mp_strip_relabel((Node*)linitial(((FuncExpr*)expr)->args));
    return IsA(arg, Var) && getBaseType(exprType(arg)) == integer ? integer : InvalidOid;
}

Node* mp_join_key_operand(Node* expr) {
    if (OidIsValid(mp_integer_cast_to_numeric(expr)))
        return mp_strip_relabel((Node*)linitial(((FuncExpr*)mp_strip_relabel(expr))->args));
    return mp_strip_relabel(expr);
}

bool mp_join_key_column(Oid opno, const Oid operand_types[2], const int32 typmods[2], Oid collation,
                        MpJoinKeyColumn* col, char** why_not, const Oid integer_under_cast[2]) {
    Oid types[2] = {getBaseType(operand_types[0]), getBaseType(operand_types[1])};
    *col = {};
    if (numeric_key_column(opno, types, typmods, integer_under_cast, col)) return true;
    if (OidIsValid(integer_under_cast[0]) || OidIsValid(integer_under_cast[1])) {
        *why_not = psprintf("operator %s compares an integer cast to numeric with a numeric of no declared precision",
                            get_opname(opno));
        return false;
    }
    Oid family = mp_btree_equality_family(opno);
    for (int s = 0; s < 2; s++) {
        if (family == INTEGER_BTREE_FAM_OID && types[0] != types[1]) col->codec[s] = widened_integer(types[s]);
        else if (family == kFloatBtreeFamily) col->codec[s] = widened_float(types[s]);
        else if (types[0] == types[1]) col->codec[s] = mp_lossless_codec(types[s], opno);
        else col->codec[s] = MpCodec::Hashed;
    }
    if ((col->codec[0] == MpCodec::Hashed || col->codec[1] == MpCodec::Hashed) &&
        !image_key_column(opno, types, collation, col, why_not))
        return false;
    col->bits = mp_codec_bits(col->codec[0]);
    return true;
}

uint64_t mp_join_image_hash(const MpJoinKeySide* side, int c, Datum value) {
    const int column = side->image_column[c];
    if (side->images->cols[column].rule != MpImageRule::Numeric)
        return mp_image_value_hash(side->images, side->scratch, column, value);
    uint64 exact;  // a numeric: exact where it fits (numeric_keys.h), else its hash's low 63 bits
    if (mp_numeric_exact_key(value, &exact)) return exact;
    return mp_image_value_hash(side->images, side->scratch, column, value) & ~kMpNumericExactBit;
}

int mp_join_key_bits(const MpJoinKeyColumn* cols, int ncols) {
    int bits = 0;
    for (int c = 0; c < ncols; c++) bits += cols[c].bits;
    return bits <= 32 ? 32 : bits <= 64 ? 64 : bits <= 128 ? 128 : 0;
}
