// hash_partitions.cpp — rows in hash partitions (see hash_partitions.h): buffered per partition, written as blocks into one file per
// side, each block listed in its partition's index; read back one piece at a time,
// side by side, extent by extent; a piece too large to load split into smaller ones by
// its rows' mixed hashes (one more pass, as the Grace hash join recurses).
#include "hash_partitions.h"

namespace {

// A file's name in the query's file set (a fixed buffer: names are short).
struct FileName {
    char text[MAXPGPATH];
    FileName(int participant, int side) { snprintf(text, sizeof(text), "mpi%d.%d", participant, side); }
    explicit FileName(int participant) { snprintf(text, sizeof(text), "mpi%d.index", participant); }
};

// A row's header as written: the hash, then the record's length (no padding).
constexpr size_t kRowHeaderBytes = sizeof(uint64) + sizeof(uint32);

void io_error(const char* what) {
    ereport(ERROR, (errcode_for_file_access(), errmsg("pg_mergepath: could not %s a spilled hash partition", what)));
}

void read_exact(BufFile* file, void* into, size_t bytes) {
    if (BufFileRead(file, into, bytes) != bytes) io_error("read");
}

// A file of this process: in the file set when a parallel participant's and `name` is
// given, else temporary.
BufFile* create_file(MpPartitions* p, const char* name) {
    p->report.runs++;
    return mp_temp_file_create(p->cxt, name ? p->fileset : NULL, name);
}

BufFile* side_file(MpPartitions* p, int side) {
    if (!p->files[side]) p->files[side] = create_file(p, p->fileset ? FileName(p->participant, side).text : NULL);
    return p->files[side];
}

void write_header(BufFile* file, const MpPartitionRow& row) {
    char header[kRowHeaderBytes];
    memcpy(header, &row.hash, sizeof(uint64));
    memcpy(header + sizeof(uint64), &row.len, sizeof(uint32));
    BufFileWrite(file, header, kRowHeaderBytes);
}

void index_add(MemoryContext cxt, MpPartitionIndex* index, const MpPartitionBlock& block) {
    if (index->count == index->cap) {
        index->cap = Max(8, 2 * index->cap);
        index->blocks = index->blocks
                            ? (MpPartitionBlock*)repalloc(index->blocks, sizeof(MpPartitionBlock) * index->cap)
                            : (MpPartitionBlock*)MemoryContextAlloc(cxt, sizeof(MpPartitionBlock) * index->cap);
    }
    index->blocks[index->count++] = block;
}

// Where the side's file ends: the next block's position.
MpPartitionBlock block_at_end(BufFile* file, uint32 len) {
    int fileno;
    off_t offset;
    BufFileTell(file, &fileno, &offset);
    return {int64(offset), int32(fileno), len};
}

// Appends buffer i (side * count + partition) as a block of its side's file.
void flush_buffer(MpPartitions* p, int i) {
    if (p->buffered[i] == 0) return;
    BufFile* file = side_file(p, i / p->count);
    index_add(p->cxt, &p->index[i], block_at_end(file, p->buffered[i]));
    BufFileWrite(file, p->buffers[i], p->buffered[i]);
    p->buffered[i] = 0;
}

// Every buffer written and freed: the files are complete.
void flush_all(MpPartitions* p) {
    for (int i = 0; i < 2 * p->count; i++) {
        flush_buffer(p, i);
        if (p->buffers[i]) pfree(p->buffers[i]);
        p->buffers[i] = NULL;
    }
}

// The index file: a head (per side and partition, its first block's number and its
// count of blocks), then every block, so that a claimer reads only its partition's.
// The index is freed: the exporter reads the blocks back from the file like the others.
void write_index(MpPartitions* p) {
    BufFile* file = mp_temp_file_create(p->cxt, p->fileset, FileName(p->participant).text);
    int64 first = 0;
    for (int i = 0; i < 2 * p->count; i++) {
        BufFileWrite(file, &first, sizeof(int64));
        BufFileWrite(file, &p->index[i].count, sizeof(int));
        first += p->index[i].count;
    }
    for (int i = 0; i < 2 * p->count; i++) {
        if (p->index[i].count > 0) BufFileWrite(file, p->index[i].blocks, sizeof(MpPartitionBlock) * p->index[i].count);
        if (p->index[i].blocks) pfree(p->index[i].blocks);
        p->index[i] = MpPartitionIndex();
    }
    BufFileExportFileSet(file);
    BufFileClose(file);
}

constexpr size_t kIndexHeadEntryBytes = sizeof(int64) + sizeof(int);

BufFile* open_exported(MpPartitions* p, const char* name) { return mp_temp_file_open(p->cxt, p->fileset, name, true); }

// An exporter's index head and files, opened on first use.
const MpPartitionIndex* exporter_index(MpPartitions* p, int participant) {
    if (p->exported_index[participant]) return p->exported_index[participant];
    MpPartitionIndex* index =
        (MpPartitionIndex*)MemoryContextAllocZero(p->cxt, sizeof(MpPartitionIndex) * 2 * p->count);
    BufFile* file = open_exported(p, FileName(participant).text);
    if (!file) io_error("find the index of");
    for (int i = 0; i < 2 * p->count; i++) {
        read_exact(file, &index[i].first, sizeof(int64));
        read_exact(file, &index[i].count, sizeof(int));
        if (index[i].count < 0 || index[i].first < 0) io_error("read the index of");
    }
    for (int side = 0; side < 2; side++)
        p->exported_files[participant][side] = open_exported(p, FileName(participant, side).text);
    p->exported_index_file[participant] = file;
    p->exported_index[participant] = index;
    return index;
}

// An exporter's blocks of index entry i, read from its index file.
MpPartitionIndex exporter_blocks(MpPartitions* p, int participant, int i) {
    MpPartitionIndex entry = p->exported_index[participant][i];
    if (entry.count == 0) return entry;
    BufFile* file = p->exported_index_file[participant];
    const int64 at = int64(2 * p->count) * int64(kIndexHeadEntryBytes) + entry.first * int64(sizeof(MpPartitionBlock));
    if (BufFileSeek(file, 0, off_t(at), SEEK_SET) != 0) io_error("seek in the index of");
    entry.blocks = (MpPartitionBlock*)palloc(sizeof(MpPartitionBlock) * entry.count);
    read_exact(file, entry.blocks, sizeof(MpPartitionBlock) * entry.count);
    return entry;
}

void empty_reader(MpPieceReader* r, MemoryContext cxt, int extents_per_side, uint64 lo, uint64 hi) {
    memset(r, 0, sizeof(*r));
    for (int side = 0; side < 2; side++)
        r->extents[side] = (MpExtent*)MemoryContextAlloc(cxt, sizeof(MpExtent) * Max(extents_per_side, 1));
    r->lo = lo;
    r->hi = hi;
}

// The blocks of one index entry as extents of `file`.
void add_blocks(MpPieceReader* r, int side, BufFile* file, const MpPartitionIndex& index) {
    for (int b = 0; b < index.count; b++) {
        const MpPartitionBlock& block = index.blocks[b];
        r->extents[side][r->count[side]++] = {file, block.offset, int64(block.len), block.fileno};
    }
}

void write_row(BufFile* file, const MpPartitionRow& row, const char* record, MpSpillReport* report) {
    write_header(file, row);
    BufFileWrite(file, (void*)record, row.len);
    report->bytes += kRowHeaderBytes + row.len;
}

}  // namespace

void mp_partitions_init(MpPartitions* p, MemoryContext cxt, int count, uint32 block_bytes, SharedFileSet* fileset,
                        int participant) {
    Assert(count >= 2 && (count & (count - 1)) == 0);
    memset(p, 0, sizeof(*p));
    p->cxt = cxt;
    p->count = count;
    p->shift = 64 - pg_leftmost_one_pos32(uint32(count));
    p->buffers = (char**)MemoryContextAllocZero(cxt, sizeof(char*) * 2 * count);
    p->buffered = (uint32*)MemoryContextAllocZero(cxt, sizeof(uint32) * 2 * count);
    p->block_bytes = Max(block_bytes, uint32(kRowHeaderBytes + 64));
    p->index = (MpPartitionIndex*)MemoryContextAllocZero(cxt, sizeof(MpPartitionIndex) * 2 * count);
    p->fileset = fileset;
    p->participant = participant;
}

void mp_partitions_write(MpPartitions* p, int side, uint64 hash, const char* record, uint32 len) {
    const int i = side * p->count + mp_partition_of(p, hash);
    const uint64 bytes = kRowHeaderBytes + uint64(len);
    p->report.bytes += bytes;
    if (bytes > p->block_bytes) {  // a row larger than a buffer: a block of its own
        flush_buffer(p, i);
        BufFile* file = side_file(p, side);
        index_add(p->cxt, &p->index[i], block_at_end(file, uint32(bytes)));
        write_header(file, {hash, len});
        BufFileWrite(file, (void*)record, len);
        return;
    }
    if (p->buffered[i] + bytes > p->block_bytes) flush_buffer(p, i);
    if (!p->buffers[i]) p->buffers[i] = (char*)MemoryContextAlloc(p->cxt, p->block_bytes);
    char* at = p->buffers[i] + p->buffered[i];
    memcpy(at, &hash, sizeof(uint64));
    memcpy(at + sizeof(uint64), &len, sizeof(uint32));
    memcpy(at + kRowHeaderBytes, record, len);
    p->buffered[i] += uint32(bytes);
}

void mp_partitions_export(MpPartitions* p) {
    flush_all(p);
    write_index(p);
    for (int side = 0; side < 2; side++) {
        if (!p->files[side]) continue;
        BufFileExportFileSet(p->files[side]);
        BufFileClose(p->files[side]);
        p->files[side] = NULL;
    }
}

void mp_partitions_close(MpPartitions* p) {
    for (int side = 0; side < 2; side++) {
        if (p->files[side]) BufFileClose(p->files[side]);
        p->files[side] = NULL;
        for (int e = 0; e < kMpMaxSpillParticipants; e++) {
            if (p->exported_files[e][side]) BufFileClose(p->exported_files[e][side]);
            p->exported_files[e][side] = NULL;
        }
    }
    for (int e = 0; e < kMpMaxSpillParticipants; e++) {
        if (p->exported_index_file[e]) BufFileClose(p->exported_index_file[e]);
        p->exported_index_file[e] = NULL;
    }
    memset(p->exported_index, 0, sizeof(p->exported_index));
}

void mp_piece_open_partition(MpPartitions* p, int part, uint64 exporters, MpPieceReader* out) {
    uint64 lo = uint64(part) << p->shift;
    if (exporters == 0) flush_all(p);  // the files complete before they are read
    int extents[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        const int i = side * p->count + part;
        if (exporters == 0) extents[side] = p->index[i].count;
        for (int e = 0; e < kMpMaxSpillParticipants; e++)
            if (exporters & (uint64(1) << e)) extents[side] += exporter_index(p, e)[i].count;
    }
    empty_reader(out, p->cxt, Max(extents[0], extents[1]), lo, lo + ((uint64(1) << p->shift) - 1));
    for (int side = 0; side < 2; side++) {
        const int i = side * p->count + part;
        if (exporters == 0 && p->files[side]) add_blocks(out, side, p->files[side], p->index[i]);
        for (int e = 0; e < kMpMaxSpillParticipants; e++) {
            if (!(exporters & (uint64(1) << e)) || !p->exported_files[e][side]) continue;
            MpPartitionIndex blocks = exporter_blocks(p, e, i);
            add_blocks(out, side, p->exported_files[e][side], blocks);
            if (blocks.blocks) pfree(blocks.blocks);
        }
    }
    mp_piece_rewind(out);
}

void mp_piece_rewind(MpPieceReader* r) {
    for (int side = 0; side < 2; side++) {
        r->at[side] = 0;
        r->positioned[side] = false;
    }
}

bool mp_piece_next(MpPieceReader* r, int side, MpPartitionRow* row) {
    while (r->at[side] < r->count[side]) {
        const MpExtent& e = r->extents[side][r->at[side]];
        if (!r->positioned[side]) {
            if (BufFileSeek(e.file, e.fileno, off_t(e.offset), SEEK_SET) != 0) io_error("seek in");
            r->left[side] = e.len;
            r->positioned[side] = true;
        }
        const bool to_end = e.len < 0;
        if (to_end || r->left[side] > 0) {
            char header[kRowHeaderBytes];
            size_t got = BufFileRead(e.file, header, kRowHeaderBytes);
            if (got == kRowHeaderBytes) {
                memcpy(&row->hash, header, sizeof(uint64));
                memcpy(&row->len, header + sizeof(uint64), sizeof(uint32));
                if (!to_end) r->left[side] -= int64(kRowHeaderBytes + row->len);
                if (!to_end && r->left[side] < 0) io_error("read");  // a row past its block's end
                return true;
            }
            if (got != 0 || !to_end) io_error("read");  // a block ends between rows
        }
        r->at[side]++;
        r->positioned[side] = false;
    }
    return false;
}

void mp_piece_read_record(MpPieceReader* r, int side, char* into, uint32 len) {
    read_exact(r->extents[side][r->at[side]].file, into, len);
}

void mp_piece_skip_record(MpPieceReader* r, int side, uint32 len) {
    if (BufFileSeek(r->extents[side][r->at[side]].file, 0, off_t(len), SEEK_CUR) != 0) io_error("skip a row in");
}

int mp_piece_split(MpPartitions* p, MpPieceReader* r, uint64 lo, uint64 hi, int ways, MpPieceReader* out,
                   char** scratch, uint32* scratch_cap) {
    const uint64 width = (hi - lo) / uint64(ways) + 1;  // the last part may be narrower
    for (int w = 0; w < ways; w++) {
        uint64 wlo = lo + uint64(w) * width;
        empty_reader(&out[w], p->cxt, 1, wlo, w == ways - 1 ? hi : wlo + width - 1);
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
            if (!to->owned[side]) {
                to->owned[side] = create_file(p, NULL);
                to->extents[side][to->count[side]++] = {to->owned[side], 0, -1, 0};
            }
            write_row(to->owned[side], row, *scratch, &p->report);
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
        if (r->owned[side]) BufFileClose(r->owned[side]);
        r->owned[side] = NULL;
        if (r->extents[side]) pfree(r->extents[side]);
        r->extents[side] = NULL;
        r->count[side] = r->at[side] = 0;
    }
}
