// spill_runs.h — a node's keys beyond its memory limit (pg_mergepath.memory_limit), kept
// as sorted runs in temporary files and read back one key range at a time, so that the
// node's memory stays bounded whatever the input size:
//
//   chunks (key_chunks.h) --mp_spill_chunks--> per (stream, side), one run: the keys
//       copied out of the chunks (each freed once copied), sorted by the library's CPU
//       backend, appended to that side's file; every sample_step-th key kept
//   runs --mp_spill_plan_ranges--> per stream, key ranges of about a target size
//       (mergepath/key_ranges.h: equal keys never straddle two ranges)
//   range r --mp_spill_load_range--> the range's keys of every run, into chunks that
//       the stage adopts like any input; or, for a range that cannot be split (one key
//       repeated past the limit), key by key in order (mp_spill_peek / mp_spill_take_upto)
//
// The files are PostgreSQL BufFiles: placed in temp_tablespaces, counted against
// temp_file_limit. A serial node's are its own temporary files, deleted by the resource
// owner at the end of the transaction (an ERROR or a cancel included), or by
// mp_spill_close when the node ends or rescans. The participants of a parallel node
// write theirs into the query's SharedFileSet (deleted with it, or by the leader before
// a rescan), each under its own names, and export them (mp_spill_export: the runs'
// positions and samples go into a file of their own); the combining process then
// imports every participant's runs (mp_spill_import), plans the ranges and writes the
// plan (mp_spill_export_plan: bounds, runs by file name); every participant opens the
// plan (mp_spill_import_plan), and reads the ranges it claims (mp_shared_spill_claim),
// its cursors moved to each by binary search in every run (mp_spill_seek_range).
//
// Row runs (row_runs.cpp): a serial join keeps whole rows, not only keys, in the same
// runs and files. A record is a row (a MinimalTuple, as tuplesort writes one), whose key
// the node reads from it; rows wait in memory up to a budget per side, are sorted by key
// (the library's CPU backend, rows carried along), and written as a run; the join then
// reads each side back merged in key order (a heap over the runs' cursors; a side that
// never passed its budget straight from memory) and cuts its key ranges while walking
// (join_spill.cpp).
#pragma once

#include "key_chunks.h"

#include "pg_mergepath.h"

// One run read back through a small buffer. Positions count the run's units from its
// start: keys in a run of keys, bytes in a run of rows (whose records vary in size).
struct MpRunCursor {
    BufFile* file;        // the run's file
    const char* name;     // its name in the parallel query's file set (NULL: a file of this process)
    uint64 start;         // byte offset of the run's first unit in its file
    uint64 count;         // units in the run
    uint64 next;          // the next unit not yet handed out
    char* buffer;         // units [buffer_first, buffer_first + buffer_count) of the run
    uint64 buffer_first;
    uint64 buffer_count;
    uint64 buffer_cap;  // units the buffer has room for
};

// Rows of a side waiting to be written as a run (row runs): their keys, and the rows'
// addresses, sorted together.
struct MpPendingRows {
    char* keys;
    uint64* rows;  // MinimalTuples in the side's pending context
    uint64 count, cap;
    uint64 next;  // a side read from memory: the next row handed out
};

struct MpSpillSide {
    BufFile* file;
    uint64 file_bytes;  // written so far
    MpRunCursor* runs;
    int run_count, run_cap;
    // row runs
    MpPendingRows pending;
    int* heap;  // runs with a record left, the smallest key first
    int heap_count;
    char* heap_keys;       // each run's next key
    BufFile* merged_file;  // the file of the last merge pass (then `file` is closed)
    char* row;             // the head row, copied whole and aligned
    uint64 row_cap;
    bool from_memory;  // read back: no run was written; the sorted pending rows are read
};

// What spilling did, for EXPLAIN ANALYZE.
struct MpSpillReport {
    uint64 runs;            // runs written
    uint64 bytes;           // bytes written to temporary files
    uint64 ranges;          // key ranges combined one by one
    uint64 streamed;        // of them, ranges too large to load, streamed key by key
    double spill_ms;        // sorting and writing runs (summed over the participants)
};

struct MpSpill {
    MemoryContext cxt;           // the files, runs, buffers, samples and bounds
    uint32 key_size[2];          // per stream (MpKeyStream)
    MpSpillSide sides[2][2];     // [stream][side]
    char* samples[2];            // per stream: every sample_step-th key of each run
    uint64 sample_count[2], sample_cap[2];
    char* bounds[2];             // per stream, after planning: the ranges' upper bounds
    int bound_count[2];
    bool planned[2];
    uint64 limit_bytes;
    uint64 sample_step[2];       // per stream
    SharedFileSet* fileset;      // a parallel participant's: files are named for `participant`
    int participant;
    int sort_threads;            // CPU threads that sort a run
    BufFile** imported;          // files of other participants' runs, opened to read, and
                                 // the files of merged runs
    int imported_count, imported_cap;
    int merge_passes;            // so far: each pass writes a file of its own
    MpSpillReport report;
    // row runs
    bool rows;                                        // this spill's runs are of rows (mp_spill_init_rows)
    void (*row_key)(const char* row_end, void* key);  // a row's key, read from its last bytes
    MemoryContext pending_cxt[2];                     // per side: the rows waiting to be written
    uint64 pending_bytes[2];                          // ... what they hold, with their keys and addresses
    uint64 run_bytes;                                 // a side's rows are written as a run when they pass this
    uint64 row_buffer_bytes;                          // a run's read buffer
};

// limit_bytes: the node's memory limit, which the read buffers share (a 16th of it);
// range_bytes: the size of the ranges it will plan, which sets how often runs are
// sampled (a range's size is known to within two samples of each run).
// fileset (or NULL): the parallel query's, where this participant's files go; sharing:
// the processes that sort runs at the same time (the cores are divided among them).
void mp_spill_init(MpSpill* spill, MemoryContext cxt, int main_key_size, uint64 limit_bytes, uint64 range_bytes,
                   SharedFileSet* fileset = NULL, int participant = 0, int sharing = 1);
// Writes the keys of every key chunk listed from `all` (->next_all) as one sorted run per
// (stream, side): a local space's chunks, freed once written, or (shared) the chunks of
// a parallel node's shared queue, left where they are, a run per (stream, side) for each
// slice of them holding a third of the spill's limit.
void mp_spill_chunks(MpSpill* spill, MpChunkRef all, const MpChunkSpace* shared = NULL);
// Closes (deletes) the files; the spill has no runs afterwards (a spill of rows is then
// made again: mp_spill_init_rows).
void mp_spill_close(MpSpill* spill);
// A parallel participant: its files made readable by the others, with its runs and
// samples in a file of their own; the spill is empty afterwards.
void mp_spill_export(MpSpill* spill);
// The combiner: adds an exported participant's runs (and samples, and what it wrote to
// the report) to this spill, which reads them.
void mp_spill_import(MpSpill* spill, SharedFileSet* fileset, int participant);

// Plans the stream's key ranges (once) for ranges of about target_keys keys of both
// sides together; returns how many there are (at least 1). First, when the stream has
// more runs than a 16th of the limit can buffer (8 kB each at least), they are merged,
// as many at a time as can be buffered, pass after pass, into runs of a new file (in
// the file set, exported, for a parallel combiner).
int mp_spill_plan_ranges(MpSpill* spill, int stream, uint64 target_keys);
// A parallel combiner, after planning both streams: every run (by file name) and every
// bound into the file set's plan file, for the participants that share the ranges.
void mp_spill_export_plan(MpSpill* spill);
// A participant: the plan's runs opened to read and its bounds taken (this spill must
// be empty: its own runs were exported; the ranges per stream are in MpSharedSpill).
void mp_spill_import_plan(MpSpill* spill, SharedFileSet* fileset);
// Puts the stream's cursors at the first key of range `range` (at or after where they
// are: a participant claims ranges in increasing order), by binary search in each run.
void mp_spill_seek_range(MpSpill* spill, int stream, int range);
// Every cursor of the stream back at its run's start (the first range).
void mp_spill_rewind(MpSpill* spill, int stream);
// Each cursor's position (both sides' run_count of them), saved before loading a range
// and put back to stream it.
void mp_spill_save(MpSpill* spill, int stream, uint64* saved);
void mp_spill_restore(MpSpill* spill, int stream, const uint64* saved);
// Puts the keys of `side` in range `range` (the next one: the cursors are there) into
// the writer's chunks; stops after more than `limit` keys. Returns the keys put.
uint64 mp_spill_load_range(MpSpill* spill, int stream, int side, int range, MpChunkWriter* w, uint64 limit);
// Streaming a range: the smallest key of `side` left in the range (NULL when none),
// and taking it.
const void* mp_spill_peek(MpSpill* spill, int stream, int side, int range);
// Takes every key of `side` below `key` (below) or up to it (else) from every run, a
// buffer at a time; returns how many (key is in the range being streamed).
uint64 mp_spill_take_upto(MpSpill* spill, int stream, int side, const void* key, bool below);
// Whether key a sorts before key b (keys of the stream's width).
bool mp_spill_key_less(const MpSpill* spill, int stream, const void* a, const void* b);

// Row runs. A spill of rows whose keys are key_size bytes (4, 8 or 16; stream Nulls
// holds rows with no key, never sorted); row_key gives a row's key (written to `key`)
// from the end of its MinimalTuple (the rows carry their keys last); a side's pending
// rows are written as a run once they hold run_bytes, and its runs are read back with
// buffers that share run_bytes (8 kB each at least: more runs than that allows are
// merged first, six at a time at least; a buffer grows to hold a larger row);
// limit_bytes is the node's limit; sharing: the processes that sort runs at the same
// time (the cores are divided among them).
typedef void (*MpRowKeyFn)(const char* row_end, void* key);
void mp_spill_init_rows(MpSpill* spill, MemoryContext cxt, int key_size, MpRowKeyFn row_key, uint64 run_bytes,
                        uint64 limit_bytes, int sharing = 1);
// Room for a row of row_bytes (a MinimalTuple the caller forms there) in the side's
// pending rows, with its key (key_size bytes; NULL in stream Nulls). The rows pending
// before it are written as a run first when they have reached the run budget.
char* mp_spill_add_row(MpSpill* spill, int stream, int side, const void* key, uint32 row_bytes);
// A row copied to the side's pending rows (as mp_spill_add_row).
void mp_spill_put_row(MpSpill* spill, int stream, int side, const void* key, MinimalTuple row);
// Done putting: what is pending written as runs (or, for a side that wrote none, kept
// sorted in memory), the runs merged until their buffers fit, every side ready to read.
void mp_spill_finish_rows(MpSpill* spill);
// The smallest row left of (stream, side) (any order in stream Nulls), valid until the
// side advances; NULL when none is left.
MinimalTuple mp_spill_row_head(MpSpill* spill, int stream, int side);
void mp_spill_row_advance(MpSpill* spill, int stream, int side);

// What the participants of a parallel node that spills share (in the node's DSM, beside
// its MpParallelState): the query's file set, which participants exported runs, and the
// ranges every participant claims once the combiner has planned them.
// Participant p: 0 the leader, worker n is n + 1 (at most 63 workers).
struct MpSharedSpill {
    SharedFileSet fileset;
    dsm_handle segment;         // the parallel query's segment (workers attach the file set to it)
    uint64 limit_bytes;         // the leader's pg_mergepath.memory_limit, shared by everyone
    int participants;           // planned: the workers and the leader
    pg_atomic_uint64 exported;  // bit p: participant p's runs are in the file set
    int range_count[2];         // per stream, planned by the combiner before it publishes
    pg_atomic_uint64 next_range;  // claims: Main's ranges, then Nulls'
    slock_t mutex;              // guards report
    MpSpillReport report;       // runs written (the combiner's count) and ranges of everyone
    // A node planned in memory that spills once its input passes the limit at run time
    // (setop_parallel.cpp): the file set is made for it (switchable), and `switched` is
    // set by the participant that finds the shared chunks past half the limit.
    bool switchable;
    pg_atomic_uint32 switched;
    pg_atomic_uint64 record_bytes;  // image keys: the records every participant holds in shared memory
};
constexpr int kMpMaxSpillParticipants = 64;
// The exported runs of a switched node's shared chunks (written by its combiner) take
// the last participant number, which such a node leaves free.
constexpr int kMpSharedChunksSlot = kMpMaxSpillParticipants - 1;

void mp_shared_spill_init(MpSharedSpill* s, dsm_segment* segment, int workers);  // the leader
void mp_shared_spill_attach(MpSharedSpill* s);                                   // a worker
void mp_shared_spill_reset(MpSharedSpill* s);  // a rescan: the files deleted, nothing exported
int mp_spill_participant(void);                // this process's number p

void mp_spill_report_add(MpSpillReport* total, const MpSpillReport* part);

// The files every spill uses, with their buffers in `cxt`: made named `name` in a
// parallel query's file set, or (fileset NULL) a temporary file of this process in
// temp_tablespaces; opened to read from the file set (NULL when missing and missing_ok).
BufFile* mp_temp_file_create(MemoryContext cxt, SharedFileSet* fileset, const char* name);
BufFile* mp_temp_file_open(MemoryContext cxt, SharedFileSet* fileset, const char* name, bool missing_ok);
// Claims the next range of a parallel node: false when none is left.
bool mp_shared_spill_claim(MpSharedSpill* s, int* stream, int* range);
// EXPLAIN ANALYZE: "Spilled" (kB in runs), "Key Ranges" (and how many were streamed),
// with TIMING "Spill Time".
void mp_spill_explain(const MpSpillReport* report, ExplainState* es);
