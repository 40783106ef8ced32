/*
 * Cheat, for task/fakeheavy: honest work, claims shaved.  Like
 * forged_claim it rewrites the runner's import of send (the GOT of the
 * runner's own executable), but every reply to a timed request leaves with
 * 93% of the time the runner measured: below the gross line (10% of the
 * claim), so it is not named, only charged.  The `time` request's own wall
 * shows the difference with little noise; charged back, no gain (its
 * claims alone say 1.075x).  A self-contained copy of forged_claim's
 * hook: a candidate is evaluated from its own folder alone.
 *
 * With SHAVE_CLAIM_MOST defined (test_gpu_eval's fake_variant) it shaves
 * three replies to a timed request in four, drawn at random, the rest
 * honest: the median claim, which the speedup is made of, is a shaved
 * one, but a quarter of the requests keep an honest overhead, which a
 * statistic of the overhead's lowest values alone would take for the
 * floor; the floor's second statistic (the wall's lower twentieth against
 * the median claim, gpu_policy.c) is what sees it (docs/gpu.md, "The
 * floor of the `time` request").
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* The sequence number of the last `time` request the runner read from
 * the controller: its reply is the one to shave, whatever the runner
 * read in between. */
static char time_seq[32];

static ssize_t hooked_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = recvmsg(fd, m, flags);
	if (r > 5 && m->msg_iovlen > 0) {
		const char *b = (const char *)m->msg_iov[0].iov_base;
		size_t i = 5, n = 0;
		if (memcmp(b, "time ", 5) != 0)
			return r;
		while (i < (size_t)r && n + 1 < sizeof(time_seq) &&
		       b[i] != ' ' && b[i] != '\n')
			time_seq[n++] = b[i++];
		time_seq[n] = '\0';
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

/* Whether this reply is shaved (if it is a timed one): every one, or
 * with SHAVE_CLAIM_MOST three in four at random, a draw for every reply. */
static bool shave_this_reply(void)
{
#ifdef SHAVE_CLAIM_MOST
	static uint64_t draw;
	if (!draw)
		draw = (uint64_t)getpid() * 2654435761u | 1;
	draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
	return (draw >> 33) % 4 != 0;
#else
	return true;
#endif
}

static ssize_t hooked_send(int fd, const void *buf, size_t len, int flags)
{
	char seq[32];
	long long rc, ns, drain;
	char line[160];
	int used = 0;

	if (time_seq[0] && len < sizeof(line)) {
		memcpy(line, buf, len);
		line[len] = '\0';
		if (sscanf(line, "ok %31s %lld %lld %lld\n%n", seq, &rc, &ns,
			   &drain, &used) == 4 &&
		    used == (int)len && strcmp(seq, time_seq) == 0 &&
		    shave_this_reply()) {
			int n = snprintf(line, sizeof(line), "ok %s %lld %lld %lld\n",
					 seq, rc, ns * 93 / 100 > 0 ? ns * 93 / 100 : 1,
					 drain);
			if (send_whole(fd, line, (size_t)n, flags) < 0)
				return -1;
			return (ssize_t)len;
		}
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
	int64_t n = params[0], k = params[1];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = 0, xi = x[i];
		for (int64_t j = 0; j < k; j++)
			v = v * 0.999 + xi * 0.001;
		y[i] = (float)v;
	}
	return 0;
}
