// replicated_work.cpp — the work a partial path's participants each repeat in full
// (see replicated_work.h): a walk down the partial path that adds up the whole,
// unparameterized inner sides of its joins.
#include "replicated_work.h"

namespace {

// The one input of a path that passes rows through (a projection, a sort, an
// aggregate, ...), or NULL.
const Path* only_subpath(const Path* path) {
    switch (nodeTag(path)) {
        case T_ProjectionPath: return ((const ProjectionPath*)path)->subpath;
        case T_SubqueryScanPath: return ((const SubqueryScanPath*)path)->subpath;
        case T_AggPath: return ((const AggPath*)path)->subpath;
        case T_GroupPath: return ((const GroupPath*)path)->subpath;
        case T_SortPath: return ((const SortPath*)path)->subpath;
        case T_IncrementalSortPath: return ((const IncrementalSortPath*)path)->spath.subpath;
        case T_MaterialPath: return ((const MaterialPath*)path)->subpath;
        case T_MemoizePath: return ((const MemoizePath*)path)->subpath;
        case T_UniquePath: return ((const UniquePath*)path)->subpath;
        case T_UpperUniquePath: return ((const UpperUniquePath*)path)->subpath;
        case T_ProjectSetPath: return ((const ProjectSetPath*)path)->subpath;
        case T_LimitPath: return ((const LimitPath*)path)->subpath;
        default: return NULL;
    }
}

// A scan of one table (under a Materialize at most).
bool plain_scan(const Path* path) {
    if (IsA(path, MaterialPath)) path = ((const MaterialPath*)path)->subpath;
    return path->parent && path->parent->reloptkind == RELOPT_BASEREL && path->parent->rtekind == RTE_RELATION &&
           (path->pathtype == T_SeqScan || path->pathtype == T_IndexScan || path->pathtype == T_IndexOnlyScan ||
            path->pathtype == T_BitmapHeapScan || path->pathtype == T_TidScan || path->pathtype == T_TidRangeScan);
}

// An input of a partial path: shared when it is partial itself (its own walk), run in
// full by every participant when it is whole. Not charged: a parameterized one (it runs
// per outer row, which its parent's cost already counts per participant's rows), and a
// scan of one table (PostgreSQL's own partial joins over a private hash table repeat
// such scans of small tables, and a table large enough to matter is scanned in
// parallel): what is charged is the subtrees that aggregate, join or sort.
Cost input_work(const Path* input) {
    if (input->parallel_workers > 0) return mp_replicated_work(input);
    return input->param_info || plain_scan(input) ? 0 : input->total_cost;
}

}  // namespace

Cost mp_replicated_work(const Path* partial) {
    switch (nodeTag(partial)) {
        case T_NestPath:
        case T_MergePath:
        case T_HashPath: {
            const JoinPath* join = (const JoinPath*)partial;
            return mp_replicated_work(join->outerjoinpath) + input_work(join->innerjoinpath);
        }
        case T_AppendPath: {  // a parallel append runs each whole subpath in one participant
            Cost work = 0;
            ListCell* lc;
            foreach (lc, ((const AppendPath*)partial)->subpaths) {
                const Path* sub = (const Path*)lfirst(lc);
                if (sub->parallel_workers > 0) work += mp_replicated_work(sub);
            }
            return work;
        }
        case T_CustomPath:  // ours charge what their inputs repeat in their own cost, whole
                            // inputs and partial ones alike (another extension's: assumed the same)
            return 0;
        default: {
            const Path* sub = only_subpath(partial);
            return sub ? mp_replicated_work(sub) : 0;
        }
    }
}

Cost mp_replicated_charge(const Path* a, const Path* b, int workers, bool b_whole) {
    if (workers <= 0) return 0;
    return workers * (mp_replicated_work(a) + (b_whole ? input_work(b) : mp_replicated_work(b)));
}

Path* mp_partial_input(const RelOptInfo* rel) {
    Path* best = NULL;
    Cost best_cost = 0;
    ListCell* lc;
    foreach (lc, rel->partial_pathlist) {
        Path* path = (Path*)lfirst(lc);
        if (path->param_info) continue;
        Cost cost = path->total_cost + path->parallel_workers * mp_replicated_work(path);
        if (!best || cost < best_cost) {
            best = path;
            best_cost = cost;
        }
    }
    return best;
}
