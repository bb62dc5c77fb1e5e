// spill_share.cpp — the participants of a parallel MergePath node that spills share its
// sorted runs through the query's SharedFileSet (see spill_runs.h):
//   every participant  exports its runs (mp_spill_export: positions and samples in a
//                      description file of its own);
//   the combiner       imports them all (mp_spill_import), plans the ranges (merging runs
//                      into the file set when there are too many) and writes the plan
//                      (mp_spill_export_plan: bounds, and every run by file name);
//   every participant  opens the plan (mp_spill_import_plan), claims ranges from a shared
//                      cursor (mp_shared_spill_claim) and moves its cursors to each one it
//                      claims by binary search in every run (mp_spill_seek_range).
// The file set itself (MpSharedSpill) is made, attached and reset here too.
#include "spill_runs.h"
#include "spill_internal.h"

using namespace spill_detail;

namespace {

void read_exact(BufFile* file, void* into, size_t bytes) {
    if (BufFileRead(file, into, bytes) != bytes)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled run's description")));
}

// A file of the file set opened to read, remembered to be closed with the rest.
BufFile* open_imported(MpSpill* spill, SharedFileSet* fileset, const char* name) {
    BufFile* file = mp_temp_file_open(spill->cxt, fileset, name, false);
    remember_file(spill, file);
    return file;
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

void mp_spill_import_plan(MpSpill* spill, SharedFileSet* fileset) {
    BufFile* plan = open_imported(spill, fileset, "mpplan");
    for (int stream = 0; stream < 2; stream++) {
        int bounds;
        read_exact(plan, &bounds, sizeof(int));
        spill->bounds[stream] = (char*)MemoryContextAllocHuge(spill->cxt, Max(bounds, 1) * size_t(spill->key_size[stream]));
        if (bounds > 0) read_exact(plan, spill->bounds[stream], size_t(bounds) * spill->key_size[stream]);
        spill->bound_count[stream] = bounds;
        spill->planned[stream] = true;
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
    mp_with_key_type(spill->key_size[stream], [&](auto k) {
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
    pg_atomic_init_u32(&s->switched, 0);
    pg_atomic_init_u64(&s->record_bytes, 0);
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
    pg_atomic_write_u32(&s->switched, 0);
    pg_atomic_write_u64(&s->record_bytes, 0);
    s->range_count[0] = s->range_count[1] = 0;
    memset(&s->report, 0, sizeof(s->report));
}

int mp_spill_participant(void) { return IsParallelWorker() ? ParallelWorkerNumber + 1 : 0; }

