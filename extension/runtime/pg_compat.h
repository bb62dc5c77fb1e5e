// pg_compat.h — the PostgreSQL APIs that differ between the versions pg_mergepath builds
// against (15, 17 and 18), each behind one name of ours, so that no other file tests
// PG_VERSION_NUM except the set-op planner, whose input paths 18 reshaped
// (setop_path.cpp). Included by pg_mergepath.h after PostgreSQL's headers.
//
//   17 -> 18  Paths count the disabled plan nodes under them, compared before costs;
//             ExplainProperty* moved to commands/explain_format.h; cost_sort takes the
//             input's disabled nodes; HandleParallelMessages became
//             ProcessParallelMessages; get_op_btree_interpretation became
//             get_op_index_interpretation (comparison types instead of btree
//             strategies); BuildTupleHashTableExt became BuildTupleHashTable, whose
//             entries keep their per-group data beside the tuple (no `additional`).
//   16 -> 17  RelOptInfo lists the columns with a NOT NULL constraint (notnullattnums;
//             18: only valid ones, as NOT NULL constraints may be NOT VALID there).
//   15 -> 16  Permission checks take the catalog (object_aclcheck, not pg_proc_aclcheck);
//             Vars name the outer joins that can null them (varnullingrels), and setrefs.c
//             checks that a plan's expressions carry exactly those of the scan tuple's
//             Vars they read.
//   minor     Debian's 17.12 headers (and 15.20's) make DatumGetHeapTupleHeader a
//             function that marks composite values made by older minor releases
//             (HEAP_IS_DATUM); the 17.10 server we test 17 with has no such function,
//             so on 17 the value is only detoasted (all we do is deform it, which never
//             reads those bits); 15 and 18 call PostgreSQL's own.
#pragma once

extern "C" {
#if PG_VERSION_NUM >= 180000
#include "access/cmptype.h"
#include "commands/explain_format.h"
#endif
#include "access/nbtree.h"
#include "catalog/pg_am_d.h"
#include "executor/executor.h"
#include "optimizer/cost.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "catalog/pg_class_d.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_proc_d.h"
#include "utils/acl.h"
}

// A composite value's tuple header, to deform.
static inline HeapTupleHeader mp_composite_header(Datum value) {
#if PG_VERSION_NUM >= 170000 && PG_VERSION_NUM < 180000
    return (HeapTupleHeader)PG_DETOAST_DATUM(value);
#else
    return DatumGetHeapTupleHeader(value);
#endif
}

// Gives `to` the outer joins that can null `from` (no such marks before 16).
static inline void mp_copy_nullingrels(Var* to, const Var* from) {
#if PG_VERSION_NUM >= 160000
    to->varnullingrels = bms_copy(from->varnullingrels);
#else
    (void)to;
    (void)from;
#endif
}

// Whether an outer join below can null the Var (unknown before 16: false; callers
// check the join tree themselves).
static inline bool mp_var_nulled_by_outer_join(const Var* var) {
#if PG_VERSION_NUM >= 160000
    return !bms_is_empty(var->varnullingrels);
#else
    (void)var;
    return false;
#endif
}

// Whether column `attno` of the table `rte` scanned by `rel` has a (valid) NOT NULL
// constraint that holds for every row the scan reads. Before 17, from the catalog, and
// not for an inheritance parent read with its children (a child may drop an inherited
// NOT NULL; a partition may not), as 17's notnullattnums leaves those out.
static inline bool mp_column_not_null(const RelOptInfo* rel, const RangeTblEntry* rte, AttrNumber attno) {
#if PG_VERSION_NUM >= 170000
    (void)rte;
    return bms_is_member(attno, rel->notnullattnums);
#else
    (void)rel;
    if (rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE) return false;
    HeapTuple tuple = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid), Int16GetDatum(attno));
    if (!HeapTupleIsValid(tuple)) return false;
    bool not_null = ((Form_pg_attribute)GETSTRUCT(tuple))->attnotnull;
    ReleaseSysCache(tuple);
    return not_null;
#endif
}

// A path over two inputs carries their disabled nodes (18: add_path compares those
// before costs; none of ours is disabled by an enable_* setting itself).
static inline void mp_inherit_disabled_nodes(Path* path, const Path* a, const Path* b) {
#if PG_VERSION_NUM >= 180000
    path->disabled_nodes = a->disabled_nodes + b->disabled_nodes;
#else
    (void)path;
    (void)a;
    (void)b;
#endif
}

// Reports the errors parallel workers sent (a worker that failed), in the leader.
static inline void mp_process_parallel_messages(void) {
#if PG_VERSION_NUM >= 180000
    ProcessParallelMessages();
#else
    HandleParallelMessages();
#endif
}

// cost_sort of an input with no disabled nodes.
static inline void mp_cost_sort(Path* path, PlannerInfo* root, double tuples, int width, int sort_mem_kb) {
#if PG_VERSION_NUM >= 180000
    cost_sort(path, root, NIL, 0, 0, tuples, width, 0, sort_mem_kb, -1);
#else
    cost_sort(path, root, NIL, 0, tuples, width, 0, sort_mem_kb, -1);
#endif
}

// The btree operator family in which `opno` is the equality operator, or InvalidOid.
static inline Oid mp_btree_equality_family(Oid opno) {
    ListCell* lc;
#if PG_VERSION_NUM >= 180000
    List* interpretations = get_op_index_interpretation(opno);
    foreach (lc, interpretations) {
        OpIndexInterpretation* in = (OpIndexInterpretation*)lfirst(lc);
        if (in->cmptype == COMPARE_EQ && get_opfamily_method(in->opfamily_id) == BTREE_AM_OID) return in->opfamily_id;
    }
#else
    List* interpretations = get_op_btree_interpretation(opno);
    foreach (lc, interpretations) {
        OpBtreeInterpretation* in = (OpBtreeInterpretation*)lfirst(lc);
        if (in->strategy == BTEqualStrategyNumber) return in->opfamily_id;
    }
#endif
    return InvalidOid;
}

// A tuple hash table whose groups each carry `group_size` bytes of ours (zeroed when the
// group is made: mp_tuple_hash_new_group), read back with mp_tuple_hash_group.
static inline TupleHashTable mp_build_tuple_hash_table(PlanState* parent, TupleDesc desc, int ncols,
                                                       AttrNumber* cols, Oid* eqfuncs, FmgrInfo* hashfuncs,
                                                       Oid* collations, long nbuckets, Size group_size,
                                                       MemoryContext meta_cxt, MemoryContext table_cxt,
                                                       MemoryContext temp_cxt) {
#if PG_VERSION_NUM >= 180000
    return BuildTupleHashTable(parent, desc, NULL, ncols, cols, eqfuncs, hashfuncs, collations, nbuckets, group_size,
                               meta_cxt, table_cxt, temp_cxt, false);
#else
    return BuildTupleHashTableExt(parent, desc, ncols, cols, eqfuncs, hashfuncs, collations, nbuckets, group_size,
                                  meta_cxt, table_cxt, temp_cxt, false);
#endif
}

// The group data of an entry LookupTupleHashEntry just made (isnew), zeroed.
static inline void* mp_tuple_hash_new_group(TupleHashTable table, TupleHashEntry entry, MemoryContext table_cxt,
                                            Size group_size) {
#if PG_VERSION_NUM >= 180000
    (void)table_cxt;
    void* group = TupleHashEntryGetAdditional(table, entry);
    memset(group, 0, group_size);
    return group;
#else
    (void)table;
    entry->additional = MemoryContextAllocZero(table_cxt, group_size);
    return entry->additional;
#endif
}

static inline void* mp_tuple_hash_group(TupleHashTable table, TupleHashEntry entry) {
#if PG_VERSION_NUM >= 180000
    return TupleHashEntryGetAdditional(table, entry);
#else
    (void)table;
    return entry->additional;
#endif
}

// What ExecInitFunc checks before an expression may call a function: EXECUTE permission
// (an ERROR without it) and the object-access hook.
static inline void mp_check_function_execute(Oid funcid) {
#if PG_VERSION_NUM >= 160000
    AclResult acl = object_aclcheck(ProcedureRelationId, funcid, GetUserId(), ACL_EXECUTE);
#else
    AclResult acl = pg_proc_aclcheck(funcid, GetUserId(), ACL_EXECUTE);
#endif
    if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(funcid));
    InvokeFunctionExecuteHook(funcid);
}
