// span_cursor.h — a position in a list of host spans, for copies that go through a
// contiguous buffer a piece at a time (the CUDA backend's pinned staging, staging.cu):
// a download's pieces land in the spans of its destination, an upload's pieces are
// gathered from its sources, and a piece may end anywhere inside a span. Host code only,
// so that the CPU build tests it (test_span_cursor.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace mergepath {

// A stretch of host memory an upload reads (a HostSpan, mergepath/context.h, is one a
// download writes).
struct HostSource {
    const void* data;
    size_t bytes;
};

// Span: HostSpan or HostSource, { data, bytes }.
template <class Span>
struct SpanCursor {
    const Span* spans;
    size_t span = 0, offset = 0;

    // Copies the next n bytes of the spans, from the cursor on, into `buffer` and moves
    // the cursor past them (the spans must hold n more bytes).
    void gather(char* buffer, size_t n) {
        walk(n, [&](const char* at, size_t take) {
            std::memcpy(buffer, at, take);
            buffer += take;
        });
    }

    // Copies n bytes of `buffer` into the spans from the cursor on and moves the cursor
    // past them (the spans must have room for n more bytes).
    void scatter(const char* buffer, size_t n) {
        static_assert(std::is_same<decltype(Span::data), void*>::value, "scatter writes into the spans");
        walk(n, [&](char* at, size_t take) {
            std::memcpy(at, buffer, take);
            buffer += take;
        });
    }

    // The cursor n bytes further on (the spans must hold n more bytes): where a part of a
    // piece that another thread copies starts.
    SpanCursor advanced(size_t n) const {
        SpanCursor c = *this;
        c.walk(n, [](const char*, size_t) {});
        return c;
    }

private:
    // Calls step(address, bytes) for each non-empty stretch of the next n bytes (the
    // address is writable only where Span's data is: scatter checks).
    template <class Step>
    void walk(size_t n, Step step) {
        while (n > 0) {
            const Span& s = spans[span];
            size_t take = std::min(n, s.bytes - offset);
            if (take > 0) step(static_cast<char*>(const_cast<void*>(static_cast<const void*>(s.data))) + offset, take);
            n -= take;
            offset += take;
            if (offset == s.bytes) {
                ++span;
                offset = 0;
            }
        }
    }
};

}  // namespace mergepath
