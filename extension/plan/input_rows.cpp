// input_rows.cpp — the test setting that imitates a planner hook correcting a scan's
// rows (see input_rows.h).
#include "input_rows.h"

void mp_debug_claim_scan_rows(RelOptInfo* rel, RangeTblEntry* rte) {
    if (mp_debug_scan_rows <= 0 || rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_RELATION) return;
    ListCell* lc;
    foreach (lc, rel->pathlist) {
        Path* path = (Path*)lfirst(lc);
        if (!path->param_info) path->rows = mp_debug_scan_rows;
    }
}
