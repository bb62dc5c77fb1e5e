// types.h — value types shared by the whole mergepath library: the key types the
// algorithms sort and compare (32-, 64- and 128-bit unsigned), the set-operation
// enum, the source-tag encoding of result indices, a key's range of equal keys in a
// join's other side, and the library's exceptions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#define MP_HD __host__ __device__ __forceinline__
#else
#define MP_HD inline
#endif

namespace mergepath {

// A 128-bit unsigned key: two 64-bit words compared lexicographically (hi first).
struct Key128 {
    uint64_t hi;
    uint64_t lo;
};

MP_HD bool operator<(const Key128& x, const Key128& y) {
    return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo);
}
MP_HD bool operator==(const Key128& x, const Key128& y) { return x.hi == y.hi && x.lo == y.lo; }
MP_HD bool operator!=(const Key128& x, const Key128& y) { return !(x == y); }
MP_HD bool operator>(const Key128& x, const Key128& y) { return y < x; }
MP_HD bool operator<=(const Key128& x, const Key128& y) { return !(y < x); }
MP_HD bool operator>=(const Key128& x, const Key128& y) { return !(x < y); }

// The multiset operations, with C++ std::set_* semantics by key + rank: an element
// of rank r (its r-th occurrence) in A matches the element of rank r in B.
enum class SetOp { Intersection, Difference, Union, SymmetricDifference };

// Result indices of merge and the set operations name a position in A or in B.
// Positions in B carry this bit; positions in A do not.
constexpr uint64_t kFromB = uint64_t(1) << 63;
MP_HD bool is_from_b(uint64_t tagged) { return (tagged & kFromB) != 0; }
MP_HD uint64_t untag(uint64_t tagged) { return tagged & ~kFromB; }

// The equal keys of one A key in sorted B: positions [lower, lower + count).
struct JoinRange {
    uint64_t lower;
    uint64_t count;
};

// Every failure the library reports is a mergepath::Error (never abort()).
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};
// The memory budget was exceeded or the device ran out of memory.
class OutOfMemory : public Error {
public:
    explicit OutOfMemory(const std::string& what) : Error(what) {}
};
// A CUDA backend was requested but no usable GPU/driver is present.
class NoDevice : public Error {
public:
    explicit NoDevice(const std::string& what) : Error(what) {}
};
// The interrupt callback asked the operation to stop.
class Cancelled : public Error {
public:
    explicit Cancelled(const std::string& what) : Error(what) {}
};

}  // namespace mergepath
