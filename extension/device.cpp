// device.cpp — choosing the backend and owning the mergepath Contexts of this backend
// process.
//
// CUDA is not fork-safe, so nothing here runs in the postmaster: _PG_init does not
// touch it, and the first query (or plan) that needs a device probes it in the backend.
// The probe result is cached per backend. Contexts are opened lazily and kept for
// the life of the backend (opening a CUDA context costs ~100 ms), in a few slots with
// a user count: a slot whose settings went stale (pg_mergepath.cpu_threads changed)
// is retired and closed once its last user (e.g. an open cursor) releases it.
//
// Threads that CUDA or the library start while a context opens inherit the calling
// thread's signal mask; all signals are blocked meanwhile so that PostgreSQL's
// signal handlers keep running on the backend's own thread.
#include <csignal>
#include <string>

#include <pthread.h>

#include "device.h"

#include "pg_mergepath.h"

namespace {

struct ContextSlot {
    mergepath::Context* ctx;
    MpDevice device;
    int threads;  // pg_mergepath.cpu_threads it was opened with (CPU slots)
    int users;
    bool retired;
};

constexpr int kMaxSlots = 8;
ContextSlot slots[kMaxSlots];

enum class Probe { Unknown, Usable, Unusable };
Probe gpu_probe = Probe::Unknown;
char gpu_why_not[256];
bool logged_auto_cpu = false;

// Runs f with every signal blocked in this thread (see the file comment).
template <class F>
bool with_signals_blocked(MpError* err, F&& f) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool ok = mp_try(err, f);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

void probe_gpu() {
    MpError err;
    bool usable = false;
    std::string why;
    bool ok = with_signals_blocked(&err, [&] {
        usable = mergepath::Context::cuda_available(&why);
        snprintf(gpu_why_not, sizeof(gpu_why_not), "%s", why.c_str());
    });
    if (!ok) snprintf(gpu_why_not, sizeof(gpu_why_not), "%s", err.message);
    gpu_probe = ok && usable ? Probe::Usable : Probe::Unusable;
}

void log_auto_cpu_once() {
    if (logged_auto_cpu) return;
    logged_auto_cpu = true;
    ereport(LOG, (errmsg("pg_mergepath: pg_mergepath.device = auto: using the CPU backend because no GPU is "
                         "usable: %s",
                         gpu_why_not)));
}

void close_slot(ContextSlot* slot) noexcept {
    MpError err;
    mergepath::Context* ctx = slot->ctx;
    mp_try(&err, [&] { delete ctx; });
    *slot = ContextSlot{};
}

// Retires the CPU slots opened with another thread count than the current setting.
void retire_stale_cpu_slots() {
    for (ContextSlot& s : slots) {
        if (!s.ctx || s.device != MpDevice::Cpu || s.retired || s.threads == mp_cpu_threads) continue;
        s.retired = true;
        if (s.users == 0) close_slot(&s);
    }
}

ContextSlot* find_slot(MpDevice device) {
    for (ContextSlot& s : slots)
        if (s.ctx && !s.retired && s.device == device) return &s;
    return nullptr;
}

ContextSlot* open_slot(MpDevice device, MpError* err) {
    ContextSlot* free_slot = nullptr;
    for (ContextSlot& s : slots)
        if (!s.ctx && !free_slot) free_slot = &s;
    if (!free_slot) {
        mp_set_error(err, MpErrorKind::Other, "too many open mergepath contexts in this backend");
        return nullptr;
    }
    mergepath::Options options;
    options.backend = device == MpDevice::Gpu ? mergepath::Backend::Cuda : mergepath::Backend::Cpu;
    options.cpu_threads = mp_cpu_threads;
    options.interrupt_requested = &mp_interrupt_requested;
    mergepath::Context* ctx = nullptr;
    if (!with_signals_blocked(err, [&] { ctx = new mergepath::Context(options); })) return nullptr;
    *free_slot = ContextSlot{ctx, device, mp_cpu_threads, 0, false};
    return free_slot;
}

size_t budget_for(MpDevice device, bool unlimited) {
    if (unlimited) return 0;
    if (device == MpDevice::Gpu) return size_t(mp_gpu_memory_limit_mb) << 20;
    return size_t(mp_debug_cpu_memory_kb) << 10;
}

}  // namespace

MpDevice mp_resolve_device() {
    if (mp_device_setting == MP_DEVICE_SETTING_GPU) return MpDevice::Gpu;
    if (mp_device_setting == MP_DEVICE_SETTING_CPU) return MpDevice::Cpu;
    if (gpu_probe == Probe::Unknown) probe_gpu();
    if (gpu_probe == Probe::Usable) return MpDevice::Gpu;
    log_auto_cpu_once();
    return MpDevice::Cpu;
}

const char* mp_device_name(MpDevice device) { return device == MpDevice::Gpu ? "gpu" : "cpu"; }

int mp_cpu_thread_count() {
    if (mp_cpu_threads > 0) return mp_cpu_threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? int(n) : 1;
}

mergepath::Context* mp_context_acquire(MpDevice wanted, bool unlimited, MpDevice* used, MpError* err) {
    retire_stale_cpu_slots();
    ContextSlot* slot = find_slot(wanted);
    if (!slot) slot = open_slot(wanted, err);
    if (!slot && wanted == MpDevice::Gpu && mp_device_setting == MP_DEVICE_SETTING_AUTO &&
        err->kind == MpErrorKind::NoDevice) {
        // The probe said yes but the GPU does not open: auto means CPU from now on.
        snprintf(gpu_why_not, sizeof(gpu_why_not), "%s", err->message);
        gpu_probe = Probe::Unusable;
        log_auto_cpu_once();
        return mp_context_acquire(MpDevice::Cpu, unlimited, used, err);
    }
    if (!slot) return nullptr;
    mergepath::Context* ctx = slot->ctx;
    size_t budget = budget_for(wanted, unlimited);
    if (!mp_try(err, [&] { ctx->set_memory_budget(budget); })) return nullptr;
    slot->users++;
    *used = wanted;
    return ctx;
}

void mp_context_release(mergepath::Context* ctx) noexcept {
    for (ContextSlot& s : slots) {
        if (s.ctx != ctx) continue;
        s.users--;
        if (s.users == 0) {  // host blocks cached for reuse go back between queries
            MpError err;
            mp_try(&err, [&] { ctx->release_cached_memory(); });
        }
        if (s.retired && s.users == 0) close_slot(&s);
        return;
    }
}

uint64_t mp_context_memory_in_use() {
    uint64_t total = 0;
    for (ContextSlot& s : slots) {
        if (!s.ctx) continue;
        MpError err;
        size_t bytes = 0;
        mergepath::Context* ctx = s.ctx;
        if (mp_try(&err, [&] { bytes = ctx->memory_in_use(); })) total += bytes;
    }
    return total;
}
