// keys.h — how a row of a set operation becomes a sort key (see keys.cpp for the
// choice of encoding and the per-type rules).
//
// Lossless keys: each column's value is mapped to an unsigned integer of the type's
// width such that equal values (by the grouping equality of the set operation) give
// equal integers and different values different ones, order preserved; the columns
// are packed first-column-most-significant into a 32-, 64- or 128-bit key. The row
// can be rebuilt from the key, so no copy of the input rows is kept.
// Rows with a NULL in any column get a key of another shape, the "null layout": a
// 128-bit key with the NULL mask in its top ncols bits and the non-NULL columns packed
// below. Such a row never equals a row without NULLs (NULL = NULL in set operations,
// NULL <> any value), so they form a second, usually tiny, stream of keys whose groups
// never meet the main stream's. The layout fits 128 bits when ncols + every column's
// bits but the narrowest <= 128 (keys.cpp checks it when choosing).
//
// Ranged keys: where the planner's statistics say the columns hold fewer bits than
// their types (keys.cpp: mp_keys_narrow), each column takes only `main_bits` bits of a
// main key, holding its encoded value minus `main_base`, so a 128-bit row may take a
// 64-bit key or a 64-bit row a 32-bit one. A row with a value outside its column's
// range takes the null-layout key with an empty NULL mask (its full encoding below the
// mask) in the second stream. Whether a row is in range depends only on its values,
// so equal rows always meet in the same stream, and the answer is the same whatever
// the statistics say.
//
// Hashed keys: a 64-bit hash of the row built from each column's extended hash
// support function; equal rows hash equal, so the set operation on hashes is right
// unless two different rows collide, which the executor checks with the equality
// operators afterwards (and then computes the query exactly another way).
#pragma once

#include <cstdint>
#include <cstring>

#include "mergepath/types.h"

#include "pg_mergepath.h"

extern "C" {
#include "utils/uuid.h"
}

// How one column is turned into key bits.
enum class MpCodec : uint8_t {
    Bool,     // 1 bit
    Char,     // "char": 8 bits
    Int16,    // sign-flipped
    Int32,    // int4, date
    UInt32,   // oid
    Int64,    // int8, time, timestamp, timestamptz, money
    UInt64,   // pg_lsn
    Uuid,     // 128 bits, big-endian
    Hashed,   // not lossless: contributes to the row hash only
    // join keys only (join_keys.h): values of two types that compare equal across them
    // encode alike; never decoded
    Int16As64,  // int2 widened to a sign-flipped int8
    Int32As64,  // int4 widened to a sign-flipped int8
    Float8,     // float8, -0 as 0 and every NaN as one NaN, order kept
    Float4As8,  // float4 widened (exactly) to float8, then as Float8
    ImageHash,  // the 64-bit hash of the value's canonical byte image (images.h): equal
                // values hash alike, different ones may collide, so the join rechecks
                // each pair with the clause's operator
    Numeric64,   // numeric(p, s) on both sides: value * 10^scale as a sign-flipped integer
    Numeric128,  // (numeric_keys.h), in 64 bits when it has up to 18 digits, else in 128
    ScaledInt16,  // an integer column cast to numeric against a numeric(p, s) one: its
    ScaledInt32,  // value * 10^scale as the numeric side's key (numeric_keys.h), in the
    ScaledInt64,  // key column's width
};

struct MpKeyColumn {
    Oid type;
    Oid collation;
    Oid eqop;
    MpCodec codec;
    int bits;       // width in the lossless key (0 for Hashed)
    int main_bits;  // width in a main key: `bits`, or fewer (ranged keys)
    uint64_t main_base;  // subtracted from the encoded value in a main key (ranged keys)
    FmgrInfo hash;  // extended hash support function (hashed keys)
};

struct MpKeyPlan {
    int ncols;
    bool lossless;
    int key_bits;      // 32, 64 or 128
    bool ranged;       // main keys narrowed to column ranges (see the file comment)
    int hash_bits;     // 64, or fewer under pg_mergepath.debug_hash_bits
    MpKeyColumn* cols;
};

// Planner: can these columns be keyed exactly? Fills *choice, or returns false with a
// palloc'd reason. hashable: the SortGroupClause's flag.
bool mp_keys_choose(int ncols, const Oid* types, const Oid* collations, const Oid* eqops, const bool* hashable,
                    MpKeyChoice* choice, char** why_not);

// The encoded values (mp_encode_column) a column is expected to hold, from the
// planner's statistics (column_ranges.h); known = false when there are none.
struct MpExpectedRange {
    bool known;
    uint64_t lo, hi;
};

// Planner: narrows a lossless choice to ranges around the expected values (see
// "Ranged keys" above) when that makes the key narrower; sets choice->ranges (palloc'd)
// and key_bits, or returns false and leaves the choice as it was.
bool mp_keys_narrow(MpKeyChoice* choice, int ncols, const Oid* types, const Oid* eqops,
                    const MpExpectedRange* expected);

// Executor: fills plan (columns palloc'd in CurrentMemoryContext) for the decision
// the planner made.
void mp_keys_init(MpKeyPlan* plan, int ncols, const Oid* types, const Oid* collations, const Oid* eqops,
                  const MpKeyChoice* choice);

// The 64-bit hash of one row (NULLs included).
uint64_t mp_hash_row(const MpKeyPlan* plan, const Datum* values, const bool* isnull);

// ---- lossless encoding --------------------------------------------------------------

using mp_u128 = unsigned __int128;

// The lossless codec of a column compared with eqop (its type's default equality), or
// Hashed; and a codec's width in bits.
MpCodec mp_lossless_codec(Oid type, Oid eqop);
int mp_codec_bits(MpCodec codec);

uint64_t mp_encode_column(MpCodec codec, Datum value);          // codecs up to 64 bits
mp_u128 mp_encode_uuid(Datum value);
Datum mp_decode_uuid(mp_u128 bits, pg_uuid_t* into);            // writes the uuid into `into`

inline void mp_key_from_u128(mp_u128 v, uint32_t* k) { *k = uint32_t(v); }
inline void mp_key_from_u128(mp_u128 v, uint64_t* k) { *k = uint64_t(v); }
inline void mp_key_from_u128(mp_u128 v, mergepath::Key128* k) {
    k->hi = uint64_t(v >> 64);
    k->lo = uint64_t(v);
}
inline mp_u128 mp_key_to_u128(uint32_t k) { return k; }
inline mp_u128 mp_key_to_u128(uint64_t k) { return k; }
inline mp_u128 mp_key_to_u128(const mergepath::Key128& k) { return (mp_u128(k.hi) << 64) | k.lo; }

inline mp_u128 mp_encode_value(const MpKeyColumn& col, Datum value) {
    return col.codec == MpCodec::Uuid ? mp_encode_uuid(value) : mp_u128(mp_encode_column(col.codec, value));
}

// A column's bits in a main key: its encoded value less the range's base; false when
// the value lies outside the range (ranged keys only).
inline bool mp_main_bits_of(const MpKeyColumn& col, mp_u128 encoded, mp_u128* bits) {
    if (col.main_bits == col.bits) {
        *bits = encoded;
        return true;
    }
    uint64_t offset = uint64_t(encoded) - col.main_base;  // below the base: wraps, so too large
    *bits = offset;
    return offset < (uint64_t(1) << col.main_bits);
}

// The main key of a row without NULLs; false when a value lies outside its column's
// range, and the row takes mp_encode_null_row's key instead (ranged keys).
template <class K>
inline bool mp_encode_row(const MpKeyPlan* plan, const Datum* values, K* key) {
    if (plan->ncols == 1 && plan->cols[0].codec != MpCodec::Uuid) {  // the common case, without 128-bit shifts
        mp_u128 v;
        if (!mp_main_bits_of(plan->cols[0], mp_encode_column(plan->cols[0].codec, values[0]), &v)) return false;
        mp_key_from_u128(v, key);
        return true;
    }
    mp_u128 acc = 0;
    for (int c = 0; c < plan->ncols; ++c) {
        const MpKeyColumn& col = plan->cols[c];
        mp_u128 v;
        if (!mp_main_bits_of(col, mp_encode_value(col, values[c]), &v)) return false;
        acc = col.main_bits == 128 ? v : (acc << col.main_bits) | v;
    }
    mp_key_from_u128(acc, key);
    return true;
}

// The null-layout key of a row with at least one NULL (see the file comment).
inline mergepath::Key128 mp_encode_null_row(const MpKeyPlan* plan, const Datum* values, const bool* isnull) {
    mp_u128 mask = 0, acc = 0;
    for (int c = 0; c < plan->ncols; ++c) {
        const MpKeyColumn& col = plan->cols[c];
        mask = (mask << 1) | (isnull[c] ? 1 : 0);
        if (isnull[c]) continue;
        mp_u128 v = mp_encode_value(col, values[c]);
        acc = col.bits == 128 ? v : (acc << col.bits) | v;
    }
    mergepath::Key128 key;
    mp_key_from_u128((mask << (128 - plan->ncols)) | acc, &key);
    return key;
}

// A column's value from its bits (uuid: into `uuid_buf`, which the caller keeps).
// The sign bits the signed integer codecs flip (so that keys order as unsigned).
constexpr uint64_t kSign64 = uint64_t(1) << 63;
constexpr uint32_t kSign32 = uint32_t(1) << 31;

// The value of a lossless key of up to 64 bits (inline: it runs once per emitted value).
inline Datum mp_decode_column(MpCodec codec, uint64_t bits) {
    switch (codec) {
        case MpCodec::Bool: return BoolGetDatum(bits != 0);
        case MpCodec::Char: return CharGetDatum(char(uint8_t(bits)));
        case MpCodec::Int16: return Int16GetDatum(int16(uint16_t(bits ^ 0x8000u)));
        case MpCodec::Int32: return Int32GetDatum(int32(uint32_t(bits) ^ kSign32));
        case MpCodec::UInt32: return ObjectIdGetDatum(Oid(bits));
        case MpCodec::Int64: return Int64GetDatum(int64(bits ^ kSign64));
        case MpCodec::UInt64: return Int64GetDatum(int64(bits));
        default: break;
    }
    elog(ERROR, "pg_mergepath: codec %d is not a 64-bit lossless codec", int(codec));
    return 0;
}

inline Datum mp_decode_value(const MpKeyColumn& col, mp_u128 bits, pg_uuid_t* uuid_buf) {
    if (col.codec == MpCodec::Uuid) return mp_decode_uuid(bits, uuid_buf);
    return mp_decode_column(col.codec, uint64_t(bits));
}

inline mp_u128 mp_low_bits(mp_u128 acc, int bits) {
    return bits == 128 ? acc : acc & ((mp_u128(1) << bits) - 1);
}

// Rebuilds the row of a main key. uuid_bufs: one pg_uuid_t per column, where uuid
// values are written (they must outlive the row's use).
template <class K>
inline void mp_decode_row(const MpKeyPlan* plan, const K& key, Datum* values, bool* isnull, pg_uuid_t* uuid_bufs) {
    mp_u128 acc = mp_key_to_u128(key);
    for (int c = plan->ncols - 1; c >= 0; --c) {
        const MpKeyColumn& col = plan->cols[c];
        mp_u128 bits = mp_low_bits(acc, col.main_bits);
        if (col.main_bits != col.bits) bits = uint64_t(bits) + col.main_base;
        isnull[c] = false;
        values[c] = mp_decode_value(col, bits, &uuid_bufs[c]);
        acc = col.main_bits == 128 ? 0 : acc >> col.main_bits;
    }
}

// Rebuilds the row of a null-layout key.
inline void mp_decode_null_row(const MpKeyPlan* plan, const mergepath::Key128& key, Datum* values, bool* isnull,
                               pg_uuid_t* uuid_bufs) {
    mp_u128 all = mp_key_to_u128(key);
    mp_u128 mask = all >> (128 - plan->ncols);
    mp_u128 acc = all & ((mp_u128(1) << (128 - plan->ncols)) - 1);
    for (int c = plan->ncols - 1; c >= 0; --c, mask >>= 1) {
        const MpKeyColumn& col = plan->cols[c];
        isnull[c] = (mask & 1) != 0;
        values[c] = isnull[c] ? (Datum)0 : mp_decode_value(col, mp_low_bits(acc, col.bits), &uuid_bufs[c]);
        if (!isnull[c]) acc = col.bits == 128 ? 0 : acc >> col.bits;
    }
}
