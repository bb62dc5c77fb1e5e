// image_hash.h — the 64-bit hash of a canonical byte image (images.h), the key that
// image-keyed set operations and joins sort by. Equal images hash equal; different ones
// may collide, and the nodes compare the bytes of equal hashes (image_groups.cpp,
// join_emit.cpp), so what it needs is speed and spread, not strength: 16 bytes at a time
// folded through a 64 x 64 -> 128-bit multiply (the product's halves xor-ed), plus the
// two words themselves (a word that makes the product 0 then still leaves the other
// one's mark), added to the rotated, multiplied state (which no block can erase); the
// last 0-15 bytes as one more block, then the length and a final fold.
// (PostgreSQL's hash_bytes_extended took 5% of a 16-participant text join's CPU time
// on the GPU host, for images of about 25 bytes.) Pure C++: helper threads may call it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mp_image_hash_detail {

constexpr uint64_t kSeed = 0x9E3779B97F4A7C15ull;  // odd constants with well-mixed bits
constexpr uint64_t kOdd1 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kOdd2 = 0x165667B19E3779F9ull;
constexpr uint64_t kOdd3 = 0xD6E8FEB86659FD93ull;

inline uint64_t fold(uint64_t a, uint64_t b) {
    const unsigned __int128 product = (unsigned __int128)a * b;
    return uint64_t(product) ^ uint64_t(product >> 64);
}

inline uint64_t word(const unsigned char* p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

// The last n < 8 bytes as one word, every byte in it (4..7: two overlapping halves;
// 1..3: the first, middle and last byte); with the length hashed too, distinct tails of
// one length give distinct words.
inline uint64_t tail(const unsigned char* p, size_t n) {
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return (uint64_t(hi) << 32) | lo;
    }
    if (n > 0) return (uint64_t(p[0]) << 16) | (uint64_t(p[n / 2]) << 8) | p[n - 1];
    return 0;
}

}  // namespace mp_image_hash_detail

inline uint64_t mp_image_hash(const void* data, size_t len) {
    using namespace mp_image_hash_detail;
    const unsigned char* p = (const unsigned char*)data;
    uint64_t h = kSeed ^ (len * kOdd1);
    auto block = [&h](uint64_t a, uint64_t b) {
        h = ((h << 29) | (h >> 35)) * kOdd3 + fold(a ^ kOdd1, b ^ kOdd2) + (a ^ ((b << 32) | (b >> 32)));
    };
    size_t n = len;
    for (; n >= 16; p += 16, n -= 16) block(word(p), word(p + 8));
    if (n >= 8) block(word(p), tail(p + 8, n - 8));
    else block(tail(p, n), 0);
    return h ^ fold(h ^ len, kSeed);
}
