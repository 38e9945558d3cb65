// What Glibc's Swift overlay does not export: epoll, eventfd, sendfile and accept4 need
// _GNU_SOURCE or are hidden behind macros, so they are wrapped here; getrandom's header is
// not in the overlay at all.
#ifndef CUMULUS_CLINUX_H
#define CUMULUS_CLINUX_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/random.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/// accept4(2) with the given flags (SOCK_NONBLOCK | SOCK_CLOEXEC).
int CLinux_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// The value of the EPOLLET flag as an unsigned int (it is a negative enum constant in C).
unsigned int CLinux_EPOLLET(void);

/// The value of the EPOLLONESHOT flag as an unsigned int.
unsigned int CLinux_EPOLLONESHOT(void);

/// Reads the epoll_data of an event as a 64-bit value (the struct is packed on x86_64).
unsigned long long CLinux_epoll_event_data(const struct epoll_event *event);

/// Reads the events mask of an epoll event.
unsigned int CLinux_epoll_event_mask(const struct epoll_event *event);

/// Fills an epoll event with a mask and a 64-bit datum.
void CLinux_epoll_event_set(struct epoll_event *event, unsigned int mask, unsigned long long data);

/// Size in bytes of struct epoll_event (12 on x86_64, where it is packed).
int CLinux_epoll_event_size(void);

/// Registers, modifies or removes `fd` in the epoll set with a mask and a 64-bit datum.
int CLinux_epoll_ctl(int epfd, int op, int fd, unsigned int mask, unsigned long long data);

/// Waits on an epoll set, writing events into a buffer of `max` events.
int CLinux_epoll_wait(int epfd, struct epoll_event *events, int max, int timeout_ms);

/// Returns the address of the i-th event in an array of epoll events.
struct epoll_event *CLinux_epoll_event_at(struct epoll_event *events, int index);

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit, or -1.
long long CLinux_raise_nofile_limit(void);

/// Returns the current soft RLIMIT_NOFILE, or -1.
long long CLinux_nofile_limit(void);

/// Installs a handler for `signo` that writes to the eventfd `fd` on the first delivery and
/// exits the process at once (status 128 + signo) on any later delivery.
int CLinux_notify_signal(int signo, int fd);

/// sendfile(2) from `in_fd` at `*offset` into `out_fd`.
long CLinux_sendfile(int out_fd, int in_fd, long long *offset, unsigned long count);

/// Fills `out` with `count` bytes from the kernel's random generator (getrandom(2)), draws of
/// up to 64 bytes through a per-thread pool; returns 0, or -1 with errno set.
int CLinux_random_bytes(void *out, size_t count);

/// A monotonic clock in nanoseconds (CLOCK_MONOTONIC).
unsigned long long CLinux_monotonic_ns(void);

/// A coarse monotonic clock in nanoseconds (CLOCK_MONOTONIC_COARSE; cheaper, ~4 ms steps).
unsigned long long CLinux_monotonic_coarse_ns(void);

/// Wall-clock seconds and nanoseconds since 1970 (CLOCK_REALTIME).
void CLinux_realtime(long long *seconds, long *nanoseconds);

/// Marks the calling thread as an event-loop thread (1) or not (0).
void CLinux_set_event_loop_thread(int flag);

/// Whether the calling thread is an event-loop thread.
int CLinux_is_event_loop_thread(void);

/// Reads a 64-bit counter in memory shared between processes (acquire ordering).
unsigned long long CLinux_shared_counter_load(const unsigned long long *counter);

/// Adds one to a 64-bit counter in memory shared between processes (atomically).
void CLinux_shared_counter_increment(unsigned long long *counter);

#endif
