/*
 * Cheat: gen_window's trick in a small dose.  It does the first 8% of
 * every set's outputs while its runner serves `gen` (after the inputs are
 * drawn, before the reply, on a stream of its own) and the rest in the
 * timed calls, so it claims 92% of an honest batch and the 8% sits in the
 * sample's overhead: below the gross line (10% of the claim), so it is
 * only charged, at the lower bound of the whole sample's excess, whose
 * noise on the H200 (offsets of -60 to +46 us between runner processes,
 * 2026-12-04) is larger than the 8%.  The `time` request's own excess
 * does not see it (docs/gpu.md, "What a candidate can still gain").  The
 * adversarial suite wants no gain (at most 1.05); its claims alone say
 * about 1.09.  Hooks as gen_window's (the runner's GOT: recvmsg, send).
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
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

static void got_patch(ElfW(Addr) base, const ElfW(Rela) *rel, size_t n,
		      const ElfW(Sym) *sym, const char *str)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++) {
		const char *name = str + sym[ELF64_R_SYM(rel[i].r_info)].st_name;
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
			got_patch(base, jmprel, jmpsz / sizeof(ElfW(Rela)), sym, str);
		if (rela)
			got_patch(base, rela, relasz / sizeof(ElfW(Rela)), sym, str);
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

/* The verb of the last request the runner read from the controller. */
static char last_verb[16];

static ssize_t hooked_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = recvmsg(fd, m, flags);
	if (r > 0 && m->msg_iovlen > 0) {
		const char *b = (const char *)m->msg_iov[0].iov_base;
		size_t i = 0;
		while (i < (size_t)r && i + 1 < sizeof(last_verb) && b[i] != ' ' &&
		       b[i] != '\n') {
			last_verb[i] = b[i];
			i++;
		}
		last_verb[i] = '\0';
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

__device__ __forceinline__ float poly_of(float v)
{
	float v2 = v * v;
	return 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
}

/* Elements [lo, hi) of y = poly(x). */
__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t lo, int64_t hi)
{
	int64_t i = lo + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < hi)
		y[i] = poly_of(x[i]);
}

static void poly_range(const float *x, float *y, int64_t lo, int64_t hi,
		       hipStream_t s)
{
	if (hi > lo)
		hipLaunchKernelGGL(poly, dim3((unsigned)((hi - lo + 255) / 256)),
				   dim3(256), 0, s, x, y, lo, hi);
}

/* The share of each set done while the runner serves gen, in percent. */
#define GEN_PERCENT 8

#define MAX_SETS 256
static const float *xs[MAX_SETS];
static float *ys[MAX_SETS];
static bool done[MAX_SETS];
static int nsets;
static int64_t pn;
static hipStream_t mine;

static void precompute(void)
{
	if (!mine && hipStreamCreateWithFlags(&mine, hipStreamNonBlocking) !=
			     hipSuccess)
		return;
	for (int s = 0; s < nsets; s++) {
		poly_range(xs[s], ys[s], 0, pn * GEN_PERCENT / 100, mine);
		done[s] = true;
	}
	(void)hipStreamSynchronize(mine);
}

static ssize_t hooked_send(int fd, const void *buf, size_t len, int flags)
{
	if (strcmp(last_verb, "layout") == 0 || strcmp(last_verb, "sets") == 0)
		nsets = 0;	/* the buffers were replaced */
	if (strcmp(last_verb, "gen") == 0 && len > 3 &&
	    memcmp(buf, "ok ", 3) == 0)
		precompute();
	return send_whole(fd, (const char *)buf, len, flags);
}

__attribute__((constructor)) static void install(void)
{
	static const struct got_hook h[] = {
		{ "recvmsg", (void *)hooked_recvmsg },
		{ "send", (void *)hooked_send },
	};
	got_install(h, 2);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	int s = 0;
	pn = params[0];
	while (s < nsets && xs[s] != x)
		s++;
	if (s == nsets && nsets < MAX_SETS) {
		xs[s] = x;
		ys[s] = y;
		done[s] = false;
		nsets++;
	}
	int64_t lo = 0;
	if (s < nsets && done[s]) {
		done[s] = false;
		lo = pn * GEN_PERCENT / 100;
	}
	poly_range(x, y, lo, pn, (hipStream_t)stream);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
