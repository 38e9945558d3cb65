// Counts calls to malloc in the process that links it: it defines malloc itself, counting, and
// hands every call on to the C library's. Linked only into the allocation probe.
#ifndef CUMULUS_ALLOCATIONCOUNTER_H
#define CUMULUS_ALLOCATIONCOUNTER_H

/// The calls to malloc made by every thread since the process started.
unsigned long long AllocationCounter_mallocCalls(void);

#endif
