// prefetch.h — software prefetch of a short record read at random (a stored row, an
// image record): its first cache line and the next one. Records are MAXALIGNed, not
// line-aligned, so a record of a few dozen bytes (a text key's stored row: header,
// length and bytes) often straddles two lines; a comparison of its bytes reads the
// second, and prefetching only the first left that read a full miss per record (the
// join's recheck: a third of its expansion time). A line it does not reach costs one
// wasted prefetch, never a wrong read (prefetches do not fault).
#pragma once

#include <cstdint>

inline void mp_prefetch_record(const void* record) {
    __builtin_prefetch(record);
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(record) + 63));
}
