#ifndef APPWARDEN_CSQLITE_SHIM_H
#define APPWARDEN_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT, a cast Swift does not import: SQLite copies the bound text or blob.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Turns off double-quoted string literals in SQL text (SQLITE_DBCONFIG_DQS_DML and _DDL), so
/// that a misspelt identifier in double quotes is an error rather than a string: sqlite3_db_config
/// is variadic, which Swift cannot call.
static inline void csqlite_disable_double_quoted_strings(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3029000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
#endif
}
#endif
