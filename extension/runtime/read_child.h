// read_child.h — the read loop every node runs over its children: pull a row, deform it
// as far as the node needs, hand it on; cancellable between rows.
#pragma once

#include "pg_mergepath.h"

// Pulls the rows of `child`, each deformed up to column `ncols`, and calls row(slot)
// for each until the child ends or row() returns false. Returns the rows pulled.
template <class Row>
inline uint64 mp_read_child(PlanState* child, int ncols, Row row) {
    uint64 rows = 0;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        TupleTableSlot* slot = ExecProcNode(child);
        if (TupIsNull(slot)) break;
        rows++;
        slot_getsomeattrs(slot, ncols);
        if (!row(slot)) break;
    }
    return rows;
}
