// guard.h — the boundary between C++ (the mergepath library, std containers) and
// PostgreSQL's error handling. ereport(ERROR) longjmps: it must never cross a frame
// that holds a C++ object with a destructor, and a C++ exception must never reach
// PostgreSQL. So every call into C++ code that can throw runs inside mp_try(), which
// catches everything, copies the message into a fixed buffer (no allocation) and
// returns; the caller then decides (fall back, or mp_raise() the ERROR) outside any
// try scope. Code run inside mp_try() must not call PostgreSQL functions that can
// raise an ERROR (palloc, fmgr, CHECK_FOR_INTERRUPTS...).
#pragma once

#include <cstdio>
#include <exception>
#include <new>

#include "mergepath/types.h"

enum class MpErrorKind { None, Cancelled, NoDevice, DeviceOutOfMemory, HostOutOfMemory, Library, Other };

struct MpError {
    MpErrorKind kind = MpErrorKind::None;
    char message[512] = {0};
};

inline void mp_set_error(MpError* err, MpErrorKind kind, const char* what) noexcept {
    err->kind = kind;
    std::snprintf(err->message, sizeof(err->message), "%s", what ? what : "");
}

// Runs f(); returns true when it returned normally, false (with *err set) when it threw.
template <class F>
bool mp_try(MpError* err, F&& f) noexcept {
    err->kind = MpErrorKind::None;
    err->message[0] = '\0';
    try {
        f();
        return true;
    } catch (const mergepath::Cancelled& e) {
        mp_set_error(err, MpErrorKind::Cancelled, e.what());
    } catch (const mergepath::NoDevice& e) {
        mp_set_error(err, MpErrorKind::NoDevice, e.what());
    } catch (const mergepath::OutOfMemory& e) {
        mp_set_error(err, MpErrorKind::DeviceOutOfMemory, e.what());
    } catch (const mergepath::Error& e) {
        mp_set_error(err, MpErrorKind::Library, e.what());
    } catch (const std::bad_alloc& e) {
        mp_set_error(err, MpErrorKind::HostOutOfMemory, e.what());
    } catch (const std::exception& e) {
        mp_set_error(err, MpErrorKind::Other, e.what());
    } catch (...) {
        mp_set_error(err, MpErrorKind::Other, "unknown C++ exception");
    }
    return false;
}

// Turns a caught error into ereport(ERROR); "doing" names the step for the message.
// A Cancelled error first runs CHECK_FOR_INTERRUPTS() so the user sees PostgreSQL's
// own cancel / timeout message.
[[noreturn]] void mp_raise(const MpError* err, const char* doing);

// The library's interrupt callback: true when PostgreSQL would throw at the next
// CHECK_FOR_INTERRUPTS() (query cancel, statement timeout, backend termination).
// It only reads volatile flags, so the library may call it from any thread.
bool mp_interrupt_requested();
