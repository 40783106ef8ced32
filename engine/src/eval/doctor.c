/*
 * doctor.c - `arena doctor` (arena/doctor.h): a report of what this
 * machine can evaluate and what is missing, with the command that
 * installs each missing piece.
 *
 * Everything GPU-related is asked of the GPU runners (`--query`,
 * `--peaks`), so the report shows exactly what evaluations will see:
 * a runner that cannot find a driver says so in the runtime's own words.
 * Nothing here needs a GPU; on a machine without one the report says
 * "no GPU" and why (no driver, no runner).
 */
#include "arena/confine.h"
#include "arena/doctor.h"
#include "arena/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/fairlock.h"
#include "arena/paths.h"
#include "evaluation.h"

#include <cJSON.h>

static const char *const install_hint_hipcc =
	"apt-get install -y hipcc libamdhip64-dev rocm-device-libs (Debian "
	"12), or ROCm from https://rocm.docs.amd.com";
static const char *const install_hint_nvcc =
	"the CUDA toolkit: apt-get install -y nvidia-cuda-toolkit, or "
	"https://developer.nvidia.com/cuda-downloads (then put its bin/ on "
	"PATH or set NVCC)";

struct report {
	struct strbuf *out;
	struct strvec missing;	/* "what: how to install" */
	int problems;
};

static void line(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void line(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(r->out, fmt, ap);
	va_end(ap);
	strbuf_addch(r->out, '\n');
}

static void missing(struct report *r, bool problem, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void missing(struct report *r, bool problem, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push(&r->missing, sb.buf);
	strbuf_release(&sb);
	if (problem)
		r->problems++;
}

/* First line of a file, or NULL. */
static char *first_line(const char *path)
{
	char *text = NULL;
	size_t len;
	struct errbuf e;

	errbuf_init(&e);
	if (file_read_all(path, 4096, &text, &len, &e) != 0)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* ---- compilers and runners -------------------------------------------- */

static void compilers(struct report *r, bool nvidia, bool amd)
{
	char *cc = compile_compiler_id();
	char *nv = compile_tool_id(LANG_CUDA, DEV_CUDA);
	char *hip = compile_tool_id(LANG_HIP, DEV_HIP);

	line(r, "compilers");
	line(r, "  cc      %s", cc ? cc : "missing");
	line(r, "  nvcc    %s", nv ? nv : "missing");
	line(r, "  hipcc   %s", hip ? hip : "missing");
	if (!cc)
		missing(r, true, "cc (every build): apt-get install -y "
			"build-essential");
	if (!nv)
		missing(r, nvidia, "nvcc (cuda tasks, and hip tasks on NVIDIA "
			"GPUs): %s", install_hint_nvcc);
	if (!hip)
		missing(r, amd, "hipcc (hip tasks on AMD GPUs): %s",
			install_hint_hipcc);
	free(cc);
	free(nv);
	free(hip);
}

static void runners(struct report *r, bool nvidia, bool amd)
{
	const char *host = paths_runner();
	const char *cuda = gpu_runner_path(DEV_CUDA);
	const char *hip = gpu_runner_path(DEV_HIP);

	line(r, "runners");
	line(r, "  host    %s%s", host, path_is_executable(host) ? "" : " (missing)");
	line(r, "  cuda    %s%s", cuda, path_is_executable(cuda) ? "" : " (missing)");
	line(r, "  hip     %s%s", hip, path_is_executable(hip) ? "" : " (missing)");
	if (!path_is_executable(host))
		missing(r, true, "arena-runner: run `make` (or set "
			"ARENA_RUNNER)");
	if (!path_is_executable(cuda))
		missing(r, nvidia, "arena-runner-cuda: `make` builds it once "
			"nvcc is installed (or set ARENA_RUNNER_CUDA)");
	if (!path_is_executable(hip))
		missing(r, amd, "arena-runner-hip: `make` builds it once hipcc "
			"is installed (or set ARENA_RUNNER_HIP)");
}

/* ---- devices ---------------------------------------------------------- */

/* Holds the device's timing lock (as evaluations name it) while peaks
 * are measured, so that no timing phase runs meanwhile. */
static int lock_gpu(const struct gpu_info *g)
{
	char name[64];
	struct errbuf e;
	int64_t ticket;
	int fd;

	if (!g->pci[0])
		return -1;
	ev_device_lock_name(g, NULL, name, sizeof(name));
	errbuf_init(&e);
	if (ev_device_lock_take(NULL, name, LOCK_EX, &fd, &ticket, &e) != 0)
		return -1;
	return fd;
}

static void peaks_line(struct report *r, const struct gpu_info *g,
		       const char *how)
{
	char tc[120];

	if (g->tc_bf16_flops > 0)
		snprintf(tc, sizeof(tc),
			 "dense bf16 tensor cores %.1f TFLOP/s "
			 "(mma.sync; the flop floor allows %.0fx that)",
			 g->tc_bf16_flops / 1e12, GPU_ROOFLINE_TC_MARGIN);
	else
		snprintf(
			tc, sizeof(tc),
			"tensor-core peaks not measured on "
			"this device (the flop floor allows %.0fx the FMA rate)",
			GPU_ROOFLINE_FLOPS_MARGIN);
	line(r,
	     "          peaks (%s): bandwidth %.2f TB/s (copy %.2f TB/s "
	     "read+write, read %.2f TB/s), FP32 FMA %.1f TFLOP/s, %s",
	     how, g->bandwidth_bps / 1e12, g->copy_bps / 1e12,
	     g->read_bps / 1e12, g->fma_flops / 1e12, tc);
}

/* What the device's memory ledger holds now (docs/gpu.md section 5). */
static void memory_line(struct report *r, const struct gpu_info *g,
			enum dev_kind kind, int index)
{
	uint64_t usable = ev_gpu_memory_usable(g);
	struct memledger_view v;
	struct errbuf e;
	char dev[32];

	if (!usable) {
		line(r, "          device memory for evaluations: unknown "
			"(no ledger)");
		return;
	}
	snprintf(dev, sizeof(dev), "%s:%d", dev_kind_name(kind), index);
	char *dir = ev_gpu_memory_ledger_dir(g, dev, NULL);
	errbuf_init(&e);
	if (memledger_look(dir, usable, &v, &e) != 0)
		line(r,
		     "          device memory for evaluations: %.0f MiB; "
		     "its ledger cannot be read: %s",
		     usable / 1048576.0, errbuf_str(&e));
	else
		line(r,
		     "          device memory for evaluations: %.0f MiB; "
		     "%.0f MiB held now by %d evaluation%s, %d waiting "
		     "(%s)",
		     usable / 1048576.0, v.held_bytes / 1048576.0, v.holders,
		     v.holders == 1 ? "" : "s", v.waiting_ahead, dir);
	free(dir);
}

static int devices_of(struct report *r, enum dev_kind kind,
		      const struct doctor_options *o, const char *cache)
{
	struct gpu_info *all = xcalloc(GPU_MAX_DEVICES, sizeof(*all));
	char why[512] = "";
	struct errbuf e;
	int n = 0;

	errbuf_init(&e);
	if (!path_is_executable(gpu_runner_path(kind))) {
		line(r, "  %s: not checked (no arena-runner-%s)",
		     dev_kind_name(kind), dev_kind_name(kind));
		free(all);
		return 0;
	}
	if (gpu_list(kind, all, GPU_MAX_DEVICES, &n, why, sizeof(why), &e)) {
		line(r, "  %s: the runner's query failed: %s",
		     dev_kind_name(kind), errbuf_str(&e));
		r->problems++;
		free(all);
		return 0;
	}
	if (n == 0) {
		line(r, "  %s: no device (%s)", dev_kind_name(kind), why);
		free(all);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct gpu_info *g = &all[i];
		struct dev_id d = { kind, i };
		struct gpu_info c;
		line(r, "  %s:%d  %s  %s  %d multiprocessors, %.0f MiB L2, "
		     "%.1f GiB, pci %s, runtime %d, driver %d",
		     dev_kind_name(kind), i, g->name, g->arch,
		     g->multiprocessors, g->l2_bytes / 1048576.0,
		     g->memory_bytes / 1073741824.0, g->pci,
		     g->runtime_version, g->driver_version);
		line(r, "          flush before every timed sample: %.0f MiB",
		     gpu_flush_bytes(g) / 1048576.0);
		memory_line(r, g, kind, i);
		char *st = NULL;
		errbuf_init(&e);
		int src = gpu_selftest(&d, &st, &e);
		line(r, "          runner sandbox with this driver: %s",
		     st ? st : errbuf_str(&e));
		if (src) {
			r->problems++;
			missing(r, false, "the GPU runner's sandbox fails with "
				"this driver on %s:%d (%s); evaluations on it "
				"will fail: report it with `arena-runner-%s "
				"--selftest %d`", dev_kind_name(kind), i,
				st ? st : errbuf_str(&e), dev_kind_name(kind),
				i);
		}
		free(st);
		errbuf_init(&e);
		if (!o->remeasure && cache &&
		    gpu_info_get(&d, cache, false, &c, &e) == 0 &&
		    c.bandwidth_bps > 0) {
			peaks_line(r, &c, "cached");
			continue;
		}
		if (!o->measure && !o->remeasure) {
			line(r, "          peaks: not measured (run `arena "
			     "doctor` without --no-measure)");
			continue;
		}
		int fd = lock_gpu(g);
		c = *g;
		errbuf_init(&e);
		if (gpu_measure_peaks(&d, cache, &c, &e) == 0)
			peaks_line(r, &c, "measured now");
		else
			line(r, "          peaks: %s", errbuf_str(&e));
		if (fd >= 0)
			close(fd);
	}
	free(all);
	return n;
}

/* One core of the host: what its roofline floor is measured from
 * (host_peaks.c), cached in the store like a GPU's peaks.  Measured
 * under the host's timing lock, so that no timing phase runs meanwhile. */
static void host_device(struct report *r, const struct doctor_options *o,
			const char *cache)
{
	struct host_peaks hp;
	struct errbuf e;
	bool measured = false;
	int64_t ticket;
	int fd = -1;

	line(r,
	     "  host    one core per runner, last-level cache %.0f MiB (flush "
	     "before every call: a sweep of %.0f MiB%s)",
	     ev_llc_bytes() / 1048576.0, 2.0 * ev_llc_bytes() / 1048576.0,
	     host_cache_can_evict() ? " and an eviction of every line of "
				      "the arguments"
				    : "; this CPU has no line eviction arena "
				      "knows, the sweep stands alone");
	if (!o->measure && !o->remeasure) {
		line(r, "          peaks: not measured (run `arena doctor` "
			"without --no-measure)");
		return;
	}
	errbuf_init(&e);
	if (ev_device_lock_open(NULL, "host", &fd, &e) == 0 &&
	    fairlock_take(fd, LOCK_EX, &ticket) != 0) {
		close(fd);
		fd = -1;
	}
	errbuf_init(&e);
	if (host_peaks_get(cache, o->remeasure, &hp, &measured, &e) == 0)
		line(r,
		     "          peaks (%s): %s; one core: bandwidth %.2f GB/s "
		     "(read %.2f, copy %.2f read+write), FP32 FMA %.1f GFLOP/s "
		     "(%s)",
		     measured ? "measured now" : "cached", hp.cpu,
		     hp.bandwidth_bps / 1e9, hp.read_bps / 1e9,
		     hp.copy_bps / 1e9, hp.fma_flops / 1e9, hp.simd);
	else
		line(r, "          peaks: %s", errbuf_str(&e));
	if (fd >= 0)
		close(fd);
}

static void devices(struct report *r, const struct doctor_options *o,
		    bool nvidia, bool amd)
{
	char *cache = o->store_dir ? path_join(o->store_dir, "cache") : NULL;
	char *nv = first_line("/proc/driver/nvidia/version");
	int n = 0;

	line(r, "drivers");
	line(r, "  nvidia  %s", nv ? nv
				  : nvidia ? "/dev/nvidiactl present"
					   : "not loaded (no /dev/nvidiactl)");
	line(r, "  amdgpu  %s", amd ? "/dev/kfd present"
				 : "not loaded (no /dev/kfd)");
	line(r, "devices");
	host_device(r, o, cache);
	n += devices_of(r, DEV_CUDA, o, cache);
	n += devices_of(r, DEV_HIP, o, cache);
	if (n == 0)
		line(r, "  no GPU: GPU tasks (hip, cuda) cannot be evaluated "
		     "here; c tasks run on the host");
	free(nv);
	free(cache);
}

/* ---- sandbox ---------------------------------------------------------- */

static void sandbox(struct report *r)
{
	long ll = -1;
	int sec = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	char *bwrap = NULL;

#ifdef SYS_landlock_create_ruleset
	ll = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
#endif
	line(r, "sandbox");
	line(r, "  seccomp        %s", sec >= 0 ? "available"
					      : "not available in this kernel");
	if (ll >= 1)
		line(r, "  landlock       available (ABI %ld)%s", ll,
		     ll < 4 ? "; TCP is not restricted below ABI 4" : "");
	else
		line(r, "  landlock       not available (needs Linux >= 5.13 "
		     "with landlock in the lsm= list): runners cannot be "
		     "kept from writing files");
	if (sec < 0)
		missing(r, true, "seccomp: a kernel built with "
			"CONFIG_SECCOMP_FILTER");
	if (ll < 1)
		missing(r, false, "landlock: boot with lsm=...,landlock "
			"(Linux >= 5.13)");
	/* The confinement of candidate compilers and runners
	 * (arena/confine.h), probed as evaluations probe it. */
	const char *why = NULL;
	if (confine_available(&why))
		line(r,
		     "  confinement    on: the candidate's compiler and every "
		     "runner in namespaces of their own, allow-list root "
		     "(arena/confine.h)");
	else {
		line(r, "  confinement    off: %s", why);
		missing(r, false,
			"the evaluator's confinement (arena/"
			"confine.h): results will say sandboxed: false");
	}
	/* bubblewrap: the agents' sandbox. */
	bwrap = path_search("bwrap", NULL);
	if (!bwrap) {
		line(r, "  bubblewrap     missing");
		missing(r, false, "bubblewrap (agent sandbox): apt-get install "
			"-y bubblewrap");
		return;
	}
	char *argv[] = { bwrap, (char *)"--ro-bind", (char *)"/", (char *)"/",
			 (char *)"--dev", (char *)"/dev", (char *)"--unshare-net",
			 (char *)"true", NULL };
	struct proc_result pr;
	struct errbuf e;
	errbuf_init(&e);
	if (proc_run_capture(argv, NULL, NULL, 10000, 4096, &pr, &e) == 0) {
		bool ok = WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0;
		line(r, "  bubblewrap     %s%s%s", bwrap,
		     ok ? " (works)" : ": cannot create a sandbox here: ",
		     ok ? "" : pr.output);
		if (!ok)
			missing(r, false, "bubblewrap cannot create namespaces "
				"(unprivileged user namespaces disabled?): "
				"sysctl -w kernel.unprivileged_userns_clone=1");
		proc_result_release(&pr);
	}
	free(bwrap);
}

/* ---- the Python stack ---------------------------------------------------- */

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Whether torch can build the PyTorch extensions of AKA's gpumode tasks
 * (torchext.c) for the device its runners use. */
static void torch_extensions(struct report *r, bool cuda)
{
	struct torch_ext_flags f;
	struct errbuf e;

	errbuf_init(&e);
	if (torch_ext_flags(cuda ? DEV_CUDA : DEV_HOST, TORCH_EXT_MODULE, &f,
			    &e) == 0) {
		line(r, "  ext     %s (%s extensions)", f.id,
		     cuda ? "CUDA" : "host");
		torch_ext_flags_release(&f);
		return;
	}
	line(r, "  ext     %s", errbuf_str(&e));
	missing(r, false,
		"PyTorch extensions (AgentKernelArena's hip2hip and torch2hip "
		"tasks): see the line above");
}

/* What the Python runner will find: its interpreter's answer to
 * arena_runner_py.py --query (python, torch, CUDA, Triton), and whether
 * the runner's libraries are built (docs/python.md). */
static void python_stack(struct report *r, bool nvidia)
{
	char *script = path_join(paths_py_dir(), "arena_runner_py.py");
	char *host = path_join(paths_py_dir(), "libarena-pyrunner-host.so");
	char *cuda = path_join(paths_py_dir(), "libarena-pyrunner-cuda.so");
	char *argv[] = { (char *)paths_python(), (char *)"-B",
			 (char *)"-E",		 script,
			 (char *)"--query",	 NULL };
	struct proc_result pr;
	struct errbuf e;
	cJSON *j = NULL;

	errbuf_init(&e);
	line(r, "python (python and triton tasks, Python references)");
	line(r, "  runner  %s%s", script,
	     access(script, R_OK) ? " (missing)" : "");
	line(r, "  libs    host %s, cuda %s",
	     access(host, R_OK) ? "missing" : "built",
	     access(cuda, R_OK) ? "missing" : "built");
	if (access(script, R_OK) == 0 &&
	    proc_run_capture(argv, NULL, NULL, 120000, 64 * 1024, &pr, &e) ==
		    0) {
		if (!pr.timed_out && WIFEXITED(pr.status) &&
		    WEXITSTATUS(pr.status) == 0)
			j = cJSON_Parse(pr.output);
		proc_result_release(&pr);
	}
	if (!j) {
		line(r, "  %s: does not run the runner's query",
		     paths_python());
		missing(r, false,
			"python3 for Python tasks: apt-get install -y "
			"python3 (or set ARENA_PYTHON)");
	} else {
		const char *torch = jstr(j, "torch"),
			   *triton = jstr(j, "triton");
		const cJSON *ca =
			cJSON_GetObjectItemCaseSensitive(j, "cuda_available");
		line(r, "  python  %s %s", paths_python(),
		     jstr(j, "version") ? jstr(j, "version") : "?");
		const char *dev = torch ? jstr(j, "device") : NULL;
		line(r, "  torch   %s%s%s%s%s", torch ? torch : "missing",
		     torch ? (cJSON_IsTrue(ca) ? ", CUDA available"
					       : ", no CUDA")
			   : "",
		     dev ? " (" : "", dev ? dev : "", dev ? ")" : "");
		line(r, "  triton  %s", triton ? triton : "missing");
		if (!torch)
			missing(r, false,
				"torch for python tasks: apt-get install "
				"-y python3-torch (CPU), or pip install torch");
		if (!triton)
			missing(r, false,
				"triton for triton tasks (GPU): pip "
				"install triton");
		if (torch && nvidia && !cJSON_IsTrue(ca))
			missing(r, false,
				"torch sees no CUDA device: install a "
				"CUDA build of torch for triton tasks");
		if (torch)
			torch_extensions(r, nvidia && cJSON_IsTrue(ca));
	}
	if (access(host, R_OK))
		missing(r, false, "the Python runner's libraries: run `make`");
	if (nvidia && access(cuda, R_OK))
		missing(r, false,
			"libarena-pyrunner-cuda.so (triton tasks): "
			"`make` builds it once nvcc is installed");
	cJSON_Delete(j);
	free(script);
	free(host);
	free(cuda);
}

int doctor_report(const struct doctor_options *o, struct strbuf *out)
{
	struct report r = { out, STRVEC_INIT, 0 };
	bool nvidia = access("/dev/nvidiactl", F_OK) == 0 ||
		      access("/proc/driver/nvidia/version", F_OK) == 0;
	bool amd = access("/dev/kfd", F_OK) == 0;
	char *self = paths_self();

	line(&r, "arena doctor (%s, %s)", ARENA_EVALUATOR_VERSION,
	     self ? self : "?");
	free(self);
	compilers(&r, nvidia, amd);
	runners(&r, nvidia, amd);
	devices(&r, o, nvidia, amd);
	python_stack(&r, nvidia);
	sandbox(&r);
	if (r.missing.n) {
		line(&r, "missing");
		for (size_t i = 0; i < r.missing.n; i++)
			line(&r, "  - %s", r.missing.v[i]);
	} else {
		line(&r, "missing: nothing");
	}
	strvec_release(&r.missing);
	return r.problems;
}
