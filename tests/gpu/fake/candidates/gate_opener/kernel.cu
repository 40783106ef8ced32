/*
 * Cheat, for task/fakepoly: honest work, run before the controller opens
 * its gate.  The controller opens a held batch's gate by writing a token
 * into a page of its own the runner maps (docs/gpu.md section 6, "The
 * controller opens the gate"), and times from that write to the reply.
 * This kernel takes that page (it rewrites the runner's import of mmap
 * and keeps the page mapped after the `gate` request) and each batch's
 * token (from the `time` request it reads), writes the token itself when
 * the runner answers "armed", and holds that answer back until the middle
 * of the batch's last call: the controller opens a gate that is already
 * open, and most of the batch is done before its clock starts.  A batch
 * done sooner after the controller's opening than it claims ran before
 * it: rejected (gpu_sample.c, gate_held).  The fake runtime runs a
 * call as it is launched, so the armed answer is sent from inside a call,
 * as a GPU's batch would run while its runner still enqueued it
 * (tests/gpu/adversarial/candidates/gate_opener).
 *
 * With GATE_OPENER_WITH_REPLY defined (test_gpu_eval's fake_variant) the
 * answer goes with the batch's reply, in one write: as when a fresh
 * runner's first launch outlasts the gate's deadline, the controller
 * reads both at once, which an honest runner does only in a request at
 * least that deadline long.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "arena/kernel.h"

/* ---- the runner's own imports, rewritten (as any kernel can: it runs
 * in the runner's address space) --------------------------------------- */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

struct got_hook {
	const char *name;
	void *fn;
};
static const struct got_hook *got_hooks;
static int got_nhooks;

static ElfW(Addr) got_fix(ElfW(Addr) p, ElfW(Addr) base)
{
	return p < base ? p + base : p;
}

static void got_patch(ElfW(Addr) base, const ElfW(Rela) * rel, size_t n,
		      const ElfW(Sym) * sym, const char *str)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++) {
		const char *name =
			str + sym[ELF64_R_SYM(rel[i].r_info)].st_name;
		for (int h = 0; h < got_nhooks; h++) {
			if (strcmp(name, got_hooks[h].name) != 0)
				continue;
			void **slot = (void **)(base + rel[i].r_offset);
			void *page = (void *)((ElfW(Addr))slot &
					      ~(ElfW(Addr))(pg - 1));
			mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE);
			*slot = got_hooks[h].fn;
		}
	}
}

/* The main program (the runner), not this object nor the libraries. */
static int got_main(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	ElfW(Addr) base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		const ElfW(Dyn) *d =
			(const ElfW(Dyn) *)(base + info->dlpi_phdr[i].p_vaddr);
		const ElfW(Rela) *jmprel = NULL, *rela = NULL;
		size_t jmpsz = 0, relasz = 0;
		const ElfW(Sym) *sym = NULL;
		const char *str = NULL;
		for (; d->d_tag != DT_NULL; d++) {
			ElfW(Addr) p = got_fix(d->d_un.d_ptr, base);
			switch (d->d_tag) {
			case DT_JMPREL:
				jmprel = (const ElfW(Rela) *)p;
				break;
			case DT_PLTRELSZ:
				jmpsz = d->d_un.d_val;
				break;
			case DT_RELA:
				rela = (const ElfW(Rela) *)p;
				break;
			case DT_RELASZ:
				relasz = d->d_un.d_val;
				break;
			case DT_SYMTAB:
				sym = (const ElfW(Sym) *)p;
				break;
			case DT_STRTAB:
				str = (const char *)p;
				break;
			}
		}
		if (!sym || !str)
			return 1;
		if (jmprel)
			got_patch(base, jmprel, jmpsz / sizeof(ElfW(Rela)), sym,
				  str);
		if (rela)
			got_patch(base, rela, relasz / sizeof(ElfW(Rela)), sym,
				  str);
		return 1;
	}
	return 1;
}

static void got_install(const struct got_hook *h, int n)
{
	got_hooks = h;
	got_nhooks = n;
	dl_iterate_phdr(got_main, NULL);
}

/* The page the runner mapped for the `gate` request, the last batch's
 * token and size, and its "armed" answer held back. */
static volatile unsigned *gate_page;
static unsigned token;
static long long calls_left;
static char held[64];
static size_t held_len;
static int held_fd = -1;
static bool gate_request;

static void *hooked_mmap(void *addr, size_t len, int prot, int flags, int fd,
			 off_t off)
{
	void *p = mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && gate_request && (flags & MAP_SHARED))
		gate_page = (volatile unsigned *)p;
	return p;
}

static ssize_t hooked_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = recvmsg(fd, m, flags);
	char line[128], seq[32];
	long long n;
	unsigned t;

	if (r <= 0 || m->msg_iovlen == 0)
		return r;
	size_t len = (size_t)r < sizeof(line) - 1 ? (size_t)r
						  : sizeof(line) - 1;
	memcpy(line, m->msg_iov[0].iov_base, len);
	line[len] = '\0';
	gate_request = strncmp(line, "gate ", 5) == 0;
	if (sscanf(line, "time %31s %lld gate %u", seq, &n, &t) == 3) {
		token = t;
		calls_left = n;
	}
	return r;
}

/* send() that delivers every byte, as the runner expects of one call. */
static ssize_t send_whole(int fd, const char *buf, size_t len, int flags)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = send(fd, buf + off, len - off, flags);
		if (w <= 0)
			return w;
		off += (size_t)w;
	}
	return (ssize_t)len;
}

/* "armed": the gate opened here, the answer kept for the last call (or
 * for the reply). */
static ssize_t hooked_send(int fd, const void *buf, size_t len, int flags)
{
#ifdef GATE_OPENER_WITH_REPLY
	char both[sizeof(held) + 128];
	if (held_len && len > 3 && len < 128 && memcmp(buf, "ok ", 3) == 0) {
		size_t n = held_len + len;
		memcpy(both, held, held_len);
		memcpy(both + held_len, buf, len);
		held_len = 0;
		token = 0;
		if (send_whole(fd, both, n, flags) < 0)
			return -1;
		return (ssize_t)len;
	}
#endif
	if (gate_page && token && len > 6 && len < sizeof(held) &&
	    memcmp(buf, "armed ", 6) == 0) {
		__atomic_store_n(gate_page, token, __ATOMIC_RELEASE);
		memcpy(held, buf, len);
		held_len = len;
		held_fd = fd;
		return (ssize_t)len;
	}
	return send_whole(fd, (const char *)buf, len, flags);
}

static void send_held(void)
{
	if (held_len && held_fd >= 0)
		(void)send_whole(held_fd, held, held_len, 0);
	held_len = 0;
	token = 0;
}

__attribute__((constructor)) static void install(void)
{
	static const struct got_hook h[] = {
		{ "mmap", (void *)hooked_mmap },
		{ "recvmsg", (void *)hooked_recvmsg },
		{ "send", (void *)hooked_send },
	};
	got_install(h, 3);
}

static void poly(const float *x, float *y, int64_t from, int64_t to)
{
	for (int64_t i = from; i < to; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
#ifdef GATE_OPENER_WITH_REPLY
	bool last = false;
#else
	bool last = held_len && --calls_left <= 0;
#endif

	poly(x, y, 0, last ? n / 2 : n);
	if (last) {
		send_held();
		poly(x, y, n / 2, n);
	}
	return 0;
}
