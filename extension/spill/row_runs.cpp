// row_runs.cpp — sorted runs of rows (see spill_runs.h, "Row runs"): a serial join's
// rows over its memory limit, in the runs and files of its key spill. A record is
//
//   [key: key_size bytes][row length: uint32][padding to MAXALIGN][row: MinimalTuple, MAXALIGNed]
//
// so every record starts MAXALIGNed and a row is read in place from a cursor's buffer.
// A side's rows wait in memory (copied, with their keys) until they pass the run budget;
// then they are sorted by key (the library's CPU backend sorts the keys and carries the
// rows' addresses), written as one run and freed. Read back, each (stream, side) is a
// k-way merge: a binary heap of its runs by their next key (when there are more runs
// than the memory limit can buffer, merge passes first make fewer, longer runs, each
// pass with the same heap). A side that never passed its budget is read straight from
// its sorted pending rows: nothing is written.
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

uint32 key_size(const MpSpill* spill) { return spill->key_size[int(MpKeyStream::Main)]; }
uint64 header_bytes(const MpSpill* spill) { return MAXALIGN(key_size(spill) + sizeof(uint32)); }
uint32 row_length(const MpSpill* spill, const char* record) { return *(const uint32*)(record + key_size(spill)); }
uint64 record_bytes(const MpSpill* spill, const char* record) {
    return header_bytes(spill) + MAXALIGN(row_length(spill, record));
}
MinimalTuple record_row(const MpSpill* spill, const char* record) {
    return (MinimalTuple)(record + header_bytes(spill));
}

// The read buffers of all runs of rows share a 16th of the limit.
uint64 buffer_bytes(const MpSpill* spill) {
    int runs = 0;
    for (int stream = 0; stream < 2; stream++)
        for (int side = 0; side < 2; side++) runs += spill->sides[stream][side].run_count;
    return Max(kMinBufferBytes, Min(kMaxBufferBytes, spill->limit_bytes / 16 / uint64(Max(runs, 1))));
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
    const uint64 header = header_bytes(spill);
    if (!holds(header)) fill_buffer(spill, c, c->next, header, buffer_bytes(spill), 1);
    const char* record = c->buffer + (c->next - c->buffer_first);
    const uint64 bytes = record_bytes(spill, record);
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
uint64 write_record(MpSpill* spill, BufFile* file, const void* key, MinimalTuple row) {
    char header[32];
    const uint32 size = key_size(spill), len = row->t_len;
    const uint64 head = header_bytes(spill);
    memset(header, 0, head);
    memcpy(header, key, size);
    memcpy(header + size, &len, sizeof(len));
    BufFileWrite(file, header, head);
    BufFileWrite(file, row, len);
    static const char zeros[MAXIMUM_ALIGNOF] = {0};
    if (MAXALIGN(len) > len) BufFileWrite(file, (void*)zeros, MAXALIGN(len) - len);
    return head + MAXALIGN(len);
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
            bytes += write_record(spill, s->file, p->keys + i * key_size(spill), (MinimalTuple)p->rows[i]);
        }
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

// A binary heap of runs (indexes into `runs`) by their next record's key, smallest first.
template <class K>
struct RunHeap {
    MpSpill* spill;
    MpRunCursor* runs;
    int* heap;
    int* count;

    const K& key(int i) { return *(const K*)cursor_record(spill, &runs[heap[i]]); }
    void sift_down(int i) {
        for (;;) {
            int smallest = i, l = 2 * i + 1, r = l + 1;
            if (l < *count && key(l) < key(smallest)) smallest = l;
            if (r < *count && key(r) < key(smallest)) smallest = r;
            if (smallest == i) return;
            std::swap(heap[i], heap[smallest]);
            i = smallest;
        }
    }
    // Every run of [first, first + n) with a record left, in heap order.
    void build(int first, int n) {
        *count = 0;
        for (int r = first; r < first + n; r++)
            if (cursor_record(spill, &runs[r])) heap[(*count)++] = r;
        for (int i = *count / 2 - 1; i >= 0; i--) sift_down(i);
    }
    // The top run's record handed out: its next one takes its place, or the last run.
    void pop() {
        MpRunCursor* c = &runs[heap[0]];
        c->next += record_bytes(spill, cursor_record(spill, c));
        if (!cursor_record(spill, c)) heap[0] = heap[--*count];
        if (*count > 0) sift_down(0);
    }
};

// Runs [first, first + n) of the side merged into one run appended to `out`.
template <class K>
MpRunCursor merge_group(MpSpill* spill, MpSpillSide* s, int first, int n, BufFile* out, const char* out_name,
                        uint64* out_bytes) {
    MpRunCursor merged = {out, out_name, *out_bytes, 0, 0, NULL, 0, 0, 0};
    int* heap = (int*)palloc(sizeof(int) * n);
    int count = 0;
    RunHeap<K> h = {spill, s->runs, heap, &count};
    h.build(first, n);
    while (count > 0) {
        CHECK_FOR_INTERRUPTS();
        const char* record = cursor_record(spill, &s->runs[heap[0]]);
        const uint64 bytes = record_bytes(spill, record);
        BufFileWrite(out, (void*)record, bytes);
        merged.count += bytes;
        h.pop();
    }
    pfree(heap);
    *out_bytes += merged.count;
    spill->report.runs++;  // merged runs are written too
    spill->report.bytes += merged.count;
    return merged;
}

template <class K>
void open_side(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    // every run's buffer (8 kB at least) within a 16th of the limit, over the four sides,
    // but six runs merged at a time at least (as tuplesort merges)
    const int most = int(Max(uint64(6), Min(uint64(1024), spill->limit_bytes / 16 / kMinBufferBytes / 4)));
    while (s->run_count > most)  // merge passes
        merge_pass(spill, stream, side, most, [&](int first, int n, BufFile* out, const char* name, uint64* bytes) {
            return merge_group<K>(spill, s, first, n, out, name, bytes);
        });
    s->heap = (int*)MemoryContextAlloc(spill->cxt, sizeof(int) * Max(s->run_count, 1));
    RunHeap<K> h = {spill, s->runs, s->heap, &s->heap_count};
    h.build(0, s->run_count);
}

}  // namespace

void mp_spill_init_rows(MpSpill* spill, MemoryContext cxt, int key_bytes, uint64 run_bytes, uint64 limit_bytes,
                        int sharing) {
    mp_spill_init(spill, cxt, key_bytes, limit_bytes, limit_bytes, NULL, 0, sharing);
    spill->key_size[int(MpKeyStream::Nulls)] = uint32(key_bytes);  // rows with no key: a zero key of the width
    spill->rows = true;
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
        p->keys = p->keys ? (char*)repalloc_huge(p->keys, cap * size) : (char*)MemoryContextAllocHuge(spill->cxt, cap * size);
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
        for (int stream = 0; stream < 2; stream++)
            for (int side = 0; side < 2; side++)
                if (!side_of(spill, stream, side)->from_memory) open_side<decltype(k)>(spill, stream, side);
        return 0;
    });
}

MinimalTuple mp_spill_row_head(MpSpill* spill, int stream, int side, const void** key) {
    MpSpillSide* s = side_of(spill, stream, side);
    if (s->from_memory) {
        if (s->pending.next >= s->pending.count) return NULL;
        *key = s->pending.keys + s->pending.next * key_size(spill);
        return (MinimalTuple)s->pending.rows[s->pending.next];
    }
    if (s->heap_count == 0) return NULL;
    const char* record = cursor_record(spill, &s->runs[s->heap[0]]);
    *key = record;
    return record_row(spill, record);
}

void mp_spill_row_advance(MpSpill* spill, int stream, int side) {
    MpSpillSide* s = side_of(spill, stream, side);
    if (s->from_memory) {
        s->pending.next++;
        return;
    }
    if (s->heap_count == 0) return;
    mp_with_key_type(key_size(spill), [&](auto k) {
        RunHeap<decltype(k)> h = {spill, s->runs, s->heap, &s->heap_count};
        h.pop();
        return 0;
    });
}
