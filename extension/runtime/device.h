// device.h — which backend (GPU or CPU) a backend process uses, the mergepath Contexts
// it has opened, and the GPU's start in the background (see device.cpp).
#pragma once

#include <cstdint>

#include "guard.h"
#include "mergepath/context.h"

enum class MpDevice { Cpu, Gpu };

// The device the planner costs with, without waiting and without starting anything:
// pg_mergepath.device = cpu, a parallel worker (workers never start CUDA) or auto with
// a GPU known to be unusable give the CPU; otherwise the GPU.
MpDevice mp_planning_device();

// The same for a node of ours that begins to run, whose plan may use the GPU: its
// context starts in the background now (once per backend), so that it is ready, or
// nearly, when the node has read its input. A query whose plan has no node of ours
// never starts it (the start takes a core and the driver's time while the query runs).
MpDevice mp_node_begin_device();

// Starts the GPU context in the background unless that is pointless (see above).
void mp_gpu_start_async();

// The device the combining step of a node uses for `keys` input keys: cpu, or a
// parallel worker: the CPU; gpu: the GPU (its start waited for); auto: the GPU when it
// has started and is usable; while it is still starting, the GPU (waiting) only for
// inputs large enough that waiting costs less than the CPU backend would.
MpDevice mp_choose_device(uint64_t keys);

// True when the GPU may be used and its context has started and is usable (no wait).
bool mp_gpu_ready();

// The device this session's queries use, waiting for a GPU start under way
// (pg_mergepath_status()).
MpDevice mp_resolve_device();
const char* mp_device_name(MpDevice device);

// Threads the CPU backend will use (pg_mergepath.cpu_threads, 0 = all cores).
int mp_cpu_thread_count();

// A Context for the device, shared by the backend's queries; every acquire is paired
// with a release (made by the owner's memory-context reset callback). The budget is
// set for this use: pg_mergepath.gpu_memory_limit on the GPU, none on the CPU unless
// `unlimited` is false and the debug budget is set. Returns nullptr with *err set
// when the context cannot be opened (device = gpu without a GPU). With device = auto,
// a GPU that fails to open makes this (and later) calls use the CPU; *used says which
// one it is. *waited_ms (may be null) gets the time spent waiting for the GPU's start.
// cpu_threads > 0: a CPU context of that many threads (processes that run stages at
// the same time share the cores), else pg_mergepath.cpu_threads.
mergepath::Context* mp_context_acquire(MpDevice wanted, bool unlimited, MpDevice* used, MpError* err,
                                       double* waited_ms = nullptr, int cpu_threads = 0);
void mp_context_release(mergepath::Context* ctx) noexcept;

// Milliseconds the GPU context took to start in this backend, once: the first caller
// after the start finished gets them (the query the start overlapped), later ones 0.
double mp_take_gpu_start_ms();

// Bytes held by all open contexts (live Buffers, scratch, charged host keys).
uint64_t mp_context_memory_in_use();
