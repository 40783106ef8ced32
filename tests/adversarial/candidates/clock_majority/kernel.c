/* Cheat (issue 10, class 2): forges the runner's clock on a majority of
 * calls only.  Like clock_hook it patches the runner's GOT slot for
 * clock_gettime, but it reports 1/8 of the real time on 65% of the calls,
 * at random: 10.1x was accepted on c2c/gemm when the check compared lower
 * quartiles of (wall - claim) while the speedup was the median of the
 * claims.  The speedup now comes from the CPU time the kernel accounts
 * to the runner, and (CPU time - claim) above the baseline's in the
 * same pairs - in the median, or on a share of the pairs at 40% - names
 * the forgery. */
#ifndef FORGED_PERCENT /* test_eval_integrity builds it with 40 as well */
#define FORGED_PERCENT 65
#endif
#define SHRINK 8
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "arena/kernel.h"

typedef int (*cg_fn)(clockid_t, struct timespec *);
static cg_fn real_cg;
static struct timespec t_start;
static int ncalls;
static unsigned long long seed = 88172645463325252ULL;

static int fake_cg(clockid_t c, struct timespec *ts)
{
	int r = real_cg(c, ts);
	if (r != 0 || c != CLOCK_MONOTONIC)
		return r;
	if ((ncalls++ & 1) == 0) {
		t_start = *ts;
		return r;
	}
	long long el = (ts->tv_sec - t_start.tv_sec) * 1000000000LL +
		       (ts->tv_nsec - t_start.tv_nsec);
	/* 65 calls in 100, at random: a majority. */
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	if ((seed >> 33) % 100 >= FORGED_PERCENT)
		return r;
	long long at =
		t_start.tv_sec * 1000000000LL + t_start.tv_nsec + el / SHRINK;
	ts->tv_sec = at / 1000000000LL;
	ts->tv_nsec = at % 1000000000LL;
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
		if (strcmp(name, "clock_gettime") != 0)
			continue;
		void **slot = (void **)(base + rel[i].r_offset);
		long pg = sysconf(_SC_PAGESIZE);
		void *page = (void *)((ElfW(Addr))slot & ~(ElfW(Addr))(pg - 1));
		mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE);
		*slot = (void *)fake_cg;
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
	real_cg = (cg_fn)dlsym(RTLD_DEFAULT, "clock_gettime");
	if (real_cg)
		dl_iterate_phdr(hook, NULL);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}
