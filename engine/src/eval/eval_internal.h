/*
 * eval_internal.h - the evaluator's private modules (not part of the
 * engine's API): compilation with an artifact cache (compile.c), input
 * generation and poisoning (inputs.c), output comparison (array_compare.c) and
 * the controller's side of the runner protocol (runner_client.c).  eval.c
 * ties them together; docs/evaluator.md explains the whole.
 */
#ifndef ARENA_EVAL_INTERNAL_H
#define ARENA_EVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "arena/confine.h"
#include "arena/kernel.h"
#include "arena/stats.h"
#include "arena/task.h"
#include "arena/util.h"
#include "arena/runner_proto.h"

/* ---- devices (gpu_info.c) ------------------------------------------------- */

enum dev_kind { DEV_HOST = 0, DEV_CUDA, DEV_HIP };

struct dev_id {
	enum dev_kind kind;
	int index;		/* among the devices the runtime sees */
};

/* "host", "cuda", "cuda:N", "hip", "hip:N" (no index = 0). */
int dev_parse(const char *s, struct dev_id *out, struct errbuf *err);
const char *dev_kind_name(enum dev_kind k);	/* "host", "cuda", "hip" */

/* What the GPU runner's --query and --peaks say about one device.  Peaks
 * are 0 when they have not been measured. */
struct gpu_info {
	enum dev_kind kind;
	int index;
	char name[128];		/* "NVIDIA H200" */
	char arch[32];		/* "sm_90", "gfx90a" */
	char pci[32];		/* "0000:3b:00": names the physical device */
	int multiprocessors;
	int64_t l2_bytes;
	int64_t memory_bytes;
	int runtime_version, driver_version;
	double bandwidth_bps;	/* max(copy, read) */
	double copy_bps;	/* device-to-device copy, bytes read + written */
	double read_bps;
	double fma_flops;	/* FP32 FMA, flops (2 per FMA) */
	double tc_bf16_flops;	/* dense bf16 tensor cores by mma.sync; 0 when
				 * not measured (HIP, before sm_80) */
};

#define GPU_MAX_DEVICES 64

/* The GPU runner for kind: $ARENA_RUNNER_CUDA / $ARENA_RUNNER_HIP, else
 * arena-runner-cuda / arena-runner-hip next to the running program. */
const char *gpu_runner_path(enum dev_kind kind);

/* Parses --query output into infos[0..*n); a runtime that found no
 * device gives *n = 0 and its reason in why (returns 0).  -EINVAL for
 * output that is not what the runner prints. */
int gpu_parse_query(const char *json, enum dev_kind kind,
		    struct gpu_info *infos, int max, int *n, char *why,
		    size_t why_len);
/* Parses --peaks output into the peak fields of *g. */
int gpu_parse_peaks(const char *json, struct gpu_info *g, char *why,
		    size_t why_len);

/* Every device of kind, from the runner's --query (once per process).
 * *n = 0 with a reason in why when there is none; a negative errno only
 * when the runner is missing or misbehaves (err says why). */
int gpu_list(enum dev_kind kind, struct gpu_info *infos, int max, int *n,
	     char *why, size_t why_len, struct errbuf *err);
/* Facts about device d; with peaks, its measured bandwidth and FMA rate
 * too, from <cache_dir>/device-<kind><index>.json when that file
 * describes this device, this boot and this runner, else measured now
 * (a second or two) and written there.  cache_dir NULL: no file. */
int gpu_info_get(const struct dev_id *d, const char *cache_dir, bool peaks,
		 struct gpu_info *out, struct errbuf *err);
/* Measures the peaks now and rewrites the cache file (arena doctor). */
int gpu_measure_peaks(const struct dev_id *d, const char *cache_dir,
		      struct gpu_info *out, struct errbuf *err);

/* Runs the runner's --selftest on d: the sandbox installed after the
 * driver opened the device, then everything a runner does.  0 when it
 * passed, -EPERM when it failed; *summary (caller frees) is its verdict
 * line ("ok (the sandbox refused fork: system call 57)"). */
int gpu_selftest(const struct dev_id *d, char **summary, struct errbuf *err);

/* target_gpu_model matching (docs/gpu.md): case-insensitive; every
 * alphanumeric word of model must be a word of the device's name or its
 * arch: "H200" and "nvidia h200" match "NVIDIA H200" and "NVIDIA H200
 * NVL", "mi300x" matches "AMD Instinct MI300X", "gfx942" matches that
 * device's arch, "H100" matches none of them; an empty model or "any"
 * matches everything. */
bool gpu_model_matches(const char *model, const char *name, const char *arch);

/* Whether task t can run on device (eval.c): 0 and *d filled (d may be
 * NULL), or -ENOTSUP / -EINVAL with a sentence in err. */
int eval_check_device(const struct task *t, const char *device,
		      struct dev_id *d, struct errbuf *err);

/* ---- GPU timing policy (gpu_policy.c): pure functions ------------------ */

/* Bytes the runner writes before every sample to flush the device's
 * caches: 2x L2 (at least 64 MiB), 2x 256 MiB on AMD parts with an
 * Infinity Cache (gfx94x), at most RP_MAX_FLUSH_BYTES. */
size_t gpu_flush_bytes(const struct gpu_info *g);

/* Calls per timed batch for a case whose calls take call_ns (the faster
 * of baseline and candidate in warm-up): 1 from GPU_BATCH_MIN_NS up;
 * below, at least 2 and enough back-to-back calls (each on its own input
 * set) to reach GPU_BATCH_TARGET_NS, within max_sets and within
 * set_bytes * n <= max_bytes (GPU_BATCH_MAX_BYTES, or
 * GPU_QUICK_BATCH_BYTES for a quick evaluation).  On the H200 the first launch
 * after the evaluator's idle gap and the L2 flush runs slow and noisy
 * (a 60 us kernel: 4.8-6% spread alone, 0.5-1.1% as one of four;
 * docs/gpu.md section 6).  And the controller's clock around a `time`
 * request, which checks the claim, carries an overhead of each runner
 * process's own (sd 6-17 us between processes on the H200,
 * 2026-12-06): a claim shaved by less than that cannot be confirmed, so
 * the batch is long enough for it to be a small part (a 6% shave kept
 * 4.7-5.8% of a 313 us batch and 1.4-2.3% of a 727 us one there). */
#define GPU_BATCH_MIN_NS 1000000.0
#define GPU_BATCH_TARGET_NS 1000000.0
#define GPU_BATCH_MAX_BYTES (2048ull << 20)
/* Device memory (gpu_memory.c): what one runner's context takes, an
 * allowance rather than a measurement (CUDA's contexts load modules
 * lazily; a runner's is one small kernel module and the runtime's own),
 * and the share of a device's memory that arena's evaluations on it may
 * hold together, the rest left to the driver and to other programs
 * ($ARENA_GPU_MEMORY_MIB replaces the share by a size). */
#define GPU_CONTEXT_BYTES (512ull << 20)
#define GPU_MEMORY_USABLE_TENTHS 9
/* Quick evaluations (a rough answer fast) keep a batch's sets under this:
 * large batches cost copies back and comparisons per pair, and page-locking
 * from 64 MiB up. */
#define GPU_QUICK_BATCH_BYTES (48ull << 20)
int gpu_batch_size(double call_ns, size_t set_bytes, int max_sets,
		   uint64_t max_bytes);
/* GPU_BATCH_TARGET_NS and GPU_BATCH_MAX_BYTES, or, for measurements,
 * $ARENA_GPU_BATCH_TARGET_US and $ARENA_GPU_BATCH_MAX_MIB (positive
 * numbers; anything else is ignored). */
double gpu_batch_target_ns(void);
uint64_t gpu_batch_max_bytes(void);
/* Untimed pairs each block runs before a case's timed ones:
 * GPU_WARMUP_PAIRS, or, for measurements, $ARENA_GPU_WARMUP_PAIRS (a
 * positive whole number).  Three until 2026-12-07; one, on an H100, left
 * the A/As as they were and saved 12 pairs a case (docs/gpu.md section
 * 6). */
#define GPU_WARMUP_PAIRS 1
int gpu_warmup_pairs(void);
/* Sets of a sample's batch of n (sets of set_bytes each) compared with
 * the other runner's: all of them while they fit GPU_COMPARE_MAX_BYTES,
 * else as many as fit, and at least 2 (n permitting).  Every set is
 * fetched back first, with the runner stopped after; which are compared
 * is drawn only then (ev_gpu_compare_pick), so a kernel that skipped a
 * set of its batch is found with the chance that the draw holds it, in
 * every sample, and cannot make up for it when it learns which.
 * $ARENA_GPU_COMPARE_MAX_KIB replaces the bound, for tests. */
#define GPU_COMPARE_MAX_BYTES (512ull << 20)
int gpu_compare_sets(int n, size_t set_bytes);

/* The fastest arithmetic a task's kernels may use, for the flop floor:
 * the task's cost.compute_class when it states one, else from its
 * argument types: a one-byte argument admits fp8/int8 tensor cores, a
 * 16-bit float bf16/fp16 ones, anything else TF32 (whether TF32 passes
 * the task's tolerance is the task's business; the floor assumes it
 * might, as it must not be beaten by an honest kernel). */
enum gpu_compute_class { GPU_CC_FP32, GPU_CC_TF32, GPU_CC_BF16, GPU_CC_FP8 };
enum gpu_compute_class gpu_compute_class_of(const struct task *t);
const char *gpu_compute_class_name(enum gpu_compute_class c);
/* Class c's peak rate on g in flops/s from the measured dense bf16
 * tensor-core rate (x2 for fp8/int8, /2 for TF32), or the FP32 FMA rate;
 * 0 when not measured. */
double gpu_class_peak_flops(enum gpu_compute_class c, const struct gpu_info *g);

/* The shortest time a call of case cost (bytes, flops) could take on g:
 * max(bytes / (GPU_ROOFLINE_BW_MARGIN x bandwidth), flops /
 * (GPU_ROOFLINE_TC_MARGIN x the class's peak)) in ns; 0 when nothing is
 * known.  Without a tensor-core measurement (HIP, before sm_80) the flop
 * term is flops / (GPU_ROOFLINE_FLOPS_MARGIN x the FP32 FMA rate), which
 * only catches impossible claims.  GPU_ROOFLINE_TC_MARGIN covers what
 * the mma.sync probe does not reach (Hopper's wgmma) and algorithms that
 * do fewer flops than the task's formula counts (one or two Strassen
 * levels). */
#define GPU_ROOFLINE_BW_MARGIN 1.25
#define GPU_ROOFLINE_TC_MARGIN 2.0
#define GPU_ROOFLINE_FLOPS_MARGIN 32.0
double gpu_roofline_floor_ns(int64_t bytes, int64_t flops,
			     enum gpu_compute_class c,
			     const struct gpu_info *g);

/* The charged excess of a GPU case (docs/gpu.md section 6).  Per timed
 * pair, e = the candidate's (whole sample by the controller's clock -
 * claim) - the baseline's; e[b][0..sizes[b]) are block b's.  Returns
 * max(0, the lower GPU_EXCESS_ALPHA bound of the median of e) from a
 * hierarchical bootstrap (resample blocks, then pairs within each), `iters`
 * resamples, deterministic in seed; *median gets the median of every e,
 * *hi the upper GPU_EXCESS_ALPHA bound (not floored), and *strict (when
 * not NULL) max(0, the lower GPU_EXCESS_ALPHA_STRICT bound).
 * What noise can explain is not charged; what the candidate's process
 * did outside its claim, beyond what the baseline's did, is.  Noise
 * alone still puts the lower bound above 0 in about one case in twenty
 * per column; the strict bound, which noise rarely lifts, is what the
 * upper end of the case's interval is charged (gpu_ratios), so that such
 * a charge moves the speedup, never the interval off the truth. */
#define GPU_EXCESS_ALPHA 0.05
#define GPU_EXCESS_ALPHA_STRICT 0.005
double gpu_charged_excess_ns(const double *const *e, const int *sizes,
			     int nblocks, int iters, uint64_t seed,
			     double *median, double *hi, double *strict);
/* One timed pair's `time` requests by both clocks (ns): each runner's
 * claim and the controller's wall around the request, or from the
 * controller's gate opening to the reply where it opened both runners'
 * gates (timing.c, S_BROVH). */
struct gpu_timed_pair {
	double base_claim, base_wall, cand_claim, cand_wall;
};
/* The floor of the `time` request (docs/gpu.md, "The floor of the time
 * request"): a request's wall beyond its claim (its overhead o: the
 * request's delivery, the wait for the end event, the drain, the reply)
 * has a sharp floor and a long tail of late wake-ups (on the H200,
 * 2026-12-06: lower decile ~205 us, interquartile range 50-180 us), so
 * a median of differences cannot see a claim shaved by 20 us where low
 * quantiles can.  Two statistics on the timed pairs, the larger taken:
 *   shift   the candidate's lower-decile o less the baseline's (a shave
 *           of most claims raises the candidate's whole o);
 *   median  the candidate's wall at its lower twentieth, less its median
 *           claim, less the baseline's lower-decile o (a shave of the
 *           median claim, which is what moves the speedup, shows here
 *           even when a share of the claims is left honest; an honest
 *           candidate's wall at that quantile lies at most that much
 *           above its median claim whatever its claims' spread, since
 *           wall = claim + o with o independent of the claim).
 * Returns max(0, the GPU_EXCESS_ALPHA_STRICT lower bound) of a
 * hierarchical bootstrap (blocks, then pairs within each; `iters`
 * resamples, deterministic in seed); *point the statistic over every
 * pair.  0 (and *point 0) for fewer than GPU_FLOOR_MIN_PAIRS pairs; 0
 * for fewer than GPU_FLOOR_MIN_BLOCKS blocks: each runner process has a floor of its
 * own (on the H200 a block's lowest overhead ranged over 40 us from one
 * baseline process to the next, 2026-12-06), so one pair of processes
 * cannot tell a shave from its own offset (a quick evaluation's single
 * block keeps e's and e_t's charges). */
#define GPU_FLOOR_QUANTILE 0.1
#define GPU_FLOOR_MIN_PAIRS 10
#define GPU_FLOOR_MIN_BLOCKS 2
double gpu_floor_excess_ns(const struct gpu_timed_pair *const *pairs,
			   const int *sizes, int nblocks, int iters,
			   uint64_t seed, double *point);
/* A batch behind the controller's gate that claims more than the time
 * from the gate's opening to its reply by over max(GPU_GATE_SLACK_ABS_NS,
 * GPU_GATE_SLACK_REL x the claim) ran before the gate opened
 * (gpu_sample.c, gate_held): the slack is the skew of the device's and
 * the controller's clocks over one batch. */
#define GPU_GATE_SLACK_ABS_NS 10000.0
#define GPU_GATE_SLACK_REL 0.005
/* An excess this large is not charged but rejected, by name:
 * max(GPU_GROSS_EXCESS_ABS_NS, GPU_GROSS_EXCESS_REL x the candidate's
 * median claim). */
#define GPU_GROSS_EXCESS_ABS_NS 50000.0
#define GPU_GROSS_EXCESS_REL 0.10
double gpu_gross_excess_ns(double cand_claim_ns);
/* When the bounds of the excess lie further apart than this, max(
 * GPU_UNCONFIRMED_ABS_NS, GPU_UNCONFIRMED_REL x the candidate's median
 * claim), the clocks do not yet confirm the claims (a machine too busy
 * to time on): the case is not done early (excess_unsettled), and keeps
 * sampling up to its pair limit. */
#define GPU_UNCONFIRMED_ABS_NS 100000.0
#define GPU_UNCONFIRMED_REL 0.25
double gpu_unconfirmed_ns(double cand_claim_ns);
/* A claim the controller's clock disputes: the candidate's reaction to
 * the controller's gate beyond the baseline's (S_BROVH; the whole `time`
 * request where the gates were not the controller's) is above 0 at the
 * GPU_EXCESS_ALPHA bound (react_lo_ns), and its median lies above what
 * is charged by more than max(GPU_DISPUTE_ABS_NS, GPU_DISPUTE_REL x the
 * candidate's median claim).  The charge is a strict lower bound, which
 * a runner that shaves most of its claims by less than the column's
 * noise keeps below its shave (shave_most on an H100: 9.2 us charged of
 * a 36.7 us median, 1.053, 2026-12-07); while the claim is disputed the
 * case is not done early and runs on past its share (timing_gpu.c,
 * claim_open), so that the bound closes in on the median.  An honest
 * candidate's bound lies above 0 about one case in twenty, and its
 * median near 0 (Triton on an H100, captured: -7.7 to +8.2 us per ~1 ms
 * batch in quick evaluations). */
#define GPU_DISPUTE_ABS_NS 5000.0
#define GPU_DISPUTE_REL 0.01
bool gpu_claim_disputed(double react_median_ns, double react_lo_ns,
			double charged_ns, double cand_claim_ns);

/* Work a candidate left on the device after its stream's end event:
 * allowed drain = the baseline's + max(8 us, 2% of the candidate's
 * median claim), drains compared as lower quartiles. */
double drain_allowed_ns(double base_drain_ns, double cand_claim_ns);

/* How long the ordering check holds the candidate's stream after
 * arena_launch returns, in us: long enough for work launched elsewhere to
 * write something - 2 ms, or twice the candidate's previous correctness
 * call (prev_call_ns, the controller's clock less the hold; 0 when none),
 * at most 20 ms. */
int64_t gpu_gate_hold_us(double prev_call_ns);

/* What a device error reported by a runner means (status and a clause
 * for the message).  name: "cudaErrorIllegalAddress" etc. */
struct gpu_error_meaning {
	int status;		/* an enum result_status for the candidate */
	const char *what;	/* "an illegal memory access" */
};
void gpu_error_meaning(const char *name, struct gpu_error_meaning *m);

/* ---- the controller's host cache flush (host_cache.c) ----------------- */

/* A buffer of twice the last-level cache that the controller sweeps
 * before every host call. */
struct host_sweep {
	unsigned char *buf; /* bytes, at a 2 MiB boundary within map */
	size_t bytes;
	void *map; /* the mapping: map_bytes from map */
	size_t map_bytes;
	/* Who sweeps: the CPUs sharing home_cpu's last-level cache that
	 * this process may use (ncpus of them; 0: the caller alone). */
	int home_cpu;
	int ncpus;
	cpu_set_t cpus;
};

/* 0, or a negative errno when the buffer cannot be mapped; bytes 0: an
 * empty sweep.  The buffer is not inherited by forked children
 * (MADV_DONTFORK) and asks for huge pages (host_cache.c says why). */
int host_sweep_init(struct host_sweep *s, size_t bytes);
/* A read-modify-write of every cache line of the buffer.  exclusive: the
 * caller holds the host exclusively (its timing phase), and the threads
 * of the cache domain of the CPU it runs on share the sweep; else the
 * caller sweeps by itself, so that a sweep outside a timing phase never
 * takes a CPU from another evaluation's timed call. */
void host_sweep_run(struct host_sweep *s, bool exclusive);
void host_sweep_release(struct host_sweep *s);

/* ---- one CPU for a host pair (host_pin.c) ------------------------------ */

struct host_pin {
	bool held;
	int cpu;	  /* the CPU held, while held */
	cpu_set_t before; /* the calling thread's own affinity */
};

/* Holds the calling thread, and the processes a and b (where > 0), to
 * the CPU the caller runs on now; h->held says whether it could.  The
 * processes stay there until they are held elsewhere. */
void host_pin_hold(struct host_pin *h, pid_t a, pid_t b);
/* Gives the calling thread its own affinity back. */
void host_pin_release(struct host_pin *h);
/* The CPU a GPU evaluation holds each pair's two runners to while the
 * pair runs, with $ARENA_GPU_PAIR_CPU=1 (opt-in): the first of
 * $ARENA_GPU_RUNNER_CPUS when that is set, else the highest-numbered CPU
 * the calling thread may use other than the one it runs on; -1 when off
 * or when there is none. */
int gpu_pair_cpu(void);
/* Holds processes a and b to cpu: true when both could be. */
bool pin_pair_to(int cpu, pid_t a, pid_t b);
/* Evicts every cache line of [p, p + n) from every core's caches
 * (clflush; dc civac on AArch64); a no-op where
 * host_cache_can_evict() is false (the sweep then stands alone). */
void host_cache_evict(const void *p, size_t n);
bool host_cache_can_evict(void);

/* ---- the host's peaks (host_peaks.c) --------------------------------- */

/* One core's memory bandwidth and FP32 FMA rate, per CPU second. */
struct host_peaks {
	char cpu[128];		   /* the model name */
	char simd[16];		   /* "AVX-512", "AVX2+FMA", "scalar" */
	double read_bps, copy_bps; /* copy: bytes read + written */
	double bandwidth_bps;	   /* max(read, copy) */
	double fma_flops;	   /* 2 flops per FMA */
};

/* The floor divides by peak x margin: measurement on a loaded machine,
 * stores that skip the cache and generous cost formulas must not put it
 * above an honest kernel.  4 was not enough: an honest autotuned saxpy
 * ran at exactly 4x the 16 GB/s measured under load on a small held-out
 * case and was rejected (make quickstart, 2026-12-02); work moved out of
 * the call is the CPU accounting's to catch, the floor only names the
 * impossible. */
#define HOST_ROOFLINE_BW_MARGIN 16.0
#define HOST_ROOFLINE_FLOPS_MARGIN 2.0

/* The host CPU's model name from /proc/cpuinfo ("unknown CPU" when it
 * says none). */
void host_cpu_model(char *out, size_t n);
/* The peaks from <cache_dir>/device-host.json when it was written on this
 * boot for this CPU and evaluator, else measured now (about a second) and
 * written there; remeasure: measure anyway.  *measured says which. */
int host_peaks_get(const char *cache_dir, bool remeasure, struct host_peaks *hp,
		   bool *measured, struct errbuf *err);
/* The shortest time a host call moving `bytes` and doing `flops` could
 * take on one core, in ns (0 when nothing is known); flops count only
 * when flops_apply (FP32/FP64 work, whose fastest unit is the FMA). */
double host_roofline_floor_ns(int64_t bytes, int64_t flops, bool flops_apply,
			      const struct host_peaks *hp);

/* Host: the most of a request's CPU time ever taken for the protocol's
 * cost: a side's time is max(cpu - o, (1 - share) x cpu).  The pings'
 * median o moved between 59 and 145 us from case to case of one
 * evaluation on the 2-vCPU VM, and once exceeded a candidate's whole
 * request (75 us; make quickstart, 2026-12-02): cpu - o alone then says
 * nothing, or that the call took no time at all (timing_host.c). */
#define HOST_PROTOCOL_SHARE_MAX 0.5
/* What a host request of cpu_ns of CPU time is charged, o_ns being the
 * protocol's cost: max(cpu - o, (1 - HOST_PROTOCOL_SHARE_MAX) x cpu,
 * floor_ns).  *bound (may be NULL) says whether the share decided. */
double host_charged_ns(double cpu_ns, double o_ns, double floor_ns,
		       bool *bound);

/* ---- sources and compilation (compile.c) ----------------------------- */

#define SOURCES_MAX_FILES 64
#define SOURCES_MAX_BYTES (1024 * 1024)	/* per file */

/* A snapshot of source files, read once: what is hashed is exactly what
 * is compiled, whatever happens to the directory meanwhile. */
struct source_set {
	int n;
	char *path[SOURCES_MAX_FILES];	/* relative, owned */
	char *data[SOURCES_MAX_FILES];	/* owned, NULL when missing */
	size_t len[SOURCES_MAX_FILES];
	char sha256[SOURCES_MAX_FILES][65];	/* "-" when missing */
};

/* Reads dir/rel for every rel in files.  No path component may be a
 * symbolic link (a workspace link must not make the controller read a
 * file the agent cannot); a missing file is recorded as missing, not an
 * error; files over SOURCES_MAX_BYTES and non-regular files are errors. */
int sources_read(const char *dir, const struct strvec *files,
		 struct source_set *out, struct errbuf *err);
void sources_release(struct source_set *s);

struct build_spec {
	const char *role;		/* "candidate", "baseline", "reference" */
	enum task_language lang;	/* of the sources */
	enum dev_kind dev;		/* the target */
	const char *arch;		/* GPU builds: "sm_90", "gfx90a" */
	const struct source_set *src;	/* copied into the build dir */
	const struct strvec *compile;	/* the paths of src to compile */
	const char *extra_include;	/* a trusted -I dir (task dir) or NULL */
	const struct strvec *flags;	/* the task's compile_flags */
	const struct strvec *defines;	/* NAME=VALUE, or NULL */
	const char *cache_dir;
	double timeout_s;
	const char *log_path;		/* compiler output, or NULL */
	/* Python builds (pybuild.c): run the static check (candidates), and
	 * its rules (the task's forbid_library_calls, allowed_calls). */
	bool check;
	bool forbid_library_calls;
	const struct strvec *allowed_calls;
	const char *entry; /* the module's entry function */
	/* The candidate's build: run the compiler confined (arena/confine.h,
	 * hiding these paths besides the catalogue), and answer a source
	 * that failed before from the negative cache. */
	bool confine;
	const struct strvec *hide;
	int memory_mb; /* RLIMIT_AS; 0: 4096 (cc), 16384 (GPU) */
	/* Python builds of a gpumode AgentKernelArena task but the
	 * reference's: the editable file (.hip) built into the bundle as its
	 * extension module (pybuild.c); NULL otherwise.  ext_required: an
	 * empty file is a compile error (a candidate's; not the task's own,
	 * whose kernel as shipped may be its PyTorch function). */
	const char *torch_ext;
	bool ext_required;
	/* compile_build() of a PyTorch extension module instead of a
	 * kernel: torch's flags for the device (torchext.c). */
	const struct torch_ext_flags *torch;
};

struct build_out {
	char *so_path;		/* owned; the cached artifact */
	bool cached;		/* found in the cache, not built */
	char *message;		/* compile failure, owned; NULL on success */
	bool confined;		/* the compiler ran confined */
	bool negative_cached;	/* message came from the negative cache */
};

/* Builds (or finds in <cache_dir>/artifacts) the shared object for spec.
 * Returns 0 with out->so_path set, 0 with out->message set when the
 * sources do not compile (a verdict), or a negative errno when the build
 * could not take place at all. */
int compile_build(const struct build_spec *spec, struct build_out *out,
		  struct errbuf *err);
void build_out_release(struct build_out *o);
/* compile_build() of a Python-language build: the bundle the Python
 * runner loads (pybuild.c, docs/python.md). */
int pybuild(const struct build_spec *spec, struct build_out *out,
	    struct errbuf *err);
/* What a PyTorch extension module is compiled with for one kind of
 * device (torchext.c): arguments before the sources (language, standard,
 * defines, torch's and Python's headers, torch's nvcc flags) and after
 * them (torch's libraries); id names torch for the artifact's key. */
struct torch_ext_flags {
	char *id;
	struct strvec pre, libs;
	struct strvec dirs; /* what a confined compiler must be shown */
};
/* The flags for an extension named module on dev, from the interpreter's
 * torch (asked once per process).  0, or -ENOENT when that torch cannot
 * build one (no development files, no CUDA or ROCm build for dev). */
int torch_ext_flags(enum dev_kind dev, const char *module,
		    struct torch_ext_flags *f, struct errbuf *err);
void torch_ext_flags_release(struct torch_ext_flags *f);
/* The module name a gpumode task's extension is built and loaded under
 * (aka_pack.py's EXTENSION_NAME). */
#define TORCH_EXT_MODULE "arena_ext"

/* "<path of cc>: <first line of cc --version>" (caller frees), or NULL. */
char *compile_compiler_id(void);
/* The same for the compiler that builds lang for a device of kind (cc,
 * nvcc or hipcc); NULL when it is missing. */
char *compile_tool_id(enum task_language lang, enum dev_kind kind);
/* Whether path is a source file the compiler of lang compiles (.c; .cu;
 * .hip, .cpp, .cc); other editable files (headers) are only copied. */
bool compile_source_ok(enum task_language lang, const char *path);

/* ---- case layout, inputs, poison (inputs.c) -------------------------- */

struct case_layout {
	int nargs;
	size_t shm_size;
	size_t offset[TASK_MAX_ARGS];
	size_t bytes[TASK_MAX_ARGS];
	int64_t numel[TASK_MAX_ARGS];
	int64_t shape[TASK_MAX_ARGS][ARENA_MAX_RANK];
	int64_t lo[TASK_MAX_ARGS], hi[TASK_MAX_ARGS];	/* randint bounds */
	char *proto;	/* "<size> <nargs> <nparams> ..." for `layout` */
};

/* Evaluates shapes and bounds for case c and places every argument at a
 * RP_ALIGN-aligned offset. */
int layout_build(const struct task *t, const struct task_case *c,
		 struct case_layout *l, struct errbuf *err);
void layout_release(struct case_layout *l);

/* Fills dst with numel fresh values of argument a drawn from r. */
void inputs_fill(const struct task *t, const struct case_layout *l, int a,
		 struct rng *r, void *dst);

/* Per argument pre-drawn values from which timing pairs take fresh inputs
 * cheaply: a random window of the pool with every element randomly
 * reflected about the centre of its distribution (see inputs.c). */
struct input_pool {
	int nargs;
	double *fv[TASK_MAX_ARGS];	/* float args: 2 * numel values */
	int64_t *iv[TASK_MAX_ARGS];	/* integer args */
	double centre[TASK_MAX_ARGS];
};
void pool_build(const struct task *t, const struct case_layout *l,
		struct rng *r, struct input_pool *p);
void pool_draw(const struct task *t, const struct case_layout *l,
	       const struct input_pool *p, int a, struct rng *r, void *dst);
void pool_release(struct input_pool *p);

/* Runs fn(ctx, i0, n) over [0, n) in chunks of `chunk` on up to 16
 * threads (the caller's among them); one call when n fits one chunk.
 * fn must be safe to run concurrently on disjoint ranges. */
void par_for(int64_t n, int64_t chunk,
	     void (*fn)(void *ctx, int64_t i0, int64_t n), void *ctx);
/* memcpy, by several threads from 16 MiB up. */
void par_memcpy(void *dst, const void *src, size_t n);
/* Whether n bytes at a and b are equal (memcmp == 0), by several threads
 * from 16 MiB up: a GPU case's inputs of 256 MiB took the controller
 * about 100 ms to compare on one thread, on every quarter of the pairs. */
bool par_memeq(const void *a, const void *b, size_t n);

/* Output poison: pattern 0 and 1 differ in every byte (NaNs with distinct
 * payloads for floating point, 0xA5 / 0x5A bytes for integers). */
void poison_fill(arena_dtype d, void *dst, int64_t numel, int pattern);
/* One element of poison `pattern` for dtype d as an integer of the
 * element's width (returned); what a GPU runner fills outputs with. */
int poison_bits(arena_dtype d, int pattern, uint64_t *bits);
bool poison_is(arena_dtype d, const void *elem, int pattern);
/* The first of elements [from, numel) of an array of dtype d that holds
 * poison `pattern`, or numel when none does; poison_is element by element,
 * at memory speed (a reference's 32 M outputs: ~100 ms element by element
 * on the H200's host). */
int64_t poison_find(arena_dtype d, const void *base, int64_t from,
		    int64_t numel, int pattern);
/* Elements of an integer output that may hold the poison by chance. */
int64_t poison_chance_allowance(arena_dtype d, int64_t numel);

/* Conversions for 16-bit floating point. */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
/* Element i of an array of dtype d as a double. */
double elem_as_double(arena_dtype d, const void *base, int64_t i);

/* ---- comparison (array_compare.c) --------------------------------------- */

struct cmp_result {
	bool ok;
	int64_t nbad;		/* elements failing */
	int64_t first_bad;	/* index of the first, -1 if none */
	bool unwritten;		/* the first bad one still held the poison */
	double max_abs_err;	/* over finite pairs */
	char detail[384];	/* "got 1.5, expected 2 (|diff| ... )" */
};

/* Compares got with want (numel elements of d).  Floating point: |g - w| <=
 * atol + rtol * |w|; non-finite g where w is finite fails; NaN w needs NaN
 * g, an infinite w the same infinity.  Integers: equality.  poison_pattern
 * (0/1, or -1 for none) names the poison the output was filled with. */
void compare_arrays(arena_dtype d, const void *got, const void *want,
		    int64_t numel, double atol, double rtol,
		    int poison_pattern, struct cmp_result *res);
/* A sampled comparison (docs/gpu.md section 6, "what a pair checks"):
 * the first and the last CMP_SAMPLE_LEN elements and CMP_SAMPLE_WINDOWS
 * windows of CMP_SAMPLE_LEN contiguous elements at starts drawn from r,
 * each compared as compare_arrays does (bitwise: bit for bit, as inputs
 * are).  Arrays of at most CMP_SAMPLE_WINDOWS * CMP_SAMPLE_LEN elements
 * are compared whole.  Whether every compared element passes; where one
 * fails, the caller compares the array whole to word the verdict. */
#define CMP_SAMPLE_WINDOWS 512
#define CMP_SAMPLE_LEN 32
bool compare_arrays_sampled(arena_dtype d, const void *got, const void *want,
			    int64_t numel, double atol, double rtol,
			    bool bitwise, struct rng *r);
/* "[3, 17]" for flat index i of shape (rank dims), into buf. */
void format_index(const int64_t *shape, int rank, int64_t i, char *buf,
		  size_t n);

/* ---- runner client (runner_client.c) --------------------------------- */

enum runner_fail {
	RUNNER_OK = 0,
	RUNNER_TIMEOUT,		/* missed a deadline; killed */
	RUNNER_DIED,		/* exited or was killed by a signal */
	RUNNER_FORBIDDEN,	/* killed by the seccomp filter */
	RUNNER_PROTOCOL,	/* unexpected bytes on the control channel */
	RUNNER_LOAD,		/* could not load the object or its entry */
	RUNNER_REFUSED,		/* answered `error` to a request */
	RUNNER_SYSTEM,		/* the controller could not do its part */
	RUNNER_DEVICE,		/* reported a GPU device error (dev_error,
				 * dev_sticky say which) */
	RUNNER_NODEVICE,	/* a GPU runner could not open its device */
};

struct runner_spec {
	const char *runner_path;
	const char *so_path;	/* NULL: a GPU runner started before its
				 * kernel exists; runner_load() sends it */
	const char *entry;	/* "-" with so_path NULL: a GPU keeper */
	const char *role;	/* for messages */
	size_t shm_size;
	int log_fd;		/* runner stdout+stderr; -1 = /dev/null */
	uint64_t as_limit;	/* RLIMIT_AS in bytes; 0 = none */
	int timeout_ms;		/* per request */
	bool gpu;		/* a GPU runner: device_arg names the device
				 * index, the environment keeps the device
				 * selection variables */
	const char *device_arg;	/* third argument, or NULL (host) */
	/* A host runner of a trusted C reference whose task declares
	 * reference.split: the threads it may cut a call into (> 1 adds
	 * "threads=<n>"; runner_proto.h), else 0. */
	int threads;
	/* Arguments between runner_path and the kernel (NULL-terminated, or
	 * NULL): the Python runner is `python3 <flags> arena_runner_py.py
	 * <flavour> <lib> <scratch>` followed by the C runner's arguments. */
	const char *const *pre_args;
	/* Start it as a copy of the Python runner's zygote (pyzygote.c),
	 * which gets argv from index zygote_skip on (after the interpreter,
	 * its flags and the script). */
	bool zygote;
	int zygote_skip;
	/* The confinement to start it in (arena/confine.h), or NULL; the
	 * binary is then run at its inside path. */
	const struct confine_prep *confine;
};

/* The environment every runner gets (nothing of the controller's but
 * device selection and sanitizer options). */
void runner_env_for(struct strvec *env, bool gpu);

/* ---- pyzygote.c: the Python runner's zygote --------------------------- */

/* Whether runners of Python roles start from the zygote
 * ($ARENA_PY_ZYGOTE=0: no). */
bool pyzygote_enabled(void);
/* Starts the zygote now if it is not running (it imports torch while the
 * evaluation builds). */
void pyzygote_prestart(void);
/* The same in a thread of its own: returns at once. */
void pyzygote_prestart_async(void);
/* A new runner, this process's child, made by the zygote with fds
 * (control socket, shared memory, kernel, /dev/null, log) on 3, 4, 5, 0
 * and 1-2, argv (its runner arguments), envp and the limits; -1 with why
 * when there is no zygote. */
pid_t pyzygote_spawn(char *const argv[], char *const envp[], const int fds[5],
		     int cpu_s, uint64_t as_bytes, char *why, size_t n);

struct runner {
	pid_t pid;		/* also the process group id; 0 = none */
	int sock;
	unsigned char *shm;	/* the controller's mapping */
	size_t shm_size;
	char role[16];
	uint64_t seq;
	int timeout_ms;
	bool stopped;		/* SIGSTOPped and seen stopped */
	bool reaped;
	bool sandboxed;		/* hello said "seccomp,landlock" */
	bool confined;		/* started in its namespaces (pid 1 there) */
	bool gpu;
	bool spin_replies;	/* poll for replies before sleeping in poll(2)
				 * (a timed GPU sample, rcl_read_line) */
	bool spin_gated;	/* the same for a gated batch's reply alone,
				 * from the token's write (collect_gated) */
	bool deferred;		/* started without its kernel */
	bool dev_sticky;	/* after RUNNER_DEVICE: the context is lost */
	char dev_error[64];	/* after RUNNER_DEVICE: "cudaErrorIllegalAddress" */
	int threads_ready;	/* threads when it first stopped after ready */
	int calls;		/* `call`, host `time` and GPU `time`
				 * requests answered */
	int nsets;		/* GPU: argument sets (`sets`) of the current
				 * layout, 0 = one */
	int64_t dev_lo, dev_hi; /* GPU: where its argument buffers lie, as
				 * its last `layout` or `sets` said (a
				 * claim, for blocks.tsv only) */
	clockid_t cpu_clock;	/* the runner's CPU-time clock */
	bool has_cpu_clock;
	int64_t cpu_ns;	  /* CPU time the runner used while resumed
				 * for the last request (SIGCONT to seen
				 * stopped again), -1 when unknown */
	int64_t delay_ns; /* and how long it waited for a CPU then */
	int64_t cpu_mark, delay_mark; /* both before the last SIGCONT */
	uint64_t sent_at;    /* now_ns() when the last request was sent */
	uint64_t replied_at; /* and when its reply was read */
	bool hold;	  /* replies leave the runner running (GPU samples:
			   * the keeper throughout, a runner until the
			   * keeper's request is posted); runner_stop ends
			   * it */
	int schedstat_fd; /* /proc/<pid>/schedstat, or -1 */
	int shm_fd;	  /* the shared memory's memfd, kept for the
			   * keeper's `lend` and `take` (gpu_sample.c,
			   * refpool.c); -1 before the launch */
	int lend_slot;	  /* 1 + its slot of the keeper's lent sets, 0
			   * while its sets are its own (a GPU timing
			   * runner, gpu_sample.c) */
	bool takes_fds;	  /* the keeper: replies may carry a descriptor
			   * (`lend`), kept in passed_fd */
	volatile unsigned *gate_page; /* GPU: the page whose first word opens
				       * its timed batches' gate
				       * (runner_gate_page), or NULL */
	int gate_state;	     /* 0 not offered, 1 mapped by the runner, -1
			   * refused (why says why) */
	uint32_t gate_token; /* the last token written */
	bool captured;	     /* the next `time` runs the batch captured for
			      * it (runner_capture) */
	int passed_fd;	  /* the last one received, -1 when none */
	char runner_path[256];
	int status;		/* wait status once reaped */
	char why[512];		/* last failure, a clause: "was killed by ..." */
	size_t blen;
	char buf[RP_MAX_LINE + 1];	/* bytes received, not yet a line */
	char line[RP_MAX_LINE + 1];	/* the last line read */
};

/* A runner starts in two halves, so that several runners (GPU runners
 * take 0.2-0.5 s each to open a context) start at once: launch forks and
 * execs, await reads hello and ready and leaves the runner stopped.  On
 * failure everything is torn down and r->why says why.  r must be zeroed
 * (runner_new does that). */
struct runner *runner_new(void);
enum runner_fail runner_launch(struct runner *r, const struct runner_spec *s);
enum runner_fail runner_await(struct runner *r);
/* Sends the kernel to a runner launched without one (so_path NULL). */
enum runner_fail runner_load(struct runner *r, const char *so_path);
/* Whether GPU runners may poll for requests (rio_set_spin) and the
 * controller for a sample's replies (runner.spin_replies) instead of
 * sleeping until they come.  A sleeper's wake-up is noise in the
 * controller's clock around every timed request.  By default the runners
 * poll where four usable CPUs or more leave room (with fewer they would
 * take the CPUs the runners need) and the controller does not
 * ($ARENA_RUNNER_SPIN decides instead, for tests and measurements: 0, 1,
 * runners or controller). */
bool runner_may_spin(void);
bool controller_may_spin(void);
/* Whether the controller polls for a gated batch's reply alone, from its
 * write of the token (about one batch, 1 ms): $ARENA_GPU_GATE_SPIN=0 or
 * 1, else where ev_cpus_to_spare() (on fewer CPUs the poll would take the
 * runners').  On an H100 `shave_most` kept 1.036 with it, 1.052 without
 * (docs/gpu.md, "The controller opens the gate"). */
bool controller_spins_on_gate(void);
/* The CPUs this process may run on (its affinity; the online CPUs where
 * that cannot be read), at least 1 (device.c). */
int ev_cpus_usable(void);
/* Whether this process has CPUs to spare for work beside the evaluation's
 * own thread and runners (four usable or more): what decides the runners'
 * polling and the candidate's compiler beside the baseline's.  On CI's two
 * cores both would take the CPUs the runners and the tests beside need. */
bool ev_cpus_to_spare(void);
/* A CPU list as sysfs and taskset write them ("0-15,32-47", a trailing
 * newline allowed) into *set (device.c): the number of CPUs in it, or -1
 * when the text is not such a list (*set then holds what preceded the
 * fault). */
int ev_cpu_list_parse(const char *list, cpu_set_t *set);
/* $ARENA_GPU_RUNNER_CPUS, for measurements: a list of CPUs ("14,15" or
 * "14-15") every GPU runner is pinned to from its start, so that each
 * process of an evaluation waits and wakes on the same CPUs (on the H200
 * the floor of the `time` request differed by up to 40 us between runner
 * processes, 2026-12-06), into *set (runner_client.c).  False (no
 * pinning) when unset or unreadable. */
bool ev_gpu_runner_cpus(cpu_set_t *set);
/* How long, in running time, a GPU runner polls for its next request
 * before it blocks: the controller sends a request right after it
 * resumes a runner. */
#define RUNNER_SPIN_US 2000

/* The case's layout, to n runners at once: posted to every one, then
 * every reply collected, so that what each does for it (page-locking its
 * shared memory, about 0.3 s per GiB on the H200) overlaps instead of
 * adding up.  fail[i]: runner i's outcome.  A GPU runner's reply also
 * says where its buffers lie (r->dev_lo, r->dev_hi). */
void runner_layout_all(struct runner *const *rs, int n, const char *proto,
		       enum runner_fail *fail);
/* GPU runners: one call, untimed (host runners have only runner_time). */
enum runner_fail runner_call(struct runner *r, int *rc);
/* GPU: a call under the ordering check (engine/runner/gpu/gpu_gate.h):
 * the runner holds its stream for hold_us after arena_launch returns.
 * order: 0 nothing changed meanwhile, a + 1 argument a changed (work not
 * ordered on the stream), -1 inconclusive; late: a + 1 argument a changed
 * after the stream's own work had finished (work forked and never
 * joined), else 0; either is -2 for a reply out of range. */
enum runner_fail runner_call_gated(struct runner *r, int64_t hold_us, int *rc,
				   int *order, int *late, int64_t *wall_ns);
/* Host runners: one call of the kernel (the only request that runs one).
 * claim: the runner's own time; wall: the controller's, send to reply;
 * r->cpu_ns: the runner's CPU time over the whole request. */
enum runner_fail runner_time(struct runner *r, int *rc, int64_t *claim_ns,
			     int64_t *wall_ns);
enum runner_fail runner_ping(struct runner *r);
/* A host runner started with threads: later calls cut param's range into
 * up to `threads` row ranges, the arguments of mask (bit a) with it
 * (runner_proto.h `split`); threads 1: whole calls. */
enum runner_fail runner_split(struct runner *r, int param, int threads,
			      uint32_t mask);
/* GPU runners (runner_proto.h): nsets device copies of the layout, set k
 * at shared-memory offset k * stride, asked of n runners at once like
 * runner_layout_all (and, like it, setting r->dev_lo and r->dev_hi); a
 * timed batch of n calls (claim: the events' total; drain: the
 * whole-device wait after the end event; wall: the controller's clock
 * over the request); copying sets back. */
void runner_sets_all(struct runner *const *rs, int n, int nsets,
		     size_t stride, enum runner_fail *fail);
/* The same, each runner i given sets the keeper lent: bytes[i] of the
 * allocation descriptor fds[i] stands for (`sets <n> <stride> <bytes>
 * [pinned]` with the descriptor; pinned: its shared memory page-locked,
 * for fetches). */
void runner_sets_lent(struct runner *const *rs, int n, int nsets, size_t stride,
		      const int *fds, const int64_t *bytes, bool pinned,
		      enum runner_fail *fail);
/* The controller's gate page (runner_proto.h, `gate`): a page made and
 * mapped here, offered to GPU runner r once.  RUNNER_OK with
 * r->gate_state 1 when r mapped it; RUNNER_REFUSED (r->why says why) with
 * r->gate_state -1 when it did not; other failures as any request's. */
enum runner_fail runner_gate_page(struct runner *r);
/* `time <n>`: with "hold" when hold; or, when gate and r mapped the
 * controller's gate page, "gate <token>": the token is written into the
 * page once r answers "armed", and *react_ns is the controller's clock
 * from that write to the reply (-1 otherwise). */
enum runner_fail runner_time_gpu(struct runner *r, int n, bool hold, bool gate,
				 int *rc, int64_t *claim_ns, int64_t *drain_ns,
				 int64_t *wall_ns, int64_t *react_ns);
/* `capture <n> <place>`: the coming `time`'s n calls recorded before
 * their inputs exist (runner_proto.h).  r->captured (so that the next
 * runner_time_gpu asks for `graph`) when the runner did; else r->why
 * says why not.  Failures as any request's. */
enum runner_fail runner_capture(struct runner *r, int n, const char *place);
/* `fetch`: the arguments in mask of set k, or of every set (k < 0). */
enum runner_fail runner_fetch(struct runner *r, uint32_t mask, int k,
			      int64_t *wall_ns);
/* GPU: the first request of a sample: the inputs drawn on the device and
 * the outputs poisoned, per argument as spec says (runner_proto.h). */
enum runner_fail runner_gen(struct runner *r, const char *spec,
			    int64_t *wall_ns);
/* The keeper (a GPU runner with no kernel; runner_proto.h): `flush`
 * (of flush_bytes) and `probe` in two halves, so that the controller can
 * post one the moment it has read another runner's reply, before it stops
 * that runner; both end with probes until the device is idle.  ns: the
 * keeper's own clock from its first launch to the device found idle,
 * busy: still busy after 10 s, launched: the CLOCK_MONOTONIC ns of its
 * first launch (now_ns's clock), wall: the controller's, post to reply. */
struct keeper_reply {
	int64_t ns, launched, wall;
	bool busy;
};
enum runner_fail runner_keeper_post(struct runner *k, const char *verb,
				    size_t flush_bytes);
enum runner_fail runner_keeper_collect(struct runner *k, const char *what,
				       struct keeper_reply *o);
/* The keeper's lent sets (docs/gpu.md section 6, "the keeper's
 * compare"): `lend` (nsets sets of the layout whose `layout` arguments
 * are proto, for the runner whose shared memory is shm_fd; *fd the
 * allocation's descriptor, *bytes its size; RUNNER_REFUSED when the
 * keeper cannot export memory), `compare` (rules: one per argument;
 * out: elements that failed, and the first's set, argument and index, -1
 * when none), `take` (the arguments in mask of set k into the slot's
 * runner's shared memory where its fetch would put them, or with to_fd
 * >= 0 into that memory as set 0 would lie; RUNNER_REFUSED when the
 * keeper cannot map it).  place: the sample's placement seed in hex, or
 * "-". */
enum runner_fail runner_keeper_lend(struct runner *k, int slot, int nsets,
				    size_t stride, const char *proto,
				    int shm_fd, int *fd, int64_t *bytes);
enum runner_fail runner_keeper_compare(struct runner *k, int bslot, int cslot,
				       const char *place, const char *rules,
				       int64_t out[4]);
enum runner_fail runner_keeper_take(struct runner *k, int slot,
				    const char *place, uint32_t mask, int set,
				    int to_fd);
/* Both halves of a `probe`. */
enum runner_fail runner_probe(struct runner *k, struct keeper_reply *o);
/* The keeper's ~1 ms busy kernel, waited for; ns by its own clock. */
enum runner_fail runner_warm(struct runner *k, int64_t *ns);
/* The parsers of what a runner sends, apart from the socket (the fuzz
 * harness tests/fuzz/fuzz_runner_reply.c drives them with hostile bytes).
 * A protocol violation kills the runner and sets r->why, as during an
 * evaluation.
 *   runner_take_line: the first line of r->buf into r->line: 1 (*line
 *     set), 0 when no complete line is there yet, -1 (*f set) when more
 *     than one line came and allow_more is false or RP_MAX_LINE bytes
 *     came without a newline.
 *   runner_parse_hello: "hello <pid> <sandbox>" (or "nodevice <pid> ...")
 *     of the runner r->pid.
 *   runner_parse_reply: "ok <seq>[ <v1>...]" with exactly nvals integer
 *     values for request r->seq, or "error <seq> ..." (RUNNER_REFUSED,
 *     RUNNER_DEVICE). */
int runner_take_line(struct runner *r, bool allow_more, char **line,
		     enum runner_fail *f);
enum runner_fail runner_parse_hello(struct runner *r, const char *line);
enum runner_fail runner_parse_reply(struct runner *r, const char *line,
				    int nvals, int64_t *vals);
/* Parses the text of "error <seq> device <sticky|soft> <name> <message>"
 * after "<seq> "; true (and the fields set) when it is one. */
bool runner_parse_device_error(const char *msg, bool *sticky, char *name,
			       size_t name_len, char *why, size_t why_len);
/* Stops the whole process group and waits until the runner is stopped;
 * every reply above leaves the runner stopped this way, unless r->hold. */
enum runner_fail runner_pause(struct runner *r);
/* runner_pause, and r->cpu_ns and r->delay_ns over the last request
 * (from before its SIGCONT): what a held runner's last reply skipped. */
enum runner_fail runner_stop(struct runner *r);
/* Threads of the runner and children of any of them (only meaningful
 * while it is stopped). */
int runner_census(struct runner *r, int *threads, int *children);
/* Sends SIGKILL to the process group and returns (runner_destroy reaps);
 * NULL ok. */
void runner_kill(struct runner *r);
/* Kills the process group, reaps, unmaps, closes and frees; NULL ok. */
void runner_destroy(struct runner *r);

#endif /* ARENA_EVAL_INTERNAL_H */
