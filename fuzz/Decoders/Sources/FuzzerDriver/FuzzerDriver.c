// SwiftPM builds C targets only from at least one source file; the declaration is the point.
#include "FuzzerDriver.h"
