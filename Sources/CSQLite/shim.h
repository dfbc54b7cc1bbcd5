#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; it does not import.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_config is variadic, which Swift cannot call.
static inline int csqlite_config_memstatus(int enabled) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, enabled);
}
#endif
