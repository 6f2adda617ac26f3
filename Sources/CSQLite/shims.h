#ifndef CSQLITE_SHIMS_H
#define CSQLITE_SHIMS_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it. Bound text
// and blobs are copied by SQLite (the Swift buffer lives only for the call).
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic, which Swift cannot call. Hardens a connection: defensive mode (no
// writable schema, no journal tampering through SQL), an untrusted schema (its views and triggers call
// no function with side effects), no extension loading. Returns SQLITE_OK or the first failure.
static inline int csqlite_harden(sqlite3 *db) {
    int status = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (status == SQLITE_OK) status = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    if (status == SQLITE_OK) status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    // A short command's close does not checkpoint the WAL (the next writer's automatic checkpoint does):
    // closing costs no write and no sync, and the -wal file stays for the next process. A commit that
    // leaves a large log truncates it (SQLiteConnection.truncateLargeLog), so what the next process
    // reads to rebuild the log's index stays small.
    if (status == SQLITE_OK) status = sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
    return status;
}

#endif
