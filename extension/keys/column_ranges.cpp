// column_ranges.cpp — a column's expected values from pg_statistic (see
// column_ranges.h): examine_variable follows the subquery's column down to the table
// column it reads, whose histogram bounds and most common values are the sample's
// extremes. Only speed depends on them: rows outside take another key (keys.h).
#include "column_ranges.h"

extern "C" {
#include "catalog/pg_statistic.h"
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

namespace {

enum class Slot { Absent, Used, Unusable };

// Widens `range` to the values of one kind of statistics slot.
Slot add_slot(MpExpectedRange* range, HeapTuple stats, int kind, Oid type, MpCodec codec) {
    AttStatsSlot slot;
    if (!get_attstatsslot(&slot, stats, kind, InvalidOid, ATTSTATSSLOT_VALUES)) return Slot::Absent;
    bool usable = slot.valuetype == type;
    for (int i = 0; usable && i < slot.nvalues; i++) {
        uint64_t v = mp_encode_column(codec, slot.values[i]);
        range->lo = range->known ? Min(range->lo, v) : v;
        range->hi = range->known ? Max(range->hi, v) : v;
        range->known = true;
    }
    free_attstatsslot(&slot);
    return usable ? Slot::Used : Slot::Unusable;
}

}  // namespace

MpExpectedRange mp_column_expected_range(PlannerInfo* root, RelOptInfo* rel, AttrNumber attno, Oid type,
                                         Oid collation, MpCodec codec) {
    MpExpectedRange range = {false, 0, 0};
    if (mp_codec_bits(codec) > 64 || codec == MpCodec::Hashed) return range;
    if (!rel || rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_SUBQUERY || rel->relid == 0) return range;
    Var* var = makeVar(rel->relid, attno, type, -1, collation, 0);
    VariableStatData vardata;
    examine_variable(root, (Node*)var, 0, &vardata);
    if (HeapTupleIsValid(vardata.statsTuple) && vardata.acl_ok) {  // add_slot checks the values' type
        Slot histogram = add_slot(&range, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, type, codec);
        Slot common = add_slot(&range, vardata.statsTuple, STATISTIC_KIND_MCV, type, codec);
        if (histogram == Slot::Unusable || common == Slot::Unusable) range.known = false;
    }
    ReleaseVariableStats(vardata);
    pfree(var);
    return range;
}
