/*
 * gpu_policy.c - the decisions of GPU timing that need no GPU: how much to
 * flush, when to batch, the roofline floor, how far a claimed time may
 * sit from the controller's clock, and what a device error means.  Pure
 * functions, so that tests/unit/test_gpu_policy.c can hold them to their
 * word on any machine; eval.c applies them (docs/gpu.md explains each
 * number).
 */
#include "eval_internal.h"

#include <math.h>
#include <string.h>

#include "arena/result.h"

size_t gpu_flush_bytes(const struct gpu_info *g)
{
	uint64_t l2 = g && g->l2_bytes > 0 ? (uint64_t)g->l2_bytes : 0;
	uint64_t b = 2 * l2;

	if (b < (64ull << 20))
		b = 64ull << 20;
	/* MI300-class parts (gfx94x) put a 256 MiB Infinity Cache behind a
	 * small L2; the flush must cover it too. */
	if (g && strncmp(g->arch, "gfx94", 5) == 0 && b < (512ull << 20))
		b = 512ull << 20;
	if (b > (uint64_t)RP_MAX_FLUSH_BYTES)
		b = (uint64_t)RP_MAX_FLUSH_BYTES;
	return (size_t)b;
}

int gpu_batch_size(double call_ns, size_t set_bytes, int max_sets,
		   uint64_t max_bytes)
{
	int n;

	if (!(call_ns > 0) || call_ns >= GPU_BATCH_MIN_NS || max_sets <= 1)
		return 1;
	n = (int)ceil(GPU_BATCH_TARGET_NS / call_ns);
	if (n < 2)
		n = 2;
	if (n > max_sets)
		n = max_sets;
	if (set_bytes > 0 && (uint64_t)n * set_bytes > max_bytes)
		n = (int)(max_bytes / set_bytes);
	return n < 1 ? 1 : n;
}

double gpu_roofline_floor_ns(int64_t bytes, int64_t flops,
			     const struct gpu_info *g)
{
	double t = 0;

	if (!g)
		return 0;
	if (bytes > 0 && g->bandwidth_bps > 0)
		t = fmax(t, (double)bytes /
				    (GPU_ROOFLINE_BW_MARGIN * g->bandwidth_bps));
	if (flops > 0 && g->fma_flops > 0)
		t = fmax(t, (double)flops /
				    (GPU_ROOFLINE_FLOPS_MARGIN * g->fma_flops));
	return t * 1e9;
}

double claims_allowed_excess(double cand_claim_ns, double base_fetch_ns)
{
	/* Two requests per sample (time, fetch), each with its stop and
	 * resume.  With the fetch page-locked, an unchanged kernel's
	 * overhead sat within 14 us of the baseline's (lower quartiles,
	 * quick evaluations on the H200; at most 30 us over the noop
	 * suite); 50 us keeps a margin and leaves a runner patched to
	 * claim less half the room 100 us did (docs/gpu.md, section 6). */
	double a = fmax(50000.0, 0.05 * cand_claim_ns);

	return fmax(a, 0.03 * base_fetch_ns);
}

double drain_allowed_ns(double base_drain_ns, double cand_claim_ns)
{
	/* An honest kernel leaves the device idle at its stream's end event,
	 * so its drain is the baseline's (the host's wake-up and sync
	 * latency, compared as lower quartiles).  On the H200 a 30 us kernel
	 * moved to another stream drained 15-25 us more than the baseline,
	 * which a 20 us slack let through; 8 us does not. */
	return fmax(base_drain_ns, 0) + fmax(8000.0, 0.02 * cand_claim_ns);
}

int64_t gpu_gate_hold_us(double prev_call_ns)
{
	double us = fmax(2000.0, 2.0 * prev_call_ns / 1e3);

	return (int64_t)fmin(us, 20000.0);
}

void gpu_error_meaning(const char *name, struct gpu_error_meaning *m)
{
	/* Names without their runtime prefix: the two runtimes share them. */
	static const struct {
		const char *suffix;
		int status;
		const char *what;
	} table[] = {
		{ "IllegalAddress", RS_RUNTIME_ERROR,
		  "an illegal memory access (a kernel read or wrote outside "
		  "its buffers)" },
		{ "MisalignedAddress", RS_RUNTIME_ERROR,
		  "a misaligned memory access" },
		{ "InvalidAddressSpace", RS_RUNTIME_ERROR,
		  "an access to the wrong address space" },
		{ "IllegalInstruction", RS_RUNTIME_ERROR,
		  "an illegal instruction" },
		{ "InvalidPc", RS_RUNTIME_ERROR,
		  "a jump to an invalid program counter" },
		{ "HardwareStackError", RS_RUNTIME_ERROR,
		  "a device stack overflow" },
		{ "Assert", RS_RUNTIME_ERROR, "a failed device-side assert" },
		{ "LaunchFailure", RS_RUNTIME_ERROR,
		  "a kernel launch failure (usually a memory fault)" },
		{ "LaunchTimeout", RS_TIMEOUT,
		  "a kernel that ran past the device's watchdog" },
		{ "LaunchOutOfResources", RS_RUNTIME_ERROR,
		  "a launch that asked for more registers, threads or shared "
		  "memory than the device has" },
		{ "InvalidConfiguration", RS_RUNTIME_ERROR,
		  "a launch with an invalid grid or block shape" },
		{ "MemoryAllocation", RS_RUNTIME_ERROR,
		  "running out of device memory" },
		{ "OutOfMemory", RS_RUNTIME_ERROR,
		  "running out of device memory" },
		{ "NoKernelImageForDevice", RS_RUNTIME_ERROR,
		  "a kernel not compiled for this device's architecture" },
		{ "InvalidDeviceFunction", RS_RUNTIME_ERROR,
		  "a kernel not compiled for this device's architecture" },
		{ "ECCUncorrectable", RS_INFRA_ERROR,
		  "an uncorrectable ECC memory error (a hardware fault)" },
	};
	const char *base = name ? name : "";

	if (strncmp(base, "cudaError", 9) == 0)
		base += 9;
	else if (strncmp(base, "hipError", 8) == 0)
		base += 8;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(base, table[i].suffix) == 0) {
			m->status = table[i].status;
			m->what = table[i].what;
			return;
		}
	m->status = RS_RUNTIME_ERROR;
	m->what = "a device error";
}
