// array_ops.cpp — SQL functions over sorted arrays. Each element is mapped to an
// order-preserving 64-bit key (keys.h codecs: equal elements give equal keys, order
// kept; float -0 as 0, NaNs as one value, largest), the library runs the seed algorithm
// over the keys, and the result is built from the input elements its indices name:
//   merge(a, b)           Merge Path: every element of both, in order (A's first on ties)
//   intersect_all(a, b)   Balanced Path: min(m, n) copies of an element found m and n times
//   except_all(a, b)      max(m - n, 0) copies
//   multiset_union(a, b)  max(m, n) copies (std::set_union)
//   sorted_search(haystack, needles, side)  vectorized sorted search: for each needle,
//                         the number of haystack elements before it ('lower': before
//                         the equal ones; 'upper': after them)
// Inputs must be one-dimensional, sorted ascending and without NULLs (an ERROR names the
// first offending position); both arrays share one element type (anyarray).
//
// Every supported element type is fixed-width and passed by value, so the elements are
// read in place (no Datum per element) and the result array is written straight from
// the library's indices. Where: with pg_mergepath.device = gpu, arrays of at least
// pg_mergepath.min_rows elements (both together) go to the GPU (the keys uploaded, the
// indices downloaded; out of memory: redone on the CPU backend); otherwise, auto
// included, the CPU backend's threads: the arrays are in host memory already, and on
// the H200 host the transfers cost what the CPU's 16 threads take (10M-element arrays:
// merge 306 ms on the CPU, 414 ms on the GPU; bench/RESULTS.md).
#include <atomic>
#include <cstring>
#include <memory>

#include "device.h"
#include "guard.h"
#include "keys.h"
#include "threads.h"
#include "mergepath/context.h"
#include "mergepath/ops.h"

extern "C" {
#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(mp_array_merge);
PG_FUNCTION_INFO_V1(mp_array_intersect_all);
PG_FUNCTION_INFO_V1(mp_array_except_all);
PG_FUNCTION_INFO_V1(mp_array_multiset_union);
PG_FUNCTION_INFO_V1(mp_array_sorted_search);
}

namespace {

// An array argument: its elements in place and their keys.
struct SortedArray {
    Oid type;
    int16 typlen;
    bool typbyval;
    char typalign;
    const char* data;  // element i at data + i * stride
    int stride;
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

[[noreturn]] void report_unsorted(int arg, const char* fn, int position) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("pg_mergepath: %s(): argument %d is not sorted ascending at position %d", fn, arg,
                           position + 1),
                    errdetail("Element %d is less than element %d.", position + 1, position)));
    pg_unreachable();
}

// An array with a NULL bitmap: ERROR at its first offending position, a NULL or an
// element out of order, whichever comes first (the elements after a NULL are not in
// place, so this walks them one by one).
void reject_with_nulls(ArrayType* array, const SortedArray& a, MpCodec codec, int arg, const char* fn) {
    Datum* values;
    bool* nulls;
    int count;
    deconstruct_array(array, a.type, a.typlen, a.typbyval, a.typalign, &values, &nulls, &count);
    uint64 last = 0;
    for (int i = 0; i < count; i++) {
        if (nulls[i])
            ereport(ERROR,
                    (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                     errmsg("pg_mergepath: %s(): argument %d has a NULL element at position %d", fn, arg, i + 1)));
        uint64 key = mp_encode_column(codec, values[i]);
        if (i > 0 && key < last) report_unsorted(arg, fn, i);
        last = key;
    }
    pfree(values);  // a NULL bitmap without a NULL: the elements are in place after all
    pfree(nulls);
}

// Pieces of elements the helper threads take one at a time (keys, gathering), and
// the fewest elements worth starting them for (smaller arrays: this thread alone).
constexpr uint64 kPiece = 1 << 16;
constexpr uint64 kThreadedElements = 4 * kPiece;

unsigned helper_threads(uint64 elements) {
    return elements >= kThreadedElements ? unsigned(mp_cpu_thread_count()) : 1u;
}

// Writes a.keys from a's elements on helper threads, and returns the first position
// whose key is below the one before it (a.count when the array is sorted). Pure
// memory work: the codec is one element_codec accepted, so mp_encode_column never
// reaches its ERROR.
uint64 encode_keys(const SortedArray& a, MpCodec codec) {
    const uint64 count = uint64(a.count);
    std::atomic<uint64> first_unsorted{count};
    mp_run_pieces(helper_threads(count), 0, count, kPiece, [&](uint64_t begin, uint64_t end) {
        for (uint64 i = begin; i < end; i++) a.keys[i] = mp_encode_column(codec, fetch_att(a.data + i * a.stride, true, a.typlen));
    });
    // then each piece's order, its first key against the one before the piece too
    mp_run_pieces(helper_threads(count), 1, count, kPiece, [&](uint64_t begin, uint64_t end) {
        for (uint64 i = begin; i < end; i++) {
            if (a.keys[i] >= a.keys[i - 1]) continue;
            for (uint64 seen = first_unsorted.load(); i < seen && !first_unsorted.compare_exchange_weak(seen, i);) {
            }
            break;
        }
    });
    return first_unsorted.load();
}

// Argument `arg` (1-based) detoasted, checked (one dimension, no NULL, sorted) and keyed.
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
    if (a.typlen <= 0 || !a.typbyval)  // every type with a codec above is fixed-width and by value
        elog(ERROR, "pg_mergepath: %s(): elements of %s are not fixed-width values", fn, format_type_be(a.type));
    a.count = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
    if (ARR_HASNULL(array)) reject_with_nulls(array, a, codec, arg, fn);
    a.data = ARR_DATA_PTR(array);
    a.stride = att_align_nominal(a.typlen, a.typalign);
    a.keys = (uint64*)MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * Max(a.count, 1));
    const uint64 unsorted = encode_keys(a, codec);
    CHECK_FOR_INTERRUPTS();
    if (unsorted < uint64(a.count)) report_unsorted(arg, fn, int(unsorted));
    return a;
}

// The device for `elements` elements in all: see the file comment.
MpDevice array_device(uint64 elements) {
    if (mp_device_setting != MP_DEVICE_SETTING_GPU || elements < uint64(Max(mp_min_rows, 1))) return MpDevice::Cpu;
    return mp_choose_device(elements);
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

// The backend's GPU context, released when the calling memory context is reset or
// deleted (an ERROR in between included).
struct HeldContext {
    mergepath::Context* ctx;
    MemoryContextCallback callback;
};

void release_held(void* arg) {
    HeldContext* held = (HeldContext*)arg;
    if (held->ctx) mp_context_release(held->ctx);
    held->ctx = nullptr;
}

HeldContext* hold_context(MpDevice device, MpDevice* used) {
    HeldContext* held = (HeldContext*)palloc0(sizeof(HeldContext));
    MpError err;
    held->ctx = mp_context_acquire(device, false, used, &err);
    if (!held->ctx) mp_raise(&err, "opening the device");
    held->callback.func = release_held;
    held->callback.arg = held;
    MemoryContextRegisterResetCallback(CurrentMemoryContext, &held->callback);
    return held;
}

// Runs op(ctx, a_keys, b_keys) -> a result with .indices (a Buffer<uint64_t>) and
// .count on the device, and hands the indices (host memory) and their count to
// take(), all inside one mp_try. On the GPU the keys are uploaded and the indices
// downloaded, to landing(count) when it gives memory for them (take() may then read
// and rewrite them in place), else to a buffer of its own; a GPU out of memory is
// redone on the CPU backend (with a NOTICE).
template <class Op, class Landing, class Take>
void run_on_device(const SortedArray& a, const SortedArray& b, const char* fn, Op op, Landing landing, Take take) {
    MpError err;
    auto run = [&](mergepath::Context& ctx) {
        if (ctx.host_memory()) {
            auto r = op(ctx, mergepath::View<const uint64_t>((const uint64_t*)a.keys, size_t(a.count)),
                        mergepath::View<const uint64_t>((const uint64_t*)b.keys, size_t(b.count)));
            take(r.indices.data(), uint64(r.count));
            return;
        }
        mergepath::Buffer<uint64_t> da = ctx.upload((const uint64_t*)a.keys, size_t(a.count));
        mergepath::Buffer<uint64_t> db = ctx.upload((const uint64_t*)b.keys, size_t(b.count));
        auto r = op(ctx, mergepath::View<const uint64_t>(da), mergepath::View<const uint64_t>(db));
        // downloaded where take() wants them (the result array itself when it can be
        // rewritten in place), else into memory of our own (not zeroed)
        uint64_t* into = landing(uint64(r.count));
        std::unique_ptr<uint64_t[]> own(into ? nullptr : new uint64_t[Max(r.count, size_t(1))]);
        if (!into) into = own.get();
        ctx.download(mergepath::View<const uint64_t>(r.indices, r.count), into);
        take(into, uint64(r.count));
    };
    // the CPU backend: a context of this call's own (made and gone inside mp_try)
    auto run_on_cpu = [&] {
        if (!mp_try(&err, [&] {
                mergepath::Context ctx(cpu_options());
                run(ctx);
            }))
            mp_raise(&err, psprintf("computing %s()", fn));
    };
    if (array_device(uint64(a.count) + uint64(b.count)) == MpDevice::Cpu) return run_on_cpu();
    MpDevice used;
    HeldContext* held = hold_context(MpDevice::Gpu, &used);
    if (mp_try(&err, [&] { run(*held->ctx); })) return;
    if (err.kind != MpErrorKind::DeviceOutOfMemory || used != MpDevice::Gpu) mp_raise(&err, psprintf("computing %s()", fn));
    ereport(NOTICE, (errmsg("pg_mergepath: out of memory on the GPU, computing %s() on the CPU backend", fn)));
    release_held(held);
    run_on_cpu();
}

// A one-dimensional array of `most` elements of a's type, its header filled in; its
// size is set by finish_result. PostgreSQL's ERROR when that many elements would not
// make an array (construct_md_array's limits: elements, and bytes).
ArrayType* new_result(const SortedArray& a, uint64 most) {
    const Size header = ARR_OVERHEAD_NONULLS(1);
    if (most > MaxArraySize)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("array size exceeds the maximum allowed (%d)", int(MaxArraySize))));
    if (header + most * a.stride > MaxAllocSize)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("array size exceeds the maximum allowed (%d)", int(MaxAllocSize))));
    ArrayType* r = (ArrayType*)MemoryContextAllocHuge(CurrentMemoryContext, header + Size(most) * a.stride);
    memset(r, 0, header);
    r->ndim = 1;
    r->dataoffset = 0;
    r->elemtype = a.type;
    ARR_LBOUND(r)[0] = 1;
    return r;
}

Datum finish_result(ArrayType* r, const SortedArray& a, uint64 count) {
    if (count == 0) return PointerGetDatum(construct_empty_array(a.type));
    ARR_DIMS(r)[0] = int(count);
    SET_VARSIZE(r, ARR_OVERHEAD_NONULLS(1) + Size(count) * a.stride);
    return PointerGetDatum(r);
}

// out[i] = the element tagged[i] names (a position in A, or in B with kFromB), copied
// on helper threads (pure memory work: no PostgreSQL call).
template <class T>
void gather_as(const SortedArray& a, const SortedArray& b, const uint64_t* tagged, uint64 count, char* out) {
    const T* from_a = (const T*)a.data;
    const T* from_b = (const T*)b.data;
    T* to = (T*)out;
    mp_run_pieces(helper_threads(count), 0, count, kPiece, [&](uint64_t begin, uint64_t end) {
        for (uint64 i = begin; i < end; i++) {
            const uint64_t t = tagged[i];
            to[i] = mergepath::is_from_b(t) ? from_b[mergepath::untag(t)] : from_a[t];
        }
    });
}

void gather(const SortedArray& a, const SortedArray& b, const uint64_t* tagged, uint64 count, char* out) {
    switch (a.stride) {
        case 1: return gather_as<uint8_t>(a, b, tagged, count, out);
        case 2: return gather_as<uint16_t>(a, b, tagged, count, out);
        case 4: return gather_as<uint32_t>(a, b, tagged, count, out);
        default: return gather_as<uint64_t>(a, b, tagged, count, out);  // 8: every wider type is refused
    }
}

// merge (op < 0) or a multiset operation of the two arguments.
Datum combine(FunctionCallInfo fcinfo, int op, const char* fn) {
    SortedArray a = read_sorted(fcinfo, 1, fn), b = read_sorted(fcinfo, 2, fn);
    // the most elements the result can have: A's and B's (merge, union), the fewer of
    // them (intersection), A's (difference)
    const uint64 most = op == int(mergepath::SetOp::Intersection) ? Min(a.count, b.count)
                        : op == int(mergepath::SetOp::Difference) ? uint64(a.count)
                                                                  : uint64(a.count) + uint64(b.count);
    if (a.stride > 8) elog(ERROR, "pg_mergepath: %s(): elements wider than 8 bytes", fn);
    ArrayType* result = new_result(a, most);
    uint64 count = 0;
    mergepath::Outputs want;
    want.keys = false;
    run_on_device(
        a, b, fn,
        [&](mergepath::Context& ctx, mergepath::View<const uint64_t> ka, mergepath::View<const uint64_t> kb) {
            return op < 0 ? mergepath::merge<uint64_t>(ctx, ka, kb, want)
                          : mergepath::set_op<uint64_t>(ctx, mergepath::SetOp(op), ka, kb, want);
        },
        // 8-byte elements: the indices land in the result, each rewritten by its element
        [&](uint64 n) { return a.stride == 8 && n <= most ? (uint64_t*)ARR_DATA_PTR(result) : nullptr; },
        [&](const uint64_t* tagged, uint64 n) {
            count = n;
            gather(a, b, tagged, n, ARR_DATA_PTR(result));
        });
    CHECK_FOR_INTERRUPTS();
    return finish_result(result, a, count);
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
    // the result: one bigint per needle, written straight into the array
    SortedArray positions = needles;
    positions.type = INT8OID;
    positions.stride = sizeof(int64);
    ArrayType* result = new_result(positions, uint64(needles.count));
    mergepath::SearchOutputs want;
    want.lower = lower;
    want.upper = !lower;
    want.a_match = want.b_match = false;
    struct Found {
        mergepath::Buffer<uint64_t> indices;
        size_t count;
    };
    run_on_device(
        needles, haystack, fn,
        [&](mergepath::Context& ctx, mergepath::View<const uint64_t> kn, mergepath::View<const uint64_t> kh) {
            mergepath::SearchResult r = mergepath::sorted_search<uint64_t>(ctx, kn, kh, want);
            return Found{std::move(lower ? r.a_lower : r.a_upper), kn.size};
        },
        [&](uint64 n) { return n <= uint64(needles.count) ? (uint64_t*)ARR_DATA_PTR(result) : nullptr; },
        [&](const uint64_t* found, uint64 n) {
            if ((const char*)found != ARR_DATA_PTR(result)) memcpy(ARR_DATA_PTR(result), found, sizeof(uint64_t) * n);
        });
    return finish_result(result, positions, uint64(needles.count));
}

}  // extern "C"
