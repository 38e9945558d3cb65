#ifndef CUMULUS_CZLIB_SHIM_H
#define CUMULUS_CZLIB_SHIM_H
#include <zlib.h>
#endif
