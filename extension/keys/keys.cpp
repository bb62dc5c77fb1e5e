// keys.cpp — value -> key encodings (see keys.h).
//
// Which encoding a set operation gets is decided per column by the planner
// (mp_keys_choose) and redone identically by the executor (mp_keys_init):
//  - a column is lossless when its (base) type is one of the fixed-width types below and
//    the set operation's grouping equality is the type's default btree equality, which
//    for these types is equality of the encoded integers (float4/float8 are not: -0 = 0
//    and all NaNs are equal yet print differently, so they are hashed);
//  - all columns lossless, at most 128 bits in total, and the null layout of rows with
//    NULLs (keys.h) fits 128 bits too: lossless key of 32/64/128 bits;
//  - otherwise every column needs an extended hash support function in the hash
//    operator family of its equality operator (so hash and equality agree), and the key
//    is the 64-bit row hash (NULLs hash to a constant of their own);
//  - columns without equality, with a nondeterministic collation (equal strings with
//    different bytes), or neither lossless nor hashable keep the native SetOp.
#include <cmath>

#include "keys.h"

#include "images.h"

extern "C" {
#include "access/hash.h"
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"
}

namespace {

constexpr uint64_t kNullHash = 0x6a09e667f3bcc909ULL;  // a NULL column's contribution to the row hash

int key_class_bits(int value_bits) { return value_bits <= 32 ? 32 : value_bits <= 64 ? 64 : 128; }

}  // namespace

MpCodec mp_lossless_codec(Oid type, Oid eqop) {
    Oid base = getBaseType(type);
    TypeCacheEntry* tc = lookup_type_cache(base, TYPECACHE_EQ_OPR);
    if (tc->eq_opr != eqop) return MpCodec::Hashed;
    switch (base) {
        case BOOLOID: return MpCodec::Bool;
        case CHAROID: return MpCodec::Char;
        case INT2OID: return MpCodec::Int16;
        case INT4OID:
        case DATEOID: return MpCodec::Int32;
        case OIDOID: return MpCodec::UInt32;
        case INT8OID:
        case TIMEOID:
        case TIMESTAMPOID:
        case TIMESTAMPTZOID:
        case CASHOID: return MpCodec::Int64;
        case PG_LSNOID: return MpCodec::UInt64;
        // float4/float8 are not lossless: -0 = 0 (and NaNs are equal) but they print
        // differently, and PostgreSQL emits the group's first row as read. They take
        // the hashed path, which emits stored rows.
        case UUIDOID: return MpCodec::Uuid;
        default: return MpCodec::Hashed;
    }
}

int mp_codec_bits(MpCodec codec) {
    switch (codec) {
        case MpCodec::Bool: return 1;
        case MpCodec::Char: return 8;
        case MpCodec::Int16: return 16;
        case MpCodec::Int32:
        case MpCodec::UInt32: return 32;
        case MpCodec::Int64:
        case MpCodec::UInt64: return 64;
        case MpCodec::Uuid:
        case MpCodec::Numeric128: return 128;
        case MpCodec::Hashed: return 0;
        case MpCodec::Int16As64:
        case MpCodec::Int32As64:
        case MpCodec::Float8:
        case MpCodec::Float4As8:
        case MpCodec::ImageHash:
        case MpCodec::Numeric64: return 64;
        case MpCodec::ScaledInt16:  // (a join sets their width: 64 or 128)
        case MpCodec::ScaledInt32:
        case MpCodec::ScaledInt64: return 64;
    }
    return 0;
}

namespace {

// The extended (64-bit, seeded) hash function of the hash opfamily that contains
// eqop, as get_op_hash_functions() finds the standard one.
Oid hash_extended_proc(Oid eqop) {
    Oid result = InvalidOid;
    CatCList* list = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(eqop));
    for (int i = 0; i < list->n_members && !OidIsValid(result); i++) {
        Form_pg_amop amop = (Form_pg_amop)GETSTRUCT(&list->members[i]->tuple);
        if (amop->amopmethod == HASH_AM_OID && amop->amopstrategy == HTEqualStrategyNumber)
            result = get_opfamily_proc(amop->amopfamily, amop->amoplefttype, amop->amoplefttype, HASHEXTENDED_PROC);
    }
    ReleaseSysCacheList(list);
    return result;
}

// Why a column cannot be keyed at all, or NULL.
char* column_problem(int c, Oid type, Oid collation, Oid eqop, bool hashable, MpCodec codec) {
    if (!OidIsValid(eqop))
        return psprintf("column %d (type %s) has no equality operator", c + 1, format_type_be(type));
    if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
        return psprintf("column %d uses the nondeterministic collation \"%s\"", c + 1, get_collation_name(collation));
    if (!hashable && codec == MpCodec::Hashed)
        return psprintf("column %d (type %s) has no hash support", c + 1, format_type_be(type));
    if (codec == MpCodec::Hashed && !OidIsValid(hash_extended_proc(eqop)))
        return psprintf("column %d (type %s) has no extended hash function", c + 1, format_type_be(type));
    return NULL;
}

// Every column has a canonical byte image (images.h); why not is logged at DEBUG1.
bool all_have_images(int ncols, const Oid* types, const Oid* collations, const Oid* eqops) {
    for (int c = 0; c < ncols; c++) {
        MpImageRule rule;
        char* why_not;
        if (!mp_image_rule(types[c], eqops[c], collations[c], &rule, &why_not)) {
            elog(DEBUG1, "pg_mergepath: no image keys: column %d: %s", c + 1, why_not);
            return false;
        }
    }
    return true;
}

}  // namespace

bool mp_keys_choose(int ncols, const Oid* types, const Oid* collations, const Oid* eqops, const bool* hashable,
                    MpKeyChoice* choice, char** why_not) {
    int value_bits = 0, narrowest = 128;
    bool all_lossless = true, all_hashable = true;
    for (int c = 0; c < ncols; c++) {
        MpCodec codec = mp_lossless_codec(types[c], eqops[c]);
        if ((*why_not = column_problem(c, types[c], collations[c], eqops[c], hashable[c], codec)) != NULL) return false;
        all_lossless = all_lossless && codec != MpCodec::Hashed;
        all_hashable = all_hashable && hashable[c] && OidIsValid(hash_extended_proc(eqops[c]));
        value_bits += mp_codec_bits(codec);
        narrowest = Min(narrowest, mp_codec_bits(codec));
    }
    // a row with NULLs: the mask plus every column but (at least) the narrowest
    int null_layout_bits = ncols + value_bits - narrowest;
    choice->lossless = all_lossless && value_bits <= 128 && null_layout_bits <= 128;
    choice->images = !choice->lossless && mp_image_keys && all_have_images(ncols, types, collations, eqops);
    choice->ranges = NULL;
    if (choice->images) {
        choice->key_bits = choice->full_bits = 64;
        return true;
    }
    if (!choice->lossless && !all_hashable) {
        *why_not = pstrdup("a column has no hash support and the row does not fit a 128-bit key");
        return false;
    }
    choice->key_bits = choice->full_bits = !choice->lossless ? 64 : key_class_bits(value_bits);
    return true;
}

namespace {

int bits_for(uint64_t n) { return n == 0 ? 1 : 64 - __builtin_clzll(n); }  // bits to hold 0..n

// The range a column's main bits cover, around the values expected [lo, hi]: twice
// their span, so that values the statistics' sample missed (or added since) still fit,
// inside the codec's own range; bits = codec_bits when that gains nothing.
MpColumnRange range_around(const MpExpectedRange& expected, int codec_bits) {
    const uint64_t span = expected.hi - expected.lo;
    const uint64_t codec_max = codec_bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << codec_bits) - 1;
    if (!expected.known || codec_bits > 64 || span >= (uint64_t(1) << 62)) return {0, codec_bits};
    int bits = bits_for(2 * span + 1);
    if (bits >= codec_bits) return {0, codec_bits};
    const uint64_t width = (uint64_t(1) << bits) - 1;  // the range is [base, base + width]
    const uint64_t below = (width - span) / 2;
    uint64_t base = expected.lo >= below ? expected.lo - below : 0;
    if (base > codec_max - width) base = codec_max - width;
    return {base, bits};
}

}  // namespace

bool mp_keys_narrow(MpKeyChoice* choice, int ncols, const Oid* types, const Oid* eqops,
                    const MpExpectedRange* expected) {
    if (!choice->lossless) return false;
    int full_bits = 0, narrow_bits = 0;
    MpColumnRange* ranges = (MpColumnRange*)palloc(sizeof(MpColumnRange) * ncols);
    for (int c = 0; c < ncols; c++) {
        int codec_bits = mp_codec_bits(mp_lossless_codec(types[c], eqops[c]));
        ranges[c] = range_around(expected[c], codec_bits);
        full_bits += codec_bits;
        narrow_bits += ranges[c].bits;
    }
    // a row outside the ranges takes a null-layout key with an empty mask: its full
    // encoding must fit below the mask
    if (key_class_bits(narrow_bits) >= choice->key_bits || full_bits > 128 - ncols) {
        pfree(ranges);
        return false;
    }
    choice->key_bits = key_class_bits(narrow_bits);
    choice->ranges = ranges;
    return true;
}

void mp_keys_init(MpKeyPlan* plan, int ncols, const Oid* types, const Oid* collations, const Oid* eqops,
                  const MpKeyChoice* choice) {
    plan->ncols = ncols;
    plan->lossless = choice->lossless;
    plan->key_bits = choice->key_bits;
    plan->ranged = choice->ranges != NULL;
    plan->hash_bits = mp_debug_hash_bits > 0 ? mp_debug_hash_bits : 64;
    plan->cols = (MpKeyColumn*)palloc0(sizeof(MpKeyColumn) * ncols);
    for (int c = 0; c < ncols; c++) {
        MpKeyColumn* col = &plan->cols[c];
        col->type = types[c];
        col->collation = collations[c];
        col->eqop = eqops[c];
        col->codec = choice->lossless ? mp_lossless_codec(types[c], eqops[c]) : MpCodec::Hashed;
        col->bits = mp_codec_bits(col->codec);
        col->main_bits = plan->ranged ? choice->ranges[c].bits : col->bits;
        col->main_base = plan->ranged ? choice->ranges[c].base : 0;
        if (!choice->lossless && !choice->images) {
            Oid proc = hash_extended_proc(eqops[c]);
            if (!OidIsValid(proc))
                elog(ERROR, "pg_mergepath: no extended hash function for operator %u", eqops[c]);
            fmgr_info(proc, &col->hash);
        } else if (choice->lossless && col->codec == MpCodec::Hashed) {
            elog(ERROR, "pg_mergepath: column %d of type %s has no lossless encoding", c + 1,
                 format_type_be(types[c]));
        }
    }
}

uint64_t mp_hash_row(const MpKeyPlan* plan, const Datum* values, const bool* isnull) {
    uint64_t h = 0;
    for (int c = 0; c < plan->ncols; c++) {
        MpKeyColumn* col = &plan->cols[c];
        uint64_t hc = isnull[c] ? kNullHash + uint64_t(c)
                                : DatumGetUInt64(FunctionCall2Coll(&col->hash, col->collation, values[c],
                                                                   UInt64GetDatum(0)));
        h = c == 0 ? hc : hash_combine64(h, hc);
    }
    if (plan->hash_bits < 64) h &= (uint64_t(1) << plan->hash_bits) - 1;
    return h;
}

// A float8 as float8eq compares it: -0 = 0 and NaN = NaN (one bit pattern each), the
// order of the values kept (NaN above +Infinity, as PostgreSQL sorts it).
static uint64_t float_key(double d) {
    uint64_t bits;
    if (d == 0) d = 0.0;
    if (std::isnan(d)) bits = UINT64_C(0x7ff8000000000000);
    else memcpy(&bits, &d, sizeof(bits));
    return (bits & kSign64) ? ~bits : bits ^ kSign64;
}

uint64_t mp_encode_column(MpCodec codec, Datum value) {
    switch (codec) {
        case MpCodec::Bool: return DatumGetBool(value) ? 1 : 0;
        case MpCodec::Char: return uint8_t(DatumGetChar(value));
        case MpCodec::Int16: return uint16_t(DatumGetInt16(value)) ^ 0x8000u;
        case MpCodec::Int32: return uint32_t(DatumGetInt32(value)) ^ kSign32;
        case MpCodec::UInt32: return DatumGetObjectId(value);
        case MpCodec::Int64: return uint64_t(DatumGetInt64(value)) ^ kSign64;
        case MpCodec::UInt64: return uint64_t(DatumGetInt64(value));
        case MpCodec::Int16As64: return uint64_t(int64_t(DatumGetInt16(value))) ^ kSign64;
        case MpCodec::Int32As64: return uint64_t(int64_t(DatumGetInt32(value))) ^ kSign64;
        case MpCodec::Float8: return float_key(DatumGetFloat8(value));
        case MpCodec::Float4As8: return float_key(double(DatumGetFloat4(value)));
        case MpCodec::Uuid:
        case MpCodec::Hashed:
        case MpCodec::ImageHash:
        case MpCodec::Numeric64:
        case MpCodec::Numeric128:
        case MpCodec::ScaledInt16:
        case MpCodec::ScaledInt32:
        case MpCodec::ScaledInt64: break;
    }
    elog(ERROR, "pg_mergepath: codec %d is not a 64-bit lossless codec", int(codec));
    return 0;
}

mp_u128 mp_encode_uuid(Datum value) {
    const pg_uuid_t* u = DatumGetUUIDP(value);
    mp_u128 v = 0;
    for (int i = 0; i < UUID_LEN; i++) v = (v << 8) | u->data[i];
    return v;
}

Datum mp_decode_uuid(mp_u128 bits, pg_uuid_t* u) {
    for (int i = UUID_LEN - 1; i >= 0; i--) {
        u->data[i] = uint8_t(bits);
        bits >>= 8;
    }
    return UUIDPGetDatum(u);
}
