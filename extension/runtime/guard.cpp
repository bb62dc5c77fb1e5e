// guard.cpp — turns library errors caught by mp_try() (guard.h) into PostgreSQL
// ERRORs with clear text and the right SQLSTATE, and implements the interrupt
// callback the library polls so that cancel / statement_timeout stop its work.
#include "guard.h"

#include "pg_mergepath.h"

// True when a pending interrupt will make CHECK_FOR_INTERRUPTS() throw: cancel
// (incl. statement/lock timeouts) or termination, with interrupts not held off.
bool mp_interrupt_requested() {
    return InterruptPending && (QueryCancelPending || ProcDiePending) && InterruptHoldoffCount == 0 &&
           QueryCancelHoldoffCount == 0 && CritSectionCount == 0;
}

void mp_raise(const MpError* err, const char* doing) {
    switch (err->kind) {
        case MpErrorKind::Cancelled:
            elog(DEBUG1, "pg_mergepath: library work interrupted while %s", doing);
            CHECK_FOR_INTERRUPTS();
            ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED),
                            errmsg("canceling statement: pg_mergepath was interrupted while %s", doing)));
            break;
        case MpErrorKind::NoDevice:
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("pg_mergepath.device is \"gpu\" but no usable GPU is available"),
                            errdetail("%s", err->message),
                            errhint("Set pg_mergepath.device to \"auto\" or \"cpu\" to use the CPU backend.")));
            break;
        case MpErrorKind::DeviceOutOfMemory:
            ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
                            errmsg("pg_mergepath ran out of device memory while %s", doing),
                            errdetail("%s", err->message)));
            break;
        case MpErrorKind::HostOutOfMemory:
            ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory"),
                            errdetail("pg_mergepath could not allocate memory while %s.", doing)));
            break;
        default:
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("pg_mergepath failed while %s: %s", doing, err->message)));
            break;
    }
    pg_unreachable();
}
