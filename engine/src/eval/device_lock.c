/*
 * device_lock.c - the device lock: <lock_dir>/<device>.lock, one
 * first-come, first-served lock per device of the machine (arena/fairlock.h;
 * the lock directory is the machine's, paths_lock_dir(): /tmp/arena-locks
 * or $ARENA_LOCK_DIR, whatever the store), so that no two evaluations of
 * any stores measure on one device at once (DESIGN.md section 3, item 7;
 * docs/evaluator.md section 6), and none waits behind later ones.
 *
 * Who holds it how is said where it is taken (ev_lock_device); every
 * taking, wait and release is marked in timing.tsv, which is how
 * tests/e2e/device_lock_*.sh see it from outside.  arena doctor opens the
 * same files (ev_device_lock_open) while it measures peaks.
 */
#include "evaluation.h"

#include "arena/fairlock.h"
#include "arena/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

char *ev_device_file(const char *dir, const char *device, const char *suffix)
{
	char name[96];

	snprintf(name, sizeof(name), "%s", device);
	for (char *q = name; *q; q++)
		if (*q == '/' || *q == '.' || *q == ':')
			*q = '_';
	return xasprintf("%s/%s%s", dir ? dir : paths_lock_dir(), name, suffix);
}

int ev_device_lock_open(const char *dir, const char *device, int *fd,
			struct errbuf *err)
{
	int rc;

	*fd = -1;
	if (!dir)
		dir = paths_lock_dir();
	if ((rc = mkdir_shared(dir, err)))
		return rc;
	char *path = ev_device_file(dir, device, ".lock");
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (*fd < 0) {
		rc = errf_code(err, errno, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	(void)fchmod(*fd, 0666); /* the umask aside: any user may lock */
	free(path);
	return 0;
}

void ev_device_lock_name(const struct gpu_info *g, const char *device,
			 char *out, size_t n)
{
	if (g && g->pci[0])
		snprintf(out, n, "gpu-%s", g->pci);
	else
		snprintf(out, n, "%s", device ? device : "host");
}

int ev_device_lock_take(const char *dir, const char *name, int mode, int *fd,
			int64_t *ticket, struct errbuf *err)
{
	int rc = ev_device_lock_open(dir, name, fd, err);

	if (rc == 0 && (rc = fairlock_take(*fd, mode, ticket)) != 0) {
		rc = errf_code(err, -rc, "cannot lock the device %s: %s", name,
			       strerror(-rc));
		close(*fd);
		*fd = -1;
	}
	return rc;
}

void ev_device_lock_close(int fd, int mode, int64_t ticket)
{
	if (fd < 0)
		return;
	if (mode)
		fairlock_release(fd, ticket);
	close(fd);
}

/* The error of a failed taking (rc: -errno), naming the lock file, and
 * for a counter arena cannot read, what to do. */
static int lock_error(struct eval_ctx *x, int rc)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", x->lockfd);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	return errf_code(x->err, -rc, "cannot lock the device (%s): %s%s",
			 n > 0 ? path : "its lock file", strerror(-rc),
			 rc == -EBADMSG || rc == -EOVERFLOW
				 ? "; its ticket counter is not one arena "
				   "wrote: remove the file while no evaluation "
				   "runs on this machine"
				 : "");
}

/* Gives x's ticket back: the device is no longer x's. */
static void give_back(struct eval_ctx *x)
{
	fairlock_release(x->lockfd, x->lockticket);
	x->lockmode = 0;
}

/* Takes <lock_dir>/<device>.lock (fairlock, blocking) in mode (LOCK_SH or
 * LOCK_EX), opening it on first use and keeping it in x->lockfd until
 * ctx_release.  Host: only timing takes it (exclusively).  GPU: starting
 * runners before the builds holds it shared (a context being created is
 * no measurement), correctness and timing hold it exclusively: both are
 * made of keeper-bracketed samples whose probes must find the device
 * idle, so no other evaluation may run on the device meanwhile.  A
 * GPU's lock is named by its PCI address:
 * cuda:0 in two processes with different CUDA_VISIBLE_DEVICES are
 * different devices.  A change of mode gives the ticket back and draws a
 * new one (not atomic), which is what keeps two evaluations that both
 * hold it shared from waiting for each other; so does ev_unlock_device,
 * and the next taking queues behind whoever came meanwhile. */
int ev_lock_device(struct eval_ctx *x, int mode, bool nonblock)
{
	char dev[96];
	int rc;

	if (x->lockfd >= 0 && x->lockmode == mode)
		return 0;
	if (x->lockfd < 0) {
		ev_device_lock_name(x->gpu ? &x->gi : NULL, x->req->device, dev,
				    sizeof(dev));
		if ((rc = ev_device_lock_open(x->req->lock_dir, dev, &x->lockfd,
					      x->err)))
			return rc;
	}
	if (x->lockmode) /* a change of mode */
		give_back(x);
	/* A first look that does not wait, so that timing.tsv says when
	 * an evaluation waited for another's device phase, and for how long. */
	uint64_t asked = now_ns();
	bool waited = false;
	int64_t ticket;
	if ((rc = fairlock_enqueue(x->lockfd, mode, &ticket)) != 0)
		return lock_error(x, rc);
	rc = fairlock_wait(x->lockfd, mode, ticket, false);
	if (rc == -EWOULDBLOCK && !nonblock) {
		ev_trace_mark(x, "waiting for the device lock: another "
				 "evaluation is using the device");
		waited = true;
		enum result_phase was = ev_phase_enter(x, RPH_LOCK_WAIT);
		rc = fairlock_wait(x->lockfd, mode, ticket, true);
		ev_phase_enter(x, was);
	}
	if (rc != 0) {
		fairlock_release(x->lockfd, ticket);
		if (rc == -EWOULDBLOCK)
			return rc;
		return lock_error(x, rc);
	}
	x->lockticket = ticket;
	x->lockmode = mode;
	ev_trace_mark(x, "device lock taken %s after waiting %.1f ms",
		      mode == LOCK_EX ? "exclusively" : "shared",
		      waited ? (double)(now_ns() - asked) / 1e6 : 0.0);
	return 0;
}

void ev_unlock_device(struct eval_ctx *x)
{
	if (x->lockfd < 0 || !x->lockmode)
		return;
	/* Marked first, as ctx_release does: the next holder's "taken"
	 * mark comes after this one. */
	ev_trace_detail(x, "device lock released for host work");
	give_back(x);
}

bool ev_device_exclusive(const struct eval_ctx *x)
{
	return x->lockfd >= 0 && x->lockmode == LOCK_EX;
}

/* lock_device with its failure turned into a verdict. */
bool ev_lock_or_verdict(struct eval_ctx *x, int mode)
{
	struct errbuf *saved = x->err;
	struct errbuf le;
	int rc;

	errbuf_init(&le);
	x->err = &le;
	rc = ev_lock_device(x, mode, false);
	x->err = saved;
	if (rc)
		ev_verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&le));
	return rc == 0;
}