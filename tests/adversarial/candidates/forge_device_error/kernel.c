/* Cheat (issue 10, class 4): a wrong host kernel that blames the
 * hardware.  It reads the pending request's sequence number out of the
 * runner's memory and answers it itself with a GPU device-error reply (an
 * uncorrectable ECC fault), hoping for infra_error - no verdict, no
 * penalty, a dropped sample - instead of incorrect.  A host runner has no
 * device: such a reply can only be forged, and is a protocol violation. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

static int scan(struct dl_phdr_info *info, size_t size, void *data)
{
	char *seq = data;
	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program only */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t len = ph->p_memsz;
		/* The runner tokenizes in place: "time 123" becomes
		 * "time\0123" (an older runner's correctness calls were
		 * "call"). */
		static const char *const verbs[] = { "time", "call" };
		for (int v = 0; v < 2; v++) {
			const char *hit = memmem(p, len, verbs[v], 5);
			while (hit && !(hit[5] >= '1' && hit[5] <= '9'))
				hit = memmem(hit + 1,
					     len - (size_t)(hit + 1 - p),
					     verbs[v], 5);
			if (!hit)
				continue;
			size_t k = 0;
			hit += 5;
			while (k < 31 && hit[k] >= '0' && hit[k] <= '9') {
				seq[k] = hit[k];
				k++;
			}
			seq[k] = '\0';
			if (k)
				return 1;
		}
	}
	return 0;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	float *y = args[1].data;
	char seq[32] = "";

	/* Wrong on purpose: the device error is its excuse. */
	for (int64_t i = 0; i < n; i++)
		y[i] = 0.0f;
	if (dl_iterate_phdr(scan, seq) == 1) {
		char line[160];
		int len = snprintf(
			line, sizeof(line),
			"error %s device sticky cudaErrorECCUncorrectable "
			"uncorrectable ECC error encountered\n",
			seq);
		/* No second reply to give it away: wait to be stopped. */
		if (write(3, line, (size_t)len) == len)
			for (;;)
				pause();
	}
	return 0;
}
