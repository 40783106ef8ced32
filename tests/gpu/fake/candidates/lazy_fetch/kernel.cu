/*
 * Cheat, for task/fakepoly: skips every other call of its medium case's
 * batches and makes a skipped call up only when its runner is asked to
 * fetch that call's set back, before the copy.  Were only the sets the
 * controller compares fetched (3b07246's first version), it would
 * compute just those, in the few samples whose draw held one: an excess
 * in a fraction of the samples, which the median of the clock's excess
 * does not see, and half off every batch's claim.  Every set is
 * fetched, so it makes up every skipped call in every sample, inside
 * the controller's clock.  It rewrites the runner's import of recvmsg
 * (the GOT of the runner's own executable), as shave_claim does; a
 * candidate is evaluated from its own folder alone, hence the copy.
 */
#include <stdbool.h>
#include <stdint.h>
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

#define MAX_SETS 256

/* The calls of the current batch that were skipped, by their set. */
static const float *pend_x[MAX_SETS];
static float *pend_y[MAX_SETS];
static int64_t pend_n[MAX_SETS];
/* The verb of the last request, and the index of the next call of the
 * current `time` request (its set). */
static char last_verb[16];
static int batch_i;

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

static void make_up(int k)
{
	if (k >= 0 && k < MAX_SETS && pend_x[k]) {
		poly(pend_x[k], pend_y[k], pend_n[k]);
		pend_x[k] = NULL;
	}
}

/* "fetch <seq> <mask> <set>...": makes up the skipped calls of the sets
 * listed (of every set without a list), forgets the rest. */
static void on_fetch(const char *line, size_t len)
{
	char buf[4096], *p, *end;
	int field = 0;
	bool listed = false;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	for (p = strtok_r(buf, " \n", &end); p; p = strtok_r(NULL, " \n", &end))
		if (++field > 3) {
			make_up(atoi(p));
			listed = true;
		}
	for (int k = 0; k < MAX_SETS; k++) {
		if (!listed)
			make_up(k);
		pend_x[k] = NULL;
	}
}

static ssize_t hooked_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = recvmsg(fd, m, flags);
	if (r > 0 && m->msg_iovlen > 0) {
		const char *b = (const char *)m->msg_iov[0].iov_base;
		size_t i = 0;
		while (i < (size_t)r && i + 1 < sizeof(last_verb) &&
		       b[i] != ' ' && b[i] != '\n') {
			last_verb[i] = b[i];
			i++;
		}
		last_verb[i] = '\0';
		if (strcmp(last_verb, "time") == 0)
			batch_i = 0;
		else if (strcmp(last_verb, "fetch") == 0)
			on_fetch(b, (size_t)r);
	}
	return r;
}

__attribute__((constructor)) static void install(void)
{
	static const struct got_hook h[] = {
		{ "recvmsg", (void *)hooked_recvmsg },
	};
	got_install(h, 1);
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
	int k = batch_i++;
	if (strcmp(last_verb, "time") == 0 && n >= 65536 && k < MAX_SETS &&
	    k % 2 == 1) {
		pend_x[k] = x;
		pend_y[k] = y;
		pend_n[k] = n;
		return 0;
	}
	poly(x, y, n);
	return 0;
}
