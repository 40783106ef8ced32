/*
 * Cheat, for task/fakeheavy: does its work while its runner serves `gen`,
 * the request that draws a sample's inputs, and nothing in the timed
 * calls.  It rewrites the runner's imports of recvmsg and send (the GOT
 * of the runner's own executable), and just before the runner replies to
 * a `gen` it computes the outputs of every input set it has seen; the
 * timed calls that follow find them done.  Under the old protocol the
 * inputs were drawn by an untimed request and this gained everything;
 * now the controller's clock covers gen too, and the excess over the
 * claim is charged, and when gross rejected (docs/gpu.md section 6).
 *
 * With GEN_WINDOW_FIRST_PROCESS_ONLY defined it cheats only in a runner
 * that has served a `call` (the ordering check of the correctness phase,
 * whose runners a quick evaluation times on) and is honest in fresh
 * ones: a charge from the first pair of processes is timed again on a
 * fresh pair, which decides alone, so it gains nothing
 * (test_gpu_eval).
 *
 * With GEN_WINDOW_AT_FETCH defined it computes nothing in its batches'
 * calls and everything while its runner serves `fetch`, after the timed calls and
 * before their outputs are copied back: were only the sets compared
 * fetched, it would need to compute only those, in a sample's window the
 * median of the excess does not see (every set is fetched for that).
 */
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
/* Whether this runner has served a `call` (the correctness phase's). */
static bool served_call;

static void compute(const float *x, float *y, int64_t n, int64_t k);
static void compute_pending(void);

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
		served_call |= strcmp(last_verb, "call") == 0;
		if (strcmp(last_verb, "fetch") == 0)
			compute_pending();
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

#define MAX_SETS 256
static const float *xs[MAX_SETS];
static float *ys[MAX_SETS];
static bool done[MAX_SETS];
static int nsets;
static int64_t pn, pk;

static void compute(const float *x, float *y, int64_t n, int64_t k)
{
	for (int64_t i = 0; i < n; i++) {
		double v = 0, xi = x[i];
		for (int64_t j = 0; j < k; j++)
			v = v * 0.999 + xi * 0.001;
		y[i] = (float)v;
	}
}

/* GEN_WINDOW_AT_FETCH: the calls since the last fetch, not computed. */
static const float *pend_x[MAX_SETS];
static float *pend_y[MAX_SETS];
static int npend;

static void compute_pending(void)
{
	for (int i = 0; i < npend; i++)
		compute(pend_x[i], pend_y[i], pn, pk);
	npend = 0;
}

static bool cheating(void)
{
#ifdef GEN_WINDOW_FIRST_PROCESS_ONLY
	return served_call;
#else
	return true;
#endif
}

static ssize_t hooked_send(int fd, const void *buf, size_t len, int flags)
{
	if (!cheating())
		return send_whole(fd, (const char *)buf, len, flags);
	if (strcmp(last_verb, "layout") == 0 || strcmp(last_verb, "sets") == 0)
		nsets = 0;	/* the buffers were replaced */
	if (strcmp(last_verb, "gen") == 0 && len > 3 &&
	    memcmp(buf, "ok ", 3) == 0)
		for (int s = 0; s < nsets; s++) {
			compute(xs[s], ys[s], pn, pk);
			done[s] = true;
		}
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
	(void)nargs, (void)nparams, (void)stream;
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	int s = 0;
	pn = params[0];
	pk = params[1];
#ifdef GEN_WINDOW_AT_FETCH
	if (strcmp(last_verb, "time") == 0 && npend < MAX_SETS) {
		pend_x[npend] = x;
		pend_y[npend++] = y;
		return 0;
	}
#endif
	while (s < nsets && xs[s] != x)
		s++;
	if (s == nsets && nsets < MAX_SETS) {
		xs[s] = x;
		ys[s] = y;
		done[s] = false;
		nsets++;
	}
	if (s < nsets && done[s]) {
		done[s] = false;
		return 0;
	}
	compute(x, y, pn, pk);
	return 0;
}
