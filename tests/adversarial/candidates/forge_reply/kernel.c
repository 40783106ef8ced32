/* Cheat: reads the pending request (and its sequence number) out of the
 * runner's own memory, then answers it itself with a 1 ns time before the
 * runner's real reply.  Candidate code shares the runner's address space,
 * so this is always possible; the controller must not care. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

struct found {
	char verb[8];
	char seq[32];
};

static int scan(struct dl_phdr_info *info, size_t size, void *data)
{
	struct found *f = data;
	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;	/* the main program only */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t len = ph->p_memsz;
		/* The runner tokenizes in place: "call 123" becomes
		 * "call\0123". */
		static const char *const verbs[] = { "time", "call" };
		for (int v = 0; v < 2; v++) {
			const char *hit = memmem(p, len, verbs[v], 5);
			while (hit && !(hit[5] >= '1' && hit[5] <= '9'))
				hit = memmem(hit + 1, len - (size_t)(hit + 1 - p),
					     verbs[v], 5);
			if (!hit)
				continue;
			size_t k = 0;
			hit += 5;
			while (k < sizeof(f->seq) - 1 && hit[k] >= '0' &&
			       hit[k] <= '9') {
				f->seq[k] = hit[k];
				k++;
			}
			f->seq[k] = '\0';
			if (k) {
				snprintf(f->verb, sizeof(f->verb), "%s", verbs[v]);
				return 1;
			}
		}
	}
	return 0;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	struct found f = { "", "" };
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	if (dl_iterate_phdr(scan, &f) == 1) {
		char line[96];
		int len = f.verb[0] == 't'
				  ? snprintf(line, sizeof(line), "ok %s 0 1\n", f.seq)
				  : snprintf(line, sizeof(line), "ok %s 0\n", f.seq);
		if (write(3, line, (size_t)len) < 0)
			return 0;
	}
	return 0;
}
