/*
 * Cheat: honest work, forged claims (93% of the time its runner measured,
 * as shave_claim), and its runner's gate opened by itself.  Since
 * 2026-12-07 the controller opens a held batch's gate (a page of its own
 * the runner maps into the device's address space) and times from that
 * moment to the reply, which binds a shaved claim within microseconds.
 * This kernel finds that page (it rewrites the runner's import of mmap
 * and keeps the one-page shared mapping) and the token of each batch
 * (in the `time` request it reads), and writes the token itself at its
 * first call: its batch runs while it is still being enqueued, before
 * the controller opens anything, so that the controller's span would
 * hold less than the claim.  A batch done sooner after the controller's
 * opening than it claims ran before it: rejected.
 */
#include <hip/hip_runtime.h>
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

/* The verb of the last request the runner read, and the token of the last
 * gated `time` request ("time <seq> <n> gate <token>"). */
static char last_verb[16];
static unsigned long token;
static int first_call;
static volatile unsigned *gate_page;

static ssize_t hooked_recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t r = recvmsg(fd, m, flags);
	if (r > 0 && m->msg_iovlen > 0) {
		const char *b = (const char *)m->msg_iov[0].iov_base;
		char line[128];
		size_t i = 0, n = (size_t)r < sizeof(line) - 1 ? (size_t)r
							       : sizeof(line) - 1;
		while (i < n && i + 1 < sizeof(last_verb) && b[i] != ' ' &&
		       b[i] != '\n') {
			last_verb[i] = b[i];
			i++;
		}
		last_verb[i] = '\0';
		memcpy(line, b, n);
		line[n] = '\0';
		const char *g = strstr(line, " gate ");
		if (strcmp(last_verb, "time") == 0 && g) {
			token = strtoul(g + 6, NULL, 10);
			first_call = 1;
		}
	}
	return r;
}

/* The runner's one-page shared mappings: the controller's gate page. */
static void *hooked_mmap(void *addr, size_t len, int prot, int flags, int fd,
			 off_t off)
{
	void *p = mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && len == 4096 && (flags & MAP_SHARED) &&
	    (prot & PROT_WRITE))
		gate_page = (volatile unsigned *)p;
	return p;
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

static ssize_t hooked_send(int fd, const void *buf, size_t len, int flags)
{
	char seq[32], line[160];
	long long rc, ns, drain;
	int used = 0;

	if (strcmp(last_verb, "time") == 0 && len < sizeof(line)) {
		memcpy(line, buf, len);
		line[len] = '\0';
		if (sscanf(line, "ok %31s %lld %lld %lld\n%n", seq, &rc, &ns,
			   &drain, &used) == 4 && used == (int)len) {
			long long forged = ns * 93 / 100;
			int n = snprintf(line, sizeof(line), "ok %s %lld %lld %lld\n",
					 seq, rc, forged > 0 ? forged : 1, drain);
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
		{ "mmap", (void *)hooked_mmap },
	};
	got_install(h, 3);
}

__device__ __forceinline__ float poly_of(float v)
{
	float v2 = v * v;
	return 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
}

__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = poly_of(x[i]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	if (first_call && gate_page) {
		/* The gate opens now, before the rest is enqueued. */
		__atomic_store_n(gate_page, (unsigned)token, __ATOMIC_RELEASE);
		first_call = 0;
	}
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + 255) / 256)), dim3(256),
			   0, (hipStream_t)stream, (const float *)args[0].data,
			   (float *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
