// image_partitions.cpp — rows over image keys in hash-partitioned temporary files (see
// image_partitions.h): written a row at a time through BufFile's buffer, read back
// one piece at a time, side by side; a piece too large to load split into smaller
// ones by its rows' mixed hashes (one more pass, as the Grace hash join recurses).
#include "image_partitions.h"

namespace {

// A file's name in the query's file set (a fixed buffer: names are short).
struct FileName {
    char text[MAXPGPATH];
    FileName(int participant, int side, int part) {
        snprintf(text, sizeof(text), "mpi%d.%d.%d", participant, side, part);
    }
};

// A row's header as written: the hash, then the record's length (no padding).
constexpr size_t kRowHeaderBytes = sizeof(uint64) + sizeof(uint32);

BufFile* create_file(MpPartitions* p, int side, int part) {
    MemoryContext old = MemoryContextSwitchTo(p->cxt);
    BufFile* file;
    if (p->fileset) {
        file = BufFileCreateFileSet(&p->fileset->fs, FileName(p->participant, side, part).text);
    } else {
        PrepareTempTablespaces();
        file = BufFileCreateTemp(false);
    }
    MemoryContextSwitchTo(old);
    p->report.runs++;
    return file;
}

void read_exact(BufFile* file, void* into, size_t bytes) {
    if (BufFileRead(file, into, bytes) != bytes)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not read a spilled image partition")));
}

void seek_start(BufFile* file) {
    if (BufFileSeek(file, 0, 0, SEEK_SET) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not rewind a spilled image partition")));
}

// The file of (side, part) that `participant` exported, opened to read, or NULL.
BufFile* open_exported(MpPartitions* p, int participant, int side, int part) {
    MemoryContext old = MemoryContextSwitchTo(p->cxt);
    BufFile* file = BufFileOpenFileSet(&p->fileset->fs, FileName(participant, side, part).text, O_RDONLY, true);
    MemoryContextSwitchTo(old);
    return file;
}

void empty_reader(MpPieceReader* r, MemoryContext cxt, int files_per_side, bool owned, uint64 lo, uint64 hi) {
    memset(r, 0, sizeof(*r));
    for (int side = 0; side < 2; side++)
        r->files[side] = (BufFile**)MemoryContextAllocZero(cxt, sizeof(BufFile*) * Max(files_per_side, 1));
    r->owned = owned;
    r->lo = lo;
    r->hi = hi;
}

void write_row(BufFile* file, const MpPartitionRow& row, const char* record, MpSpillReport* report) {
    char header[kRowHeaderBytes];
    memcpy(header, &row.hash, sizeof(uint64));
    memcpy(header + sizeof(uint64), &row.len, sizeof(uint32));
    BufFileWrite(file, header, kRowHeaderBytes);
    BufFileWrite(file, (void*)record, row.len);
    report->bytes += kRowHeaderBytes + row.len;
}

}  // namespace

void mp_partitions_init(MpPartitions* p, MemoryContext cxt, int count, SharedFileSet* fileset, int participant) {
    Assert(count >= 2 && (count & (count - 1)) == 0);
    memset(p, 0, sizeof(*p));
    p->cxt = cxt;
    p->count = count;
    p->shift = 64 - pg_leftmost_one_pos32(uint32(count));
    p->files = (BufFile**)MemoryContextAllocZero(cxt, sizeof(BufFile*) * 2 * count);
    p->fileset = fileset;
    p->participant = participant;
}

void mp_partitions_write(MpPartitions* p, int side, uint64 hash, const char* record, uint32 len) {
    int part = mp_partition_of(p, hash);
    BufFile** file = &p->files[side * p->count + part];
    if (!*file) *file = create_file(p, side, part);
    write_row(*file, {hash, len}, record, &p->report);
}

void mp_partitions_export(MpPartitions* p) {
    for (int i = 0; i < 2 * p->count; i++) {
        if (!p->files[i]) continue;
        BufFileExportFileSet(p->files[i]);
        BufFileClose(p->files[i]);
        p->files[i] = NULL;
    }
}

void mp_partitions_close(MpPartitions* p) {
    for (int i = 0; p->files && i < 2 * p->count; i++) {
        if (p->files[i]) BufFileClose(p->files[i]);
        p->files[i] = NULL;
    }
}

void mp_piece_open_partition(MpPartitions* p, int part, uint64 exporters, MpPieceReader* out) {
    uint64 lo = uint64(part) << p->shift;
    empty_reader(out, p->cxt, exporters ? kMpMaxSpillParticipants : 1, exporters != 0, lo,
                 lo + ((uint64(1) << p->shift) - 1));
    for (int side = 0; side < 2; side++) {
        if (exporters == 0) {
            BufFile* own = p->files[side * p->count + part];
            if (own) out->files[side][out->count[side]++] = own;
            continue;
        }
        for (int participant = 0; participant < kMpMaxSpillParticipants; participant++) {
            if (!(exporters & (uint64(1) << participant))) continue;
            BufFile* file = open_exported(p, participant, side, part);
            if (file) out->files[side][out->count[side]++] = file;
        }
    }
    mp_piece_rewind(out);
}

void mp_piece_rewind(MpPieceReader* r) {
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < r->count[side]; i++) seek_start(r->files[side][i]);
        r->at[side] = 0;
    }
}

bool mp_piece_next(MpPieceReader* r, int side, MpPartitionRow* row) {
    while (r->at[side] < r->count[side]) {
        char header[kRowHeaderBytes];
        size_t got = BufFileRead(r->files[side][r->at[side]], header, kRowHeaderBytes);
        if (got == kRowHeaderBytes) {
            memcpy(&row->hash, header, sizeof(uint64));
            memcpy(&row->len, header + sizeof(uint64), sizeof(uint32));
            return true;
        }
        if (got != 0)
            ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: a spilled image partition is truncated")));
        r->at[side]++;
    }
    return false;
}

void mp_piece_read_record(MpPieceReader* r, int side, char* into, uint32 len) {
    read_exact(r->files[side][r->at[side]], into, len);
}

void mp_piece_skip_record(MpPieceReader* r, int side, uint32 len) {
    if (BufFileSeek(r->files[side][r->at[side]], 0, off_t(len), SEEK_CUR) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not skip a spilled image row")));
}

int mp_piece_split(MpPartitions* p, MpPieceReader* r, uint64 lo, uint64 hi, int ways, MpPieceReader* out,
                   char** scratch, uint32* scratch_cap) {
    const uint64 width = (hi - lo) / uint64(ways) + 1;  // the last part may be narrower
    for (int w = 0; w < ways; w++) {
        uint64 wlo = lo + uint64(w) * width;
        empty_reader(&out[w], p->cxt, 1, true, wlo, w == ways - 1 ? hi : wlo + width - 1);
    }
    mp_piece_rewind(r);
    MpPartitionRow row;
    for (int side = 0; side < 2; side++) {
        for (uint64 n = 0; mp_piece_next(r, side, &row); n++) {
            if ((n & 1023) == 0) CHECK_FOR_INTERRUPTS();
            uint64 mixed = mp_partition_mix(row.hash);
            if (mixed < lo || mixed > hi) {
                mp_piece_skip_record(r, side, row.len);
                continue;
            }
            if (row.len > *scratch_cap) {
                *scratch = *scratch ? (char*)repalloc_huge(*scratch, row.len)
                                    : (char*)MemoryContextAllocHuge(p->cxt, row.len);
                *scratch_cap = row.len;
            }
            mp_piece_read_record(r, side, *scratch, row.len);
            MpPieceReader* to = &out[Min(int((mixed - lo) / width), ways - 1)];
            if (to->count[side] == 0) {
                MemoryContext old = MemoryContextSwitchTo(p->cxt);
                PrepareTempTablespaces();
                to->files[side][to->count[side]++] = BufFileCreateTemp(false);
                MemoryContextSwitchTo(old);
                p->report.runs++;
            }
            write_row(to->files[side][0], row, *scratch, &p->report);
        }
    }
    int kept = 0;
    for (int w = 0; w < ways; w++) {
        if (out[w].count[0] + out[w].count[1] == 0) mp_piece_close(&out[w]);
        else out[kept++] = out[w];
    }
    return kept;
}

void mp_piece_close(MpPieceReader* r) {
    for (int side = 0; side < 2; side++) {
        if (r->owned)
            for (int i = 0; i < r->count[side]; i++) BufFileClose(r->files[side][i]);
        if (r->files[side]) pfree(r->files[side]);
        r->files[side] = NULL;
        r->count[side] = r->at[side] = 0;
    }
}
