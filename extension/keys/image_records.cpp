// image_records.cpp — the packed record of a row over image keys (layout in images.h):
// measured and written while the row is read, its image hashed, and its row rebuilt
// from it for output. Variable-length values are stored as varlenas with the shortest
// header PostgreSQL itself would use in a tuple (1 byte up to 126 bytes of data), so
// a value with a 1-byte header can be handed on as a Datum pointing into the record;
// a 4-byte header or an interval may sit at any address and is copied out aligned.
#include "images.h"
#include "image_hash.h"

extern "C" {
#include "mb/pg_wchar.h"
#include "utils/uuid.h"
}

namespace {

constexpr uint32 kShortMaxData = VARATT_SHORT_MAX - VARHDRSZ_SHORT;  // 126

uint32 varint_size(uint32 v) {
    uint32 n = 1;
    for (; v >= 0x80; v >>= 7) n++;
    return n;
}

char* write_varint(char* at, uint32 v) {
    for (; v >= 0x80; v >>= 7) *at++ = char((v & 0x7f) | 0x80);
    *at++ = char(v);
    return at;
}

uint32 piece_size(const MpImagePiece& p) {
    uint32 flag = p.padded_flag ? 1 : 0;
    if (p.rebuilt) return flag;
    if (!p.is_varlena) return flag + p.len;
    return flag + p.len + (p.len <= kShortMaxData ? VARHDRSZ_SHORT : VARHDRSZ);
}

char* write_piece(char* at, const MpImagePiece& p) {
    if (p.padded_flag) *at++ = p.rebuilt ? 0 : 1;
    if (p.rebuilt) return at;
    if (p.is_varlena && p.len <= kShortMaxData) {
        SET_VARSIZE_SHORT(at, p.len + VARHDRSZ_SHORT);
        at += VARHDRSZ_SHORT;
    } else if (p.is_varlena) {
        uint32 header;
        SET_VARSIZE(&header, p.len + VARHDRSZ);
        memcpy(at, &header, VARHDRSZ);
        at += VARHDRSZ;
    }
    memcpy(at, p.data, p.len);
    return at + p.len;
}

uint32 image_body_size(const MpImagePlan* plan, const MpImageScratch* s) {
    uint32 size = plan->null_bytes;
    for (int c = 0; c < plan->ncols; c++)
        if (!s->isnull[c]) size += piece_size(s->canonical[c]);
    return size;
}

uint32 originals_size(const MpImagePlan* plan, const MpImageScratch* s) {
    uint32 size = 0;
    for (int c = 0; c < plan->ncols; c++)
        if (!s->isnull[c] && plan->cols[c].keeps_original) size += piece_size(s->original[c]);
    return size;
}

// Reading a record back: the size of a varlena stored at `at` (any address).
uint32 stored_varlena_size(const char* at) {
    if (VARATT_IS_1B(at)) return VARSIZE_1B(at);
    uint32 header;
    memcpy(&header, at, VARHDRSZ);
    return VARSIZE_4B(&header);
}

// A varlena stored at `at` as a Datum: in place with a 1-byte header, else copied aligned.
Datum varlena_datum(MpImageScratch* s, const char* at, const char** next) {
    uint32 size = stored_varlena_size(at);
    *next = at + size;
    if (VARATT_IS_1B(at)) return PointerGetDatum(at);
    char* copy = (char*)MemoryContextAllocHuge(s->copies, size);
    memcpy(copy, at, size);
    return PointerGetDatum(copy);
}

template <class T>
T read_fixed(const char* at, const char** next) {
    T v;
    memcpy(&v, at, sizeof(T));
    *next = at + sizeof(T);
    return v;
}

Datum bits8_datum(int typlen, const char* at, const char** next) {
    switch (typlen) {
        case 1: return CharGetDatum(read_fixed<char>(at, next));
        case 2: return Int16GetDatum(read_fixed<int16>(at, next));
        case 4: return Int32GetDatum(read_fixed<int32>(at, next));
        default: return Int64GetDatum(read_fixed<int64>(at, next));
    }
}

// A name from its image (a varlena stored at `at`): its bytes, NUL-padded to NAMEDATALEN.
Datum name_datum(MpImageScratch* s, const char* at, const char** next) {
    uint32 size = stored_varlena_size(at);
    uint32 header = VARATT_IS_1B(at) ? VARHDRSZ_SHORT : VARHDRSZ;
    *next = at + size;
    char* name = (char*)MemoryContextAllocZero(s->copies, NAMEDATALEN);
    memcpy(name, at + header, Min(size - header, uint32(NAMEDATALEN - 1)));
    return PointerGetDatum(name);
}

// A column's canonical value: its Datum when it prints as it is, else only skipped.
Datum canonical_datum(const MpImageColumn& col, MpImageScratch* s, const char* at, const char** next) {
    switch (col.rule) {
        case MpImageRule::Bits8: return bits8_datum(col.typlen, at, next);
        case MpImageRule::Float4: *next = at + sizeof(float4); return 0;
        case MpImageRule::Float8: *next = at + sizeof(float8); return 0;
        case MpImageRule::Interval: *next = at + sizeof(__int128); return 0;
        case MpImageRule::Uuid: *next = at + UUID_LEN; return PointerGetDatum(at);  // aligned as char
        case MpImageRule::Text: return varlena_datum(s, at, next);
        case MpImageRule::Name: return name_datum(s, at, next);
        case MpImageRule::Bpchar:  // its address, for a char(n) value rebuilt from it
            *next = at + stored_varlena_size(at);
            return PointerGetDatum(at);
        case MpImageRule::Numeric:
        case MpImageRule::Array:
        case MpImageRule::Record:
            *next = at + stored_varlena_size(at);
            return 0;
    }
    return 0;
}

// A char(n) value from its image (stored at `image`): padded with spaces to n characters.
Datum padded_datum(const MpImageColumn& col, MpImageScratch* s, const char* image) {
    uint32 size = stored_varlena_size(image);
    uint32 header = VARATT_IS_1B(image) ? VARHDRSZ_SHORT : VARHDRSZ;
    uint32 len = size - header;
    int chars = pg_mbstrlen_with_len(image + header, int(len));
    uint32 pad = col.pad_to > chars ? uint32(col.pad_to - chars) : 0;
    char* value = (char*)MemoryContextAllocHuge(s->copies, VARHDRSZ + len + pad);
    SET_VARSIZE(value, VARHDRSZ + len + pad);
    memcpy(VARDATA(value), image + header, len);
    memset(VARDATA(value) + len, ' ', pad);
    return PointerGetDatum(value);
}

// A column's original value; `canonical` is what canonical_datum returned for it.
Datum original_datum(const MpImageColumn& col, MpImageScratch* s, Datum canonical, const char* at,
                     const char** next) {
    if (col.pad_to >= 0) {
        bool rebuilt = *at++ == 0;
        if (rebuilt) {
            *next = at;
            return padded_datum(col, s, (const char*)DatumGetPointer(canonical));
        }
    }
    switch (col.rule) {
        case MpImageRule::Float4: return Float4GetDatum(read_fixed<float4>(at, next));
        case MpImageRule::Float8: return Float8GetDatum(read_fixed<float8>(at, next));
        case MpImageRule::Interval: {
            char* copy = (char*)MemoryContextAlloc(s->copies, sizeof(Interval));
            memcpy(copy, at, sizeof(Interval));
            *next = at + sizeof(Interval);
            return PointerGetDatum(copy);
        }
        default: return varlena_datum(s, at, next);  // bpchar, numeric, arrays, composites
    }
}

}  // namespace

uint64 mp_image_measure(const MpImagePlan* plan, MpImageScratch* s, TupleTableSlot* row) {
    mp_image_pieces(plan, s, row);
    uint32 body = image_body_size(plan, s);
    return varint_size(body) + uint64(body) + originals_size(plan, s);
}

uint64 mp_image_write_record(const MpImagePlan* plan, const MpImageScratch* s, char* at, uint64 bytes) {
    uint32 body = image_body_size(plan, s);
    char* p = write_varint(at, body);
    memset(p, 0, plan->null_bytes);
    for (int c = 0; c < plan->ncols; c++)
        if (s->isnull[c]) p[c / 8] |= char(1 << (c % 8));
    p += plan->null_bytes;
    for (int c = 0; c < plan->ncols; c++)
        if (!s->isnull[c]) p = write_piece(p, s->canonical[c]);
    uint64 hash = mp_image_hash(at, size_t(p - at));
    for (int c = 0; c < plan->ncols; c++)
        if (!s->isnull[c] && plan->cols[c].keeps_original) p = write_piece(p, s->original[c]);
    Assert(uint64(p - at) == bytes);
    (void)bytes;
    return plan->hash_bits < 64 ? hash & ((uint64(1) << plan->hash_bits) - 1) : hash;
}

// A column's stored original at `at`: its bytes (a char(n) value's flag byte included).
static uint32 original_size(const MpImageColumn& col, const char* at) {
    uint32 flag = 0;
    if (col.pad_to >= 0) {
        if (*at == 0) return 1;  // rebuilt from the image: only the flag
        flag = 1;
        at++;
    }
    switch (col.rule) {
        case MpImageRule::Float4: return flag + sizeof(float4);
        case MpImageRule::Float8: return flag + sizeof(float8);
        case MpImageRule::Interval: return flag + sizeof(Interval);
        default: return flag + stored_varlena_size(at);  // bpchar, numeric, arrays, composites
    }
}

uint64 mp_image_record_size(const MpImagePlan* plan, const char* record) {
    MpImageBytes image = mp_record_image(record);
    const char* nulls = (const char*)image.bytes;
    const char* at = nulls + image.len;  // the originals follow the image
    for (int c = 0; c < plan->ncols; c++)
        if (!((nulls[c / 8] >> (c % 8)) & 1) && plan->cols[c].keeps_original) at += original_size(plan->cols[c], at);
    return uint64(at - record);
}

void mp_image_output(const MpImagePlan* plan, MpImageScratch* s, const char* record, TupleTableSlot* out) {
    MemoryContextReset(s->copies);
    MpImageBytes image = mp_record_image(record);
    const char* nulls = (const char*)image.bytes;
    const char* at = nulls + plan->null_bytes;
    for (int c = 0; c < plan->ncols; c++) {
        out->tts_isnull[c] = (nulls[c / 8] >> (c % 8)) & 1;
        out->tts_values[c] = out->tts_isnull[c] ? 0 : canonical_datum(plan->cols[c], s, at, &at);
    }
    for (int c = 0; c < plan->ncols; c++)
        if (!out->tts_isnull[c] && plan->cols[c].keeps_original)
            out->tts_values[c] = original_datum(plan->cols[c], s, out->tts_values[c], at, &at);
}
