// hash_partitions.h — rows beyond a node's memory limit kept as hash partitions in
// temporary files (the Grace hash join's way), the one partitioned spill format of both
// nodes: a set operation's image-key records (images.h: no fixed width, and their order
// is their hash's anyway, so no sorted runs) and a parallel join's rows (MinimalTuples,
// partitioned by a hash of their key: join_spill_parallel.cpp):
//
//   a row (hash, record) --mp_partitions_write--> the buffer of (side, partition), the
//       partition being the top bits of the mixed hash (mp_partition_mix), so equal
//       images always share one; each row as its hash, its record's length, the record.
//       A full buffer is appended as a block to the side's one file, and the block is
//       listed in the partition's index: two data files per process (and an index
//       file when exported), however many partitions (thousands of files per query
//       stalled ext4 for seconds)
//   partition --mp_piece_open_partition--> read back side by side, block by block, as
//       often as the caller needs; a piece too large to load is split by more bits of
//       its rows' mixed hashes into pieces of files of their own (mp_piece_split)
//
// The files are PostgreSQL BufFiles, in temp_tablespaces and counted against
// temp_file_limit: a serial node's are its own temporary files (deleted at the end of
// the transaction, an ERROR or cancel included, or by mp_partitions_close); a parallel
// participant writes its own into the query's SharedFileSet under its number and
// exports them with its index (mp_partitions_export), and whoever claims a partition
// reads every exporter's blocks of it.
#pragma once

#include "spill_runs.h"

#include "pg_mergepath.h"

// Bits of a row hash spread over all 64 (a 64-bit finalizer): partitions and pieces
// take its top bits, so that hashes kept to a few bits (debug_hash_bits) spread too.
inline uint64 mp_partition_mix(uint64 hash) {
    hash ^= hash >> 33;
    hash *= UINT64CONST(0xff51afd7ed558ccd);
    hash ^= hash >> 33;
    hash *= UINT64CONST(0xc4ceb9fe1a85ec53);
    hash ^= hash >> 33;
    return hash;
}

// A row's header in a file; its record follows.
struct MpPartitionRow {
    uint64 hash;
    uint32 len;
};

// Where a block of one partition's rows lies in its side's file.
struct MpPartitionBlock {
    int64 offset;
    int32 fileno;  // BufFile segment
    uint32 len;
};

// The blocks of one (side, partition) of one writer (an exporter's, as a claimer sees
// it: only where they are in its index file, read when the partition is opened).
struct MpPartitionIndex {
    MpPartitionBlock* blocks;
    int count, cap;
    int64 first;  // an exporter's: the first block's number in its index file
};

struct MpPartitions {
    MemoryContext cxt;
    int count;               // partitions, a power of two
    int shift;               // partition of a mixed hash: mixed >> shift
    BufFile* files[2];       // this process's, one per side (NULL: none yet)
    char** buffers;          // [side * count + partition]: rows not written yet (NULL: none)
    uint32* buffered;        // their bytes
    uint32 block_bytes;      // a buffer's size
    MpPartitionIndex* index; // [side * count + partition]: the blocks written
    SharedFileSet* fileset;  // a parallel participant's, or NULL
    int participant;
    MpSpillReport report;    // files and bytes written (splits' too)
    // a claimer's view of every exporter (parallel), filled on its first claim: the
    // head of its index (where each partition's blocks are), its index file, its files
    MpPartitionIndex* exported_index[kMpMaxSpillParticipants];
    BufFile* exported_index_file[kMpMaxSpillParticipants];
    BufFile* exported_files[kMpMaxSpillParticipants][2];
};

// A stretch of a file to read rows from: `len` bytes from (fileno, offset), or (len <
// 0) everything from there to the file's end.
struct MpExtent {
    BufFile* file;
    int64 offset;
    int64 len;
    int32 fileno;
};

// Reading: the rows of one piece (a partition, or a part of one split off) of both
// sides, each side from a list of extents read one after the other, as often as needed.
struct MpPieceReader {
    MpExtent* extents[2];
    int count[2];
    int at[2];         // the extent being read
    int64 left[2];     // its bytes not read yet (< 0: up to the file's end)
    bool positioned[2];
    BufFile* owned[2]; // a split piece's own files (closed, so deleted, with the reader)
    uint64 lo, hi;     // the mixed hashes of the piece (its extents may hold others: skipped)
};

// count: a power of two (at least 2); block_bytes: the size of each partition's buffer.
void mp_partitions_init(MpPartitions* p, MemoryContext cxt, int count, uint32 block_bytes,
                        SharedFileSet* fileset = NULL, int participant = 0);
inline int mp_partition_of(const MpPartitions* p, uint64 hash) { return int(mp_partition_mix(hash) >> p->shift); }

void mp_partitions_write(MpPartitions* p, int side, uint64 hash, const char* record, uint32 len);
// A parallel participant: its buffers written, its files and index made readable by
// the others, and closed.
void mp_partitions_export(MpPartitions* p);
// Closes (deletes) this process's files and those of other participants it opened.
void mp_partitions_close(MpPartitions* p);

// Partition `part` to read: this process's own blocks (exporters == 0; its buffers are
// written first), or those of every participant in the bit set `exporters`.
void mp_piece_open_partition(MpPartitions* p, int part, uint64 exporters, MpPieceReader* out);
// Both sides back at their first row.
void mp_piece_rewind(MpPieceReader* r);
// The next row's header of `side`; false at the end. Then exactly one of read / skip.
bool mp_piece_next(MpPieceReader* r, int side, MpPartitionRow* row);
void mp_piece_read_record(MpPieceReader* r, int side, char* into, uint32 len);
void mp_piece_skip_record(MpPieceReader* r, int side, uint32 len);
// The rows of the piece with mixed hashes in [lo, hi] written, in order, into `ways`
// new pieces over equal parts of that interval (temporary files of this process);
// returns how many hold rows (at the front of out[]). *scratch: a record buffer
// (grown in p->cxt, *scratch_cap bytes).
int mp_piece_split(MpPartitions* p, MpPieceReader* r, uint64 lo, uint64 hi, int ways, MpPieceReader* out,
                   char** scratch, uint32* scratch_cap);
void mp_piece_close(MpPieceReader* r);
