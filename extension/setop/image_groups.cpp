// image_groups.cpp — the groups of equal images in hash-sorted sides and their result
// rows, on the combiner's threads (see image_groups.h).
#include "image_groups.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "images.h"
#include "prefetch.h"
#include "threads.h"
#include "mergepath/key_ranges.h"

namespace {

constexpr uint64 kRowsPerPart = uint64(1) << 16;
constexpr int kMaxParts = 1024;
constexpr uint64 kPrefetchAhead = 32;  // sorted positions whose records are fetched ahead
// Every other participant waits for the groups (they are published whole): all cores.
constexpr unsigned kGroupThreads = 16;

struct Op {
    mergepath::SetOp op;
    bool all;
    int first_side;
};

struct Walk {
    const MpChunkSpace* space;
    const MpImageSides* sides;
    Op op;
};

inline const char* record(const Walk& w, int side, uint64 pos) {
    return (const char*)mp_space_at(w.space, w.sides->refs[side][pos]);
}

// Prefetches the records of one side's positions from *next up to `until` (< end).
inline void prefetch_until(const Walk& w, int side, uint64* next, uint64 until, uint64 end) {
    for (until = std::min(until, end); *next < until; ++*next) mp_prefetch_record(record(w, side, *next));
}

// Writes a group's copies (nodeSetOp.c's rules, sql_setop_copies) of its first row on
// the side read first (of the other side when the group has none there).
inline uint64 emit_group(const Walk& w, uint64 m, uint64 n, uint64 first_a, uint64 first_b, uint64* out) {
    uint64 c = mergepath::sql_setop_copies(w.op.op, w.op.all, m, n);
    if (c == 0) return 0;
    bool from_b = (w.op.first_side == 1 && n > 0) || m == 0;
    uint64 ref = from_b ? w.sides->refs[1][first_b] : w.sides->refs[0][first_a];
    std::fill(out, out + c, ref);
    return c;
}

// All rows of positions [begin, end) of a side equal `first`'s image.
bool uniform(const Walk& w, int side, uint64 begin, uint64 end, const char* first) {
    for (uint64 p = begin + 1; p < end; p++)
        if (!mp_images_equal(first, record(w, side, p))) return false;
    return true;
}

struct RunRow {
    const char* image;
    int side;
    uint64 pos;
};

// A run whose hashes collided: its rows sorted by image (stably: each group keeps
// A before B, in sorted order), then group by group.
uint64 split_run(const Walk& w, uint64 i, uint64 ie, uint64 j, uint64 je, uint64* out) {
    std::vector<RunRow> rows;
    rows.reserve((ie - i) + (je - j));
    for (uint64 p = i; p < ie; p++) rows.push_back({record(w, 0, p), 0, p});
    for (uint64 p = j; p < je; p++) rows.push_back({record(w, 1, p), 1, p});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const RunRow& x, const RunRow& y) { return mp_image_less(x.image, y.image); });
    uint64 written = 0;
    for (size_t g = 0; g < rows.size();) {
        uint64 m = 0, n = 0, first_a = 0, first_b = 0;
        size_t e = g;
        for (; e < rows.size() && mp_images_equal(rows[g].image, rows[e].image); e++) {
            if (rows[e].side == 0 && m++ == 0) first_a = rows[e].pos;
            if (rows[e].side == 1 && n++ == 0) first_b = rows[e].pos;
        }
        written += emit_group(w, m, n, first_a, first_b, out + written);
        g = e;
    }
    return written;
}

// One run: A positions [i, ie), B positions [j, je) of one hash.
uint64 one_run(const Walk& w, uint64 i, uint64 ie, uint64 j, uint64 je, uint64* out) {
    const char* a = i < ie ? record(w, 0, i) : nullptr;
    const char* b = j < je ? record(w, 1, j) : nullptr;
    bool one_group = (!a || uniform(w, 0, i, ie, a)) && (!b || uniform(w, 1, j, je, b)) &&
                     (!a || !b || mp_images_equal(a, b));
    if (one_group) return emit_group(w, ie - i, je - j, i, j, out);
    return split_run(w, i, ie, j, je, out);
}

// B's runs of positions [j, end) with hashes below h (h: none above), each a group
// of its own or split (UNION emits B-only groups; the other operations skip them).
uint64 b_only_runs(const Walk& w, uint64* j, uint64 end, const uint64* h, uint64* out) {
    const uint64* kb = w.sides->hashes[1];
    uint64 written = 0;
    if (w.op.op != mergepath::SetOp::Union) {
        while (*j < end && (!h || kb[*j] < *h)) ++*j;
        return 0;
    }
    while (*j < end && (!h || kb[*j] < *h)) {
        uint64 rj = *j + 1;
        while (rj < end && kb[rj] == kb[*j]) rj++;
        written += one_run(w, 0, 0, *j, rj, out + written);
        *j = rj;
    }
    return written;
}

// Part [i, ie) x [j, je): its runs, results from out on; returns how many.
uint64 walk_part(const Walk& w, uint64 i, uint64 ie, uint64 j, uint64 je, uint64* out) {
    const uint64* ka = w.sides->hashes[0];
    const uint64* kb = w.sides->hashes[1];
    uint64 written = 0, next_a = i, next_b = j;
    while (i < ie) {
        uint64 h = ka[i];
        written += b_only_runs(w, &j, je, &h, out + written);
        next_b = std::max(next_b, j);
        prefetch_until(w, 0, &next_a, i + kPrefetchAhead, ie);
        prefetch_until(w, 1, &next_b, j + kPrefetchAhead, je);
        uint64 ri = i + 1, rj = j;
        while (ri < ie && ka[ri] == h) ri++;
        while (rj < je && kb[rj] == h) rj++;
        written += one_run(w, i, ri, j, rj, out + written);
        i = ri;
        j = rj;
    }
    return written + b_only_runs(w, &j, je, NULL, out + written);
}

// Part borders: run starts near p * |lead| / parts on the lead side (A; UNION: the
// larger side), both sides' positions at the same hashes.
void cut_parts(const MpImageSides& s, int lead, int parts, uint64* a_begin, uint64* b_begin) {
    const uint64* ka = s.hashes[0];
    const uint64* kb = s.hashes[1];
    a_begin[0] = b_begin[0] = 0;
    for (int p = 1; p < parts; p++) {
        uint64 h = s.hashes[lead][s.count[lead] * p / parts];
        a_begin[p] = std::lower_bound(ka, ka + s.count[0], h) - ka;
        b_begin[p] = std::lower_bound(kb, kb + s.count[1], h) - kb;
    }
    a_begin[parts] = s.count[0];
    b_begin[parts] = s.count[1];
}

}  // namespace

MpImageParts mp_image_groups(const MpSetOpState* st, const MpImageSides& sides, bool threads_may_resolve,
                             uint64* out) {
    MpImageParts parts;
    const bool with_b = mp_setop_results_from_b(st);
    const int lead = with_b && sides.count[1] > sides.count[0] ? 1 : 0;
    parts.count = int(Min(uint64(kMaxParts), Max(uint64(1), sides.count[lead] / kRowsPerPart)));
    parts.out_begin = (uint64*)palloc(sizeof(uint64) * (parts.count + 1));
    parts.results = (uint64*)palloc0(sizeof(uint64) * parts.count);
    uint64* a_begin = (uint64*)palloc(sizeof(uint64) * (parts.count + 1));
    uint64* b_begin = (uint64*)palloc(sizeof(uint64) * (parts.count + 1));
    if (sides.count[lead] == 0) {  // no row to lead: no result
        parts.out_begin[0] = parts.out_begin[1] = 0;
        return parts;
    }
    cut_parts(sides, lead, parts.count, a_begin, b_begin);
    for (int p = 0; p <= parts.count; p++) parts.out_begin[p] = a_begin[p] + (with_b ? b_begin[p] : 0);
    Walk w = {&st->run.space, &sides, {st->node.op, st->node.all, st->node.info.first_side}};
    std::atomic<bool> failed{false};
    mp_run_pieces(threads_may_resolve ? kGroupThreads : 1, 0, uint64_t(parts.count), 1, [&](uint64_t p, uint64_t) {
        try {
            parts.results[p] = walk_part(w, a_begin[p], a_begin[p + 1], b_begin[p], b_begin[p + 1], out + parts.out_begin[p]);
        } catch (...) {  // out of memory splitting a collided run
            failed = true;
        }
    });
    if (failed) ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory grouping images")));
    return parts;
}
