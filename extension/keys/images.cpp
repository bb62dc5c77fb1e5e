// images.cpp — canonical values of a row's columns (see images.h for the rule of each
// type): the planner's test of whether a column has one, the executor's plan, and each
// column's canonical and original value as the record stores it (image_records.cpp
// writes them). Values are detoasted first: a compressed or external value would not
// compare by its bytes.
#include "images.h"
#include "image_hash.h"

#include <cmath>

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/float.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"
#include "utils/uuid.h"
}

namespace {

// Room per column for a fixed-width canonical value and a fixed-width original.
constexpr size_t kCanonicalRoom = 16, kBufferRoom = 32;

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
        case NAMEOID: *rule = MpImageRule::Name; return true;
        default: return false;
    }
}

// Rules whose canonical value is the value itself, so that the image prints the row.
bool prints_as_image(MpImageRule rule) {
    return rule == MpImageRule::Bits8 || rule == MpImageRule::Uuid || rule == MpImageRule::Text ||
           rule == MpImageRule::Name;  // padded again from the image
}

MpImagePiece fixed(const char* data, uint32 len) { return {data, len, false, false, false}; }

// A fixed-width value's bytes copied to `room`.
template <class T>
MpImagePiece bytes_of(char* room, T value) {
    memcpy(room, &value, sizeof(T));
    return fixed(room, sizeof(T));
}

// The bytes of a detoasted varlena, without trailing spaces when `trim` (bpchareq).
MpImagePiece varlena_piece(Datum d, bool trim) {
    struct varlena* v = pg_detoast_datum_packed((struct varlena*)DatumGetPointer(d));
    const char* data = VARDATA_ANY(v);
    uint32 len = VARSIZE_ANY_EXHDR(v);
    while (trim && len > 0 && data[len - 1] == ' ') len--;
    return {data, len, true, false, false};
}

// The by-value datum's typlen bytes, as fetch_att would read them back.
MpImagePiece bits8(char* room, int typlen, Datum d) {
    switch (typlen) {
        case 1: return bytes_of(room, DatumGetChar(d));
        case 2: return bytes_of(room, DatumGetInt16(d));
        case 4: return bytes_of(room, DatumGetInt32(d));
        default: return bytes_of(room, DatumGetInt64(d));
    }
}

MpImagePiece float8_bits(char* room, double v) {
    if (std::isnan(v)) v = get_float8_nan();
    if (v == 0.0) v = 0.0;  // -0 = 0
    return bytes_of(room, v);
}

MpImagePiece float4_bits(char* room, float v) {
    if (std::isnan(v)) v = get_float4_nan();
    if (v == 0.0f) v = 0.0f;
    return bytes_of(room, v);
}

// interval_eq's comparison value: the span with a month as 30 days, in microseconds.
MpImagePiece interval_span(char* room, Datum d) {
    const Interval* iv = DatumGetIntervalP(d);
    return bytes_of(room, __int128(iv->time) + (__int128(iv->month) * DAYS_PER_MONTH + iv->day) * USECS_PER_DAY);
}

// numeric_eq ignores the display scale: the value with it trimmed (make_result writes
// equal values alike); NaN and the infinities as one byte each, which no numeric's
// bytes equal (a numeric has at least two).
MpImagePiece numeric_trimmed(Datum zero, Datum d) {
    static const char kNaN = 'N', kMinus = '-', kPlus = '+';
    Numeric n = DatumGetNumeric(d);
    if (numeric_is_nan(n)) return {&kNaN, 1, true, false, false};
    if (numeric_is_inf(n))
        return {DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(n), zero)) < 0 ? &kMinus : &kPlus, 1,
                true, false, false};
    return varlena_piece(DirectFunctionCall1(numeric_trim_scale, NumericGetDatum(n)), false);
}

MpImagePiece array_image(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d);
MpImagePiece record_image(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d);

MpImagePiece canonical(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d) {
    char* room = s->buffers[c];
    switch (col.rule) {
        case MpImageRule::Bits8: return bits8(room, col.typlen, d);
        case MpImageRule::Float4: return float4_bits(room, DatumGetFloat4(d));
        case MpImageRule::Float8: return float8_bits(room, DatumGetFloat8(d));
        case MpImageRule::Uuid: return fixed((const char*)DatumGetUUIDP(d), UUID_LEN);
        case MpImageRule::Interval: return interval_span(room, d);
        case MpImageRule::Text: return varlena_piece(d, false);
        case MpImageRule::Bpchar: return varlena_piece(d, true);
        case MpImageRule::Numeric: return numeric_trimmed(s->zero, d);
        case MpImageRule::Name: {
            const char* name = NameStr(*DatumGetName(d));
            return {name, uint32(strnlen(name, NAMEDATALEN)), true, false, false};
        }
        case MpImageRule::Array: return array_image(col, s, c, d);
        case MpImageRule::Record: return record_image(col, s, c, d);
    }
    return {};
}

// One element or attribute into an image: a NULL flag byte, then (not NULL) its
// canonical value's length and bytes.
void append_part(StringInfo buf, const MpImageColumn& col, const MpImageScratch* s, int c, Datum d, bool isnull) {
    appendStringInfoChar(buf, isnull ? 1 : 0);
    if (isnull) return;
    MpImagePiece p = canonical(col, s, c, d);
    appendBinaryStringInfo(buf, (const char*)&p.len, sizeof(p.len));
    appendBinaryStringInfo(buf, p.data, int(p.len));
}

// The column of one element of an Array column.
MpImageColumn element_column(const MpImageColumn& array) {
    MpImageColumn elem = {};
    elem.rule = array.elem_rule;
    elem.typlen = array.elem_typlen;
    elem.pad_to = -1;
    return elem;
}

// array_eq's comparison value (see images.h), built in the current (per-row) context.
MpImagePiece array_image(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d) {
    ArrayType* a = DatumGetArrayTypeP(d);
    int ndim = ARR_NDIM(a);
    Datum* elems;
    bool* nulls;
    int n;
    // the stored element type (a domain's own OID for an array of a domain)
    deconstruct_array(a, ARR_ELEMTYPE(a), col.elem_typlen, col.elem_byval, col.elem_align, &elems, &nulls, &n);
    StringInfoData buf;
    initStringInfo(&buf);
    appendBinaryStringInfo(&buf, (const char*)&ndim, sizeof(ndim));
    appendBinaryStringInfo(&buf, (const char*)ARR_DIMS(a), ndim * sizeof(int));
    appendBinaryStringInfo(&buf, (const char*)ARR_LBOUND(a), ndim * sizeof(int));
    MpImageColumn elem = element_column(col);
    for (int i = 0; i < n; i++) append_part(&buf, elem, s, c, elems[i], nulls[i]);
    return {buf.data, uint32(buf.len), true, false, false};
}

// record_eq's comparison value (see images.h): the attributes of the composite value
// (detoasted) deformed by the row type, each by its own rule.
MpImagePiece record_image(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d) {
    HeapTupleHeader header = mp_composite_header(d);
    HeapTupleData tuple;
    tuple.t_len = HeapTupleHeaderGetDatumLength(header);
    ItemPointerSetInvalid(&tuple.t_self);
    tuple.t_tableOid = InvalidOid;
    tuple.t_data = header;
    int natts = col.rowdesc->natts;
    Datum* values = (Datum*)palloc(sizeof(Datum) * Max(1, natts));
    bool* nulls = (bool*)palloc(sizeof(bool) * Max(1, natts));
    heap_deform_tuple(&tuple, col.rowdesc, values, nulls);
    StringInfoData buf;
    initStringInfo(&buf);
    for (int k = 0; k < col.natts; k++) {
        int i = col.att_index[k];
        append_part(&buf, col.atts[k], s, c, values[i], nulls[i]);
    }
    return {buf.data, uint32(buf.len), true, false, false};
}

// A char(n) value: only its flag when it has n characters (rebuilt from its image).
MpImagePiece padded_original(const MpImageColumn& col, Datum d) {
    MpImagePiece p = varlena_piece(d, false);
    p.padded_flag = true;
    p.rebuilt = pg_mbstrlen_with_len(p.data, int(p.len)) == col.pad_to;
    return p;
}

// The value as read, for a column that keeps its original (prints_as_image false).
MpImagePiece original(const MpImageColumn& col, const MpImageScratch* s, int c, Datum d) {
    char* room = s->buffers[c] + kCanonicalRoom;
    switch (col.rule) {
        case MpImageRule::Float4: return bytes_of(room, DatumGetFloat4(d));
        case MpImageRule::Float8: return bytes_of(room, DatumGetFloat8(d));
        case MpImageRule::Interval: return fixed((const char*)DatumGetIntervalP(d), sizeof(Interval));
        case MpImageRule::Bpchar:
            if (col.pad_to >= 0) return padded_original(col, d);
            return varlena_piece(d, false);
        default: return varlena_piece(d, false);  // numeric, arrays, composites
    }
}

// An array's element type (its base type), or InvalidOid.
Oid element_type_of(Oid base) {
    Oid elem = get_element_type(base);
    return OidIsValid(elem) ? getBaseType(elem) : InvalidOid;
}

// The rule of a type: its own, Array for an array of a type that has one, Record for a
// named composite type (whose attributes are checked by record_has_images).
bool rule_of(Oid base, MpImageRule* rule) {
    if (rule_of_type(base, rule)) return true;
    if (get_typtype(base) == TYPTYPE_COMPOSITE) {
        *rule = MpImageRule::Record;
        return true;
    }
    Oid elem = element_type_of(base);
    MpImageRule elem_rule;
    if (!OidIsValid(elem) || !rule_of_type(elem, &elem_rule)) return false;
    *rule = MpImageRule::Array;
    return true;
}

// `eqop` is the equality the rule stands for: record_eq's and array_eq's operators for
// composites and arrays (whose type may have a user's default operator class of its own,
// which would then group them), a base type's default.
bool builtin_equality(MpImageRule rule, Oid base, Oid eqop) {
    if (rule == MpImageRule::Record) return eqop == RECORD_EQ_OP;
    if (rule == MpImageRule::Array) return eqop == ARRAY_EQ_OP;
    return eqop == lookup_type_cache(base, TYPECACHE_EQ_OPR)->eq_opr;
}

// Every attribute of the composite type `base` that is not dropped has an image, checked
// as a column of its own: by its type's default equality (as record_eq compares it)
// under its own collation.
bool record_has_images(Oid base, char** why_not) {
    TupleDesc desc = lookup_rowtype_tupdesc(base, -1);
    bool ok = true;
    for (int i = 0; ok && i < desc->natts; i++) {
        Form_pg_attribute att = TupleDescAttr(desc, i);
        if (att->attisdropped) continue;
        MpImageRule rule;
        char* why;
        Oid eqop = lookup_type_cache(att->atttypid, TYPECACHE_EQ_OPR)->eq_opr;
        ok = mp_image_rule(att->atttypid, eqop, att->attcollation, &rule, &why);
        if (!ok) *why_not = psprintf("attribute \"%s\" of type %s: %s", NameStr(att->attname), format_type_be(base), why);
    }
    ReleaseTupleDesc(desc);
    return ok;
}

void init_array_column(MpImageColumn* col, Oid base) {
    col->elem_type = element_type_of(base);
    rule_of_type(col->elem_type, &col->elem_rule);
    get_typlenbyvalalign(col->elem_type, &col->elem_typlen, &col->elem_byval, &col->elem_align);
}

void init_column(MpImageColumn* col, Oid type, int32 typmod);

// A Record column: its row type (copied: it outlives the type cache's reference) and
// a column for each attribute not dropped. The type's relation is locked first, until
// the transaction ends, so that ALTER TYPE cannot change it under a running query: the
// leader and every worker image the rows by the same attributes.
void init_record_column(MpImageColumn* col, Oid base) {
    LockRelationOid(get_typ_typrelid(base), AccessShareLock);
    col->rowdesc = lookup_rowtype_tupdesc_copy(base, -1);
    col->atts = (MpImageColumn*)palloc0(sizeof(MpImageColumn) * Max(1, col->rowdesc->natts));
    col->att_index = (int*)palloc(sizeof(int) * Max(1, col->rowdesc->natts));
    col->natts = 0;
    for (int i = 0; i < col->rowdesc->natts; i++) {
        Form_pg_attribute att = TupleDescAttr(col->rowdesc, i);
        if (att->attisdropped) continue;
        col->att_index[col->natts] = i;
        init_column(&col->atts[col->natts++], att->atttypid, -1);  // the record keeps its original
    }
}

void init_column(MpImageColumn* col, Oid type, int32 typmod) {
    Oid base = getBaseType(type);
    if (!rule_of(base, &col->rule)) elog(ERROR, "pg_mergepath: type %s has no image", format_type_be(type));
    col->typlen = get_typlen(base);
    if (col->rule == MpImageRule::Array) init_array_column(col, base);
    if (col->rule == MpImageRule::Record) init_record_column(col, base);
    col->keeps_original = !prints_as_image(col->rule);
    // bpchar's typmod is n + VARHDRSZ: every value of the column has n characters
    col->pad_to = col->rule == MpImageRule::Bpchar && typmod >= VARHDRSZ ? typmod - VARHDRSZ : -1;
}

}  // namespace

bool mp_image_rule(Oid type, Oid eqop, Oid collation, MpImageRule* rule, char** why_not) {
    Oid base = getBaseType(type);
    if (!rule_of(base, rule)) {
        *why_not = psprintf("type %s has no canonical byte image", format_type_be(type));
        return false;
    }
    if (!builtin_equality(*rule, base, eqop)) {
        *why_not = psprintf("type %s is grouped by an equality other than its default", format_type_be(type));
        return false;
    }
    if (OidIsValid(collation) && !get_collation_isdeterministic(collation)) {
        *why_not = psprintf("the collation \"%s\" is nondeterministic", get_collation_name(collation));
        return false;
    }
    return *rule != MpImageRule::Record || record_has_images(base, why_not);
}

void mp_image_plan_depends(PlannerInfo* root, Oid type) {
    Oid base = getBaseType(type);
    if (get_typtype(base) != TYPTYPE_COMPOSITE) return;
    root->glob->relationOids = lappend_oid(root->glob->relationOids, get_typ_typrelid(base));
    TupleDesc desc = lookup_rowtype_tupdesc(base, -1);
    for (int i = 0; i < desc->natts; i++)
        if (!TupleDescAttr(desc, i)->attisdropped) mp_image_plan_depends(root, TupleDescAttr(desc, i)->atttypid);
    ReleaseTupleDesc(desc);
}

void mp_images_init(MpImagePlan* plan, int ncols, const Oid* types, const int32* typmods, const Oid* eqops,
                    const Oid* collations) {
    plan->ncols = ncols;
    plan->cols = (MpImageColumn*)palloc0(sizeof(MpImageColumn) * Max(1, ncols));
    plan->null_bytes = (ncols + 7) / 8;
    plan->self_printing = true;
    plan->hash_bits = mp_debug_hash_bits > 0 ? mp_debug_hash_bits : 64;
    for (int c = 0; c < ncols; c++) {
        char* why_not;
        MpImageColumn& col = plan->cols[c];
        if (!mp_image_rule(types[c], eqops[c], collations[c], &col.rule, &why_not))
            elog(ERROR, "pg_mergepath: column %d has no image: %s", c + 1, why_not);
        init_column(&col, types[c], typmods[c]);
        plan->self_printing = plan->self_printing && !col.keeps_original;
    }
}

void mp_image_scratch_init(MpImageScratch* s, const MpImagePlan* plan) {
    int n = Max(1, plan->ncols);
    s->canonical = (MpImagePiece*)palloc0(sizeof(MpImagePiece) * n);
    s->original = (MpImagePiece*)palloc0(sizeof(MpImagePiece) * n);
    s->isnull = (bool*)palloc0(sizeof(bool) * n);
    s->buffers = (char**)palloc(sizeof(char*) * n);
    for (int c = 0; c < n; c++) s->buffers[c] = (char*)palloc0(kBufferRoom);
    s->zero = NumericGetDatum(int64_to_numeric(0));
    s->temp = AllocSetContextCreate(CurrentMemoryContext, "pg_mergepath images", ALLOCSET_SMALL_SIZES);
    s->copies = AllocSetContextCreate(CurrentMemoryContext, "pg_mergepath image output", ALLOCSET_SMALL_SIZES);
}

void mp_image_pieces(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row) {
    MemoryContextReset(s->temp);
    MemoryContext old = MemoryContextSwitchTo(s->temp);
    for (int c = 0; c < plan->ncols; c++) {
        s->isnull[c] = row->tts_isnull[c];
        if (s->isnull[c]) continue;
        s->canonical[c] = canonical(plan->cols[c], s, c, row->tts_values[c]);
        if (plan->cols[c].keeps_original) s->original[c] = original(plan->cols[c], s, c, row->tts_values[c]);
    }
    MemoryContextSwitchTo(old);
}

uint64 mp_image_value_hash(const MpImagePlan* plan, MpImageScratch* s, int c, Datum value) {
    const uint64 kept = plan->hash_bits < 64 ? (uint64(1) << plan->hash_bits) - 1 : ~uint64(0);
    if (plan->cols[c].rule == MpImageRule::Text && mp_varlena_in_place((const varlena*)DatumGetPointer(value))) {
        const varlena* v = (const varlena*)DatumGetPointer(value);  // canonical()'s piece, without its memory
        return mp_image_hash(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)) & kept;
    }
    MemoryContextReset(s->temp);
    MemoryContext old = MemoryContextSwitchTo(s->temp);
    MpImagePiece p = canonical(plan->cols[c], s, c, value);
    uint64 hash = mp_image_hash(p.data, p.len);
    MemoryContextSwitchTo(old);
    return hash & kept;
}
