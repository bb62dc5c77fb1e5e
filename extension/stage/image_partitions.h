// image_partitions.h — rows over image keys (images.h) beyond a node's memory limit,
// kept as hash partitions in temporary files (the Grace hash join's way, not sorted
// runs: an image has no fixed width and its order is its hash's anyway):
//
//   a row (hash, record) --mp_partitions_write--> the file of (side, partition), the
//       partition being the top bits of the mixed hash (mp_partition_mix), so equal
//       images always share one; each row as its hash, its record's length, the record
//   partition --mp_partitions_open--> read back side by side, row by row, as often as
//       the caller needs (a partition too large to load is read once per piece of its
//       mixed-hash interval: mp_partitions_rewind)
//
// The files are PostgreSQL BufFiles, in temp_tablespaces and counted against
// temp_file_limit: a serial node's are its own temporary files (deleted at the end of
// the transaction, an ERROR or cancel included, or by mp_partitions_close); a parallel
// participant writes its own into the query's SharedFileSet under its number, exports
// them (mp_partitions_export), and whoever claims a partition reads every exporter's
// file of it.
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

// A row's header in its partition's file; its record follows.
struct MpPartitionRow {
    uint64 hash;
    uint32 len;
};

// Writing: one file per (side, partition), made on its first row.
struct MpPartitions {
    MemoryContext cxt;
    int count;               // partitions, a power of two
    int shift;               // partition of a mixed hash: mixed >> shift
    BufFile** files;         // [side * count + partition], written by this process (NULL: none yet)
    SharedFileSet* fileset;  // a parallel participant's, or NULL
    int participant;
    MpSpillReport report;    // files and bytes written (splits' too)
};

// Reading: the rows of one piece (a partition, or a part of one split off) of both
// sides, each side from a list of files read one after the other, as often as needed.
struct MpPieceReader {
    BufFile** files[2];
    int count[2];
    int at[2];        // the file being read
    bool owned;       // the files are closed (a split's: deleted) with the reader
    uint64 lo, hi;    // the mixed hashes of the piece (its files may hold others: skipped)
};

// count: a power of two (at least 2).
void mp_partitions_init(MpPartitions* p, MemoryContext cxt, int count, SharedFileSet* fileset = NULL,
                        int participant = 0);
inline int mp_partition_of(const MpPartitions* p, uint64 hash) { return int(mp_partition_mix(hash) >> p->shift); }

void mp_partitions_write(MpPartitions* p, int side, uint64 hash, const char* record, uint32 len);
// A parallel participant: every file it wrote made readable by the others and closed.
void mp_partitions_export(MpPartitions* p);
// Closes (deletes) this process's files.
void mp_partitions_close(MpPartitions* p);

// Partition `part` to read: this process's own files (exporters == 0; they stay
// open with the writer), or those every participant in the bit set `exporters`
// exported (opened here, closed with the reader).
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
