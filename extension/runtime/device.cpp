// device.cpp — choosing the backend and owning the mergepath Contexts of this backend
// process.
//
// CUDA is not fork-safe, so nothing here runs in the postmaster: _PG_init does not
// touch it. Parallel workers are fresh processes that would pay CUDA's start for one
// query: they always use the CPU backend. In a backend, the first node of ours that
// begins to run (not a plan that merely considered one) starts the GPU context on a
// thread of its own (probe, context, stream and pool: ~100-300 ms), so that reading
// the input overlaps it; the combining step then finds it ready, waits for it, or takes
// the CPU backend for inputs too small to be worth the wait (mp_choose_device); waiting
// can be cancelled. The thread only
// calls CUDA and the library, never PostgreSQL; it starts with every signal blocked
// (PostgreSQL's handlers must run on the backend's own thread), and the backend joins
// it before it exits. The context is always CUDA device 0, which every thread of the
// process uses without a cudaSetDevice of its own.
//
// Contexts are kept for the life of the backend, in slots with a user count: a slot
// whose settings went stale (pg_mergepath.cpu_threads changed) is retired and closed
// once its last user (e.g. an open cursor) releases it. There are as many slots as
// contexts in use at once (a deque: a slot stays where it is while others are added).
// The GPU context reserves its memory in the budget all backends share
// (shared_budget.cpp); CPU contexts do only under a debug setting, in slots of their own.
#include <atomic>
#include <chrono>
#include <csignal>
#include <deque>
#include <string>
#include <thread>

#include <pthread.h>

#include "device.h"

#include "pg_mergepath.h"
#include "shared_budget.h"

extern "C" {
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
}

namespace {

struct ContextSlot {
    mergepath::Context* ctx;
    MpDevice device;
    int threads;  // pg_mergepath.cpu_threads it was opened with (CPU slots), or the count asked for
    int users;
    bool retired;
    bool ledgered;  // reserves its memory in the shared budget
    bool pinned;    // opened for a thread count the caller asked for, not the setting's
};

std::deque<ContextSlot> slots;

// With device = auto and the GPU still starting, the combining step waits for it from
// this many input keys on: below, the CPU backend finishes before the wait would end
// (it sorts ~100M keys/s on 16 cores; a GPU start takes ~100-300 ms).
constexpr uint64_t kWaitForGpuKeys = uint64_t(16) << 20;

// The GPU context's start on its own thread (see the file comment).
struct GpuStart {
    std::thread thread;
    std::atomic<bool> done{false};
    bool begun = false, finished = false;  // finished: joined and its outcome taken
    bool start_reported = false;           // took_ms went to a query's EXPLAIN
    mergepath::Context* ctx = nullptr;     // the thread's result when it succeeded
    std::string why_not;                   // ... and why not when it failed
    double took_ms = 0;
};
GpuStart gpu_start;
bool gpu_unusable = false;
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

// ledgered: the context reserves its memory in the shared budget (when there is one).
mergepath::Options options_for(MpDevice device, bool ledgered, int threads) {
    mergepath::Options options;
    options.backend = device == MpDevice::Gpu ? mergepath::Backend::Cuda : mergepath::Backend::Cpu;
    options.cpu_threads = threads;
    options.interrupt_requested = &mp_interrupt_requested;
    options.ledger = ledgered ? mp_shared_ledger() : nullptr;
    return options;
}

// The starter thread's body: no PostgreSQL calls here.
void start_gpu_context(mergepath::Options options) {
    auto begin = std::chrono::steady_clock::now();
    try {
        std::string why;
        if (!mergepath::Context::cuda_available(&why)) throw mergepath::NoDevice(why);
        gpu_start.ctx = new mergepath::Context(options);
    } catch (const std::exception& e) {
        gpu_start.why_not = e.what();
    } catch (...) {
        gpu_start.why_not = "unknown error while opening the GPU";
    }
    gpu_start.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    gpu_start.done.store(true, std::memory_order_release);
}

void join_gpu_start_at_exit(int, Datum) {
    if (gpu_start.thread.joinable()) gpu_start.thread.join();
}

bool gpu_start_pointless() {
    return mp_device_setting == MP_DEVICE_SETTING_CPU || IsParallelWorker() || gpu_unusable || gpu_start.begun;
}

void log_auto_cpu_once() {
    if (logged_auto_cpu || mp_device_setting != MP_DEVICE_SETTING_AUTO) return;
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

ContextSlot* free_slot(MpError* err) {
    for (ContextSlot& s : slots)
        if (!s.ctx) return &s;
    ContextSlot* added = nullptr;
    if (!mp_try(err, [&] { added = &slots.emplace_back(); })) return nullptr;
    return added;
}

// Waits for the GPU start (beginning it if needed) and takes its outcome once: a
// slot holding the context, or the GPU marked unusable.
void finish_gpu_start(double* waited_ms) {
    mp_gpu_start_async();
    if (gpu_start.finished || !gpu_start.begun) return;
    auto begin = std::chrono::steady_clock::now();
    while (!gpu_start.done.load(std::memory_order_acquire)) {  // a cancel may end the wait
        CHECK_FOR_INTERRUPTS();
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
    gpu_start.thread.join();
    if (waited_ms)
        *waited_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    gpu_start.finished = true;
    std::string why = gpu_start.why_not;
    if (gpu_start.ctx) {
        MpError err;
        uint64_t device_bytes = 0;
        mergepath::Context* opened = gpu_start.ctx;
        mp_try(&err, [&] { device_bytes = opened->device_memory_bytes(); });
        mp_shared_budget_note_device(device_bytes);
        if (ContextSlot* slot = free_slot(&err)) {
            *slot = ContextSlot{gpu_start.ctx, MpDevice::Gpu, mp_cpu_threads, 0, false, true, false};
            return;
        }
        mergepath::Context* ctx = gpu_start.ctx;  // opened, but no slot to keep it in
        mp_try(&err, [&] { delete ctx; });
        gpu_start.ctx = nullptr;
        why = "out of memory for the context's slot";
    }
    gpu_unusable = true;
    snprintf(gpu_why_not, sizeof(gpu_why_not), "%s", why.c_str());
}

// Retires the CPU slots opened with another thread count than the current setting.
void retire_stale_cpu_slots() {
    for (ContextSlot& s : slots) {
        if (!s.ctx || s.device != MpDevice::Cpu || s.retired || s.pinned || s.threads == mp_cpu_threads) continue;
        s.retired = true;
        if (s.users == 0) close_slot(&s);
    }
}

// The thread count of a CPU slot asked for `threads` (0: the setting's).
int slot_threads(int threads) { return threads > 0 ? threads : mp_cpu_threads; }

// A CPU slot is found for its thread count (threads: 0 = the setting's).
ContextSlot* find_slot(MpDevice device, bool ledgered, int threads = 0) {
    for (ContextSlot& s : slots)
        if (s.ctx && !s.retired && s.device == device && s.ledgered == ledgered &&
            (device == MpDevice::Gpu || s.threads == slot_threads(threads)))
            return &s;
    return nullptr;
}

// Idle CPU slots opened for another thread count than `threads` asked for now are
// closed: a backend keeps at most the pinned slots in use and the one it asks for.
void close_idle_pinned_slots(int threads) {
    for (ContextSlot& s : slots)
        if (s.ctx && s.pinned && s.users == 0 && s.threads != threads) close_slot(&s);
}

ContextSlot* open_cpu_slot(bool ledgered, int threads, MpError* err) {
    close_idle_pinned_slots(threads);
    ContextSlot* slot = free_slot(err);
    if (!slot) return nullptr;
    mergepath::Context* ctx = nullptr;
    const bool pinned = threads > 0;
    mergepath::Options options = options_for(MpDevice::Cpu, ledgered, slot_threads(threads));
    if (!with_signals_blocked(err, [&] { ctx = new mergepath::Context(options); })) return nullptr;
    *slot = ContextSlot{ctx, MpDevice::Cpu, slot_threads(threads), 0, false, ledgered, pinned};
    return slot;
}

ContextSlot* gpu_slot(MpError* err, double* waited_ms) {
    finish_gpu_start(waited_ms);
    ContextSlot* slot = find_slot(MpDevice::Gpu, true);
    if (!slot) mp_set_error(err, MpErrorKind::NoDevice, gpu_why_not);
    return slot;
}

size_t budget_for(MpDevice device, bool unlimited) {
    if (unlimited) return 0;
    if (device == MpDevice::Gpu) return size_t(mp_gpu_memory_limit_mb) << 20;
    return size_t(mp_debug_cpu_memory_kb) << 10;
}

}  // namespace

void mp_gpu_start_async() {
    if (gpu_start_pointless()) return;
    gpu_start.begun = true;
    on_proc_exit(join_gpu_start_at_exit, 0);
    MpError err;
    mergepath::Options options = options_for(MpDevice::Gpu, true, mp_cpu_threads);
    if (!with_signals_blocked(&err, [&] { gpu_start.thread = std::thread(start_gpu_context, options); })) {
        gpu_start.why_not = err.message;
        gpu_start.done.store(true);
        gpu_start.finished = true;
        gpu_unusable = true;
        snprintf(gpu_why_not, sizeof(gpu_why_not), "%s", err.message);
    }
}

MpDevice mp_planning_device() {
    if (mp_device_setting == MP_DEVICE_SETTING_CPU || IsParallelWorker()) return MpDevice::Cpu;
    if (mp_device_setting == MP_DEVICE_SETTING_AUTO && gpu_unusable) return MpDevice::Cpu;
    return MpDevice::Gpu;
}

MpDevice mp_node_begin_device() {
    mp_gpu_start_async();
    return mp_planning_device();
}

MpDevice mp_choose_device(uint64_t keys) {
    if (mp_device_setting == MP_DEVICE_SETTING_CPU || IsParallelWorker()) return MpDevice::Cpu;
    if (mp_device_setting == MP_DEVICE_SETTING_GPU) return MpDevice::Gpu;
    mp_gpu_start_async();
    bool ready = gpu_start.done.load(std::memory_order_acquire);
    if (!ready && keys < kWaitForGpuKeys) return MpDevice::Cpu;
    finish_gpu_start(nullptr);
    if (!gpu_unusable) return MpDevice::Gpu;
    log_auto_cpu_once();
    return MpDevice::Cpu;
}

bool mp_gpu_ready() {
    if (mp_device_setting == MP_DEVICE_SETTING_CPU || IsParallelWorker()) return false;
    if (!gpu_start.done.load(std::memory_order_acquire)) return false;
    finish_gpu_start(nullptr);
    return !gpu_unusable;
}

MpDevice mp_resolve_device() {
    if (mp_device_setting == MP_DEVICE_SETTING_CPU || IsParallelWorker()) return MpDevice::Cpu;
    if (mp_device_setting == MP_DEVICE_SETTING_GPU) return MpDevice::Gpu;
    finish_gpu_start(nullptr);
    if (!gpu_unusable) return MpDevice::Gpu;
    log_auto_cpu_once();
    return MpDevice::Cpu;
}

const char* mp_device_name(MpDevice device) { return device == MpDevice::Gpu ? "gpu" : "cpu"; }

int mp_cpu_thread_count() {
    if (mp_cpu_threads > 0) return mp_cpu_threads;
    static const long online = sysconf(_SC_NPROCESSORS_ONLN);  // read once: glibc reads sysfs each time
    return online > 0 ? int(online) : 1;
}

double mp_take_gpu_start_ms() {
    if (!gpu_start.finished || gpu_start.start_reported) return 0;
    gpu_start.start_reported = true;
    return gpu_start.took_ms;
}

mergepath::Context* mp_context_acquire(MpDevice wanted, bool unlimited, MpDevice* used, MpError* err,
                                       double* waited_ms, int cpu_threads) {
    retire_stale_cpu_slots();
    mp_shared_ledger();  // its limit and patience from the current settings
    bool cpu_ledgered = !unlimited && mp_debug_cpu_shared_budget_kb > 0;
    ContextSlot* slot =
        wanted == MpDevice::Gpu ? gpu_slot(err, waited_ms) : find_slot(MpDevice::Cpu, cpu_ledgered, cpu_threads);
    if (!slot && wanted == MpDevice::Gpu && mp_device_setting == MP_DEVICE_SETTING_AUTO &&
        err->kind == MpErrorKind::NoDevice) {
        log_auto_cpu_once();  // the GPU does not open: auto means CPU from now on
        return mp_context_acquire(MpDevice::Cpu, unlimited, used, err, nullptr, cpu_threads);
    }
    if (!slot && wanted == MpDevice::Cpu) slot = open_cpu_slot(cpu_ledgered, cpu_threads, err);
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
