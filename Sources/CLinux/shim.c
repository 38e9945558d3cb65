#define _GNU_SOURCE
#include "CLinux.h"
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int CLinux_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

unsigned int CLinux_EPOLLET(void) { return (unsigned int)EPOLLET; }

unsigned int CLinux_EPOLLONESHOT(void) { return (unsigned int)EPOLLONESHOT; }

unsigned long long CLinux_epoll_event_data(const struct epoll_event *event) { return event->data.u64; }

unsigned int CLinux_epoll_event_mask(const struct epoll_event *event) { return event->events; }

void CLinux_epoll_event_set(struct epoll_event *event, unsigned int mask, unsigned long long data) {
    event->events = mask;
    event->data.u64 = data;
}

int CLinux_epoll_event_size(void) { return (int)sizeof(struct epoll_event); }

int CLinux_epoll_ctl(int epfd, int op, int fd, unsigned int mask, unsigned long long data) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = mask;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int CLinux_epoll_wait(int epfd, struct epoll_event *events, int max, int timeout_ms) {
    return epoll_wait(epfd, events, max, timeout_ms);
}

struct epoll_event *CLinux_epoll_event_at(struct epoll_event *events, int index) { return &events[index]; }

long long CLinux_raise_nofile_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    }
    return (long long)limit.rlim_cur;
}

long long CLinux_nofile_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    return (long long)limit.rlim_cur;
}

// Signal handlers may only call async-signal-safe functions: write(2) and _exit(2) are.
static volatile sig_atomic_t notify_fds[65];
static volatile sig_atomic_t deliveries;

static void notify_handler(int signo) {
    if (deliveries++ > 0) _exit(128 + signo);
    if (signo > 0 && signo < 65) {
        uint64_t one = 1;
        ssize_t ignored = write(notify_fds[signo], &one, sizeof one);
        (void)ignored;
    }
}

int CLinux_notify_signal(int signo, int fd) {
    if (signo <= 0 || signo >= 65) return -1;
    notify_fds[signo] = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = notify_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}

long CLinux_sendfile(int out_fd, int in_fd, long long *offset, unsigned long count) {
    off_t off = (off_t)*offset;
    ssize_t sent = sendfile(out_fd, in_fd, &off, (size_t)count);
    *offset = (long long)off;
    return (long)sent;
}

unsigned long long CLinux_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

unsigned long long CLinux_monotonic_coarse_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void CLinux_realtime(long long *seconds, long *nanoseconds) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *seconds = (long long)ts.tv_sec;
    *nanoseconds = ts.tv_nsec;
}

static __thread int is_event_loop_thread;

void CLinux_set_event_loop_thread(int flag) { is_event_loop_thread = flag; }

int CLinux_is_event_loop_thread(void) { return is_event_loop_thread; }

unsigned long long CLinux_shared_counter_load(const unsigned long long *counter) {
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

void CLinux_shared_counter_increment(unsigned long long *counter) {
    __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
}
