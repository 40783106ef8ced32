/* Cheat (issue 10, class 1), hidden consistently: the work is done in
 * the runner's receive path when a `time` request arrives (as recv_hook),
 * and the runner's clock is hooked too, so that each claim includes the
 * time the hidden work took - the claims then agree with the CPU time
 * the kernel accounts to the runner and with the controller's wall
 * clock, and no check can name the trick.  It must gain nothing: the
 * speedup is computed from the accounting, which counts the hidden work,
 * so this candidate (the baseline's arithmetic) times like the
 * baseline. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "arena/kernel.h"

typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
typedef int (*cg_fn)(clockid_t, struct timespec *);
static recvmsg_fn real_recvmsg;
static cg_fn real_cg;
static const float *sx;
static float *sy;
static int64_t sn;
static int done_early, ncalls;
static long long hidden_ns; /* the hidden work's duration */

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static ssize_t fake_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = real_recvmsg(fd, m, flags);

	if (r < 5 || !sx || !real_cg || done_early || m->msg_iovlen < 1)
		return r;
	/* Where an evaluator sends an untimed `flush` before the call, the
	 * work hides there for free; else in the timed request, and the
	 * claim owns up to it. */
	bool flush = memcmp(m->msg_iov[0].iov_base, "flush ", 6) == 0;
	if (flush || memcmp(m->msg_iov[0].iov_base, "time ", 5) == 0) {
		struct timespec a, b;
		real_cg(CLOCK_MONOTONIC, &a);
		poly(sx, sy, sn);
		real_cg(CLOCK_MONOTONIC, &b);
		hidden_ns = flush ? 0 : ns_of(&b) - ns_of(&a);
		done_early = 1;
	}
	return r;
}

/* The runner reads the clock twice per call: the first reading is moved
 * back by the hidden work's time, so that the claim covers it. */
static int fake_cg(clockid_t c, struct timespec *ts)
{
	int r = real_cg(c, ts);
	if (r != 0 || c != CLOCK_MONOTONIC)
		return r;
	if ((ncalls++ & 1) == 0 && hidden_ns) {
		long long at = ns_of(ts) - hidden_ns;
		ts->tv_sec = at / 1000000000LL;
		ts->tv_nsec = at % 1000000000LL;
		hidden_ns = 0;
	}
	return r;
}

static ElfW(Addr) fix(ElfW(Addr) p, ElfW(Addr) base)
{
	return p < base ? p + base : p;
}

static void patch_table(ElfW(Addr) base, const ElfW(Rela) * rel, size_t n,
			const ElfW(Sym) * sym, const char *str)
{
	for (size_t i = 0; i < n; i++) {
		const char *name =
			str + sym[ELF64_R_SYM(rel[i].r_info)].st_name;
		void *to;
		if (strcmp(name, "recvmsg") == 0)
			to = (void *)fake_recvmsg;
		else if (strcmp(name, "clock_gettime") == 0)
			to = (void *)fake_cg;
		else
			continue;
		void **slot = (void **)(base + rel[i].r_offset);
		long pg = sysconf(_SC_PAGESIZE);
		void *page = (void *)((ElfW(Addr))slot & ~(ElfW(Addr))(pg - 1));
		mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE);
		*slot = to;
	}
}

static int hook(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program: arena-runner */
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
			switch (d->d_tag) {
			case DT_JMPREL:
				jmprel = (const void *)fix(d->d_un.d_ptr, base);
				break;
			case DT_PLTRELSZ:
				jmpsz = d->d_un.d_val;
				break;
			case DT_RELA:
				rela = (const void *)fix(d->d_un.d_ptr, base);
				break;
			case DT_RELASZ:
				relasz = d->d_un.d_val;
				break;
			case DT_SYMTAB:
				sym = (const void *)fix(d->d_un.d_ptr, base);
				break;
			case DT_STRTAB:
				str = (const void *)fix(d->d_un.d_ptr, base);
				break;
			}
		}
		if (!sym || !str)
			return 1;
		if (jmprel)
			patch_table(base, jmprel, jmpsz / sizeof(ElfW(Rela)),
				    sym, str);
		if (rela)
			patch_table(base, rela, relasz / sizeof(ElfW(Rela)),
				    sym, str);
		return 1;
	}
	return 1;
}

__attribute__((constructor)) static void install(void)
{
	real_recvmsg = (recvmsg_fn)dlsym(RTLD_DEFAULT, "recvmsg");
	real_cg = (cg_fn)dlsym(RTLD_DEFAULT, "clock_gettime");
	if (real_recvmsg && real_cg)
		dl_iterate_phdr(hook, NULL);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	const float *x = args[0].data;
	float *y = args[1].data;
	int64_t n = params[0];

	if (x != sx || y != sy || n != sn || !done_early) {
		sx = x;
		sy = y;
		sn = n;
		hidden_ns = 0;
		poly(x, y, n);
	}
	done_early = 0;
	return 0;
}
