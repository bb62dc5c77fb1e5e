// join_probe.cpp — a MergePath Join whose inner side (B) is much smaller than its outer
// side (A), as a fact table joined with a dimension: only B goes through the stage (read
// by every participant, sorted on the device with its row numbers; its sorted keys are
// kept, with a radix directory over them, mergepath/key_directory.h, filled on threads),
// and A is never stored. Each participant streams its share of A in batches of
// kMpProbeBatch rows:
//   1. each row's stored columns are copied into the batch (values passed by reference
//      one after another into large blocks of the batch's memory context, reset for the
//      next batch: no allocation per row) and its key encoded;
//   2. every key's range of equal keys in sorted B is found through the directory, the
//      batch's lookups prefetched together so that their cache misses overlap;
//   3. the batch is emitted like a claimed batch of A rows (join_emit.cpp): the same
//      pairs, join filter and outer-join rules.
// What this saves against sorting both sides: A's keys, references and stored rows in
// memory (gigabytes for a fact table, written into fresh shared memory by every
// participant), their sort, and the ranges put back in A's row order. Memory: B and
// one batch, whatever A's size.
//
// Join types: those whose result follows from each A row alone (INNER, LEFT, SEMI,
// ANTI; join_path.cpp offers no other). An A row whose key has a NULL matches nothing:
// kept (with an empty range) only when unmatched A rows are emitted. A join whose B
// reaches pg_mergepath.memory_limit while being read spills like any other
// (join_spill.cpp; in parallel join_spill_parallel.cpp), A then read into its sort (or
// partitions).
#include "join_node.h"

#include "device.h"
#include "read_child.h"
#include "threads.h"
#include "timing.h"

#include <type_traits>

#include "mergepath/key_directory.h"

extern "C" {
#include "utils/datum.h"
}

void mp_join_probe_start(MpJoinState* st) {
    MpJoinProbe* p = &st->strategy.probe;
    p->rows = 0;
    p->done = false;
    p->b_keys_held = 0;
    p->b_keys = NULL;
    p->b_dir = NULL;
    p->b_dir_buckets = 0;
    p->batch_cxt = NULL;
    p->bytes = NULL;
    p->bytes_used = p->bytes_capacity = 0;
    p->values = NULL;
    p->isnull = NULL;
    if (st->strategy.way != MpJoinWay::StreamOuter) return;
    p->batch_cxt = AllocSetContextCreate(st->run.cxt, "pg_mergepath Join outer batch", ALLOCSET_DEFAULT_SIZES);
    const int n = Max(1, st->node.nstored[0]) * kMpProbeBatch;
    p->values = (Datum*)MemoryContextAlloc(st->run.cxt, sizeof(Datum) * n);
    p->isnull = (bool*)MemoryContextAlloc(st->run.cxt, sizeof(bool) * n);
}

// Buckets of the directory one thread fills at a time.
constexpr uint64 kMpDirectoryPiece = 1 << 16;

// The directory's first[] of sorted B's keys, filled piece by piece on up to the stage's
// CPU threads (pg_mergepath.cpu_threads; one in a worker that sorts a whole inner side of
// its own), from 4 pieces on. In a parallel-aware join every other participant waits for
// it: for 10M inner keys (16M buckets) on the H200 host, the combine took 218 ms with it
// filled on one thread, 27 ms on threads (bench/RESULTS.md).
template <class K>
static void fill_directory(const MpStage* stage, const mergepath::KeyDirectory<K>& d, uint64* first) {
    const uint64 entries = d.buckets + 1;
    const int cores = stage->cpu_threads > 0 ? stage->cpu_threads : mp_cpu_thread_count();
    const unsigned threads = entries >= 4 * kMpDirectoryPiece ? unsigned(cores) : 1u;
    mp_run_pieces(threads, 0, entries, kMpDirectoryPiece,
                  [&](uint64_t b0, uint64_t b1) { mergepath::key_directory_fill(d, b0, b1, first); });
}

void mp_join_probe_put_b(MpJoinState* st) {
    MpJoinResults* r = &mp_join_shared(st)->results;
    MpChunkQueue* queue = &mp_join_shared(st)->parallel.queue;
    const uint64 nb = r->rows[1];
    const uint32 key_bytes = st->node.info.key_bits / 8;
    void *keys, *dir;
    r->b_dir_buckets = mergepath::key_directory_buckets(nb);
    r->b_keys = mp_space_alloc_kept(&st->run.space, queue, Max(nb, 1) * key_bytes, &keys, 1);
    r->b_dir = mp_space_alloc_kept(&st->run.space, queue, (r->b_dir_buckets + 1) * sizeof(uint64), &dir, 1);
    if (nb > 0) mp_stage_download_b_keys(st->run.stage, keys);
    mp_with_key_type(key_bytes, [&](auto k) {
        using K = decltype(k);
        const auto view = mergepath::key_directory_view<K>((const K*)keys, nb, r->b_dir_buckets, (const uint64*)dir);
        fill_directory(st->run.stage, view, (uint64*)dir);
        return 0;
    });
}

void mp_join_probe_take(MpJoinState* st) {
    MpJoinProbe* p = &st->strategy.probe;
    if (st->strategy.way != MpJoinWay::StreamOuter) return;
    const MpJoinResults* r = &mp_join_shared(st)->results;
    p->b_keys = mp_space_at(&st->run.space, r->b_keys);
    p->b_dir = (const uint64*)mp_space_at(&st->run.space, r->b_dir);
    p->b_dir_buckets = r->b_dir_buckets;
    mp_with_key_type(st->node.info.key_bits / 8, [&](auto k) {
        using K = decltype(k);
        using View = mergepath::KeyDirectory<K>;
        static_assert(sizeof(View) <= sizeof(p->directory) && std::is_trivially_copyable<View>::value,
                      "the probe keeps the directory's view");
        View view = mergepath::key_directory_view<K>((const K*)p->b_keys, r->rows[1], p->b_dir_buckets, p->b_dir);
        memcpy(p->directory, &view, sizeof(view));
        return 0;
    });
}

void mp_join_probe_restart(MpJoinState* st) {
    st->strategy.probe.rows = 0;
    st->strategy.probe.done = false;
}

void mp_join_probe_a_row(MpJoinState* st, uint64 a) {
    const int n = st->node.nstored[0];
    memcpy(st->emitter.a_values, st->strategy.probe.values + a * n, sizeof(Datum) * n);
    memcpy(st->emitter.a_isnull, st->strategy.probe.isnull + a * n, sizeof(bool) * n);
}

constexpr uint64 kMpBatchBlockBytes = uint64(64) << 10;

// A value passed by reference copied into the batch's current block (a new block when
// it is full). An expanded object is flattened by datumCopy instead, and a value larger
// than a block gets an allocation of its own from it.
static Datum keep_by_reference(MpJoinProbe* p, Datum value, int16 typlen) {
    const bool expanded = typlen == -1 && VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value));
    const Size bytes = expanded ? 0 : datumGetSize(value, false, typlen);
    if (expanded || bytes > kMpBatchBlockBytes) {
        MemoryContext old = MemoryContextSwitchTo(p->batch_cxt);
        Datum copy = datumCopy(value, false, typlen);
        MemoryContextSwitchTo(old);
        return copy;
    }
    if (p->bytes == NULL || p->bytes_used + MAXALIGN(bytes) > p->bytes_capacity) {
        p->bytes_capacity = kMpBatchBlockBytes;
        p->bytes = (char*)MemoryContextAlloc(p->batch_cxt, p->bytes_capacity);
        p->bytes_used = 0;
    }
    char* at = p->bytes + p->bytes_used;
    memcpy(at, DatumGetPointer(value), bytes);
    p->bytes_used += MAXALIGN(bytes);
    return PointerGetDatum(at);
}

// The outer row's stored columns into batch row i.
static void keep_a_columns(MpJoinState* st, TupleTableSlot* slot, int i) {
    const int n = st->node.nstored[0];
    Datum* values = st->strategy.probe.values + i * n;
    bool* isnull = st->strategy.probe.isnull + i * n;
    for (int c = 0; c < n; c++) {
        const int col = st->node.stored_columns[0][c];
        Form_pg_attribute att = TupleDescAttr(st->node.stored_desc[0], c);
        isnull[c] = slot->tts_isnull[col];
        values[c] = isnull[c] || att->attbyval
                        ? slot->tts_values[col]
                        : keep_by_reference(&st->strategy.probe, slot->tts_values[col], att->attlen);
    }
}

// Rows read from the outer side, for EXPLAIN ANALYZE (a parallel node's in shared memory).
static void count_outer(MpJoinState* st, uint64 rows, uint64 null_keys) {
    if (mp_join_runs_shared(st)) {
        pg_atomic_fetch_add_u64(&st->dsm->parallel.rows_read[0], rows);
        pg_atomic_fetch_add_u64(&st->dsm->parallel.null_rows, null_keys);
        return;
    }
    st->stats.counts.node.rows_read[0] += rows;
    st->stats.counts.node.null_rows += null_keys;
}

// Step 2: the batch's ranges in sorted B. Three passes, so that the cache misses of
// one pass overlap: the directory entries, the first key of each bucket, the search.
template <class K>
static void search_batch(MpJoinState* st, const K* keys, const bool* keyed) {
    MpJoinProbe* p = &st->strategy.probe;
    mergepath::KeyDirectory<K> dir;
    memcpy(&dir, p->directory, sizeof(dir));
    uint64 bucket[kMpProbeBatch];
    bool in_span[kMpProbeBatch];
    for (int i = 0; i < p->rows; i++) {
        in_span[i] = keyed[i] && dir.bucket_of(keys[i], &bucket[i]);
        if (in_span[i]) __builtin_prefetch(&dir.first[bucket[i]]);
    }
    for (int i = 0; i < p->rows; i++)
        if (in_span[i]) __builtin_prefetch(&dir.keys[Min(dir.first[bucket[i]], dir.n - 1)]);
    for (int i = 0; i < p->rows; i++) {
        uint64 lower = 0, upper = 0;
        if (in_span[i]) dir.equal_range_in(bucket[i], keys[i], &lower, &upper);
        p->ranges[i] = {lower, upper - lower};
        if constexpr (sizeof(K) == sizeof(uint64))
            p->exact[i] = st->node.exact_keys && keyed[i] && mp_numeric_key_is_exact(uint64(keys[i]));
        else
            p->exact[i] = false;
    }
}

// Step 1 and 2 for one batch; false when the outer side had no row left for it.
template <class K>
static bool fill_batch(MpJoinState* st) {
    MpJoinProbe* p = &st->strategy.probe;
    const MpJoinKeySide* side = &st->node.key_side[0];
    const bool keeps_nulls = st->node.outer_side[0];
    K keys[kMpProbeBatch];
    bool keyed[kMpProbeBatch];
    uint64 null_keys = 0;
    MemoryContextReset(p->batch_cxt);
    p->bytes = NULL;  // its blocks went with the reset
    p->bytes_used = p->bytes_capacity = 0;
    p->rows = 0;
    uint64 pulled = mp_read_child(outerPlanState(&st->css), st->node.read_columns[0], [&](TupleTableSlot* slot) {
        bool null_key = mp_join_key_has_null(side, slot->tts_isnull);
        if (unlikely(null_key)) {
            null_keys++;
            if (!keeps_nulls) return true;
        }
        int i = p->rows++;
        keyed[i] = !null_key;
        if (likely(!null_key)) keys[i] = mp_encode_join_key<K>(side, slot->tts_values);
        keep_a_columns(st, slot, i);
        return p->rows < kMpProbeBatch;
    });
    p->done = p->rows < kMpProbeBatch;  // the child ended before the batch filled
    count_outer(st, pulled, null_keys);
    search_batch<K>(st, keys, keyed);
    return p->rows > 0;
}

bool mp_join_probe_fill(MpJoinState* st) {
    if (st->strategy.probe.done) return false;
    MpStopwatch clock;
    bool got = mp_with_key_type(st->node.info.key_bits / 8, [&](auto k) { return fill_batch<decltype(k)>(st); });
    if (mp_join_timing_on(st)) st->strategy.probe.probe_ms += clock.lap_ms();
    return got;
}
