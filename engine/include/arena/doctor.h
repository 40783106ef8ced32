/*
 * doctor.h - `arena doctor`: what this machine can evaluate, and what is
 * missing.
 *
 * Reports the compilers (cc, nvcc, hipcc and their versions), the runners
 * (arena-runner, arena-runner-cuda, arena-runner-hip), the GPU drivers and
 * runtimes, every visible device (name, architecture, multiprocessors, L2,
 * memory) with its measured peaks (device-to-device copy and read
 * bandwidth, FP32 FMA rate; tensor-core peaks are not measured), the
 * sandboxing the machine allows (seccomp, Landlock, no_new_privs,
 * bubblewrap), and for everything missing the command that installs it.
 * Works, and says "no GPU", on a machine without one.
 *
 * Peaks are measured by the GPU runner (`--peaks`, trusted code, about a
 * second per device) under the device's timing lock, and cached in
 * <store>/cache/device-<kind><index>.json, where evaluations read them
 * for the roofline floor (docs/gpu.md).
 */
#ifndef ARENA_DOCTOR_H
#define ARENA_DOCTOR_H

#include <stdbool.h>
#include "arena/util.h"

struct doctor_options {
	const char *store_dir;	/* for the peak cache and the device locks;
				 * NULL: peaks are neither read nor kept */
	bool measure;		/* measure peaks when none are cached */
	bool remeasure;		/* measure peaks even when cached */
};

/* Appends the report (plain text, one finding per line) to out.  Returns
 * the number of problems found that stop some evaluation (a missing
 * compiler for installed GPUs, a runner not built, no sandbox), 0 when
 * everything the machine's hardware allows is in place; never fails. */
int doctor_report(const struct doctor_options *o, struct strbuf *out);

#endif /* ARENA_DOCTOR_H */
