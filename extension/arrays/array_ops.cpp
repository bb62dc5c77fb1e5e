// array_ops.cpp — SQL functions over sorted arrays, on the library's CPU backend (the
// GPU for large arrays is still to come: issue 31). Each element is mapped to an order-preserving 64-bit key
// (keys.h codecs: equal elements give equal keys, order kept; float -0 as 0, NaNs as
// one value, largest), the library runs the seed algorithm over the keys, and the
// result is built from the input elements its indices name:
//   merge(a, b)           Merge Path: every element of both, in order (A's first on ties)
//   intersect_all(a, b)   Balanced Path: min(m, n) copies of an element found m and n times
//   except_all(a, b)      max(m - n, 0) copies
//   multiset_union(a, b)  max(m, n) copies (std::set_union)
//   sorted_search(haystack, needles, side)  vectorized sorted search: for each needle,
//                         the number of haystack elements before it ('lower': before
//                         the equal ones; 'upper': after them)
// Inputs must be one-dimensional, sorted ascending and without NULLs (an ERROR names the
// first offending position); both arrays share one element type (anyarray).
#include <cstring>

#include "device.h"
#include "guard.h"
#include "keys.h"
#include "mergepath/context.h"
#include "mergepath/ops.h"

extern "C" {
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(mp_array_merge);
PG_FUNCTION_INFO_V1(mp_array_intersect_all);
PG_FUNCTION_INFO_V1(mp_array_except_all);
PG_FUNCTION_INFO_V1(mp_array_multiset_union);
PG_FUNCTION_INFO_V1(mp_array_sorted_search);
}

namespace {

// An array argument: its elements and their keys.
struct SortedArray {
    Oid type;
    int16 typlen;
    bool typbyval;
    char typalign;
    Datum* values;
    int count;
    uint64* keys;
};

// The order-preserving codec of an element type (set operations' lossless codecs up to
// 64 bits, and the floats' order-keeping one), or an ERROR.
MpCodec element_codec(Oid type, const char* fn) {
    const Oid base = getBaseType(type);  // a domain's elements order as its base type's
    MpCodec codec = base == FLOAT8OID   ? MpCodec::Float8
                    : base == FLOAT4OID ? MpCodec::Float4As8
                                        : mp_lossless_codec(type, lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr);
    if (codec != MpCodec::Hashed && codec != MpCodec::Uuid) return codec;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("pg_mergepath: %s() does not support arrays of %s", fn, format_type_be(type)),
                    errhint("Element types with an order-preserving key of up to 64 bits are supported: bool, "
                            "\"char\", smallint, integer, bigint, oid, real, double precision, date, time, "
                            "timestamp, timestamptz, money, pg_lsn.")));
    return MpCodec::Hashed;
}

// Argument `arg` (1-based) deconstructed, checked (one dimension, no NULL, sorted) and keyed.
SortedArray read_sorted(FunctionCallInfo fcinfo, int arg, const char* fn) {
    ArrayType* array = PG_GETARG_ARRAYTYPE_P(arg - 1);
    SortedArray a;
    a.type = ARR_ELEMTYPE(array);
    if (ARR_NDIM(array) > 1)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("pg_mergepath: %s(): argument %d has %d dimensions; one is supported", fn, arg,
                               ARR_NDIM(array))));
    const MpCodec codec = element_codec(a.type, fn);
    get_typlenbyvalalign(a.type, &a.typlen, &a.typbyval, &a.typalign);
    bool* nulls;
    deconstruct_array(array, a.type, a.typlen, a.typbyval, a.typalign, &a.values, &nulls, &a.count);
    a.keys = (uint64*)palloc(sizeof(uint64) * Max(a.count, 1));
    for (int i = 0; i < a.count; i++) {
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        if (nulls[i])
            ereport(ERROR,
                    (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                     errmsg("pg_mergepath: %s(): argument %d has a NULL element at position %d", fn, arg, i + 1)));
        a.keys[i] = mp_encode_column(codec, a.values[i]);
        if (i > 0 && a.keys[i] < a.keys[i - 1])
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                     errmsg("pg_mergepath: %s(): argument %d is not sorted ascending at position %d", fn, arg, i + 1),
                     errdetail("Element %d is less than element %d.", i + 1, i)));
    }
    return a;
}

// The library on this process's CPU, pg_mergepath.cpu_threads threads (made and gone
// inside mp_try()).
mergepath::Options cpu_options() {
    mergepath::Options options;
    options.backend = mergepath::Backend::Cpu;
    options.cpu_threads = mp_cpu_thread_count();
    options.interrupt_requested = mp_interrupt_requested;
    return options;
}

// The elements the tagged indices name (positions in A, or in B with kFromB), as an array.
ArrayType* gather(const SortedArray& a, const SortedArray& b, const uint64* tagged, uint64 count) {
    Datum* out = (Datum*)MemoryContextAllocHuge(CurrentMemoryContext, sizeof(Datum) * Max(count, uint64(1)));
    for (uint64 i = 0; i < count; i++) {
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        out[i] = mergepath::is_from_b(tagged[i]) ? b.values[mergepath::untag(tagged[i])] : a.values[tagged[i]];
    }
    return construct_array(out, int(count), a.type, a.typlen, a.typbyval, a.typalign);
}

// merge (op < 0) or a multiset operation of the two arguments.
Datum combine(FunctionCallInfo fcinfo, int op, const char* fn) {
    SortedArray a = read_sorted(fcinfo, 1, fn), b = read_sorted(fcinfo, 2, fn);
    // the most elements the result can have: A's and B's (merge, union), the fewer of
    // them (intersection), A's (difference)
    const uint64 most = op == int(mergepath::SetOp::Intersection) ? Min(a.count, b.count)
                        : op == int(mergepath::SetOp::Difference) ? uint64(a.count)
                                                                  : uint64(a.count) + uint64(b.count);
    if (most > MaxArraySize && op != int(mergepath::SetOp::Intersection) && op != int(mergepath::SetOp::Difference))
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("array size exceeds the maximum allowed (%d)", int(MaxArraySize))));
    uint64* tagged = (uint64*)MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * (most + 1));
    uint64 count = 0;
    MpError err;
    bool ok = mp_try(&err, [&] {
        mergepath::Context ctx(cpu_options());
        mergepath::View<const uint64_t> ka((const uint64_t*)a.keys, size_t(a.count)),
            kb((const uint64_t*)b.keys, size_t(b.count));
        mergepath::Outputs want;
        want.keys = false;
        mergepath::TaggedResult<uint64_t> r =
            op < 0 ? mergepath::merge<uint64_t>(ctx, ka, kb, want)
                   : mergepath::set_op<uint64_t>(ctx, mergepath::SetOp(op), ka, kb, want);
        count = r.count;
        memcpy(tagged, r.indices.data(), sizeof(uint64) * count);
    });
    if (!ok) mp_raise(&err, psprintf("computing %s()", fn));
    PG_RETURN_ARRAYTYPE_P(gather(a, b, tagged, count));
}

}  // namespace

extern "C" {

Datum mp_array_merge(PG_FUNCTION_ARGS) { return combine(fcinfo, -1, "merge"); }
Datum mp_array_intersect_all(PG_FUNCTION_ARGS) {
    return combine(fcinfo, int(mergepath::SetOp::Intersection), "intersect_all");
}
Datum mp_array_except_all(PG_FUNCTION_ARGS) { return combine(fcinfo, int(mergepath::SetOp::Difference), "except_all"); }
Datum mp_array_multiset_union(PG_FUNCTION_ARGS) {
    return combine(fcinfo, int(mergepath::SetOp::Union), "multiset_union");
}

Datum mp_array_sorted_search(PG_FUNCTION_ARGS) {
    const char* fn = "sorted_search";
    SortedArray haystack = read_sorted(fcinfo, 1, fn), needles = read_sorted(fcinfo, 2, fn);
    char* side = text_to_cstring(PG_GETARG_TEXT_PP(2));
    const bool lower = strcmp(side, "lower") == 0;
    if (!lower && strcmp(side, "upper") != 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("pg_mergepath: sorted_search(): side must be 'lower' or 'upper', not '%s'", side)));
    uint64* positions = (uint64*)palloc(sizeof(uint64) * Max(needles.count, 1));
    MpError err;
    bool ok = mp_try(&err, [&] {
        mergepath::Context ctx(cpu_options());
        mergepath::SearchOutputs want;
        want.lower = lower;
        want.upper = !lower;
        want.a_match = want.b_match = false;
        mergepath::SearchResult r = mergepath::sorted_search<uint64_t>(
            ctx, mergepath::View<const uint64_t>((const uint64_t*)needles.keys, size_t(needles.count)),
            mergepath::View<const uint64_t>((const uint64_t*)haystack.keys, size_t(haystack.count)), want);
        memcpy(positions, lower ? r.a_lower.data() : r.a_upper.data(), sizeof(uint64) * needles.count);
    });
    if (!ok) mp_raise(&err, psprintf("computing %s()", fn));
    Datum* out = (Datum*)palloc(sizeof(Datum) * Max(needles.count, 1));
    for (int i = 0; i < needles.count; i++) out[i] = Int64GetDatum(int64(positions[i]));
    PG_RETURN_ARRAYTYPE_P(
        construct_array(out, needles.count, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

}  // extern "C"
