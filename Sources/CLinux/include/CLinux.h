// What Glibc's Swift overlay does not export: epoll, eventfd and accept4 need
// _GNU_SOURCE or are hidden behind macros, so they are wrapped here.
#ifndef CUMULUS_CLINUX_H
#define CUMULUS_CLINUX_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
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

#endif
