// sorted_sides.cpp — the sorted-sides stage (see sorted_sides.h). Each side is a list
// of host slices (blocks the stage copied batches into, or chunks it reads in place)
// and a shipping position in that list; shipping hands the slices past the position to
// SortedRuns (sorted_runs.h), sort() ships the rest and merges the runs. One mutex
// serialises producers, so they may call add / add_chunk concurrently.
#include "mergepath/sorted_sides.h"

#include <cstring>
#include <mutex>

#include "backends.h"
#include "sorted_runs.h"
#include "stopwatch.h"

namespace mergepath {
namespace {

constexpr size_t kGpuShipRows = size_t(1) << 22;
constexpr size_t kOwnedBlockKeys = size_t(1) << 16;  // smallest block add() copies into

int index_of(Side side) { return side == Side::A ? 0 : 1; }

// The keys of one side as they arrived, and how far they have been shipped.
template <class K>
struct SideInput {
    std::vector<HostSlice<K>> slices;
    std::vector<std::unique_ptr<K[]>> owned;  // blocks add() copied into
    size_t owned_room = 0;                    // free keys in the last owned block, if it is the last slice
    size_t total = 0;
    size_t shipped = 0;                       // keys [0, shipped) are in runs
    size_t ship_slice = 0, ship_offset = 0;   // where key `shipped` is
    enum class Carries { Unknown, RowNumbers, Values } carries = Carries::Unknown;

    // Every key of a side carries a value, or none does (then its row number): checked
    // before keys are added, recorded once they are.
    void check_carrying(Carries c) const {
        if (carries != Carries::Unknown && carries != c)
            throw Error("mergepath: a side's keys added both with and without values");
    }

    void restart_shipping() { shipped = ship_slice = ship_offset = 0; }

    // The slices holding keys [shipped, total); moves the position to the end.
    std::vector<HostSlice<K>> take_waiting() {
        std::vector<HostSlice<K>> out;
        for (size_t i = ship_slice; i < slices.size(); ++i) {
            size_t skip = i == ship_slice ? ship_offset : 0;
            if (slices[i].n > skip)
                out.push_back({slices[i].keys + skip, slices[i].n - skip,
                               slices[i].values ? slices[i].values + skip : nullptr});
        }
        ship_slice = slices.empty() ? 0 : slices.size() - 1;
        ship_offset = slices.empty() ? 0 : slices.back().n;
        shipped = total;
        return out;
    }

    // Copies keys into the last owned block while it has room, then into a new one.
    // Everything that can throw comes first: if it does, nothing was added.
    void append_copy(const K* keys, size_t n) {
        check_carrying(Carries::RowNumbers);
        size_t into_last = std::min(n, owned_room), rest = n - into_last;
        std::unique_ptr<K[]> block;
        size_t capacity = std::max(rest, kOwnedBlockKeys);
        if (rest) {
            block.reset(new K[capacity]);
            owned.reserve(owned.size() + 1);
            slices.reserve(slices.size() + 1);
        }
        if (into_last) {
            HostSlice<K>& last = slices.back();
            std::memcpy(const_cast<K*>(last.keys) + last.n, keys, into_last * sizeof(K));
            last.n += into_last;
            owned_room -= into_last;
        }
        if (rest) {
            std::memcpy(block.get(), keys + into_last, rest * sizeof(K));
            slices.push_back({block.get(), rest});
            owned.push_back(std::move(block));
            owned_room = capacity - rest;
        }
        carries = Carries::RowNumbers;
        total += n;
    }

    void append_chunk(const K* keys, size_t n, const uint64_t* values) {
        const Carries c = values ? Carries::Values : Carries::RowNumbers;
        check_carrying(c);
        slices.push_back({keys, n, values});  // may throw: nothing changed then
        carries = c;
        owned_room = 0;               // the last slice is no longer an owned block
        total += n;
    }
};

}  // namespace

template <class K>
struct SortedSides<K>::State {
    Context* ctx;
    bool with_rows;
    size_t ship_rows = kBackendDefault;
    bool shipping_failed = false;
    bool is_sorted = false;
    size_t charged = 0;  // bytes of host keys charged to ctx
    SideInput<K> input[2];
    SortedRuns<K> runs[2];
    SideArray<K> sorted[2];
    StageTimings timings;
    mutable std::mutex mutex;

    State(Context& c, bool w) : ctx(&c), with_rows(w), runs{SortedRuns<K>(w), SortedRuns<K>(w)} {}

    // Keys per run on the bound context; 0 = ship everything in sort().
    size_t ship_every() const {
        if (shipping_failed) return 0;
        size_t every = ship_rows != kBackendDefault ? ship_rows : ctx->host_memory() ? kNoShipping : kGpuShipRows;
        return every == kNoShipping ? 0 : every;
    }

    void drop_runs() {
        runs[0].clear();
        runs[1].clear();
        input[0].restart_shipping();
        input[1].restart_shipping();
    }

    // Ships the side's waiting keys as a run; false when none were waiting.
    bool ship(int side, bool ascending = false) {
        uint64_t first_row = input[side].shipped;
        std::vector<HostSlice<K>> waiting = input[side].take_waiting();
        if (waiting.empty()) return false;
        runs[side].ship(*ctx, waiting, first_row, ascending);
        return true;
    }

    // Ships the side's waiting keys as a run now. Out of memory ends shipping (sort()
    // then ships and sorts whole sides); any other error propagates.
    void ship_now(int side, bool ascending) {
        if (shipping_failed) return;
        Stopwatch clock;
        try {
            if (ship(side, ascending)) timings.runs++;
        } catch (const OutOfMemory&) {
            drop_runs();
            shipping_failed = true;
        }
        timings.ship_ms += clock.lap_ms();
    }

    // After an add: ships the side's waiting keys once there are enough.
    void ship_if_due(int side) {
        const size_t every = ship_every();
        if (every == 0 || input[side].total - input[side].shipped < every) return;
        ship_now(side, false);
    }

    // Charges arriving host keys to the budget. Runs are only an early start on the
    // sort: when they leave no room for the keys, they go and shipping ends.
    void charge(size_t bytes) {
        try {
            ctx->charge_memory(bytes);
        } catch (const OutOfMemory&) {
            if (runs[0].count() + runs[1].count() == 0) throw;
            drop_runs();
            shipping_failed = true;
            ctx->charge_memory(bytes);
        }
        charged += bytes;
    }

    // add / add_chunk: charges the keys' bytes, appends them with to_side (a failure
    // gives the charge back), ships when due; returns the row number of keys[0]. Keys
    // that ascend already, on the CPU backend, become a run of their own at once (the
    // keys waiting before them one too), copied but not sorted.
    template <class ToSide>
    uint64_t append(int side, const K* keys, size_t n, ToSide&& to_side, bool ascending = false,
                    const uint64_t* values = nullptr) {
        std::lock_guard<std::mutex> lock(mutex);
        const uint64_t first_row = input[side].total;
        if (is_sorted) throw Error("mergepath: keys added to sorted sides");
        if (n == 0) return first_row;
        if (!keys) throw Error("mergepath: keys have a size but no data");
        const size_t bytes = n * (sizeof(K) + (values ? sizeof(uint64_t) : 0));  // values read in place count too
        const bool own_run = ascending && ctx->host_memory();
        charge(bytes);
        if (own_run) ship_now(side, false);
        try {
            to_side(input[side]);
        } catch (...) {
            ctx->discharge_memory(bytes);
            charged -= bytes;
            throw;
        }
        if (own_run) ship_now(side, true);
        else ship_if_due(side);
        return first_row;
    }

    // Ships the rest and merges each side's runs. If anything throws, every run and
    // sorted side is dropped (their memory goes back before the caller redoes the work)
    // and shipping starts over at the first key, so sort() can run again.
    void sort_sides() {
        Stopwatch clock;
        try {
            for (int s = 0; s < 2; ++s) ship(s);  // the rest (everything, without shipping)
            (ctx->host_memory() ? timings.sort_ms : timings.transfer_ms) += clock.lap_ms();
            for (int s = 0; s < 2; ++s) sorted[s] = runs[s].merge(*ctx);
            timings.sort_ms += clock.lap_ms();
        } catch (...) {
            drop_runs();
            sorted[0] = SideArray<K>();
            sorted[1] = SideArray<K>();
            throw;
        }
    }
};

template <class K>
SortedSides<K>::SortedSides(Context& ctx, bool with_rows) : state_(new State(ctx, with_rows)) {}

template <class K>
SortedSides<K>::~SortedSides() {
    if (state_) state_->ctx->discharge_memory(state_->charged);
}

template <class K>
void SortedSides<K>::set_ship_rows(size_t rows) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->ship_rows = rows;
}

template <class K>
uint64_t SortedSides<K>::add(Side side, const K* keys, size_t n) {
    return state_->append(index_of(side), keys, n, [&](SideInput<K>& in) { in.append_copy(keys, n); });
}

template <class K>
uint64_t SortedSides<K>::add_chunk(Side side, const K* keys, size_t n, bool ascending, const uint64_t* values) {
    return state_->append(
        index_of(side), keys, n, [&](SideInput<K>& in) { in.append_chunk(keys, n, values); }, ascending, values);
}

template <class K>
size_t SortedSides<K>::rows(Side side) const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->input[index_of(side)].total;
}

template <class K>
void SortedSides<K>::sort() {
    State& s = *state_;
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.is_sorted) throw Error("mergepath: sorted sides sorted twice");
    s.sort_sides();
    s.is_sorted = true;
}

template <class K>
bool SortedSides<K>::sorted() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->is_sorted;
}

template <class K>
void SortedSides<K>::rebind(Context& ctx) {
    State& s = *state_;
    std::lock_guard<std::mutex> lock(s.mutex);
    s.drop_runs();
    s.sorted[0] = SideArray<K>();
    s.sorted[1] = SideArray<K>();
    ctx.charge_memory(s.charged);  // may throw: then the stage stays where it was
    s.ctx->discharge_memory(s.charged);
    s.ctx = &ctx;
    s.shipping_failed = false;
    s.is_sorted = false;
}

template <class K>
Context& SortedSides<K>::context() const { return *state_->ctx; }

template <class K>
View<const K> SortedSides<K>::sorted_keys(Side side) const { return state_->sorted[index_of(side)].ckeys(); }

template <class K>
View<const uint64_t> SortedSides<K>::sorted_rows(Side side) const {
    return state_->sorted[index_of(side)].crows();
}

template <class K>
void SortedSides<K>::release() {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->sorted[0] = SideArray<K>();
    state_->sorted[1] = SideArray<K>();
}

template <class K>
void SortedSides<K>::release_keys() {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->sorted[0].keys.reset();
    state_->sorted[1].keys.reset();
}

template <class K>
const StageTimings& SortedSides<K>::timings() const { return state_->timings; }

template class SortedSides<uint32_t>;
template class SortedSides<uint64_t>;
template class SortedSides<Key128>;

}  // namespace mergepath
