// context.cpp — resolves the backend (Auto: CUDA when a usable device answers, else
// CPU; Cuda without a device: NoDevice), and owns the backend's allocator, stream
// and thread count for the lifetime of the Context.
#include <cstring>
#include <thread>
#include <vector>

#include "allocator.h"
#include "cpu/parallel.h"
#include "cuda_runtime_api.h"
#include "mergepath/context.h"

namespace mergepath {

struct Context::State {
    Backend backend = Backend::Cpu;
    int threads = 1;
    std::function<bool()> interrupt_requested;
    std::unique_ptr<detail::BudgetedAllocator> host_allocator;
    detail::CudaDevice cuda;
    std::string description;

    detail::BudgetedAllocator& allocator() {
        return backend == Backend::Cuda ? *cuda.allocator : *host_allocator;
    }
};

static int resolve_threads(int requested) {
    if (requested > 0) return requested;
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

Context::Context(const Options& options) : state_(new State) {
    State& s = *state_;
    s.threads = resolve_threads(options.cpu_threads);
    s.interrupt_requested = options.interrupt_requested;
    bool want_cuda = options.backend == Backend::Cuda ||
                     (options.backend == Backend::Auto && detail::cuda_probe(options.cuda_device, nullptr));
    if (want_cuda) {
        s.cuda = detail::cuda_open(options.cuda_device);  // throws NoDevice
        s.backend = Backend::Cuda;
        s.description = "cuda: " + s.cuda.name;
    } else {
        s.host_allocator.reset(new detail::HostAllocator);
        s.backend = Backend::Cpu;
        s.description = "cpu: " + std::to_string(s.threads) + " threads";
    }
    s.allocator().set_budget(options.memory_budget);
    s.allocator().set_ledger(options.ledger, options.interrupt_requested);
}

Context::~Context() {
    if (state_ && state_->backend == Backend::Cuda) detail::cuda_close(state_->cuda);
}

Backend Context::backend() const { return state_->backend; }
std::string Context::describe() const { return state_->description; }
int Context::cpu_threads() const { return state_->threads; }
size_t Context::memory_in_use() const { return state_->allocator().in_use(); }
void Context::charge_memory(size_t bytes) { state_->allocator().charge(bytes); }
void Context::discharge_memory(size_t bytes) noexcept { state_->allocator().discharge(bytes); }
size_t Context::memory_budget() const { return state_->allocator().budget(); }
void Context::set_memory_budget(size_t bytes) { state_->allocator().set_budget(bytes); }
size_t Context::device_memory_bytes() const { return state_->cuda.memory_bytes; }
size_t Context::ledger_reserved() const { return state_->allocator().ledger_reserved(); }
bool Context::reserve_memory(size_t bytes) { return state_->allocator().reserve_ahead(bytes); }
size_t Context::memory_peak() const { return state_->allocator().peak(); }
double Context::ledger_wait_ms() const { return state_->allocator().ledger_wait_ms(); }
void Context::reset_memory_peak() { state_->allocator().reset_peak(); }
void Context::release_cached_memory() { state_->allocator().release_cached(); }
Allocator& Context::allocator() { return state_->allocator(); }
void* Context::cuda_stream() const { return state_->cuda.stream; }

bool Context::cuda_available(std::string* why_not) { return detail::cuda_probe(0, why_not); }

void Context::check_interrupt() const {
    if (state_->interrupt_requested && state_->interrupt_requested())
        throw Cancelled("mergepath: operation cancelled");
}

void Context::copy_in(void* dst, const void* host_src, size_t bytes) {
    if (state_->backend == Backend::Cuda)
        detail::cuda_copy_in(state_->cuda, dst, host_src, bytes);
    else
        std::memcpy(dst, host_src, bytes);
}

void Context::copy_out(void* host_dst, const void* src, size_t bytes) {
    HostSpan span{host_dst, bytes};
    copy_out_scattered(src, &span, 1);
}

void Context::copy_out_scattered(const void* src, const HostSpan* spans, size_t count) {
    if (state_->backend == Backend::Cuda) return detail::cuda_copy_out(state_->cuda, src, spans, count, state_->threads);
    std::vector<const char*> from(count);  // each span's source, then the spans in parallel
    const char* next = static_cast<const char*>(src);
    for (size_t i = 0; i < count; ++i) {
        from[i] = next;
        next += spans[i].bytes;
    }
    cpu::parallel_for(*this, count, [&](size_t i) {
        if (spans[i].bytes) std::memcpy(spans[i].data, from[i], spans[i].bytes);
    });
}

}  // namespace mergepath
