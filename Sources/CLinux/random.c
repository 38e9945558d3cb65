#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

// Small draws (record names, salts, nonces: 16 to 32 bytes) come from a per-thread pool filled
// from the kernel's generator 256 bytes at a time, so a create makes no system call for its
// record name. The bytes are the kernel's own; each is handed out once and wiped from the pool
// as it goes, so what stays in memory is only bytes not yet used. A child process made by
// fork() would inherit the forking thread's pool and repeat its bytes: the child forgets it.
enum { POOL_SIZE = 256, LARGEST_POOLED = 64 };

static __thread unsigned char pool[POOL_SIZE];
// The unused bytes are pool[0 ..< pool_left]; draws take them from the end.
static __thread size_t pool_left;
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;

static void forget_pool_in_child(void) {
    explicit_bzero(pool, sizeof pool);
    pool_left = 0;
}

static void install_fork_handler(void) { pthread_atfork(NULL, NULL, forget_pool_in_child); }

static int fill(unsigned char *out, size_t count) {
    size_t filled = 0;
    while (filled < count) {
        ssize_t got = getrandom(out + filled, count - filled, 0);
        if (got > 0) {
            filled += (size_t)got;
        } else if (got < 0 && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

int CLinux_random_bytes(void *out, size_t count) {
    if (count > LARGEST_POOLED) return fill(out, count);
    pthread_once(&fork_handler_once, install_fork_handler);
    if (pool_left < count) {
        // Bytes too few for this draw are overwritten, never handed out.
        if (fill(pool, POOL_SIZE) != 0) return -1;
        pool_left = POOL_SIZE;
    }
    pool_left -= count;
    memcpy(out, pool + pool_left, count);
    explicit_bzero(pool + pool_left, count);
    return 0;
}
