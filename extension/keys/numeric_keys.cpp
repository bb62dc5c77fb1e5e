// numeric_keys.cpp — the scaled-integer join key of numeric(p, s) columns (see
// numeric_keys.h).
//
// A numeric's bytes (the on-disk format of numeric.c, unchanged since PostgreSQL 9.1):
// after the varlena header, a 16-bit header word. Its top two bits say which form follows:
//   11  a special value: the top four bits say NaN (1100), +Infinity (1101), -Infinity (1111);
//   10  the short form: bit 13 the sign, bits 7-12 the display scale, bit 6 the weight's
//       sign and bits 0-5 its magnitude (a 7-bit two's complement), then the digits;
//   0x  the long form: bit 14 the sign (the word also holds the display scale), then a
//       16-bit weight, then the digits.
// The digits are base-10000 int16s, most significant first; digit i is worth
// 10000^(weight - i). The display scale does not change the value (1.5 = 1.50), and the
// digits hold no leading or trailing zero digit words, so each value has one set of them.
#include "numeric_keys.h"

#include <array>

extern "C" {
#include "fmgr.h"
}

namespace {

constexpr int kMaxDigits128 = 38;  // 10^38 < 2^127
constexpr int kMaxDigits64 = 18;   // 10^18 < 2^63

// The declared precision and scale of a numeric type modifier (numeric.c's layout since
// PostgreSQL 15: precision in the high 16 bits, the scale as an 11-bit signed number).
bool declared(int32 typmod, int* precision, int* scale) {
    if (typmod < int32(VARHDRSZ)) return false;
    int32 t = typmod - VARHDRSZ;
    *precision = (t >> 16) & 0xffff;
    *scale = ((t & 0x7ff) ^ 0x400) - 0x400;
    return true;
}

// 10^0 .. 10^38, a table (a key is encoded per row read: a loop of 128-bit products, and
// a 128-bit division per digit word, were a sixth of a 16-process numeric join's CPU).
constexpr std::array<mp_u128, kMaxDigits128 + 1> kPowersOfTen = [] {
    std::array<mp_u128, kMaxDigits128 + 1> p{};
    p[0] = 1;
    for (int e = 1; e <= kMaxDigits128; e++) p[e] = p[e - 1] * 10;
    return p;
}();

mp_u128 power_of_ten(int e) {
    if (e <= kMaxDigits128) return kPowersOfTen[e];
    mp_u128 p = kPowersOfTen[kMaxDigits128];  // (past 2^128: wraps, as it always did)
    for (e -= kMaxDigits128; e > 0; e--) p *= 10;
    return p;
}

[[noreturn]] void out_of_declared_range() {
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("pg_mergepath: a numeric join key lies outside its column's declared precision and scale")));
    pg_unreachable();
}

// The key bits of the integer +-magnitude (below 10^18 or 10^38): two's complement in
// `bits` bits, its sign bit flipped.
mp_u128 signed_key(bool negative, mp_u128 magnitude, int bits) {
    mp_u128 encoded = (negative ? mp_u128(0) - magnitude : magnitude) ^ (mp_u128(1) << (bits - 1));
    return bits == 64 ? encoded & (~mp_u128(0) >> 64) : encoded;
}

// The 16-bit word at p (a packed varlena's data need not be aligned).
uint16 word_at(const char* p) {
    uint16 w;
    memcpy(&w, p, sizeof(w));
    return w;
}

}  // namespace

bool mp_numeric_key_fits(const int32 typmods[2], int* scale, int* bits) {
    int p[2], s[2];
    for (int side = 0; side < 2; side++)
        if (!declared(typmods[side], &p[side], &s[side])) return false;
    int common_scale = Max(s[0], s[1]);
    int digits = Max(Max(p[0] - s[0], p[1] - s[1]) + common_scale, 1);
    if (digits > kMaxDigits128) return false;
    *scale = common_scale;
    *bits = digits <= kMaxDigits64 ? 64 : 128;
    return true;
}

namespace {

// A finite numeric's digits (numeric.c's packed layout: a header word, for the long
// form a weight word, then base-10000 digit words) as |value| * 10^scale, an integer
// below `limit`: false when it has decimals below the scale or reaches the limit.
bool scaled_magnitude(const char* data, int len, uint16 header, int scale, mp_u128 limit, bool* negative,
                      mp_u128* magnitude) {
    const bool is_short = (header & 0x8000) != 0;
    *negative = is_short ? (header & 0x2000) != 0 : (header & 0xC000) == 0x4000;
    const int weight = is_short ? ((header & 0x0040) ? int(header & 0x003F) - 64 : int(header & 0x003F))
                                : int(int16(word_at(data + 2)));
    const int first = is_short ? 2 : 4;
    const int ndigits = (len - first) / 2;
    *magnitude = 0;
    for (int i = 0; i < ndigits; i++) {
        const int digit = int16(word_at(data + first + 2 * i));
        if (digit == 0) continue;
        const int place = 4 * (weight - i) + scale;  // the digit word's units times 10^scale
        mp_u128 term;
        if (place >= 0) {
            if (place > kMaxDigits128) return false;
            const mp_u128 unit = power_of_ten(place);
            // a digit word (< 10^4) times 10^34 or less stays below 10^38 < 2^128: only a
            // higher place needs the division to see that the product passes the limit
            if (place > kMaxDigits128 - 4 && mp_u128(digit) > (limit - 1) / unit) return false;
            term = mp_u128(digit) * unit;
        } else {
            if (place < -4 || digit % int(power_of_ten(-place)) != 0) return false;  // decimals below the scale
            term = mp_u128(digit / int(power_of_ten(-place)));
        }
        if (term >= limit - *magnitude) return false;
        *magnitude += term;
    }
    return true;
}

bool is_special(uint16 header) { return (header & 0xC000) == 0xC000; }  // NaN, +-Infinity

// An odd multiplier: x -> x * it mod 2^63 is a bijection of 63-bit integers, which
// spreads exact keys of nearby values over the whole key space (the streamed outer
// side's key directory cuts the span into equal buckets; the GPU sorts by radix).
constexpr uint64 kExactSpread = 0x9E3779B97F4A7C15ull;

}  // namespace

mp_u128 mp_encode_numeric_scaled(Datum value, int scale, int bits) {
    const mp_u128 sign_bit = mp_u128(1) << (bits - 1);
    const mp_u128 largest = sign_bit - 1;  // the signed maximum: NaN; one below it: +Infinity
    struct varlena* stored = (struct varlena*)DatumGetPointer(value);
    struct varlena* v = pg_detoast_datum_packed(stored);  // a copy only when toasted
    const char* data = VARDATA_ANY(v);
    const int len = int(VARSIZE_ANY_EXHDR(v));
    const uint16 header = word_at(data);
    mp_u128 encoded;
    if (is_special(header)) {
        const uint16 special = header & 0xF000;
        const mp_u128 signed_value = special == 0xC000 ? largest : special == 0xD000 ? largest - 1 : sign_bit;
        encoded = signed_value ^ sign_bit;  // -Infinity: the signed minimum, 0 once flipped
    } else {
        bool negative;
        mp_u128 magnitude;
        // a declared column has no decimals below its scale and no digits past its precision
        if (!scaled_magnitude(data, len, header, scale, power_of_ten(bits == 64 ? kMaxDigits64 : kMaxDigits128),
                              &negative, &magnitude))
            out_of_declared_range();
        encoded = signed_key(negative, magnitude, bits);
    }
    if (v != stored) pfree(v);
    return encoded;
}

bool mp_numeric_exact_key(Datum value, uint64* key) {
    struct varlena* stored = (struct varlena*)DatumGetPointer(value);
    struct varlena* v = pg_detoast_datum_packed(stored);
    const char* data = VARDATA_ANY(v);
    const uint16 header = word_at(data);
    bool negative = false, exact = false;
    mp_u128 magnitude = 0;
    if (!is_special(header))
        exact = scaled_magnitude(data, int(VARSIZE_ANY_EXHDR(v)), header, kMpNumericExactScale,
                                 mp_u128(kMpNumericExactLimit), &negative, &magnitude);
    if (v != stored) pfree(v);
    if (!exact) return false;
    // value * 10^scale, in (-2^62, 2^62), moved into [0, 2^63) and spread there (one to
    // one), then the exact class's bit
    const uint64 offset = uint64(1) << 62;
    const uint64 shifted = negative ? offset - uint64(magnitude) : offset + uint64(magnitude);
    *key = kMpNumericExactBit | ((shifted * kExactSpread) & ~kMpNumericExactBit);
    return true;
}

mp_u128 mp_encode_scaled_integer(int64 value, int scale, int bits) {
    const mp_u128 magnitude = mp_u128(value < 0 ? -(__int128)value : (__int128)value) * power_of_ten(scale);
    return signed_key(value < 0, magnitude, bits);
}

int32 mp_numeric_integer_typmod(int precision) { return int32((precision << 16) | 0) + VARHDRSZ; }
