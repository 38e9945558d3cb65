#ifndef CUMULUS_CLIBPQ_SHIM_H
#define CUMULUS_CLIBPQ_SHIM_H
// libpq, PostgreSQL's client library (Debian: libpq-dev), found through pkg-config.
#include <libpq-fe.h>
#endif
