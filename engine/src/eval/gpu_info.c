/*
 * gpu_info.c - what the controller knows about GPUs, without linking a GPU
 * runtime: device names ("cuda:0"), the GPU runners' paths, and device
 * facts obtained by running the runner's diagnostics (`--query`,
 * `--peaks`, runner_proto.h), which are trusted code (no kernel loaded).
 *
 * The controller stays free of CUDA and HIP by design (docs/gpu.md): a
 * runtime in its address space would give every evaluation a GPU context
 * it does not need and tie the arena binary to one vendor.
 *
 * Caches: the query result is kept for the life of the process (one query
 * per runtime, under a mutex); device facts with measured peaks are kept
 * in <store>/cache/device-<kind><index>.json, valid while the boot, the
 * runner binary and the device-selection environment stay the same, so
 * that the 0.3 s query and the 1-2 s peak measurement are not paid by
 * every `arena eval`.
 */
#include "eval_internal.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/paths.h"
#include "arena/proc.h"

#define QUERY_TIMEOUT_MS 60000
#define PEAKS_TIMEOUT_MS 120000

/* ---- names ------------------------------------------------------------ */

const char *dev_kind_name(enum dev_kind k)
{
	switch (k) {
	case DEV_CUDA:
		return "cuda";
	case DEV_HIP:
		return "hip";
	default:
		return "host";
	}
}

int dev_parse(const char *s, struct dev_id *out, struct errbuf *err)
{
	const char *colon;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return errf(err, "an empty device name");
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	if (n == 4 && strncmp(s, "host", 4) == 0 && !colon) {
		out->kind = DEV_HOST;
		return 0;
	}
	if (n == 4 && strncmp(s, "cuda", 4) == 0)
		out->kind = DEV_CUDA;
	else if (n == 3 && strncmp(s, "hip", 3) == 0)
		out->kind = DEV_HIP;
	else
		return errf(err, "unknown device '%s'; use host, cuda:N or "
			    "hip:N", s);
	if (colon) {
		int64_t v;
		if (parse_i64(colon + 1, &v) != 0 || v < 0 ||
		    v >= GPU_MAX_DEVICES)
			return errf(err, "device '%s': the index after ':' must "
				    "be a number from 0 to %d", s,
				    GPU_MAX_DEVICES - 1);
		out->index = (int)v;
	}
	return 0;
}

/* ---- runner paths ----------------------------------------------------- */

const char *gpu_runner_path(enum dev_kind kind)
{
	return kind == DEV_CUDA ? paths_gpu_runner("cuda")
	       : kind == DEV_HIP ? paths_gpu_runner("hip") : NULL;
}

/* ---- parsing the runner's JSON ---------------------------------------- */

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void jstr(const cJSON *o, const char *k, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static void info_from_json(const cJSON *d, enum dev_kind kind,
			   struct gpu_info *g)
{
	g->kind = kind;
	g->index = (int)jnum(d, "index");
	jstr(d, "name", g->name, sizeof(g->name));
	jstr(d, "arch", g->arch, sizeof(g->arch));
	jstr(d, "pci", g->pci, sizeof(g->pci));
	g->multiprocessors = (int)jnum(d, "multiprocessors");
	g->l2_bytes = (int64_t)jnum(d, "l2_bytes");
	g->memory_bytes = (int64_t)jnum(d, "memory_bytes");
}

int gpu_parse_query(const char *json, enum dev_kind kind,
		    struct gpu_info *infos, int max, int *n, char *why,
		    size_t why_len)
{
	cJSON *j = cJSON_Parse(json);
	const cJSON *devs, *d;
	int rt, drv;

	*n = 0;
	if (why_len)
		why[0] = '\0';
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return -EINVAL;
	}
	devs = cJSON_GetObjectItemCaseSensitive(j, "devices");
	if (!cJSON_IsArray(devs)) {
		cJSON_Delete(j);
		return -EINVAL;
	}
	rt = (int)jnum(j, "runtime_version");
	drv = (int)jnum(j, "driver_version");
	jstr(j, "error", why, why_len);
	cJSON_ArrayForEach(d, devs)
	{
		if (*n >= max)
			break;
		struct gpu_info *g = &infos[*n];
		memset(g, 0, sizeof(*g));
		info_from_json(d, kind, g);
		g->runtime_version = rt;
		g->driver_version = drv;
		if (!g->arch[0] || g->l2_bytes <= 0)
			continue;	/* not a usable description */
		(*n)++;
	}
	if (*n == 0 && why_len && !why[0])
		snprintf(why, why_len, "the %s runtime sees no device",
			 dev_kind_name(kind));
	cJSON_Delete(j);
	return 0;
}

int gpu_parse_peaks(const char *json, struct gpu_info *g, char *why,
		    size_t why_len)
{
	cJSON *j = cJSON_Parse(json);

	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		snprintf(why, why_len, "the peak measurement printed no JSON");
		return -EINVAL;
	}
	if (cJSON_GetObjectItemCaseSensitive(j, "error")) {
		char e[300];
		jstr(j, "error", e, sizeof(e));
		snprintf(why, why_len, "the peak measurement failed: %s", e);
		cJSON_Delete(j);
		return -EIO;
	}
	g->bandwidth_bps = jnum(j, "bandwidth_bytes_per_s");
	g->copy_bps = jnum(j, "copy_bytes_per_s");
	g->read_bps = jnum(j, "read_bytes_per_s");
	g->fma_flops = jnum(j, "fp32_fma_flops");
	g->tc_bf16_flops = jnum(j, "bf16_tensor_flops");
	if (!(g->tc_bf16_flops > 0))
		g->tc_bf16_flops = 0;
	cJSON_Delete(j);
	if (!(g->bandwidth_bps > 0) || !(g->fma_flops > 0)) {
		snprintf(why, why_len, "the peak measurement gave no numbers");
		return -EINVAL;
	}
	return 0;
}

/* ---- running the diagnostics ------------------------------------------ */

/* Runs `runner args...` and returns its output (caller frees). */
static int run_diag(enum dev_kind kind, const char *arg1, const char *arg2,
		    int timeout_ms, char **out, struct errbuf *err)
{
	const char *path = gpu_runner_path(kind);
	char *argv[] = { (char *)path, (char *)arg1, (char *)arg2, NULL };
	struct proc_result pr;
	int rc;

	if (!path || access(path, X_OK) != 0)
		return errf_code(err, ENOENT, "the %s runner %s is not built "
				 "(make builds it when %s is installed; `arena "
				 "doctor` says what is missing)",
				 dev_kind_name(kind), path ? path : "?",
				 kind == DEV_CUDA ? "nvcc" : "hipcc");
	rc = proc_run_capture(argv, NULL, NULL, timeout_ms, 256 * 1024, &pr,
			      err);
	if (rc)
		return rc;
	if (pr.timed_out) {
		proc_result_release(&pr);
		return errf_code(err, ETIMEDOUT, "%s %s did not finish within "
				 "%d s", path, arg1, timeout_ms / 1000);
	}
	*out = pr.output;
	pr.output = NULL;
	proc_result_release(&pr);
	return 0;
}

struct query_cache {
	bool done;
	int rc;
	int n;
	struct gpu_info infos[GPU_MAX_DEVICES];
	char why[512];
	char err[ERRBUF_SIZE];
};
static struct query_cache qcache[3];
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;

int gpu_list(enum dev_kind kind, struct gpu_info *infos, int max, int *n,
	     char *why, size_t why_len, struct errbuf *err)
{
	struct query_cache *q;
	int rc;

	*n = 0;
	if (kind != DEV_CUDA && kind != DEV_HIP)
		return errf(err, "not a GPU device kind");
	q = &qcache[kind];
	pthread_mutex_lock(&qlock);
	if (!q->done) {
		struct errbuf e;
		char *out = NULL;
		errbuf_init(&e);
		q->rc = run_diag(kind, "--query", NULL, QUERY_TIMEOUT_MS, &out,
				 &e);
		if (q->rc == 0) {
			q->rc = gpu_parse_query(out, kind, q->infos,
						GPU_MAX_DEVICES, &q->n, q->why,
						sizeof(q->why));
			if (q->rc)
				errf(&e, "%s --query printed something else "
				     "than its device list: %.200s",
				     gpu_runner_path(kind), out ? out : "");
		}
		snprintf(q->err, sizeof(q->err), "%s", errbuf_str(&e));
		free(out);
		q->done = true;
	}
	rc = q->rc;
	if (rc == 0) {
		*n = q->n < max ? q->n : max;
		memcpy(infos, q->infos, sizeof(*infos) * (size_t)*n);
		snprintf(why, why_len, "%s", q->why);
	} else {
		errf_code(err, -rc, "%s", q->err);
	}
	pthread_mutex_unlock(&qlock);
	return rc;
}

/* ---- the per-device cache file ---------------------------------------- */

/* What must not change for a cached description to stay true: the boot
 * (a GPU can be swapped only across one), the runner binary, and the
 * variables that map indices to devices. */
static char *cache_key(enum dev_kind kind, int index)
{
	struct strbuf sb = STRBUF_INIT;
	struct errbuf e;
	char *boot = NULL;
	size_t len;
	struct stat st;
	const char *rp = gpu_runner_path(kind);
	static const char *const vars[] = { "CUDA_VISIBLE_DEVICES",
					    "HIP_VISIBLE_DEVICES",
					    "ROCR_VISIBLE_DEVICES",
					    "GPU_DEVICE_ORDINAL" };
	char hex[65];

	errbuf_init(&e);
	if (file_read_all("/proc/sys/kernel/random/boot_id", 128, &boot, &len,
			  &e) == 0)
		strbuf_addstr(&sb, boot);
	free(boot);
	strbuf_addf(&sb, "|%s:%d|%s", dev_kind_name(kind), index,
		    rp ? rp : "");
	if (rp && stat(rp, &st) == 0)
		strbuf_addf(&sb, "|%lld|%lld.%09ld", (long long)st.st_size,
			    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		strbuf_addf(&sb, "|%s=%s", vars[i], v ? v : "-");
	}
	sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
	return xstrdup(hex);
}

static char *cache_path(const char *cache_dir, const struct dev_id *d)
{
	return xasprintf("%s/device-%s%d.json", cache_dir,
			 dev_kind_name(d->kind), d->index);
}

static bool cache_read(const char *cache_dir, const struct dev_id *d,
		       struct gpu_info *out)
{
	char *p = cache_path(cache_dir, d), *text = NULL, *key;
	size_t len;
	struct errbuf e;
	bool ok = false;

	errbuf_init(&e);
	if (file_read_all(p, 64 * 1024, &text, &len, &e) == 0) {
		cJSON *j = cJSON_Parse(text);
		const cJSON *dev = cJSON_GetObjectItemCaseSensitive(j, "device");
		char k[80];
		key = cache_key(d->kind, d->index);
		jstr(j, "key", k, sizeof(k));
		if (cJSON_IsObject(dev) && strcmp(k, key) == 0) {
			memset(out, 0, sizeof(*out));
			info_from_json(dev, d->kind, out);
			out->index = d->index;
			out->runtime_version = (int)jnum(dev, "runtime_version");
			out->driver_version = (int)jnum(dev, "driver_version");
			out->bandwidth_bps = jnum(dev, "bandwidth_bytes_per_s");
			out->copy_bps = jnum(dev, "copy_bytes_per_s");
			out->read_bps = jnum(dev, "read_bytes_per_s");
			out->fma_flops = jnum(dev, "fp32_fma_flops");
			out->tc_bf16_flops = jnum(dev, "bf16_tensor_flops");
			ok = out->arch[0] && out->l2_bytes > 0;
		}
		free(key);
		cJSON_Delete(j);
	}
	free(text);
	free(p);
	return ok;
}

static void cache_write(const char *cache_dir, const struct dev_id *d,
			const struct gpu_info *g)
{
	cJSON *j = cJSON_CreateObject(), *dev = cJSON_CreateObject();
	char *key = cache_key(d->kind, d->index), *p, *text;
	struct errbuf e;
	char when[32];

	errbuf_init(&e);
	time_stamp_iso(when, now_wall());
	cJSON_AddStringToObject(j, "key", key);
	cJSON_AddStringToObject(j, "measured_at", when);
	cJSON_AddStringToObject(dev, "kind", dev_kind_name(g->kind));
	cJSON_AddNumberToObject(dev, "index", g->index);
	cJSON_AddStringToObject(dev, "name", g->name);
	cJSON_AddStringToObject(dev, "arch", g->arch);
	cJSON_AddStringToObject(dev, "pci", g->pci);
	cJSON_AddNumberToObject(dev, "multiprocessors", g->multiprocessors);
	cJSON_AddNumberToObject(dev, "l2_bytes", (double)g->l2_bytes);
	cJSON_AddNumberToObject(dev, "memory_bytes", (double)g->memory_bytes);
	cJSON_AddNumberToObject(dev, "runtime_version", g->runtime_version);
	cJSON_AddNumberToObject(dev, "driver_version", g->driver_version);
	cJSON_AddNumberToObject(dev, "bandwidth_bytes_per_s", g->bandwidth_bps);
	cJSON_AddNumberToObject(dev, "copy_bytes_per_s", g->copy_bps);
	cJSON_AddNumberToObject(dev, "read_bytes_per_s", g->read_bps);
	cJSON_AddNumberToObject(dev, "fp32_fma_flops", g->fma_flops);
	cJSON_AddNumberToObject(dev, "bf16_tensor_flops", g->tc_bf16_flops);
	cJSON_AddItemToObject(j, "device", dev);
	text = cJSON_Print(j);
	p = cache_path(cache_dir, d);
	if (mkdir_p(cache_dir, &e) == 0)
		file_write_atomic_str(p, text, &e);	/* a cache: best effort */
	free(p);
	free(text);
	free(key);
	cJSON_Delete(j);
}

static int info_from_query(const struct dev_id *d, struct gpu_info *out,
			   struct errbuf *err)
{
	struct gpu_info *all = xcalloc(GPU_MAX_DEVICES, sizeof(*all));
	char why[512];
	int n = 0;
	int rc = gpu_list(d->kind, all, GPU_MAX_DEVICES, &n, why, sizeof(why),
			  err);

	if (rc == 0 && d->index >= n) {
		if (n == 0)
			rc = errf_code(err, ENODEV, "device %s:%d: no %s device "
				       "(%s)", dev_kind_name(d->kind), d->index,
				       dev_kind_name(d->kind), why);
		else
			rc = errf_code(err, ENODEV, "device %s:%d does not "
				       "exist: the %s runtime sees %d device%s "
				       "(0-%d)", dev_kind_name(d->kind),
				       d->index, dev_kind_name(d->kind), n,
				       n == 1 ? "" : "s", n - 1);
	}
	if (rc == 0)
		*out = all[d->index];
	free(all);
	return rc;
}

int gpu_measure_peaks(const struct dev_id *d, const char *cache_dir,
		      struct gpu_info *out, struct errbuf *err)
{
	char idx[16], *text = NULL, why[400];
	int rc;

	if (!(out->arch[0]) && (rc = info_from_query(d, out, err)))
		return rc;
	snprintf(idx, sizeof(idx), "%d", d->index);
	rc = run_diag(d->kind, "--peaks", idx, PEAKS_TIMEOUT_MS, &text, err);
	if (rc)
		return rc;
	rc = gpu_parse_peaks(text, out, why, sizeof(why));
	free(text);
	if (rc)
		return errf_code(err, -rc, "device %s:%d: %s",
				 dev_kind_name(d->kind), d->index, why);
	if (cache_dir)
		cache_write(cache_dir, d, out);
	return 0;
}

int gpu_info_get(const struct dev_id *d, const char *cache_dir, bool peaks,
		 struct gpu_info *out, struct errbuf *err)
{
	int rc;

	if (d->kind != DEV_CUDA && d->kind != DEV_HIP)
		return errf(err, "not a GPU device");
	if (cache_dir && cache_read(cache_dir, d, out) &&
	    (!peaks || out->bandwidth_bps > 0))
		return 0;
	memset(out, 0, sizeof(*out));
	if ((rc = info_from_query(d, out, err)))
		return rc;
	if (peaks)
		return gpu_measure_peaks(d, cache_dir, out, err);
	if (cache_dir)
		cache_write(cache_dir, d, out);
	return 0;
}

int gpu_selftest(const struct dev_id *d, char **summary, struct errbuf *err)
{
	char idx[16], *out = NULL;
	int rc;

	snprintf(idx, sizeof(idx), "%d", d->index);
	rc = run_diag(d->kind, "--selftest", idx, QUERY_TIMEOUT_MS, &out, err);
	if (rc)
		return rc;
	char *last = strstr(out, "selftest: ");
	while (last && strstr(last + 1, "selftest: "))
		last = strstr(last + 1, "selftest: ");
	if (!last) {
		*summary = xasprintf("no verdict; it printed: %.300s", out);
		free(out);
		return -EIO;
	}
	last += strlen("selftest: ");
	last[strcspn(last, "\n")] = '\0';
	*summary = xstrdup(last);
	rc = strncmp(last, "ok", 2) == 0 ? 0 : -EPERM;
	free(out);
	return rc;
}

/* ---- model names ------------------------------------------------------ */

/* Next alphanumeric word of *s, lower-cased into w; false at the end. */
static bool next_word(const char **s, char *w, size_t n)
{
	const char *p = *s;
	size_t k = 0;

	while (*p && !isalnum((unsigned char)*p))
		p++;
	if (!*p)
		return false;
	while (*p && isalnum((unsigned char)*p)) {
		if (k + 1 < n)
			w[k++] = (char)tolower((unsigned char)*p);
		p++;
	}
	w[k] = '\0';
	*s = p;
	return true;
}

static bool has_word(const char *text, const char *word)
{
	char w[128];
	const char *p = text;

	while (next_word(&p, w, sizeof(w)))
		if (strcmp(w, word) == 0)
			return true;
	return false;
}

bool gpu_model_matches(const char *model, const char *name, const char *arch)
{
	char w[128];
	const char *p = model;
	int words = 0;

	if (!model)
		return true;
	while (next_word(&p, w, sizeof(w))) {
		words++;
		if (words == 1 && strcmp(w, "any") == 0 &&
		    !next_word(&p, w, sizeof(w)))
			return true;
		if (!has_word(name ? name : "", w) &&
		    !has_word(arch ? arch : "", w))
			return false;
	}
	return true;
}
