// What Swift cannot call in SQLite: sqlite3_config is variadic, so the settings the store makes
// before opening its first connection are made here.
#ifndef CUMULUS_CSQLITESUPPORT_H
#define CUMULUS_CSQLITESUPPORT_H

/// Turns off SQLite's process-wide memory statistics, which take one global mutex on every
/// allocation and free of every connection. Returns SQLite's result code: SQLITE_MISUSE when
/// SQLite was already initialised in this process, which leaves the statistics on.
int CSQLiteSupport_disableMemoryStatistics(void);

#endif
