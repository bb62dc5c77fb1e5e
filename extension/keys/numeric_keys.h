// numeric_keys.h — an exact join key for numeric columns of a declared precision and
// scale (numeric(p, s)): the value times 10^S as an integer, S the larger scale of the
// two sides.
//
// PostgreSQL stores a numeric(p, s) column's values rounded to s decimals and with fewer
// than p - s digits before the point (numeric.c: apply_typmod, on every insert, update,
// COPY and rewrite). So every value times 10^S is an integer below 10^D, where D is the
// larger p - s + S of the two sides: when D <= 18 it fits a signed 64-bit integer, when
// D <= 38 a 128-bit one. Equal values (numeric_eq: 1.5 = 1.50) give equal integers and
// different values different ones, so such a key needs no recheck, unlike the image hash
// of an unconstrained numeric (join_keys.h). NaN (numeric_eq: NaN = NaN) and the
// infinities take integers no value reaches. A value that breaks its column's declared
// precision cannot be stored; should one arrive anyway, encoding it raises an ERROR
// rather than give it a key that might equal another value's. An integer column that
// the planner casts to numeric to compare it with one (`numeric_col = int_col`) is
// keyed alike: its values are those of numeric(5, 0), (10, 0) or (19, 0).
#pragma once

#include "keys.h"

// Planner: the key of numeric columns with these type modifiers (-1: undeclared, or not
// to be trusted): false when one side has none or the integers need more than 128 bits;
// else *scale = S and *bits = 64 or 128.
bool mp_numeric_key_fits(const int32 typmods[2], int* scale, int* bits);

// The key bits of a numeric value (a Datum of type numeric, maybe packed or toasted) as
// a bits-wide sign-flipped integer of value * 10^scale.
mp_u128 mp_encode_numeric_scaled(Datum value, int scale, int bits);

// The 64-bit join key of a numeric column without a declared precision and scale
// (keyed by image hash, join_keys.h), when its value allows: value * 10^4 exactly, an
// integer below 2^62 in magnitude (so |value| < ~4.6 * 10^14 with at most 4 decimals),
// mapped one to one into 63 bits, with the top bit set; such keys are equal exactly
// when the values are (numeric_eq: 1.5 = 1.50), so a pair of them needs no recheck.
// False for any other value (NaN, the infinities, more decimals, larger), whose key is
// then its image hash with the top bit clear: a hash never equals an exact key.
constexpr int kMpNumericExactScale = 4;
constexpr uint64 kMpNumericExactLimit = uint64(1) << 62;
constexpr uint64 kMpNumericExactBit = uint64(1) << 63;
bool mp_numeric_exact_key(Datum value, uint64* key);
// Whether a key of such a column is exact (has the top bit), not an image hash.
inline bool mp_numeric_key_is_exact(uint64 key) { return (key & kMpNumericExactBit) != 0; }

// The same key of an integer compared as a numeric (an int2 / int4 / int8 column cast to
// numeric, which the planner adds to `numeric_col = int_col`): numeric(5, 0), (10, 0) or
// (19, 0) for mp_numeric_key_fits; scale >= 0.
mp_u128 mp_encode_scaled_integer(int64 value, int scale, int bits);

// The type modifier of numeric(precision, 0).
int32 mp_numeric_integer_typmod(int precision);
