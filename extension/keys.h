// keys.h — how a row of a set operation becomes a sort key (see keys.cpp for the
// choice of encoding and the per-type rules).
//
// Lossless keys: each column's value is mapped to an unsigned integer of the type's
// width such that equal values (by the grouping equality of the set operation) give
// equal integers and different values different ones, order preserved; the columns
// are packed first-column-most-significant into a 32-, 64- or 128-bit key. The row
// can be rebuilt from the key, so no copy of the input rows is kept. Rows with a NULL
// in any column take another route (the executor's exact in-backend table) — except
// when a column has no hash support (money), which that table needs: then every
// column carries a NULL bit above its value bits, and NULLs are keys too.
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
};

struct MpKeyColumn {
    Oid type;
    Oid collation;
    Oid eqop;
    MpCodec codec;
    int bits;       // width in the lossless key (0 for Hashed)
    FmgrInfo hash;  // extended hash support function (hashed keys)
};

struct MpKeyPlan {
    int ncols;
    bool lossless;
    bool null_bits;    // lossless with a NULL bit per column (see above)
    int key_bits;      // 32, 64 or 128
    int hash_bits;     // 64, or fewer under pg_mergepath.debug_hash_bits
    MpKeyColumn* cols;
};

// Planner: can these columns be keyed exactly? Fills *choice, or returns false with a
// palloc'd reason. hashable: the SortGroupClause's flag.
bool mp_keys_choose(int ncols, const Oid* types, const Oid* collations, const Oid* eqops, const bool* hashable,
                    MpKeyChoice* choice, char** why_not);

// Executor: fills plan (columns palloc'd in CurrentMemoryContext) for the decision
// the planner made.
void mp_keys_init(MpKeyPlan* plan, int ncols, const Oid* types, const Oid* collations, const Oid* eqops,
                  const MpKeyChoice* choice);

// The 64-bit hash of one row (NULLs included).
uint64_t mp_hash_row(const MpKeyPlan* plan, const Datum* values, const bool* isnull);

// ---- lossless encoding --------------------------------------------------------------

using mp_u128 = unsigned __int128;

uint64_t mp_encode_column(MpCodec codec, Datum value);          // codecs up to 64 bits
Datum mp_decode_column(MpCodec codec, uint64_t bits);           // idem
mp_u128 mp_encode_uuid(Datum value);
Datum mp_decode_uuid(mp_u128 bits);                             // palloc's the uuid

inline void mp_key_from_u128(mp_u128 v, uint32_t* k) { *k = uint32_t(v); }
inline void mp_key_from_u128(mp_u128 v, uint64_t* k) { *k = uint64_t(v); }
inline void mp_key_from_u128(mp_u128 v, mergepath::Key128* k) {
    k->hi = uint64_t(v >> 64);
    k->lo = uint64_t(v);
}
inline mp_u128 mp_key_to_u128(uint32_t k) { return k; }
inline mp_u128 mp_key_to_u128(uint64_t k) { return k; }
inline mp_u128 mp_key_to_u128(const mergepath::Key128& k) { return (mp_u128(k.hi) << 64) | k.lo; }

// The lossless key of a row (without NULLs unless plan->null_bits).
template <class K>
inline K mp_encode_row(const MpKeyPlan* plan, const Datum* values, const bool* isnull) {
    K key;
    if (plan->ncols == 1 && !plan->null_bits && plan->cols[0].codec != MpCodec::Uuid) {
        mp_key_from_u128(mp_encode_column(plan->cols[0].codec, values[0]), &key);
        return key;
    }
    mp_u128 acc = 0;
    for (int c = 0; c < plan->ncols; ++c) {
        const MpKeyColumn& col = plan->cols[c];
        if (plan->null_bits) {
            acc = (acc << 1) | (isnull[c] ? 1 : 0);
            acc <<= col.bits;
            if (!isnull[c]) acc |= mp_encode_column(col.codec, values[c]);
            continue;
        }
        mp_u128 v = col.codec == MpCodec::Uuid ? mp_encode_uuid(values[c]) : mp_encode_column(col.codec, values[c]);
        acc = col.bits == 128 ? v : (acc << col.bits) | v;
    }
    mp_key_from_u128(acc, &key);
    return key;
}

// Rebuilds the row of a lossless key (by-reference values palloc'd in CurrentMemoryContext).
template <class K>
inline void mp_decode_row(const MpKeyPlan* plan, const K& key, Datum* values, bool* isnull) {
    mp_u128 acc = mp_key_to_u128(key);
    for (int c = plan->ncols - 1; c >= 0; --c) {
        const MpKeyColumn& col = plan->cols[c];
        if (col.codec == MpCodec::Uuid) {
            isnull[c] = false;
            values[c] = mp_decode_uuid(acc);
            continue;
        }
        uint64_t bits = uint64_t(acc & ((mp_u128(1) << col.bits) - 1));
        acc >>= col.bits;
        isnull[c] = plan->null_bits && (acc & 1);
        if (plan->null_bits) acc >>= 1;
        values[c] = isnull[c] ? (Datum)0 : mp_decode_column(col.codec, bits);
    }
}
