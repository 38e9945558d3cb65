#include "AllocationCounter.h"
#include <stdatomic.h>
#include <stddef.h>

// The C library's own allocator, which glibc exports under this name.
extern void *__libc_malloc(size_t size);

static atomic_ullong calls;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

unsigned long long AllocationCounter_mallocCalls(void) {
    return atomic_load_explicit(&calls, memory_order_relaxed);
}
