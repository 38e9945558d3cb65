// What Swift cannot call in SQLite: sqlite3_config is variadic, so the settings the store makes
// before opening its first connection are made here.
#ifndef CUMULUS_CSQLITESUPPORT_H
#define CUMULUS_CSQLITESUPPORT_H

/// Turns off SQLite's process-wide memory statistics, which take one global mutex on every
/// allocation and free of every connection. Returns SQLite's result code: SQLITE_MISUSE when
/// SQLite was already initialised in this process, which leaves the statistics on.
int CSQLiteSupport_disableMemoryStatistics(void);

/// Gives SQLite an allocator that keeps freed blocks of up to 2 KB per thread for reuse, as
/// SQLite's lookaside memory would per connection in a build that has it. Returns SQLite's
/// result code: SQLITE_MISUSE when SQLite was already initialised in this process, which leaves
/// SQLite on malloc and free.
int CSQLiteSupport_installAllocator(void);

/// 1 when `CSQLiteSupport_installAllocator` took effect in this process, else 0.
int CSQLiteSupport_allocatorInstalled(void);

/// How many freed blocks the calling thread keeps for SQLite's next allocations.
unsigned CSQLiteSupport_blocksKeptByThisThread(void);

#endif
