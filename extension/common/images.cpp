// images.cpp — canonical byte images of rows (see images.h for the rule of each type).
// A row's image is a MinimalTuple of its canonical values formed with every padding
// byte zero, so that equal canonical values give equal bytes: heap_fill_tuple writes a
// varlena of the same bytes the same way (short header when it fits), and the values
// are detoasted first (a compressed or external value would not compare by bytes).
#include "images.h"

#include <cmath>

#include "row_arena.h"

extern "C" {
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"
}

namespace {

bool rule_of_type(Oid base, MpImageRule* rule) {
    switch (base) {
        case BOOLOID:
        case CHAROID:
        case INT2OID:
        case INT4OID:
        case INT8OID:
        case OIDOID:
        case DATEOID:
        case TIMEOID:
        case TIMESTAMPOID:
        case TIMESTAMPTZOID:
        case CASHOID:
        case PG_LSNOID: *rule = MpImageRule::Bits8; return true;
        case FLOAT4OID: *rule = MpImageRule::Float4; return true;
        case FLOAT8OID: *rule = MpImageRule::Float8; return true;
        case UUIDOID: *rule = MpImageRule::Uuid; return true;
        case INTERVALOID: *rule = MpImageRule::Interval; return true;
        case TEXTOID:
        case VARCHAROID:
        case BYTEAOID: *rule = MpImageRule::Text; return true;
        case BPCHAROID: *rule = MpImageRule::Bpchar; return true;
        case NUMERICOID: *rule = MpImageRule::Numeric; return true;
        default: return false;
    }
}

// The image column's type: the canonical value as an int8, 16 bytes, or a varlena.
Oid image_type(MpImageRule rule) {
    switch (rule) {
        case MpImageRule::Bits8:
        case MpImageRule::Float4:
        case MpImageRule::Float8: return INT8OID;
        case MpImageRule::Uuid:
        case MpImageRule::Interval: return UUIDOID;
        default: return BYTEAOID;
    }
}

// Rules whose canonical value is the value itself, so that the image prints the row.
bool prints_as_image(MpImageRule rule) {
    return rule == MpImageRule::Bits8 || rule == MpImageRule::Uuid || rule == MpImageRule::Text;
}

// The scratch buffer of column c, at least `bytes` long.
char* buffer(MpImageScratch* s, int c, size_t bytes) {
    if (s->capacity[c] < bytes) {
        size_t grown = Max(bytes, Max(size_t(64), s->capacity[c] * 2));
        s->buffers[c] = s->buffers[c] ? (char*)repalloc_huge(s->buffers[c], grown)
                                      : (char*)MemoryContextAllocHuge(s->cxt, grown);
        s->capacity[c] = grown;
    }
    return s->buffers[c];
}

Datum bits8(int typlen, Datum d) {
    switch (typlen) {
        case 1: return CharGetDatum(DatumGetChar(d));
        case 2: return Int16GetDatum(DatumGetInt16(d));
        case 4: return Int32GetDatum(DatumGetInt32(d));
        default: return d;
    }
}

Datum float8_bits(double v) {
    if (std::isnan(v)) v = get_float8_nan();
    if (v == 0.0) v = 0.0;  // -0 = 0
    int64 bits;
    memcpy(&bits, &v, sizeof(bits));
    return Int64GetDatum(bits);
}

Datum float4_bits(float v) {
    if (std::isnan(v)) v = get_float4_nan();
    if (v == 0.0f) v = 0.0f;
    int32 bits;
    memcpy(&bits, &v, sizeof(bits));
    return Int64GetDatum(int64(uint32(bits)));
}

// interval_eq's comparison value: the span with a month as 30 days, in microseconds.
Datum interval_span(MpImageScratch* s, int c, Datum d) {
    const Interval* iv = DatumGetIntervalP(d);
    __int128 span = __int128(iv->time) + (__int128(iv->month) * DAYS_PER_MONTH + iv->day) * USECS_PER_DAY;
    char* out = buffer(s, c, sizeof(span));
    memcpy(out, &span, sizeof(span));
    return PointerGetDatum(out);
}

// bpchareq compares the strings without their trailing spaces.
Datum bpchar_trimmed(MpImageScratch* s, int c, Datum d) {
    struct varlena* v = pg_detoast_datum_packed((struct varlena*)DatumGetPointer(d));
    const char* data = VARDATA_ANY(v);
    size_t len = VARSIZE_ANY_EXHDR(v);
    while (len > 0 && data[len - 1] == ' ') len--;
    char* out = buffer(s, c, VARHDRSZ + len);
    SET_VARSIZE(out, VARHDRSZ + len);
    memcpy(out + VARHDRSZ, data, len);
    return PointerGetDatum(out);
}

// A varlena of one byte, which no numeric's bytes equal (a numeric has at least two).
Datum one_byte(MpImageScratch* s, int c, char byte) {
    char* out = buffer(s, c, VARHDRSZ + 1);
    SET_VARSIZE(out, VARHDRSZ + 1);
    out[VARHDRSZ] = byte;
    return PointerGetDatum(out);
}

// numeric_eq ignores the display scale: the value with it trimmed (make_result writes
// equal values alike); NaN and the infinities as one byte each, whatever their bytes.
Datum numeric_trimmed(MpImageScratch* s, int c, Datum d) {
    Numeric n = DatumGetNumeric(d);
    if (numeric_is_nan(n)) return one_byte(s, c, 'N');
    if (numeric_is_inf(n))
        return one_byte(s, c, DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(n), s->zero)) < 0 ? '-' : '+');
    return DirectFunctionCall1(numeric_trim_scale, NumericGetDatum(n));
}

Datum canonical(const MpImageColumn& col, MpImageScratch* s, int c, Datum d) {
    switch (col.rule) {
        case MpImageRule::Bits8: return Int64GetDatum(int64(bits8(col.typlen, d)));
        case MpImageRule::Float4: return float4_bits(DatumGetFloat4(d));
        case MpImageRule::Float8: return float8_bits(DatumGetFloat8(d));
        case MpImageRule::Uuid: return d;
        case MpImageRule::Interval: return interval_span(s, c, d);
        case MpImageRule::Text: return PointerGetDatum(pg_detoast_datum_packed((struct varlena*)DatumGetPointer(d)));
        case MpImageRule::Bpchar: return bpchar_trimmed(s, c, d);
        case MpImageRule::Numeric: return numeric_trimmed(s, c, d);
    }
    return d;
}

}  // namespace

bool mp_image_rule(Oid type, Oid eqop, Oid collation, MpImageRule* rule, char** why_not) {
    Oid base = getBaseType(type);
    if (!rule_of_type(base, rule)) {
        *why_not = psprintf("type %s has no canonical byte image", format_type_be(type));
        return false;
    }
    if (lookup_type_cache(base, TYPECACHE_EQ_OPR)->eq_opr != eqop) {
        *why_not = psprintf("type %s is grouped by an equality other than its default", format_type_be(type));
        return false;
    }
    if (OidIsValid(collation) && !get_collation_isdeterministic(collation)) {
        *why_not = psprintf("the collation \"%s\" is nondeterministic", get_collation_name(collation));
        return false;
    }
    return true;
}

void mp_images_init(MpImagePlan* plan, int ncols, const Oid* types, const Oid* eqops, const Oid* collations,
                    TupleDesc row_desc) {
    plan->ncols = ncols;
    plan->cols = (MpImageColumn*)palloc0(sizeof(MpImageColumn) * Max(1, ncols));
    plan->image_desc = CreateTemplateTupleDesc(ncols);
    plan->original_desc = CreateTemplateTupleDesc(ncols);
    plan->self_printing = true;
    plan->hash_bits = mp_debug_hash_bits > 0 ? mp_debug_hash_bits : 64;
    for (int c = 0; c < ncols; c++) {
        char* why_not;
        MpImageColumn& col = plan->cols[c];
        if (!mp_image_rule(types[c], eqops[c], collations[c], &col.rule, &why_not))
            elog(ERROR, "pg_mergepath: column %d has no image: %s", c + 1, why_not);
        col.typlen = get_typlen(getBaseType(types[c]));
        plan->self_printing = plan->self_printing && prints_as_image(col.rule);
        TupleDescInitEntry(plan->image_desc, AttrNumber(c + 1), NULL, image_type(col.rule), -1, 0);
        TupleDescCopyEntry(plan->original_desc, AttrNumber(c + 1), row_desc, AttrNumber(c + 1));
    }
}

void mp_image_scratch_init(MpImageScratch* s, const MpImagePlan* plan) {
    int n = Max(1, plan->ncols);
    s->values = (Datum*)palloc0(sizeof(Datum) * n);
    s->isnull = (bool*)palloc0(sizeof(bool) * n);
    s->buffers = (char**)palloc0(sizeof(char*) * n);
    s->capacity = (size_t*)palloc0(sizeof(size_t) * n);
    s->cxt = CurrentMemoryContext;
    s->zero = NumericGetDatum(int64_to_numeric(0));
    s->temp = AllocSetContextCreate(CurrentMemoryContext, "pg_mergepath images", ALLOCSET_SMALL_SIZES);
}

uint64 mp_image_measure(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row, MpImageSizes* sizes) {
    MemoryContextReset(s->temp);
    MemoryContext old = MemoryContextSwitchTo(s->temp);
    for (int c = 0; c < plan->ncols; c++) {
        s->isnull[c] = row->tts_isnull[c];
        s->values[c] = s->isnull[c] ? (Datum)0 : canonical(plan->cols[c], s, c, row->tts_values[c]);
    }
    MemoryContextSwitchTo(old);
    sizes->image_bytes = mp_tuple_measure(plan->image_desc, s->values, s->isnull, &sizes->image_hoff,
                                          &sizes->image_data);
    sizes->original_bytes = 0;
    if (!plan->self_printing)
        sizes->original_bytes = mp_tuple_measure(plan->original_desc, row->tts_values, row->tts_isnull,
                                                 &sizes->original_hoff, &sizes->original_data);
    return sizes->image_bytes + sizes->original_bytes;
}

uint64 mp_image_write_record(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row,
                             const MpImageSizes* sizes, char* at) {
    mp_tuple_form_at(at, plan->image_desc, s->values, s->isnull, sizes->image_hoff, sizes->image_data);
    if (!plan->self_printing)
        mp_tuple_form_at(at + sizes->image_bytes, plan->original_desc, row->tts_values, row->tts_isnull,
                         sizes->original_hoff, sizes->original_data);
    uint64 hash = hash_bytes_extended((const unsigned char*)at, int(sizes->image_hoff + sizes->image_data), 0);
    return plan->hash_bits < 64 ? hash & ((uint64(1) << plan->hash_bits) - 1) : hash;
}

void mp_image_output(const MpImagePlan* plan, const char* record, TupleTableSlot* image_slot,
                     TupleTableSlot* original_slot, TupleTableSlot* out) {
    TupleTableSlot* from = plan->self_printing ? image_slot : original_slot;
    MinimalTuple tuple = plan->self_printing ? mp_record_image(record) : mp_record_original(record);
    ExecStoreMinimalTuple(tuple, from, false);
    slot_getallattrs(from);
    // an image column of a value that prints as it is holds the value itself: an int8
    // holds the Datum's bits, the others point at the value's bytes
    memcpy(out->tts_values, from->tts_values, sizeof(Datum) * plan->ncols);
    memcpy(out->tts_isnull, from->tts_isnull, sizeof(bool) * plan->ncols);
}
