/*
 * fd_pass.h - descriptors over a Unix socket (SCM_RIGHTS), written once
 * for the places that pass them: the controller's requests to runners and
 * its reads of the keeper's replies (engine/src/eval/runner_requests.c),
 * the runners' reads and replies (engine/runner/runner_io.c) and the
 * Python zygote's requests (engine/src/eval/pyzygote.c).  Header-only, so
 * that the runners' position-independent build needs nothing more.
 */
#ifndef ARENA_FD_PASS_H
#define ARENA_FD_PASS_H

#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* The most descriptors one message carries either way. */
#define FD_PASS_MAX 8

/* One sendmsg(2) of buf[0..len) with nfd descriptors (0 to FD_PASS_MAX)
 * attached; sendmsg's result.  MSG_NOSIGNAL: a peer that is gone is an
 * error, never a signal. */
static inline ssize_t fd_pass_send(int sock, const void *buf, size_t len,
				   const int *fds, int nfd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * FD_PASS_MAX)];
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr m;

	if (nfd < 0 || nfd > FD_PASS_MAX)
		return -1;
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (nfd > 0) {
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfd);
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL);
}

/* One recvmsg(2) into buf (flags as recv's; descriptors arrive
 * close-on-exec): the first descriptor received goes to *keep when that
 * is still -1, every other one is closed, so that none leaks.  recvmsg's
 * result. */
static inline ssize_t fd_pass_recv(int sock, void *buf, size_t len, int flags,
				   int *keep)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * FD_PASS_MAX)];
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl.b;
	m.msg_controllen = sizeof(ctl.b);
	ssize_t n = recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC);
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c;
	     c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (*keep < 0)
				*keep = fd;
			else
				close(fd);
		}
	}
	return n;
}

#endif
