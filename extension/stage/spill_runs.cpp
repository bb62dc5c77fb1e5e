// spill_runs.cpp — sorted runs of keys in BufFiles, and reading them back by key range
// (see spill_runs.h). Keys are 4, 8 or 16 bytes (uint32, uint64, Key128: the widths the
// library sorts); the typed work is in templates, dispatched once per call on the width.
#include <algorithm>
#include <vector>

#include "spill_runs.h"

#include "device.h"
#include "guard.h"
#include "pipeline.h"
#include "mergepath/key_ranges.h"
#include "mergepath/ops.h"

namespace {

constexpr uint64 kMinBufferBytes = BLCKSZ;
constexpr uint64 kMaxBufferBytes = uint64(1) << 20;
constexpr uint64 kMaxSampleStep = 1024;

// Calls f.template operator()<K>() for the key type of `key_size` bytes.
template <class F>
auto with_key_type(uint32 key_size, F&& f) {
    switch (key_size) {
        case 4: return f(uint32_t());
        case 8: return f(uint64_t());
        default: return f(mergepath::Key128());
    }
}

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

MpSpillSide* side_of(MpSpill* spill, int stream, int side) { return &spill->sides[stream][side]; }


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
    MemoryContext old = MemoryContextSwitchTo(spill->cxt);
    BufFile* file;
    if (spill->fileset) {
        file = BufFileCreateFileSet(&spill->fileset->fs, file_name(spill->participant, stream, side));
    } else {
        PrepareTempTablespaces();
        file = BufFileCreateTemp(false);
    }
    MemoryContextSwitchTo(old);
    return file;
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

// The chunks of one (stream, side) copied into one array (each freed once copied), sorted, written.
void spill_one(MpSpill* spill, int stream, int side, MpChunk** chunks, int count) {
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
        pfree(c);
        chunks[i] = NULL;
    }
    with_key_type(size, [&](auto k) { sort_keys_on_cpu((decltype(k)*)keys, n, spill->sort_threads); });
    write_run(spill, stream, side, keys, n);
    pfree(keys);
    INSTR_TIME_SET_CURRENT(took);
    INSTR_TIME_SUBTRACT(took, began);
    spill->report.spill_ms += INSTR_TIME_GET_MILLISEC(took);
}

}  // namespace

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

void mp_spill_chunks(MpSpill* spill, MpChunkRef all) {
    int count = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = ((MpChunk*)(uintptr_t)ref)->next_all) count++;
    MpChunk** chunks = (MpChunk**)palloc(sizeof(MpChunk*) * Max(count, 1));
    count = 0;
    for (MpChunkRef ref = all; ref != kNoChunk; ref = ((MpChunk*)(uintptr_t)ref)->next_all) {
        MpChunk* c = (MpChunk*)(uintptr_t)ref;
        chunks[count++] = c->stream < kRowBlockStream ? c : NULL;
    }
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) spill_one(spill, stream, side, chunks, count);
    pfree(chunks);
}

// Forgets every run and sample (their files closed or handed over).
static void forget_runs(MpSpill* spill) {
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

namespace {

void read_exact(BufFile* file, void* into, size_t bytes) {
    if (BufFileRead(file, into, bytes) != bytes)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled run's description")));
}

}  // namespace

// The description file: what was written, then per (stream, side) the runs' positions,
// then per stream the sample step and the samples.
void mp_spill_export(MpSpill* spill) {
    BufFile* meta = create_file(spill, 0, -1);
    BufFileWrite(meta, &spill->report.runs, sizeof(uint64));
    BufFileWrite(meta, &spill->report.bytes, sizeof(uint64));
    BufFileWrite(meta, &spill->report.spill_ms, sizeof(double));
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) {
            MpSpillSide* s = side_of(spill, stream, side);
            BufFileWrite(meta, &s->run_count, sizeof(int));
            for (int r = 0; r < s->run_count; r++) {
                BufFileWrite(meta, &s->runs[r].start, sizeof(uint64));
                BufFileWrite(meta, &s->runs[r].count, sizeof(uint64));
            }
            if (s->file) {
                BufFileExportFileSet(s->file);
                BufFileClose(s->file);
            }
        }
    for (int stream = 0; stream < 2; stream++) {
        BufFileWrite(meta, &spill->sample_step[stream], sizeof(uint64));
        BufFileWrite(meta, &spill->sample_count[stream], sizeof(uint64));
        if (spill->sample_count[stream] > 0)
            BufFileWrite(meta, spill->samples[stream], spill->sample_count[stream] * spill->key_size[stream]);
    }
    BufFileExportFileSet(meta);
    BufFileClose(meta);
    forget_runs(spill);
    for (int stream = 0; stream < 2; stream++) {  // exported: the combiner has them now
        if (spill->samples[stream]) pfree(spill->samples[stream]);
        spill->samples[stream] = NULL;
        spill->sample_cap[stream] = 0;
    }
    spill->report.runs = spill->report.bytes = 0;  // counted by the importer
    spill->report.spill_ms = 0;
}

namespace {

// Lists a file this spill opened or made to read from, to close it with the rest.
void remember_file(MpSpill* spill, BufFile* file) {
    if (spill->imported_count == spill->imported_cap) {
        spill->imported_cap = Max(8, 2 * spill->imported_cap);
        spill->imported = spill->imported
                              ? (BufFile**)repalloc(spill->imported, sizeof(BufFile*) * spill->imported_cap)
                              : (BufFile**)MemoryContextAlloc(spill->cxt, sizeof(BufFile*) * spill->imported_cap);
    }
    spill->imported[spill->imported_count++] = file;
}

}  // namespace

static BufFile* open_imported(MpSpill* spill, SharedFileSet* fileset, const char* name) {
    MemoryContext old = MemoryContextSwitchTo(spill->cxt);
    BufFile* file = BufFileOpenFileSet(&fileset->fs, name, O_RDONLY, false);
    MemoryContextSwitchTo(old);
    remember_file(spill, file);
    return file;
}

void mp_spill_import(MpSpill* spill, SharedFileSet* fileset, int participant) {
    BufFile* meta = open_imported(spill, fileset, file_name(participant, 0, -1));
    uint64 written[2];
    double spill_ms;
    read_exact(meta, written, sizeof(written));
    read_exact(meta, &spill_ms, sizeof(double));
    spill->report.runs += written[0];
    spill->report.bytes += written[1];
    spill->report.spill_ms += spill_ms;
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) {
            int runs;
            read_exact(meta, &runs, sizeof(int));
            const char* name = MemoryContextStrdup(spill->cxt, file_name(participant, stream, side));
            BufFile* file = runs > 0 ? open_imported(spill, fileset, name) : NULL;
            for (int r = 0; r < runs; r++) {
                uint64 position[2];
                read_exact(meta, position, sizeof(position));
                add_run(spill, side_of(spill, stream, side), file, name, position[0], position[1]);
            }
        }
    for (int stream = 0; stream < 2; stream++) {
        uint64 step, n;
        read_exact(meta, &step, sizeof(uint64));
        read_exact(meta, &n, sizeof(uint64));
        char* samples = (char*)MemoryContextAllocHuge(spill->cxt, Max(n, uint64(1)) * spill->key_size[stream]);
        if (n > 0) read_exact(meta, samples, n * spill->key_size[stream]);
        append_samples(spill, stream, samples, n, step);
        pfree(samples);
    }
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

void free_buffer(MpRunCursor* c) {
    if (c->buffer) pfree(c->buffer);
    c->buffer = NULL;
    c->buffer_count = c->buffer_cap = 0;
}

// The cursor's next key, read into its buffer if needed; NULL at the run's end (its
// buffer then freed).
const char* cursor_key(MpSpill* spill, int stream, int side, MpRunCursor* c) {
    if (c->next >= c->count) {
        free_buffer(c);
        return NULL;
    }
    const uint32 size = spill->key_size[stream];
    if (c->next < c->buffer_first || c->next >= c->buffer_first + c->buffer_count) {
        uint64 room = buffer_keys(spill, stream);
        if (c->buffer_cap < room) {
            free_buffer(c);
            c->buffer = (char*)MemoryContextAlloc(spill->cxt, room * size);
            c->buffer_cap = room;
        }
        uint64 n = Min(room, c->count - c->next);
        if (BufFileSeek(c->file, 0, off_t(c->start + c->next * size), SEEK_SET) != 0 ||
            BufFileRead(c->file, c->buffer, n * size) != n * size)
            ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled run back")));
        c->buffer_first = c->next;
        c->buffer_count = n;
    }
    return c->buffer + (c->next - c->buffer_first) * size;
}

template <class K>
bool in_range(const MpSpill* spill, int stream, int range, const K& key) {
    if (range >= spill->bound_count[stream]) return true;  // the last range: no upper bound
    return !(((const K*)spill->bounds[stream])[range] < key);
}

// Runs of a stream (both sides) whose read buffers fit a 16th of the limit.
uint64 max_stream_runs(const MpSpill* spill) { return Max(uint64(2), spill->limit_bytes / 16 / kMinBufferBytes); }

void remember_file(MpSpill* spill, BufFile* file);

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

// The file of a merge pass: this process's own, or (a parallel combiner) a new file in
// the query's file set, which the participants open by name.
BufFile* create_merge_file(MpSpill* spill, int stream, int side, const char** name) {
    MemoryContext old = MemoryContextSwitchTo(spill->cxt);
    BufFile* out;
    if (spill->fileset) {
        *name = psprintf("mpm%d.%d.%d", spill->merge_passes++, stream, side);
        out = BufFileCreateFileSet(&spill->fileset->fs, *name);
    } else {
        PrepareTempTablespaces();
        out = BufFileCreateTemp(false);
    }
    MemoryContextSwitchTo(old);
    remember_file(spill, out);
    return out;
}

// One merge pass over a side: groups of `fan_in` runs become one run each.
template <class K>
void merge_pass(MpSpill* spill, int stream, int side, int fan_in) {
    MpSpillSide* s = side_of(spill, stream, side);
    const char* out_name = NULL;
    BufFile* out = create_merge_file(spill, stream, side, &out_name);
    MpRunCursor* merged = (MpRunCursor*)MemoryContextAlloc(spill->cxt, sizeof(MpRunCursor) * s->run_count);
    int count = 0;
    uint64 out_bytes = 0;
    for (int first = 0; first < s->run_count; first += fan_in) {
        int n = Min(fan_in, s->run_count - first);
        merged[count++] =
            n == 1 ? s->runs[first] : merge_group<K>(spill, stream, side, first, n, out, out_name, &out_bytes);
    }
    if (out_name) BufFileExportFileSet(out);  // read-only now: the participants may open it
    for (int r = 0; r < s->run_count; r++) free_buffer(&s->runs[r]);
    for (int r = 0; r < count; r++) merged[r].next = 0;
    pfree(s->runs);
    s->runs = merged;
    s->run_count = s->run_cap = count;
}

// Merges the stream's runs until both sides' read buffers fit a 16th of the limit.
template <class K>
void bound_runs(MpSpill* spill, int stream) {
    const uint64 most = max_stream_runs(spill);
    const int fan_in = int(Min(most, uint64(1024)));
    for (int side = 0; side < 2; side++)
        while (uint64(side_of(spill, stream, side)->run_count) > Max(most / 2, uint64(1)))
            merge_pass<K>(spill, stream, side, fan_in);
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
        with_key_type(spill->key_size[stream], [&](auto k) {
            bound_runs<decltype(k)>(spill, stream);
            plan_ranges<decltype(k)>(spill, stream, target_keys);
        });
    spill->planned[stream] = true;
    return spill->bound_count[stream] + 1;
}

// The plan file: per stream its bounds, then per (stream, side) each run's file name,
// start and count.
void mp_spill_export_plan(MpSpill* spill) {
    BufFile* plan = BufFileCreateFileSet(&spill->fileset->fs, "mpplan");
    for (int stream = 0; stream < 2; stream++) {
        BufFileWrite(plan, &spill->bound_count[stream], sizeof(int));
        if (spill->bound_count[stream] > 0)
            BufFileWrite(plan, spill->bounds[stream], size_t(spill->bound_count[stream]) * spill->key_size[stream]);
    }
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) {
            MpSpillSide* s = side_of(spill, stream, side);
            BufFileWrite(plan, &s->run_count, sizeof(int));
            for (int r = 0; r < s->run_count; r++) {
                const MpRunCursor* c = &s->runs[r];
                Assert(c->name);
                uint32 length = uint32(strlen(c->name));
                BufFileWrite(plan, &length, sizeof(length));
                BufFileWrite(plan, (void*)c->name, length);
                BufFileWrite(plan, (void*)&c->start, sizeof(uint64));
                BufFileWrite(plan, (void*)&c->count, sizeof(uint64));
            }
        }
    BufFileExportFileSet(plan);
    BufFileClose(plan);
}

namespace {

// A run of the plan file: its file opened unless it is the previous run's.
void import_planned_run(MpSpill* spill, SharedFileSet* fileset, BufFile* plan, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    uint32 length;
    read_exact(plan, &length, sizeof(length));
    char* name = (char*)MemoryContextAlloc(spill->cxt, length + 1);
    read_exact(plan, name, length);
    name[length] = '\0';
    uint64 position[2];
    read_exact(plan, position, sizeof(position));
    const MpRunCursor* last = s->run_count > 0 ? &s->runs[s->run_count - 1] : NULL;
    BufFile* file = last && strcmp(last->name, name) == 0 ? last->file : open_imported(spill, fileset, name);
    add_run(spill, s, file, name, position[0], position[1]);
}

}  // namespace

void mp_spill_import_plan(MpSpill* spill, SharedFileSet* fileset, int range_count[2]) {
    BufFile* plan = open_imported(spill, fileset, "mpplan");
    for (int stream = 0; stream < 2; stream++) {
        int bounds;
        read_exact(plan, &bounds, sizeof(int));
        spill->bounds[stream] = (char*)MemoryContextAllocHuge(spill->cxt, Max(bounds, 1) * size_t(spill->key_size[stream]));
        if (bounds > 0) read_exact(plan, spill->bounds[stream], size_t(bounds) * spill->key_size[stream]);
        spill->bound_count[stream] = bounds;
        spill->planned[stream] = true;
        range_count[stream] = bounds + 1;
    }
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) {
            int runs;
            read_exact(plan, &runs, sizeof(int));
            for (int r = 0; r < runs; r++) import_planned_run(spill, fileset, plan, stream, side);
        }
}

namespace {

// The key at position pos of the run: from its buffer, or read alone.
template <class K>
K key_at(MpRunCursor* c, uint64 pos) {
    if (pos >= c->buffer_first && pos < c->buffer_first + c->buffer_count) return ((const K*)c->buffer)[pos - c->buffer_first];
    K key;
    if (BufFileSeek(c->file, 0, off_t(c->start + pos * sizeof(K)), SEEK_SET) != 0 ||
        BufFileRead(c->file, &key, sizeof(K)) != sizeof(K))
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled run back")));
    return key;
}

// Each cursor moved on to its run's first key above `bound`: binary search down to a
// few keys, which BufFile's buffer then holds.
template <class K>
void seek_past(MpSpill* spill, int stream, const K& bound) {
    for (int side = 0; side < 2; side++) {
        MpSpillSide* s = side_of(spill, stream, side);
        for (int r = 0; r < s->run_count; r++) {
            MpRunCursor* c = &s->runs[r];
            uint64 lo = c->next, hi = c->count;
            while (hi - lo > 64) {
                uint64 mid = lo + (hi - lo) / 2;
                if (bound < key_at<K>(c, mid)) hi = mid;
                else lo = mid + 1;
            }
            while (lo < hi && !(bound < key_at<K>(c, lo))) lo++;
            c->next = lo;
        }
        CHECK_FOR_INTERRUPTS();
    }
}

}  // namespace

void mp_spill_seek_range(MpSpill* spill, int stream, int range) {
    if (range == 0) return;  // claimed first in its stream: the cursors are at their runs' starts
    with_key_type(spill->key_size[stream], [&](auto k) {
        using K = decltype(k);
        seek_past<K>(spill, stream, ((const K*)spill->bounds[stream])[range - 1]);
    });
}

bool mp_shared_spill_claim(MpSharedSpill* s, int* stream, int* range) {
    uint64 claimed = pg_atomic_fetch_add_u64(&s->next_range, 1);
    for (int st = 0; st < 2; st++) {
        if (claimed < uint64(s->range_count[st])) {
            *stream = st;
            *range = int(claimed);
            return true;
        }
        claimed -= uint64(s->range_count[st]);
    }
    return false;
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
    return with_key_type(spill->key_size[stream],
                         [&](auto k) { return load_range<decltype(k)>(spill, stream, side, range, w, limit); });
}

const void* mp_spill_peek(MpSpill* spill, int stream, int side, int range) {
    int r = with_key_type(spill->key_size[stream],
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
    return with_key_type(spill->key_size[stream], [&](auto k) {
        return take_upto<decltype(k)>(spill, stream, side, *(const decltype(k)*)key, below);
    });
}

void mp_spill_report_add(MpSpillReport* total, const MpSpillReport* part) {
    total->runs += part->runs;
    total->bytes += part->bytes;
    total->ranges += part->ranges;
    total->streamed += part->streamed;
    total->spill_ms += part->spill_ms;
}

void mp_shared_spill_init(MpSharedSpill* s, dsm_segment* segment, int workers) {
    if (workers + 1 > kMpMaxSpillParticipants)
        ereport(ERROR, (errmsg("pg_mergepath: a MergePath SetOp that spills runs with at most %d parallel workers",
                               kMpMaxSpillParticipants - 1),
                        errhint("Lower max_parallel_workers_per_gather, or raise pg_mergepath.memory_limit.")));
    memset(s, 0, sizeof(*s));
    SharedFileSetInit(&s->fileset, segment);
    s->segment = dsm_segment_handle(segment);
    s->limit_bytes = mp_memory_limit_bytes();
    s->participants = workers + 1;
    pg_atomic_init_u64(&s->exported, 0);
    pg_atomic_init_u64(&s->next_range, 0);
    SpinLockInit(&s->mutex);
}

void mp_shared_spill_attach(MpSharedSpill* s) {
    dsm_segment* segment = dsm_find_mapping(s->segment);
    if (!segment) elog(ERROR, "pg_mergepath: the parallel query's shared memory is not mapped in this worker");
    SharedFileSetAttach(&s->fileset, segment);
}

void mp_shared_spill_reset(MpSharedSpill* s) {
    SharedFileSetDeleteAll(&s->fileset);
    pg_atomic_write_u64(&s->exported, 0);
    pg_atomic_write_u64(&s->next_range, 0);
    s->range_count[0] = s->range_count[1] = 0;
    memset(&s->report, 0, sizeof(s->report));
}

int mp_spill_participant(void) { return IsParallelWorker() ? ParallelWorkerNumber + 1 : 0; }

void mp_spill_explain(const MpSpillReport* report, ExplainState* es) {
    if (report->runs == 0) return;
    ExplainPropertyText("Spilled", psprintf("%llu kB in %llu runs", (unsigned long long)(report->bytes / 1024),
                                            (unsigned long long)report->runs), es);
    ExplainPropertyText("Key Ranges", psprintf("%llu (%llu streamed)", (unsigned long long)report->ranges,
                                               (unsigned long long)report->streamed), es);
    if (es->timing) ExplainPropertyFloat("Spill Time", "ms", report->spill_ms, 3, es);
}
