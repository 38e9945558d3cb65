#include "CSQLiteSupport.h"
#include <sqlite3.h>

int CSQLiteSupport_disableMemoryStatistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
