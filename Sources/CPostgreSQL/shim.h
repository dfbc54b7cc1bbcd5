#ifndef CPOSTGRESQL_SHIM_H
#define CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

// Notice and warning messages ("there is no transaction in progress") go to stderr by default;
// the Swift side has no logger at that level, and a C function pointer keeps them out.
static inline void cpostgresql_ignore_notice(void *arg, const PGresult *result) {
    (void)arg;
    (void)result;
}

static inline void cpostgresql_silence_notices(PGconn *connection) {
    PQsetNoticeReceiver(connection, cpostgresql_ignore_notice, NULL);
}
#endif
