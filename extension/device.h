// device.h — which backend (GPU or CPU) a backend process uses, and the mergepath
// Contexts it has opened (see device.cpp).
#pragma once

#include <cstdint>

#include "guard.h"
#include "mergepath/context.h"

enum class MpDevice { Cpu, Gpu };

// The device pg_mergepath.device asks for: gpu/cpu as set; auto = GPU when one is
// usable (probed once per backend; the first time it is not, one LOG line says why).
MpDevice mp_resolve_device();
const char* mp_device_name(MpDevice device);

// Threads the CPU backend will use (pg_mergepath.cpu_threads, 0 = all cores).
int mp_cpu_thread_count();

// A Context for the device, opened on first use and shared by the backend's queries;
// every acquire is paired with a release (made by the owner's memory-context reset
// callback). The budget is set for this use: pg_mergepath.gpu_memory_limit on the GPU,
// none on the CPU unless `unlimited` is false and the debug budget is set. Returns
// nullptr with *err set when the context cannot be opened (device = gpu without a GPU).
// With device = auto, a GPU that fails to open makes this (and later) calls use the
// CPU; *used says which one it is.
mergepath::Context* mp_context_acquire(MpDevice wanted, bool unlimited, MpDevice* used, MpError* err);
void mp_context_release(mergepath::Context* ctx) noexcept;

// Bytes held by all open contexts (live Buffers and scratch).
uint64_t mp_context_memory_in_use();
