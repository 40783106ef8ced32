/*
 * device.c - the device an evaluation runs on: whether a task can run on
 * it, resolving `auto`, whether it exists and matches target_gpu_model,
 * the host's last-level cache (what a flush must cover) and a GPU
 * evaluation's shared-memory size.  GPU facts come from the GPU runner's
 * --query (gpu_info.c); nothing here loads a GPU runtime.
 */
#include "evaluation.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t llc_bytes_cached;
static pthread_once_t llc_once = PTHREAD_ONCE_INIT;

static size_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return (size_t)v;
}

/* The sysfs index (/sys/devices/system/cpu/cpu<cpu>/cache/index<i>) of
 * the largest cache of the highest level cpu sees, its size in *bytes;
 * -1 when sysfs says nothing. */
static int llc_index(int cpu, size_t *bytes)
{
	int best_level = 0, best_i = -1;
	size_t best = 0;

	for (int i = 0; i < 16; i++) {
		char p[128], *lv = NULL, *sz = NULL;
		size_t n;
		struct errbuf e;
		errbuf_init(&e);
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 cpu, i);
		if (file_read_all(p, 64, &lv, &n, &e) != 0)
			break;
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
			 cpu, i);
		if (file_read_all(p, 64, &sz, &n, &e) == 0) {
			int level = atoi(lv);
			size_t b = parse_cache_size(sz);
			if (level > best_level ||
			    (level == best_level && b > best)) {
				best_level = level;
				best = b;
				best_i = i;
			}
		}
		free(lv);
		free(sz);
	}
	*bytes = best;
	return best_i;
}

/* The largest cache of the highest level cpu0 sees (sysfs describes the
 * cache this machine actually gives us; sysconf's figure can be the whole
 * package's), else sysconf, else 32 MiB; capped at 256 MiB. */
static void init_llc(void)
{
	size_t best = 0;

	llc_index(0, &best);
	if (!best) {
		long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
		if (v <= 0)
			v = sysconf(_SC_LEVEL2_CACHE_SIZE);
		best = v > 0 ? (size_t)v : 0;
	}
	if (!best)
		best = 32u << 20;
	if (best > (256u << 20))
		best = 256u << 20;
	if (best < (1u << 20))
		best = 1u << 20;
	llc_bytes_cached = best;
}

int ev_llc_cpus(int cpu, cpu_set_t *set)
{
	char p[128], *list = NULL;
	size_t n, bytes;
	struct errbuf e;
	int i = cpu >= 0 && cpu < CPU_SETSIZE ? llc_index(cpu, &bytes) : -1;

	CPU_ZERO(set);
	errbuf_init(&e);
	snprintf(p, sizeof(p),
		 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
		 cpu, i);
	if (i < 0 || file_read_all(p, 4096, &list, &n, &e) != 0)
		return 0;
	/* What a malformed list held before its fault still counts. */
	(void)ev_cpu_list_parse(list, set);
	free(list);
	return CPU_COUNT(set);
}

int ev_cpu_list_parse(const char *list, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (const char *c = list; *c && *c != '\n';) {
		char *end;
		long lo = strtol(c, &end, 10), hi = lo;
		if (end == c)
			return -1;
		if (*end == '-') {
			c = end + 1;
			hi = strtol(c, &end, 10);
			if (end == c)
				return -1;
		}
		for (long k = lo; k <= hi && k < CPU_SETSIZE; k++)
			if (k >= 0)
				CPU_SET((int)k, set);
		if (*end == ',')
			c = end + 1;
		else if (*end == '\0' || (*end == '\n' && end[1] == '\0'))
			break;
		else
			return -1;
	}
	return CPU_COUNT(set);
}

int ev_cpus_usable(void)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof(set), &set) == 0
			 ? CPU_COUNT(&set)
			 : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

bool ev_cpus_to_spare(void)
{
	return ev_cpus_usable() >= 4;
}

size_t ev_llc_bytes(void)
{
	pthread_once(&llc_once, init_llc);
	return llc_bytes_cached;
}

/* Shared memory of every runner of a GPU evaluation: room for its largest
 * case, and for batches of small ones (runners live across cases).  And
 * the device memory a runner's sets may take at most: a case's batch
 * (gpu_batch_size) is at most RP_MAX_SETS sets and at most the batch
 * bound in bytes, or one set larger than that; the bound is less where
 * the device's memory would not hold every runner's batch
 * (ev_gpu_sets_room). */
int ev_gpu_shm_size(struct eval_ctx *x, struct errbuf *err)
{
	size_t most = 0, batch_max = (size_t)gpu_batch_max_bytes();
	uint64_t sets_max = x->req->quick ? GPU_QUICK_BATCH_BYTES : batch_max;
	uint64_t room = ev_gpu_sets_room(x);

	if (room && room < sets_max)
		sets_max = room;
	x->gpu_batch_bytes = sets_max;

	for (int ci = 0; ci < x->t->ncases; ci++) {
		struct case_layout l;
		if (x->t->cases[ci].held_out && !x->req->include_held_out)
			continue;
		if (layout_build(x->t, &x->t->cases[ci], &l, err) != 0)
			return -EINVAL;
		if (l.shm_size > most)
			most = l.shm_size;
		uint64_t one = l.shm_size;
		uint64_t sets = one * RP_MAX_SETS < sets_max ? one * RP_MAX_SETS
							     : sets_max;
		if (sets < one)
			sets = one;
		if (sets > x->gpu_sets_bytes)
			x->gpu_sets_bytes = sets;
		layout_release(&l);
	}
	x->shm_size = most > batch_max ? most : batch_max;
	return 0;
}

/* Host languages: C, and Python (PyTorch on the CPU).  A python task or
 * reference runs on the device of its task: the host for a host task, the
 * GPU for a GPU task (a Python reference of a cuda task is PyTorch on the
 * GPU). */
static bool host_task(const struct task *t)
{
	return (t->language == LANG_C || t->language == LANG_PYTHON) &&
	       (t->reference_language == LANG_C ||
		t->reference_language == LANG_PYTHON);
}

/* Python kernels run on a GPU through CUDA only (the Python runner's GPU
 * library is built by nvcc). */
static bool cuda_only(const struct task *t)
{
	return t->language == LANG_CUDA || t->reference_language == LANG_CUDA ||
	       t->language == LANG_TRITON ||
	       t->reference_language == LANG_PYTHON;
}

int eval_check_device(const struct task *t, const char *device,
		      struct dev_id *d, struct errbuf *err)
{
	struct dev_id tmp;

	if (!d)
		d = &tmp;
	if (dev_parse(device ? device : "host", d, err) != 0) {
		errbuf_prefix(err, "%s", t->id);
		return -EINVAL;
	}
	if (d->kind == DEV_HOST) {
		if (!host_task(t))
			return errf_code(
				err, ENOTSUP,
				"%s: a %s task needs a "
				"GPU, not device 'host'",
				t->id,
				language_name(
					t->language == LANG_C ||
							t->language ==
								LANG_PYTHON
						? t->reference_language
						: t->language));
		return 0;
	}
	if (t->language == LANG_C || t->language == LANG_PYTHON)
		return errf_code(err, ENOTSUP,
				 "%s: a %s task runs on device "
				 "'host', not '%s'",
				 t->id, language_name(t->language), device);
	if (d->kind == DEV_HIP && cuda_only(t))
		return errf_code(
			err, ENOTSUP,
			"%s: CUDA sources, Triton and "
			"PyTorch GPU kernels need an NVIDIA GPU (device "
			"cuda:N), not '%s'",
			t->id, device);
	return 0;
}

/* Whether a driver for kind is present: the device nodes it creates. */
static bool driver_present(enum dev_kind kind)
{
	if (kind == DEV_CUDA)
		return access("/dev/nvidiactl", F_OK) == 0 ||
		       access("/proc/driver/nvidia/version", F_OK) == 0;
	return access("/dev/kfd", F_OK) == 0;
}

static bool gpu_usable(enum dev_kind kind)
{
	const char *p = gpu_runner_path(kind);

	return driver_present(kind) && p && access(p, X_OK) == 0;
}

int eval_resolve_device(const char *configured, const struct task *t,
			char **device, struct errbuf *err)
{
	const char *dev = configured && *configured ? configured : "auto";
	const char *env = getenv("ARENA_DEVICE");
	bool gpu_task = !host_task(t);
	int rc;

	if (!strcmp(dev, "auto") && env && *env && gpu_task)
		dev = env;
	if (!gpu_task) {
		if (strcmp(dev, "auto") && strcmp(dev, "host"))
			return errf(err,
				    "task %s is a host (%s) task but the "
				    "config asks for device '%s'; use device: "
				    "host or auto",
				    t->id, language_name(t->language), dev);
		*device = xstrdup("host");
		return 0;
	}
	if (!strcmp(dev, "auto")) {
		if (gpu_usable(DEV_CUDA))
			dev = "cuda:0";
		else if (!cuda_only(t) && gpu_usable(DEV_HIP))
			dev = "hip:0";
		else
			return errf_code(err, ENODEV, "task %s needs a GPU "
					 "(%s), and none is usable here: %s; "
					 "`arena doctor` says what is missing",
					 t->id, language_name(t->language),
					 driver_present(DEV_CUDA) ||
						 driver_present(DEV_HIP)
						 ? "a driver is present but its "
						   "arena runner is not built"
						 : "no NVIDIA (/dev/nvidiactl) or "
						   "AMD (/dev/kfd) driver");
	}
	if ((rc = eval_check_device(t, dev, NULL, err)))
		return rc;
	if (!strcmp(dev, "cuda") || !strcmp(dev, "hip"))
		*device = xasprintf("%s:0", dev);
	else
		*device = xstrdup(dev);
	return 0;
}

int eval_check_device_exists(const char *device, struct errbuf *err)
{
	struct dev_id d;
	struct gpu_info g;
	int rc;

	if ((rc = dev_parse(device ? device : "host", &d, err)))
		return rc;
	if (d.kind == DEV_HOST)
		return 0;
	return gpu_info_get(&d, NULL, false, &g, err);
}

int eval_check_gpu_model(const char *device, const char *model,
			 struct errbuf *err)
{
	struct dev_id d;
	struct gpu_info g;
	int rc;

	if (!model || !*model)
		return 0;
	if ((rc = dev_parse(device ? device : "host", &d, err)))
		return rc;
	if (d.kind == DEV_HOST)
		return 0;	/* host tasks run on no GPU at all */
	if ((rc = gpu_info_get(&d, NULL, false, &g, err)))
		return rc;
	if (!gpu_model_matches(model, g.name, g.arch))
		return errf_code(err, ENODEV, "target_gpu_model '%s' does not "
				 "match device %s, which is a%s %s (%s)", model,
				 device,
				 g.name[0] && strchr("AEIOUaeiou", g.name[0])
					 ? "n" : "",
				 g.name, g.arch);
	return 0;
}
