// spill_runs.cpp — sorted runs of keys in BufFiles, and reading them back by key range
// (see spill_runs.h): writing runs and their samples, merging runs, planning ranges
// (mergepath/key_ranges.h), loading or streaming a range. What participants of a
// parallel node share (exported runs, the plan, claims) is in spill_share.cpp. Keys are
// 4, 8 or 16 bytes (uint32, uint64, Key128: the widths the library sorts); the typed
// work is in templates, dispatched once per call on the width (spill_internal.h).
#include <algorithm>
#include <vector>

#include "spill_runs.h"
#include "spill_internal.h"

#include "device.h"
#include "guard.h"
#include "pipeline.h"
#include "mergepath/key_ranges.h"
#include "mergepath/ops.h"

namespace spill_detail {

constexpr uint64 kMinBufferBytes = BLCKSZ;
constexpr uint64 kMaxBufferBytes = uint64(1) << 20;
constexpr uint64 kMaxSampleStep = 1024;

// On a CPU context of its own with `threads` threads (the participants of a parallel
// node share the cores), made and gone inside mp_try().
template <class K>
void sort_keys_on_cpu(K* keys, uint64 n, int threads) {
    MpError err;
    bool ok = mp_try(&err, [&] {
        mergepath::Options options;
        options.backend = mergepath::Backend::Cpu;
        options.cpu_threads = threads;
        options.interrupt_requested = mp_interrupt_requested;
        mergepath::Context ctx(options);
        mergepath::sort_keys<K>(ctx, mergepath::View<K>(keys, n));
    });
    if (!ok) mp_raise(&err, "sorting a run of keys to spill");
}



// Room for `more` samples of the stream.
void reserve_samples(MpSpill* spill, int stream, uint64 more) {
    const uint32 size = spill->key_size[stream];
    uint64 wanted = spill->sample_count[stream] + more;
    if (wanted <= spill->sample_cap[stream]) return;
    uint64 cap = Max(wanted, 2 * spill->sample_cap[stream]);
    spill->samples[stream] = spill->samples[stream] ? (char*)repalloc_huge(spill->samples[stream], cap * size)
                                                    : (char*)MemoryContextAllocHuge(spill->cxt, cap * size);
    spill->sample_cap[stream] = cap;
}

// Keeps every `factor`-th of the n samples at `samples` (in place); returns how many.
uint64 thin_samples(char* samples, uint64 n, uint32 size, uint64 factor) {
    uint64 kept = 0;
    for (uint64 i = 0; i < n; i += factor) memmove(samples + kept++ * size, samples + i * size, size);
    return kept;
}

// The stream's samples thinned to a step of `step` (a power-of-two multiple of theirs).
void raise_sample_step(MpSpill* spill, int stream, uint64 step) {
    if (step <= spill->sample_step[stream]) return;
    spill->sample_count[stream] = thin_samples(spill->samples[stream], spill->sample_count[stream],
                                               spill->key_size[stream], step / spill->sample_step[stream]);
    spill->sample_step[stream] = step;
}

// Samples stay within a 32nd of the limit: past it, the step doubles and every other
// sample goes (each then stands for twice as many keys; ranges are only estimated less
// closely, and one found too large to load is streamed).
void bound_samples(MpSpill* spill, int stream) {
    while (spill->sample_count[stream] > 2 &&
           spill->sample_count[stream] * spill->key_size[stream] > spill->limit_bytes / 32)
        raise_sample_step(spill, stream, 2 * spill->sample_step[stream]);
}

// Every sample_step-th key of a sorted run.
void add_samples(MpSpill* spill, int stream, const char* keys, uint64 n) {
    const uint32 size = spill->key_size[stream];
    reserve_samples(spill, stream, (n + spill->sample_step[stream] - 1) / spill->sample_step[stream]);
    for (uint64 i = 0; i < n; i += spill->sample_step[stream])
        memcpy(spill->samples[stream] + spill->sample_count[stream]++ * size, keys + i * size, size);
    bound_samples(spill, stream);
}

// Samples another participant took every `step` keys: both sets brought to the larger step.
void append_samples(MpSpill* spill, int stream, char* samples, uint64 n, uint64 step) {
    raise_sample_step(spill, stream, step);
    if (step < spill->sample_step[stream])
        n = thin_samples(samples, n, spill->key_size[stream], spill->sample_step[stream] / step);
    reserve_samples(spill, stream, n);
    memcpy(spill->samples[stream] + spill->sample_count[stream] * spill->key_size[stream], samples,
           n * spill->key_size[stream]);
    spill->sample_count[stream] += n;
    bound_samples(spill, stream);
}

// A parallel participant's file names in the query's file set.
const char* file_name(int participant, int stream, int side) {
    return side < 0 ? psprintf("mp%d.meta", participant) : psprintf("mp%d.%d.%d", participant, stream, side);
}

BufFile* create_file(MpSpill* spill, int stream, int side) {
    return mp_temp_file_create(spill->cxt, spill->fileset,
                               spill->fileset ? file_name(spill->participant, stream, side) : NULL);
}

MpRunCursor* add_run(MpSpill* spill, MpSpillSide* s, BufFile* file, const char* name, uint64 start, uint64 count) {
    if (s->run_count == s->run_cap) {
        s->run_cap = Max(8, 2 * s->run_cap);
        s->runs = s->runs ? (MpRunCursor*)repalloc(s->runs, sizeof(MpRunCursor) * s->run_cap)
                          : (MpRunCursor*)MemoryContextAlloc(spill->cxt, sizeof(MpRunCursor) * s->run_cap);
    }
    MpRunCursor* run = &s->runs[s->run_count++];
    *run = {file, name, start, count, 0, NULL, 0, 0, 0};
    return run;
}

// Appends a sorted run of n keys to the side's file.
void write_run(MpSpill* spill, int stream, int side, char* keys, uint64 n) {
    MpSpillSide* s = side_of(spill, stream, side);
    const uint64 bytes = n * spill->key_size[stream];
    if (!s->file) s->file = create_file(spill, stream, side);
    add_run(spill, s, s->file, NULL, s->file_bytes, n);
    for (uint64 done = 0; done < bytes;) {  // BufFileWrite takes a size_t; write in pieces anyway
        CHECK_FOR_INTERRUPTS();
        uint64 piece = Min(bytes - done, uint64(64) << 20);
        BufFileWrite(s->file, keys + done, piece);
        done += piece;
    }
    s->file_bytes += bytes;
    add_samples(spill, stream, keys, n);
    spill->report.runs++;
    spill->report.bytes += bytes;
}

// The chunks of one (stream, side) copied into one array (each freed once copied, unless
// they are shared), sorted, written.
void spill_one(MpSpill* spill, int stream, int side, MpChunk** chunks, int count, bool shared) {
    const uint32 size = spill->key_size[stream];
    uint64 n = 0;
    for (int i = 0; i < count; i++)
        if (chunks[i] && int(chunks[i]->stream) == stream && int(chunks[i]->side) == side) n += chunks[i]->count;
    if (n == 0) return;
    instr_time began, took;
    INSTR_TIME_SET_CURRENT(began);
    char* keys = (char*)MemoryContextAllocHuge(spill->cxt, n * size);
    uint64 at = 0;
    for (int i = 0; i < count; i++) {
        MpChunk* c = chunks[i];
        if (!c || int(c->stream) != stream || int(c->side) != side) continue;
        memcpy(keys + at * size, mp_chunk_keys(c), c->count * size);
        at += c->count;
        if (!shared) pfree(c);
        chunks[i] = NULL;
    }
    mp_with_key_type(size, [&](auto k) { sort_keys_on_cpu((decltype(k)*)keys, n, spill->sort_threads); });
    write_run(spill, stream, side, keys, n);
    pfree(keys);
    INSTR_TIME_SET_CURRENT(took);
    INSTR_TIME_SUBTRACT(took, began);
    spill->report.spill_ms += INSTR_TIME_GET_MILLISEC(took);
}

}  // namespace spill_detail

using namespace spill_detail;

void mp_spill_init(MpSpill* spill, MemoryContext cxt, int main_key_size, uint64 limit_bytes, uint64 range_bytes,
                   SharedFileSet* fileset, int participant, int sharing) {
    memset(spill, 0, sizeof(*spill));
    spill->cxt = cxt;
    spill->key_size[int(MpKeyStream::Main)] = uint32(main_key_size);
    spill->key_size[int(MpKeyStream::Nulls)] = uint32(sizeof(mergepath::Key128));
    spill->limit_bytes = limit_bytes;
    for (int stream = 0; stream < 2; stream++)
        spill->sample_step[stream] = Max(Min(range_bytes / spill->key_size[stream] / 16, kMaxSampleStep), 1);
    spill->fileset = fileset;
    spill->participant = participant;
    spill->sort_threads = Max(1, mp_cpu_thread_count() / Max(sharing, 1));
}

void mp_spill_chunks(MpSpill* spill, MpChunkRef all, const MpChunkSpace* shared) {
    auto at = [&](MpChunkRef ref) { return shared ? mp_chunk_at(shared, ref) : (MpChunk*)(uintptr_t)ref; };
    int count = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = at(ref)->next_all) count++;
    MpChunk** chunks = (MpChunk**)palloc(sizeof(MpChunk*) * Max(count, 1));
    count = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = at(ref)->next_all) {
        MpChunk* c = at(ref);
        chunks[count++] = c->stream < kRowBlockStream ? c : NULL;
    }
    // a local space's chunks are what the node holds within its limit: one run each
    // (stream, side); shared chunks may be more, and go in slices of a third of the
    // limit, a run each
    const uint64 slice_bytes = shared ? Max(spill->limit_bytes / 3, uint64(1)) : UINT64_MAX;
    for (int first = 0; first < count;) {
        int end = first;
        for (uint64 bytes = 0; end < count && (end == first || bytes < slice_bytes); end++)
            bytes += chunks[end] ? chunks[end]->count * chunks[end]->key_size : 0;
        for (int stream = 0; stream < 2; stream++)
            for (int side = 0; side < 2; side++)
                spill_one(spill, stream, side, chunks + first, end - first, shared != NULL);
        first = end;
    }
    pfree(chunks);
}

// Forgets every run and sample (their files closed or handed over).
void spill_detail::forget_runs(MpSpill* spill) {
    for (int stream = 0; stream < 2; stream++) {
        for (int side = 0; side < 2; side++) {
            MpSpillSide* s = side_of(spill, stream, side);
            s->file = NULL;
            s->run_count = 0;
            s->file_bytes = 0;
        }
        spill->sample_count[stream] = 0;
    }
}

void mp_spill_close(MpSpill* spill) {
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++)
            if (side_of(spill, stream, side)->file) BufFileClose(side_of(spill, stream, side)->file);
    for (int i = 0; i < spill->imported_count; i++) BufFileClose(spill->imported[i]);
    spill->imported_count = 0;
    forget_runs(spill);
}

BufFile* spill_detail::create_merge_file(MpSpill* spill, int stream, int side, const char** name) {
    if (spill->fileset) {
        MemoryContext old = MemoryContextSwitchTo(spill->cxt);  // the name lives with the runs
        *name = psprintf("mpm%d.%d.%d", spill->merge_passes++, stream, side);
        MemoryContextSwitchTo(old);
    }
    BufFile* out = mp_temp_file_create(spill->cxt, spill->fileset, spill->fileset ? *name : NULL);
    remember_file(spill, out);
    return out;
}

void spill_detail::close_file(MpSpill* spill, BufFile* file) {
    for (int i = 0; i < spill->imported_count; i++)
        if (spill->imported[i] == file) spill->imported[i] = spill->imported[--spill->imported_count];
    BufFileClose(file);
}

// Lists a file this spill opened or made to read from, to close it with the rest.
void spill_detail::remember_file(MpSpill* spill, BufFile* file) {
    if (spill->imported_count == spill->imported_cap) {
        spill->imported_cap = Max(8, 2 * spill->imported_cap);
        spill->imported = spill->imported
                              ? (BufFile**)repalloc(spill->imported, sizeof(BufFile*) * spill->imported_cap)
                              : (BufFile**)MemoryContextAlloc(spill->cxt, sizeof(BufFile*) * spill->imported_cap);
    }
    spill->imported[spill->imported_count++] = file;
}

void spill_detail::free_buffer(MpRunCursor* c) {
    if (c->buffer) pfree(c->buffer);
    c->buffer = NULL;
    c->buffer_count = c->buffer_cap = 0;
}

void spill_detail::fill_buffer(MpSpill* spill, MpRunCursor* c, uint64 first, uint64 units, uint64 room,
                               uint32 unit_bytes) {
    room = Max(Min(room, c->count - first), units);  // no larger than what is left of the run
    if (c->buffer_cap < room) {
        free_buffer(c);
        c->buffer = (char*)MemoryContextAllocHuge(spill->cxt, room * unit_bytes);
        c->buffer_cap = room;
    }
    uint64 n = Min(room, c->count - first);
    if (BufFileSeek(c->file, 0, off_t(c->start + first * unit_bytes), SEEK_SET) != 0 ||
        BufFileRead(c->file, c->buffer, n * unit_bytes) != n * unit_bytes)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled run back")));
    c->buffer_first = first;
    c->buffer_count = n;
}

namespace {

// The read buffers of all runs share a 16th of the limit.
uint64 buffer_keys(const MpSpill* spill, int stream) {
    int runs = 0;
    for (int side = 0; side < 2; side++) runs += spill->sides[stream][side].run_count;
    uint64 bytes = spill->limit_bytes / 16 / Max(runs, 1);
    bytes = Max(kMinBufferBytes, Min(kMaxBufferBytes, bytes));
    return bytes / spill->key_size[stream];
}

// The cursor's next key, read into its buffer if needed; NULL at the run's end (its
// buffer then freed).
const char* cursor_key(MpSpill* spill, int stream, int side, MpRunCursor* c) {
    if (c->next >= c->count) {
        free_buffer(c);
        return NULL;
    }
    const uint32 size = spill->key_size[stream];
    if (c->next < c->buffer_first || c->next >= c->buffer_first + c->buffer_count)
        fill_buffer(spill, c, c->next, 1, buffer_keys(spill, stream), size);
    return c->buffer + (c->next - c->buffer_first) * size;
}

template <class K>
bool in_range(const MpSpill* spill, int stream, int range, const K& key) {
    if (range >= spill->bound_count[stream]) return true;  // the last range: no upper bound
    return !(((const K*)spill->bounds[stream])[range] < key);
}

// Runs of a stream (both sides) whose read buffers fit a 16th of the limit.
uint64 max_stream_runs(const MpSpill* spill) { return Max(uint64(2), spill->limit_bytes / 16 / kMinBufferBytes); }

// Runs [first, first + count) of the side merged into one run appended to `out`: the
// smallest head's keys up to the next head are written at once, from its buffer.
template <class K>
MpRunCursor merge_group(MpSpill* spill, int stream, int side, int first, int count, BufFile* out, const char* out_name,
                        uint64* out_bytes) {
    MpSpillSide* s = side_of(spill, stream, side);
    MpRunCursor merged = {out, out_name, *out_bytes, 0, 0, NULL, 0, 0, 0};
    for (;;) {
        int best = -1;
        const K* heads[2] = {NULL, NULL};  // the smallest head, the second smallest
        for (int r = first; r < first + count; r++) {
            const K* k = (const K*)cursor_key(spill, stream, side, &s->runs[r]);
            if (!k) continue;
            if (!heads[0] || *k < *heads[0]) {
                heads[1] = heads[0];
                heads[0] = k;
                best = r;
            } else if (!heads[1] || *k < *heads[1]) {
                heads[1] = k;
            }
        }
        if (best < 0) break;
        MpRunCursor* c = &s->runs[best];
        const K* end = (const K*)c->buffer + c->buffer_count;
        const K* stop = heads[1] ? std::upper_bound(heads[0], end, *heads[1]) : end;
        uint64 n = uint64(stop - heads[0]);
        BufFileWrite(out, (void*)heads[0], n * sizeof(K));
        c->next += n;
        merged.count += n;
        CHECK_FOR_INTERRUPTS();
    }
    *out_bytes += merged.count * sizeof(K);
    spill->report.runs++;  // merged runs are written too
    spill->report.bytes += merged.count * sizeof(K);
    return merged;
}

// Merges the stream's runs until both sides' read buffers fit a 16th of the limit.
template <class K>
void bound_runs(MpSpill* spill, int stream) {
    const uint64 most = max_stream_runs(spill);
    const int fan_in = int(Min(most, uint64(1024)));
    for (int side = 0; side < 2; side++)
        while (uint64(side_of(spill, stream, side)->run_count) > Max(most / 2, uint64(1)))
            merge_pass(spill, stream, side, fan_in, /*carry_single=*/true,
                       [&](int first, int n, BufFile* out, const char* name, uint64* bytes) {
                           return merge_group<K>(spill, stream, side, first, n, out, name, bytes);
                       });
}

// No C++ object may be alive when mp_raise() longjmps: the bounds are planned and
// copied out in a scope of their own (at most one bound per sample).
template <class K>
int plan_ranges(MpSpill* spill, int stream, uint64 target_keys) {
    const K* samples = (const K*)spill->samples[stream];
    const uint64 n = spill->sample_count[stream];
    spill->bounds[stream] = (char*)MemoryContextAllocHuge(spill->cxt, Max(n, uint64(1)) * sizeof(K));
    MpError err;
    size_t count = 0;
    bool ok;
    {
        std::vector<K> bounds;
        ok = mp_try(&err, [&] {
            bounds = mergepath::plan_key_ranges<K>(std::vector<K>(samples, samples + n), spill->sample_step[stream],
                                                      target_keys);
        });
        count = ok ? bounds.size() : 0;
        if (count) memcpy(spill->bounds[stream], bounds.data(), count * sizeof(K));
    }
    if (!ok) mp_raise(&err, "planning key ranges");
    spill->bound_count[stream] = int(count);
    return int(count) + 1;
}

// Takes keys from every run of the side, each run from its cursor on: a run is sorted,
// so the keys wanted are a prefix of what is left of it, found buffer by buffer by
// end_of(first, end) (the end of the wanted keys among [first, end)). take(first, n)
// gets each piece and returns how many it took; fewer than offered stops the walk.
// Returns the keys taken.
template <class K, class EndOf, class Take>
uint64 take_prefixes(MpSpill* spill, int stream, int side, EndOf end_of, Take take) {
    MpSpillSide* s = side_of(spill, stream, side);
    uint64 taken = 0;
    for (int r = 0; r < s->run_count; r++) {
        MpRunCursor* c = &s->runs[r];
        for (const K* first; (first = (const K*)cursor_key(spill, stream, side, c));) {
            const K* end = (const K*)c->buffer + c->buffer_count;
            const K* stop = end_of(first, end);
            uint64 offered = uint64(stop - first);
            uint64 n = take(first, offered);
            c->next += n;
            taken += n;
            CHECK_FOR_INTERRUPTS();
            if (n < offered) return taken;
            if (stop < end) break;  // the rest of the run is past the prefix
        }
    }
    return taken;
}

// The keys of the range: those up to its bound (all, in the last range), copied into
// the writer's chunks, stopping after more than `limit`.
template <class K>
uint64 load_range(MpSpill* spill, int stream, int side, int range, MpChunkWriter* w, uint64 limit) {
    const bool bounded = range < spill->bound_count[stream];
    const K bound = bounded ? ((const K*)spill->bounds[stream])[range] : K();
    uint64 put = 0;
    return take_prefixes<K>(
        spill, stream, side,
        [&](const K* first, const K* end) { return bounded ? std::upper_bound(first, end, bound) : end; },
        [&](const K* first, uint64 n) {
            n = Min(n, limit + 1 - put);
            mp_writer_put_ascending(w, (const char*)first, n);
            put += n;
            return n;
        });
}

// The cursor of the side whose next key is the smallest left in the range, or -1.
template <class K>
int smallest_cursor(MpSpill* spill, int stream, int side, int range) {
    MpSpillSide* s = side_of(spill, stream, side);
    int best = -1;
    const K* best_key = NULL;
    for (int r = 0; r < s->run_count; r++) {
        const K* key = (const K*)cursor_key(spill, stream, side, &s->runs[r]);
        if (!key || !in_range(spill, stream, range, *key)) continue;
        if (!best_key || *key < *best_key) best = r, best_key = key;
    }
    return best;
}

}  // namespace

int mp_spill_plan_ranges(MpSpill* spill, int stream, uint64 target_keys) {
    if (!spill->planned[stream])
        mp_with_key_type(spill->key_size[stream], [&](auto k) {
            bound_runs<decltype(k)>(spill, stream);
            plan_ranges<decltype(k)>(spill, stream, target_keys);
        });
    spill->planned[stream] = true;
    return spill->bound_count[stream] + 1;
}

// Calls f(cursor, i) for every run cursor of the stream, A's then B's, i counting from 0.
template <class F>
static void for_each_cursor(MpSpill* spill, int stream, F f) {
    int i = 0;
    for (int side = 0; side < 2; side++)
        for (int r = 0; r < spill->sides[stream][side].run_count; r++) f(&spill->sides[stream][side].runs[r], i++);
}

void mp_spill_rewind(MpSpill* spill, int stream) {
    for_each_cursor(spill, stream, [](MpRunCursor* c, int) { c->next = 0; });
}

void mp_spill_save(MpSpill* spill, int stream, uint64* saved) {
    for_each_cursor(spill, stream, [&](MpRunCursor* c, int i) { saved[i] = c->next; });
}

void mp_spill_restore(MpSpill* spill, int stream, const uint64* saved) {
    for_each_cursor(spill, stream, [&](MpRunCursor* c, int i) { c->next = saved[i]; });
}

uint64 mp_spill_load_range(MpSpill* spill, int stream, int side, int range, MpChunkWriter* w, uint64 limit) {
    return mp_with_key_type(spill->key_size[stream],
                         [&](auto k) { return load_range<decltype(k)>(spill, stream, side, range, w, limit); });
}

const void* mp_spill_peek(MpSpill* spill, int stream, int side, int range) {
    int r = mp_with_key_type(spill->key_size[stream],
                          [&](auto k) { return smallest_cursor<decltype(k)>(spill, stream, side, range); });
    return r < 0 ? NULL : cursor_key(spill, stream, side, &spill->sides[stream][side].runs[r]);
}

namespace {

template <class K>
uint64 take_upto(MpSpill* spill, int stream, int side, const K& key, bool below) {
    return take_prefixes<K>(
        spill, stream, side,
        [&](const K* first, const K* end) {
            return below ? std::lower_bound(first, end, key) : std::upper_bound(first, end, key);
        },
        [](const K*, uint64 n) { return n; });
}

}  // namespace

uint64 mp_spill_take_upto(MpSpill* spill, int stream, int side, const void* key, bool below) {
    return mp_with_key_type(spill->key_size[stream], [&](auto k) {
        return take_upto<decltype(k)>(spill, stream, side, *(const decltype(k)*)key, below);
    });
}

bool mp_spill_key_less(const MpSpill* spill, int stream, const void* a, const void* b) {
    return mp_with_key_type(spill->key_size[stream],
                            [&](auto k) { return *(const decltype(k)*)a < *(const decltype(k)*)b; });
}

BufFile* mp_temp_file_create(MemoryContext cxt, SharedFileSet* fileset, const char* name) {
    MemoryContext old = MemoryContextSwitchTo(cxt);
    BufFile* file;
    if (fileset) {
        file = BufFileCreateFileSet(&fileset->fs, name);
    } else {
        PrepareTempTablespaces();
        file = BufFileCreateTemp(false);
    }
    MemoryContextSwitchTo(old);
    return file;
}

BufFile* mp_temp_file_open(MemoryContext cxt, SharedFileSet* fileset, const char* name, bool missing_ok) {
    MemoryContext old = MemoryContextSwitchTo(cxt);
    BufFile* file = BufFileOpenFileSet(&fileset->fs, name, O_RDONLY, missing_ok);
    MemoryContextSwitchTo(old);
    return file;
}

void mp_spill_report_add(MpSpillReport* total, const MpSpillReport* part) {
    total->runs += part->runs;
    total->bytes += part->bytes;
    total->ranges += part->ranges;
    total->streamed += part->streamed;
    total->spill_ms += part->spill_ms;
}

void mp_spill_explain(const MpSpillReport* report, ExplainState* es) {
    if (report->runs == 0) return;
    ExplainPropertyText("Spilled", psprintf("%llu kB in %llu runs", (unsigned long long)(report->bytes / 1024),
                                            (unsigned long long)report->runs), es);
    ExplainPropertyText("Key Ranges", psprintf("%llu (%llu streamed)", (unsigned long long)report->ranges,
                                               (unsigned long long)report->streamed), es);
    if (es->timing) ExplainPropertyFloat("Spill Time", "ms", report->spill_ms, 3, es);
}
