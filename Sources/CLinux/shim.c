#define _GNU_SOURCE
#include "CLinux.h"

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
