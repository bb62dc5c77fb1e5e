// context.h — a Context picks the backend (CUDA or CPU) once and owns what every
// operation needs: the device, its stream and caching memory pool with a budget,
// or the CPU thread count. Buffer<T> is memory in the context's space (device
// memory for CUDA, host memory for the CPU backend); View<T> is a pointer + length
// in that space. Operations (ops.h) take Views and return Buffers.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "mergepath/types.h"

namespace mergepath {

enum class Backend { Auto, Cpu, Cuda };

// Memory shared by several contexts, possibly of several processes (PostgreSQL's
// backends share one GPU budget through it). A context given a ledger reserves there
// the memory its Buffers and scratch need before allocating it (charged host memory
// is not reserved), keeps what it reserved while it works (its pool caches freed
// blocks), and gives it all back when it is idle (release_cached_memory()), unless the
// ledger lets it keep it (keep_when_idle), or when it is destroyed. When the ledger has no room, a context that holds nothing in it waits up
// to patience_ms(), polling Options::interrupt_requested (Cancelled), then throws
// OutOfMemory; one that already holds memory there throws at once (waiting while
// holding could make contexts wait for each other).
// Implementations must be thread-safe and make no calls that need the caller's thread.
class MemoryLedger {
public:
    virtual ~MemoryLedger() = default;
    virtual bool try_reserve(size_t bytes) noexcept = 0;  // false: no room now
    virtual void give_back(size_t bytes) noexcept = 0;
    virtual double patience_ms() const noexcept = 0;
    virtual void set_waiting(bool waiting) noexcept { (void)waiting; }  // a wait begins / ends
    // Asked when a context holding `held` bytes goes idle: true lets it keep them and the
    // memory its pool caches for its next piece of work (no fresh device memory to map
    // then); false makes it give both back.
    virtual bool keep_when_idle(size_t held) noexcept { (void)held; return false; }
};

struct Options {
    Backend backend = Backend::Auto;  // Auto: CUDA when a usable GPU is present, else CPU
    int cuda_device = 0;              // device ordinal for the CUDA backend
    size_t memory_budget = 0;         // bytes the context may hold at once; 0 = no limit
    int cpu_threads = 0;              // CPU backend threads; 0 = hardware concurrency
    // Polled between pieces of work, from any thread; returning true makes the
    // running operation throw Cancelled.
    std::function<bool()> interrupt_requested;
    MemoryLedger* ledger = nullptr;   // shared budget to reserve memory in (outlives the context)
};

class Allocator;  // defined by each backend
struct HostSpan;

// Memory in a context's space, move-only, returned to the context's pool on destruction.
template <class T>
class Buffer {
public:
    Buffer() = default;
    Buffer(Allocator* owner, T* data, size_t size) : owner_(owner), data_(data), size_(size) {}
    Buffer(Buffer&& other) noexcept { swap(other); }
    Buffer& operator=(Buffer&& other) noexcept { Buffer tmp(std::move(other)); swap(tmp); return *this; }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { reset(); }

    T* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void reset();
    void swap(Buffer& other) noexcept {
        std::swap(owner_, other.owner_);
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }

private:
    Allocator* owner_ = nullptr;
    T* data_ = nullptr;
    size_t size_ = 0;
};

// A read-only or writable range in a context's memory space.
template <class T>
struct View {
    T* data = nullptr;
    size_t size = 0;
    View() = default;
    View(T* d, size_t n) : data(d), size(n) {}
    template <class U>
    View(const Buffer<U>& b) : data(b.data()), size(b.size()) {}  // NOLINT: implicit on purpose
    template <class U>
    View(const Buffer<U>& b, size_t n) : data(b.data()), size(n) {}
};

class Context {
public:
    explicit Context(const Options& options = Options());
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    Backend backend() const;        // the resolved backend: Cpu or Cuda
    bool host_memory() const { return backend() == Backend::Cpu; }  // Views are host pointers
    std::string describe() const;   // e.g. "cuda: NVIDIA H100 80GB HBM3" or "cpu: 16 threads"
    size_t device_memory_bytes() const;  // the GPU's global memory (0 on the CPU backend)
    int cpu_threads() const;
    size_t memory_in_use() const;   // bytes held by live Buffers and scratch, and charged bytes
    // Counts host memory that lives elsewhere but belongs to work on this context (the
    // keys a sorted-sides stage reads in place) in the same budget as the context's own
    // memory: charge() throws OutOfMemory when the budget would be exceeded.
    void charge_memory(size_t bytes);
    void discharge_memory(size_t bytes) noexcept;
    size_t memory_budget() const;
    void set_memory_budget(size_t bytes);
    size_t ledger_reserved() const;  // bytes this context holds reserved in its ledger
    // Reserves in the ledger, ahead of the allocations, what the coming work is expected
    // to need in all (`bytes`, counting what is allocated already): a context holding
    // nothing there waits for room as an allocation would (OutOfMemory after the
    // ledger's patience, Cancelled); one that holds memory takes what it gets at once,
    // or nothing. Returns whether the bytes are reserved (true without a ledger).
    bool reserve_memory(size_t bytes);
    // The most memory in use (as memory_in_use()) since reset_memory_peak(), and the
    // milliseconds allocations waited for room in the ledger since then.
    size_t memory_peak() const;
    double ledger_wait_ms() const;
    void reset_memory_peak();
    // Hands memory cached for reuse back to the system: freed Buffers kept by the host
    // allocator (the GPU pool keeps its device memory cached, unless the context has a
    // ledger; the CUDA context's two pinned staging buffers stay until it closes). With
    // no Buffer alive, what was reserved in the ledger goes back to it. Buffers still
    // alive are untouched.
    void release_cached_memory();

    // Why Auto would not pick CUDA (empty when it would). Calls into the CUDA runtime:
    // never call it in a process that will fork afterwards.
    static bool cuda_available(std::string* why_not = nullptr);

    // Memory in the context's space.
    template <class T>
    Buffer<T> alloc(size_t n);
    template <class T>
    Buffer<T> upload(const T* host, size_t n);
    template <class T>
    void download(View<const T> from, T* host);

    // Byte copies between host memory and the context's space (synchronous).
    void copy_in(void* dst, const void* host_src, size_t bytes);
    void copy_out(void* host_dst, const void* src, size_t bytes);
    // Copies consecutive bytes from src (the context's space) into the spans, in order.
    void copy_out_scattered(const void* src, const HostSpan* spans, size_t count);

    Allocator& allocator();
    void* cuda_stream() const;     // the cudaStream_t all CUDA work runs on (nullptr on CPU)
    void check_interrupt() const;  // throws Cancelled when the callback asks to stop

private:
    struct State;
    std::unique_ptr<State> state_;
};

// A stretch of host memory, a destination of a scattered download.
struct HostSpan {
    void* data;
    size_t bytes;
};

// Raw allocation interface implemented per backend (caching pool with a budget).
class Allocator {
public:
    virtual ~Allocator() = default;
    virtual void* allocate(size_t bytes) = 0;  // throws OutOfMemory
    virtual void release(void* p) noexcept = 0;
};

template <class T>
void Buffer<T>::reset() {
    if (owner_ && data_) owner_->release(data_);
    owner_ = nullptr;
    data_ = nullptr;
    size_ = 0;
}

template <class T>
Buffer<T> Context::alloc(size_t n) {
    T* p = n ? static_cast<T*>(allocator().allocate(n * sizeof(T))) : nullptr;
    return Buffer<T>(&allocator(), p, n);
}

template <class T>
Buffer<T> Context::upload(const T* host, size_t n) {
    Buffer<T> b = alloc<T>(n);
    if (n) copy_in(b.data(), host, n * sizeof(T));
    return b;
}

template <class T>
void Context::download(View<const T> from, T* host) {
    if (from.size) copy_out(host, from.data, from.size * sizeof(T));
}

}  // namespace mergepath
