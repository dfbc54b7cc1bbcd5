// Linux calls Glibc's Swift overlay does not expose: epoll, eventfd, accept4, ppoll.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <poll.h>

// A plain prototype: defining _GNU_SOURCE instead imports an unusable transparent-union signature.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
// poll with a timeout finer than a millisecond (the load generator's request schedule).
extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);
#endif
