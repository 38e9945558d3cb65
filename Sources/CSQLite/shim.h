#ifndef CUMULUS_CSQLITE_SHIM_H
#define CUMULUS_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
