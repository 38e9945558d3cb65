// SQLite's allocator: small blocks kept per thread for reuse.
//
// Debian's SQLite is built with SQLITE_OMIT_LOOKASIDE, so every small object a statement makes
// (cursors, record buffers, bound texts, savepoints) is a malloc and a free: about 70 of them
// per record written, on the writer's thread. What lookaside would do per connection, this does
// per thread: a freed block of up to 2 KB goes onto the freeing thread's list for its size class,
// and the next allocation of that class on that thread takes it back. Every block is a real
// malloc'd block behind a 16-byte header holding its usable size, so a block may be freed on any
// thread, and a list that is full, or a thread that is exiting, hands blocks back to free().

#include "CSQLiteSupport.h"
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Keeps what follows 16-byte aligned, as malloc's own blocks are.
#define HEADER_SIZE 16
#define CLASS_COUNT 7
#define SMALLEST_CLASS 32
#define LARGEST_CLASS 2048

typedef struct FreeBlock {
    struct FreeBlock *next;
} FreeBlock;

typedef struct ThreadCache {
    FreeBlock *lists[CLASS_COUNT];
    unsigned counts[CLASS_COUNT];
    // 0 until first used; 1 while the thread runs; 2 once it exits, after which blocks go
    // straight back to free(): the exit hook has already emptied the lists.
    int state;
} ThreadCache;

// How many freed blocks a thread keeps per class: enough for a transaction's churn, bounded so
// that a thread that frees what others allocate keeps at most about 160 KB.
static const unsigned classLimits[CLASS_COUNT] = {128, 128, 128, 64, 32, 16, 16};

static __thread ThreadCache cache;
static pthread_key_t exitKey;
static pthread_once_t exitKeyOnce = PTHREAD_ONCE_INIT;
static int installed;

static inline size_t *headerOf(void *block) { return (size_t *)((char *)block - HEADER_SIZE); }

// The class a request of `size` bytes falls in (size <= LARGEST_CLASS).
static inline int classOf(size_t size) {
    if (size <= SMALLEST_CLASS) return 0;
    // The position of the highest bit of size - 1, counted from the smallest class's.
    return (int)(64 - __builtin_clzll((unsigned long long)(size - 1))) - 5;
}

static inline size_t classSize(int class) { return (size_t)SMALLEST_CLASS << class; }

static inline size_t roundUp(size_t size) {
    if (size <= LARGEST_CLASS) return classSize(classOf(size));
    return (size + 15) & ~(size_t)15;
}

static void emptyLists(ThreadCache *own) {
    for (int class = 0; class < CLASS_COUNT; class++) {
        FreeBlock *block = own->lists[class];
        while (block) {
            FreeBlock *next = block->next;
            free(headerOf(block));
            block = next;
        }
        own->lists[class] = NULL;
        own->counts[class] = 0;
    }
}

static void threadExiting(void *unused) {
    (void)unused;
    emptyLists(&cache);
    cache.state = 2;
}

static void makeExitKey(void) { pthread_key_create(&exitKey, threadExiting); }

// Registers the exit hook the first time a thread keeps a block.
static inline int startCaching(ThreadCache *own) {
    if (own->state == 1) return 1;
    if (own->state == 2) return 0;
    pthread_once(&exitKeyOnce, makeExitKey);
    if (pthread_setspecific(exitKey, (void *)1) != 0) return 0;
    own->state = 1;
    return 1;
}

static void *allocate(int size) {
    if (size <= 0) return NULL;
    size_t usable = roundUp((size_t)size);
    if (usable <= LARGEST_CLASS) {
        int class = classOf(usable);
        FreeBlock *block = cache.lists[class];
        if (block) {
            cache.lists[class] = block->next;
            cache.counts[class]--;
            return block;
        }
    }
    size_t *header = malloc(HEADER_SIZE + usable);
    if (!header) return NULL;
    *header = usable;
    return (char *)header + HEADER_SIZE;
}

static void release(void *pointer) {
    if (!pointer) return;
    size_t usable = *headerOf(pointer);
    if (usable <= LARGEST_CLASS) {
        int class = classOf(usable);
        if (cache.counts[class] < classLimits[class] && startCaching(&cache)) {
            FreeBlock *block = pointer;
            block->next = cache.lists[class];
            cache.lists[class] = block;
            cache.counts[class]++;
            return;
        }
    }
    free(headerOf(pointer));
}

static int sizeOf(void *pointer) { return pointer ? (int)*headerOf(pointer) : 0; }

static void *reallocate(void *pointer, int size) {
    if (!pointer) return allocate(size);
    size_t usable = *headerOf(pointer);
    size_t wanted = roundUp((size_t)size);
    if (wanted == usable) return pointer;
    if (usable > LARGEST_CLASS && wanted > LARGEST_CLASS) {
        size_t *header = realloc(headerOf(pointer), HEADER_SIZE + wanted);
        if (!header) return NULL;
        *header = wanted;
        return (char *)header + HEADER_SIZE;
    }
    void *moved = allocate(size);
    if (!moved) return NULL;
    memcpy(moved, pointer, usable < wanted ? usable : wanted);
    release(pointer);
    return moved;
}

static int roundedSize(int size) { return (int)roundUp((size_t)size); }
static int initialise(void *unused) { (void)unused; return SQLITE_OK; }
static void shutDown(void *unused) { (void)unused; }

int CSQLiteSupport_installAllocator(void) {
    static const sqlite3_mem_methods methods = {
        allocate, release, reallocate, sizeOf, roundedSize, initialise, shutDown, NULL,
    };
    int code = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
    if (code == SQLITE_OK) installed = 1;
    return code;
}

int CSQLiteSupport_allocatorInstalled(void) { return installed; }

unsigned CSQLiteSupport_blocksKeptByThisThread(void) {
    unsigned total = 0;
    for (int class = 0; class < CLASS_COUNT; class++) total += cache.counts[class];
    return total;
}
