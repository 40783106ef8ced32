/* Cheat (issue 10, class 1): the work is done in the runner's own receive
 * path.  A constructor points the runner executable's GOT slot for
 * recvmsg at a wrapper; when a `time` request arrives, the wrapper
 * computes the outputs before handing the request to the runner, so the
 * runner's clock around the call sees almost nothing.  Any request would
 * do as a carrier: where an evaluator sends an untimed `flush` first, the
 * work goes there (accepted at 1,523x on c2c/saxpy that way).  The CPU
 * time the kernel accounts to the runner covers the whole request, the
 * wrapper included: the claims are named as inconsistent with it.
 * WORK_PERCENT of the work moves out of the call (recv_hook_partial
 * moves 85% and leaves the rest in the call). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "arena/kernel.h"

#ifndef WORK_PERCENT
#define WORK_PERCENT 100
#endif

typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
static recvmsg_fn real_recvmsg;
static const float *sx;
static float *sy;
static int64_t sn;
static int done_early;

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

static ssize_t fake_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = real_recvmsg(fd, m, flags);

	/* The first request after the inputs were written: `time`, or
	 * where an evaluator still sends one, the untimed `flush`. */
	if (r >= 5 && sx && !done_early && m->msg_iovlen >= 1 &&
	    (memcmp(m->msg_iov[0].iov_base, "time ", 5) == 0 ||
	     memcmp(m->msg_iov[0].iov_base, "flush ", 6) == 0)) {
		poly(sx, sy, sn * WORK_PERCENT / 100);
		done_early = 1;
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
		if (strcmp(name, "recvmsg") != 0)
			continue;
		void **slot = (void **)(base + rel[i].r_offset);
		long pg = sysconf(_SC_PAGESIZE);
		void *page = (void *)((ElfW(Addr))slot & ~(ElfW(Addr))(pg - 1));
		mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE);
		*slot = (void *)fake_recvmsg;
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
	if (real_recvmsg)
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
		poly(x, y, n);
		return 0;
	}
	done_early = 0;
	/* What the wrapper left. */
	int64_t k = n * WORK_PERCENT / 100;
	poly(x + k, y + k, n - k);
	return 0;
}
