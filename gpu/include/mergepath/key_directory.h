// key_directory.h — finding single keys in a sorted key array without a binary search
// over all of it: a radix directory over the array's key span. The span [min, max] is
// cut into a power-of-two number of buckets of equal width (bucket b holds the keys
// whose offset from min, shifted right by `shift`, is b); first[b] is the first
// position whose key lies in bucket b or later (first[buckets] = n). Equal keys always
// fall in one bucket, so the equal range of a needle is found by a binary search of
// its bucket alone: O(1) expected for keys spread evenly over the span, never worse
// than a binary search of the whole array for clustered ones.
//
// Used where the needles come unsorted, one at a time, against a small sorted side
// (the join node's streamed outer side: each outer key's range of equal keys in the
// sorted inner one), where the vectorized sorted search would need the needles sorted
// first. Building is one pass over the sorted keys into caller-provided memory (the
// extension puts it into shared memory for every participant), whole or in parts of
// the bucket range that threads fill at once; lookups only read.
// Host code, no allocation, no exceptions.
#pragma once

#include <cstdint>

#include "mergepath/types.h"

namespace mergepath {

// A key as an unsigned 128-bit number (order-preserving), for offsets from the minimum.
inline unsigned __int128 key_as_u128(uint32_t k) { return k; }
inline unsigned __int128 key_as_u128(uint64_t k) { return k; }
inline unsigned __int128 key_as_u128(const Key128& k) { return ((unsigned __int128)k.hi << 64) | k.lo; }

// The directory's shape for n sorted keys: the bucket count (a power of two, at least
// n rounded up, at least 1), and first[] needs buckets + 1 elements.
inline uint64_t key_directory_buckets(uint64_t n) {
    uint64_t b = 1;
    while (b < n) b <<= 1;
    return b;
}

template <class K>
struct KeyDirectory {
    const K* keys = nullptr;         // sorted ascending
    uint64_t n = 0;
    const uint64_t* first = nullptr;  // buckets + 1 positions
    uint64_t buckets = 0;
    K min{};
    int shift = 0;  // bucket of k = (k - min) >> shift

    // The bucket of a key within [min, max of keys]; false when it lies outside.
    bool bucket_of(const K& key, uint64_t* bucket) const {
        if (n == 0 || key < min) return false;
        unsigned __int128 offset = key_as_u128(key) - key_as_u128(min);
        unsigned __int128 b = shift >= 128 ? 0 : offset >> shift;
        if (b >= buckets) return false;
        *bucket = uint64_t(b);
        return true;
    }

    // [*lower, *upper): the positions of the keys equal to `key`.
    void equal_range(const K& key, uint64_t* lower, uint64_t* upper) const {
        uint64_t b;
        *lower = *upper = 0;
        if (bucket_of(key, &b)) equal_range_in(b, key, lower, upper);
    }

    // The same for a key whose bucket is known (bucket_of), e.g. found in an earlier
    // pass over a batch of needles that prefetched first[b] and the bucket's first key.
    void equal_range_in(uint64_t b, const K& key, uint64_t* lower, uint64_t* upper) const {
        uint64_t lo = first[b], hi = first[b + 1];
        while (lo < hi) {  // first position with !(keys[p] < key)
            uint64_t mid = lo + (hi - lo) / 2;
            if (keys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        *lower = lo;
        hi = first[b + 1];
        while (lo < hi) {  // first position with key < keys[p]
            uint64_t mid = lo + (hi - lo) / 2;
            if (key < keys[mid]) hi = mid;
            else lo = mid + 1;
        }
        *upper = lo;
    }
};

// The directory of n sorted keys whose first[] is already built (buckets from
// key_directory_buckets(n)): the minimum, and the shift that makes the span's largest
// offset land in the last bucket at most. Every reader of a shared directory makes its
// own view this way.
template <class K>
KeyDirectory<K> key_directory_view(const K* sorted, uint64_t n, uint64_t buckets, const uint64_t* first) {
    KeyDirectory<K> d;
    d.keys = sorted;
    d.n = n;
    d.first = first;
    d.buckets = buckets;
    if (n == 0) return d;
    d.min = sorted[0];
    unsigned __int128 span = key_as_u128(sorted[n - 1]) - key_as_u128(d.min);
    while (d.shift < 128 && (span >> d.shift) >= buckets) ++d.shift;
    return d;
}

// The first position whose key lies in bucket b or later (n when none does), by a
// binary search over the keys: where a part of the directory's filling starts.
template <class K>
uint64_t key_directory_first_in(const KeyDirectory<K>& d, uint64_t b) {
    uint64_t lo = 0, hi = d.n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2, kb = 0;
        d.bucket_of(d.keys[mid], &kb);  // (every key of the array lies in the span)
        if (kb < b) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Fills first[b0 .. b1) (b1 <= buckets + 1) of a directory whose view is d: one pass
// over the keys of those buckets, from the first found by binary search. Parts that
// cover [0, buckets] fill all of first[], in any order or at once (each writes only its
// own entries): a large directory is built on several threads this way.
template <class K>
void key_directory_fill(const KeyDirectory<K>& d, uint64_t b0, uint64_t b1, uint64_t* first) {
    uint64_t b = b0;
    for (uint64_t p = key_directory_first_in(d, b0); p < d.n && b < b1; ++p) {
        uint64_t kb = 0;
        d.bucket_of(d.keys[p], &kb);
        while (b <= kb && b < b1) first[b++] = p;  // the buckets up to p's own start at p
    }
    while (b < b1) first[b++] = d.n;
}

// Builds the directory of n sorted keys: fills first[0 .. buckets] and returns the view.
template <class K>
KeyDirectory<K> key_directory_build(const K* sorted, uint64_t n, uint64_t buckets, uint64_t* first) {
    KeyDirectory<K> d = key_directory_view(sorted, n, buckets, first);
    key_directory_fill(d, 0, buckets + 1, first);
    return d;
}

}  // namespace mergepath
