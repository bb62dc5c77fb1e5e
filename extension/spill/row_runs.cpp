// row_runs.cpp — sorted runs of rows (see spill_runs.h, "Row runs"): a serial join's
// rows over its memory limit, in the runs and files of its key spill. A record is
//
//   [body length: uint32][body: the MinimalTuple from MINIMAL_TUPLE_DATA_OFFSET on]
//
// (tuplesort's own format on its tapes); its key is read from the row by the spill's
// row_key function (the join's rows end with their key). A side's rows wait in memory
// (copied, with their keys) until they pass the run budget; then they are sorted by key
// (the library's CPU backend sorts the keys and carries the rows' addresses), written
// as one run and freed. Read back, each (stream, side) is a k-way merge: a binary heap
// of its runs by their next key, cached per run (when there are more runs than the
// memory limit can buffer, merge passes first make fewer, longer runs, with the same
// heap, each pass's file closed - deleted - once the next pass has read it). A side that
// never passed its budget is read straight from its sorted pending rows: nothing is
// written.
#include "spill_runs.h"
#include "spill_internal.h"

#include "device.h"
#include "guard.h"
#include "pipeline.h"
#include "mergepath/ops.h"

namespace {

using namespace spill_detail;

constexpr uint64 kMinBufferBytes = BLCKSZ;
constexpr uint64 kMaxBufferBytes = uint64(1) << 20;
constexpr uint64 kLengthBytes = sizeof(uint32);

uint32 key_size(const MpSpill* spill) { return spill->key_size[int(MpKeyStream::Main)]; }
uint32 body_length(const char* record) {
    uint32 len;
    memcpy(&len, record, sizeof(len));
    return len;
}
uint64 record_bytes(const char* record) { return kLengthBytes + body_length(record); }

// A run's read buffer: the side's share of its sorts' memory (run_bytes, free once every
// row is written) over the runs it reads at once (8 kB at least, 1 MB at most).
uint64 buffer_bytes(const MpSpill* spill) { return spill->row_buffer_bytes; }
void share_buffers(MpSpill* spill, int runs_at_once) {
    spill->row_buffer_bytes =
        Max(kMinBufferBytes, Min(kMaxBufferBytes, spill->run_bytes / uint64(Max(runs_at_once, 1))));
}

// The cursor's next record, whole in its buffer; NULL at the run's end (buffer freed).
const char* cursor_record(MpSpill* spill, MpRunCursor* c) {
    if (c->next >= c->count) {
        free_buffer(c);
        return NULL;
    }
    auto holds = [&](uint64 bytes) {
        return c->next >= c->buffer_first && c->next + bytes <= c->buffer_first + c->buffer_count;
    };
    if (!holds(kLengthBytes)) fill_buffer(spill, c, c->next, kLengthBytes, buffer_bytes(spill), 1);
    const char* record = c->buffer + (c->next - c->buffer_first);
    const uint64 bytes = record_bytes(record);
    if (c->next + bytes > c->count)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: a spilled run of rows is damaged")));
    if (!holds(bytes)) {  // the record goes on past the buffer (or is larger than it)
        fill_buffer(spill, c, c->next, bytes, buffer_bytes(spill), 1);
        record = c->buffer;
    }
    return record;
}

void reset_pending(MpSpill* spill, int side) {
    for (int stream = 0; stream < 2; stream++) {
        MpPendingRows* p = &side_of(spill, stream, side)->pending;
        p->count = p->next = 0;
    }
    MemoryContextReset(spill->pending_cxt[side]);
    spill->pending_bytes[side] = 0;
}

// Sorts the pending rows of (stream, side) by key, their addresses along (stream Nulls
// stays in arrival order); CPU threads of the library's backend, made and gone in mp_try().
template <class K>
void sort_pending(MpSpill* spill, int stream, MpPendingRows* p) {
    if (stream != int(MpKeyStream::Main) || p->count < 2) return;
    MpError err;
    bool ok = mp_try(&err, [&] {
        mergepath::Options options;
        options.backend = mergepath::Backend::Cpu;
        options.cpu_threads = spill->sort_threads;
        options.interrupt_requested = mp_interrupt_requested;
        mergepath::Context ctx(options);
        mergepath::sort_pairs<K>(ctx, mergepath::View<K>((K*)p->keys, p->count),
                                 mergepath::View<uint64_t>((uint64_t*)p->rows, p->count));
    });
    if (!ok) mp_raise(&err, "sorting a run of rows to spill");
}

void sort_pending(MpSpill* spill, int stream, MpPendingRows* p) {
    mp_with_key_type(key_size(spill), [&](auto k) {
        sort_pending<decltype(k)>(spill, stream, p);
        return 0;
    });
}

// One record appended to `file`; returns its bytes.
uint64 write_record(BufFile* file, MinimalTuple row) {
    const uint32 body = row->t_len - MINIMAL_TUPLE_DATA_OFFSET;
    BufFileWrite(file, (void*)&body, sizeof(body));
    BufFileWrite(file, (char*)row + MINIMAL_TUPLE_DATA_OFFSET, body);
    return kLengthBytes + body;
}

// The key of a run's record (a zero key in stream Nulls, whose rows have none).
template <class K>
K record_key(const MpSpill* spill, int stream, const char* record) {
    K key{};
    if (stream == int(MpKeyStream::Main)) spill->row_key(record + record_bytes(record), &key);
    return key;
}

// The side's pending rows of each stream, sorted, as a run of its file.
void write_pending(MpSpill* spill, int side) {
    instr_time began, took;
    INSTR_TIME_SET_CURRENT(began);
    for (int stream = 0; stream < 2; stream++) {
        MpSpillSide* s = side_of(spill, stream, side);
        MpPendingRows* p = &s->pending;
        if (p->count == 0) continue;
        sort_pending(spill, stream, p);
        if (!s->file) s->file = create_file(spill, stream, side);
        uint64 bytes = 0;
        for (uint64 i = 0; i < p->count; i++) {
            CHECK_FOR_INTERRUPTS();
            bytes += write_record(s->file, (MinimalTuple)p->rows[i]);
        }
        if (stream == int(MpKeyStream::Nulls) && s->run_count == 1)
            s->runs[0].count += bytes;  // rows with no key are in no order: one run, appended to
        else
            add_run(spill, s, s->file, NULL, s->file_bytes, bytes);
        s->file_bytes += bytes;
        spill->report.runs++;
        spill->report.bytes += bytes;
    }
    reset_pending(spill, side);
    INSTR_TIME_SET_CURRENT(took);
    INSTR_TIME_SUBTRACT(took, began);
    spill->report.spill_ms += INSTR_TIME_GET_MILLISEC(took);
}

// A binary heap of runs (indexes into `runs`) by their next record's key (keys[run]),
// smallest first.
template <class K>
struct RunHeap {
    MpSpill* spill;
    int stream;
    MpRunCursor* runs;
    int* heap;
    int* count;
    K* keys;

    bool less(int i, int j) const { return keys[heap[i]] < keys[heap[j]]; }
    void sift_down(int i) {
        for (;;) {
            int smallest = i, l = 2 * i + 1, r = l + 1;
            if (l < *count && less(l, smallest)) smallest = l;
            if (r < *count && less(r, smallest)) smallest = r;
            if (smallest == i) return;
            std::swap(heap[i], heap[smallest]);
            i = smallest;
        }
    }
    // Run r's next record, its key cached; false at the run's end.
    bool load(int r) {
        const char* record = cursor_record(spill, &runs[r]);
        if (record) keys[r] = record_key<K>(spill, stream, record);
        return record != NULL;
    }
    // Every run of [first, first + n) with a record left, in heap order.
    void build(int first, int n) {
        *count = 0;
        for (int r = first; r < first + n; r++)
            if (load(r)) heap[(*count)++] = r;
        for (int i = *count / 2 - 1; i >= 0; i--) sift_down(i);
    }
    // The top run's record handed out: its next one takes its place, or the last run.
    void pop() {
        MpRunCursor* c = &runs[heap[0]];
        c->next += record_bytes(cursor_record(spill, c));
        if (!load(heap[0])) heap[0] = heap[--*count];
        if (*count > 0) sift_down(0);
    }
};

// Runs [first, first + n) of the side merged into one run appended to `out`.
template <class K>
MpRunCursor merge_group(MpSpill* spill, int stream, MpSpillSide* s, int first, int n, BufFile* out,
                        const char* out_name, uint64* out_bytes) {
    MpRunCursor merged = {out, out_name, *out_bytes, 0, 0, NULL, 0, 0, 0};
    int* heap = (int*)palloc(sizeof(int) * n);
    K* keys = (K*)palloc(sizeof(K) * s->run_count);
    int count = 0;
    RunHeap<K> h = {spill, stream, s->runs, heap, &count, keys};
    h.build(first, n);
    while (count > 0) {
        CHECK_FOR_INTERRUPTS();
        const char* record = cursor_record(spill, &s->runs[heap[0]]);
        const uint64 bytes = record_bytes(record);
        BufFileWrite(out, (void*)record, bytes);
        merged.count += bytes;
        h.pop();
    }
    pfree(heap);
    pfree(keys);
    *out_bytes += merged.count;
    spill->report.runs++;  // merged runs are written too
    spill->report.bytes += merged.count;
    return merged;
}

// After a merge pass: the file of the runs before it closed (deleted: every run of it
// was merged into the pass's file, the side's file from now on).
void close_merged_file(MpSpill* spill, MpSpillSide* s) {
    if (s->merged_file) {
        close_file(spill, s->merged_file);
    } else {
        BufFileClose(s->file);
        s->file = NULL;
    }
    s->merged_file = s->runs[0].file;
}

// Merge passes until the side's runs can be read at once, each with a buffer of 8 kB at
// least from its share of the sorts' memory (six runs merged at a time at least, as
// tuplesort merges); each pass leaves no run in the file before it, which is closed.
template <class K>
void bound_runs(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    const int most =
        int(Max(uint64(6), Min(uint64(1024), spill->run_bytes / kMinBufferBytes - 1)));  // (and Nulls' run)
    share_buffers(spill, most);
    while (s->run_count > most) {
        merge_pass(spill, stream, side, most, /*carry_single=*/false,
                   [&](int first, int n, BufFile* out, const char* name, uint64* bytes) {
                       return merge_group<K>(spill, stream, s, first, n, out, name, bytes);
                   });
        close_merged_file(spill, s);
    }
}

template <class K>
void open_side(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    s->heap = (int*)MemoryContextAlloc(spill->cxt, sizeof(int) * Max(s->run_count, 1));
    s->heap_keys = (char*)MemoryContextAlloc(spill->cxt, sizeof(K) * Max(s->run_count, 1));
    RunHeap<K> h = {spill, stream, s->runs, s->heap, &s->heap_count, (K*)s->heap_keys};
    h.build(0, s->run_count);
}

}  // namespace

void mp_spill_init_rows(MpSpill* spill, MemoryContext cxt, int key_bytes, MpRowKeyFn row_key, uint64 run_bytes,
                        uint64 limit_bytes, int sharing) {
    mp_spill_init(spill, cxt, key_bytes, limit_bytes, limit_bytes, NULL, 0, sharing);
    spill->key_size[int(MpKeyStream::Nulls)] = uint32(key_bytes);  // rows with no key: a zero key of the width
    spill->rows = true;
    spill->row_key = row_key;
    spill->run_bytes = Max(run_bytes, uint64(64) << 10);
    for (int side = 0; side < 2; side++)
        spill->pending_cxt[side] = AllocSetContextCreate(cxt, "pg_mergepath pending rows", ALLOCSET_DEFAULT_SIZES);
}

char* mp_spill_add_row(MpSpill* spill, int stream, int side, const void* key, uint32 row_bytes) {
    if (spill->pending_bytes[side] >= spill->run_bytes) write_pending(spill, side);  // the rows so far
    MpPendingRows* p = &side_of(spill, stream, side)->pending;
    const uint32 size = key_size(spill);
    if (p->count == p->cap) {
        uint64 cap = Max(uint64(1024), 2 * p->cap);
        p->keys =
            p->keys ? (char*)repalloc_huge(p->keys, cap * size) : (char*)MemoryContextAllocHuge(spill->cxt, cap * size);
        p->rows = p->rows ? (uint64*)repalloc_huge(p->rows, cap * sizeof(uint64))
                          : (uint64*)MemoryContextAllocHuge(spill->cxt, cap * sizeof(uint64));
        p->cap = cap;
    }
    char* row = (char*)MemoryContextAlloc(spill->pending_cxt[side], Max(row_bytes, uint32(1)));
    if (key)
        memcpy(p->keys + p->count * size, key, size);
    else
        memset(p->keys + p->count * size, 0, size);
    p->rows[p->count++] = uint64(uintptr_t(row));
    spill->pending_bytes[side] += GetMemoryChunkSpace(row) + size + sizeof(uint64);  // the row, its key and address
    return row;
}

void mp_spill_put_row(MpSpill* spill, int stream, int side, const void* key, MinimalTuple row) {
    memcpy(mp_spill_add_row(spill, stream, side, key, row->t_len), row, row->t_len);
}

void mp_spill_finish_rows(MpSpill* spill) {
    for (int side = 0; side < 2; side++) {
        bool wrote = false;
        for (int stream = 0; stream < 2; stream++) wrote = wrote || side_of(spill, stream, side)->run_count > 0;
        if (wrote) {
            write_pending(spill, side);
            continue;
        }
        for (int stream = 0; stream < 2; stream++) {  // nothing written: read from memory
            MpSpillSide* s = side_of(spill, stream, side);
            sort_pending(spill, stream, &s->pending);
            s->from_memory = true;
            s->pending.next = 0;
        }
    }
    mp_with_key_type(key_size(spill), [&](auto k) {
        int runs_at_once = 1;  // a side's runs of both streams are open together
        for (int side = 0; side < 2; side++) {
            int runs = 0;
            for (int stream = 0; stream < 2; stream++)
                if (!side_of(spill, stream, side)->from_memory) {
                    bound_runs<decltype(k)>(spill, stream, side);
                    runs += side_of(spill, stream, side)->run_count;
                }
            runs_at_once = Max(runs_at_once, runs);
        }
        share_buffers(spill, runs_at_once);
        for (int stream = 0; stream < 2; stream++)
            for (int side = 0; side < 2; side++)
                if (!side_of(spill, stream, side)->from_memory) open_side<decltype(k)>(spill, stream, side);
        return 0;
    });
}

MinimalTuple mp_spill_row_head(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    if (s->from_memory) {
        if (s->pending.next >= s->pending.count) return NULL;
        return (MinimalTuple)s->pending.rows[s->pending.next];
    }
    if (s->heap_count == 0) return NULL;
    const char* record = cursor_record(spill, &s->runs[s->heap[0]]);
    const uint32 body = body_length(record);
    const uint64 len = uint64(body) + MINIMAL_TUPLE_DATA_OFFSET;
    if (len > s->row_cap) {  // the row, whole and aligned, in the side's own buffer
        if (s->row) pfree(s->row);
        s->row_cap = Max(len, uint64(BLCKSZ));
        s->row = (char*)MemoryContextAllocHuge(spill->cxt, s->row_cap);
    }
    memcpy(s->row + MINIMAL_TUPLE_DATA_OFFSET, record + kLengthBytes, body);
    ((MinimalTuple)s->row)->t_len = uint32(len);
    return (MinimalTuple)s->row;
}

void mp_spill_row_advance(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    if (s->from_memory) {
        s->pending.next++;
        return;
    }
    if (s->heap_count == 0) return;
    mp_with_key_type(key_size(spill), [&](auto k) {
        RunHeap<decltype(k)> h = {spill, stream, s->runs, s->heap, &s->heap_count, (decltype(k)*)s->heap_keys};
        h.pop();
        return 0;
    });
}
