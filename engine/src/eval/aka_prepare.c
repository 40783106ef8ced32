/*
 * aka_prepare.c - AgentKernelArena task folders in the evaluator
 * (docs/aka.md).  An AKA task has no signature: it builds its inputs, calls
 * its kernel and checks it in its own harness.  Before arena can evaluate
 * it, the task is prepared:
 *
 *   1. aka_record.py (trusted: it runs the task's files, never a
 *      candidate's) runs the harness on the kernel as shipped, from the
 *      trusted task directory, in a process of its own with a deadline.
 *      It records the calls of each case, packs every tensor they read
 *      into a few flat arguments (one per io and dtype), writes input sets
 *      (the harness's own seeds first, then reseeded runs of the same
 *      input code), a call shim (_arena_aka.py) and a manifest; it checks
 *      that the kernel as shipped passes the harness's own correctness
 *      check and that the shim reproduces the harness's run.
 *   2. Here the manifest becomes an ordinary Python-language task (struct
 *      task, language python or triton) whose arguments are the packed
 *      ones, whose inputs are the recorded sets (init dist
 *      INIT_RECORDED), whose reference is the kernel as shipped and whose
 *      every bundle starts with the shim.  From there the evaluation is
 *      arena's own, unchanged: runners, poisoned outputs, unchanged
 *      inputs, paired timing, the controller's clock.
 *
 * Prepared tasks are cached under <cache>/aka/<key>/<hash>/ (the key
 * covers the task's files, the recorder and shim, the device and the
 * interpreter), so a task is recorded once per machine.  The recording
 * stands for the reference (its shim, its inputs, its tolerances), so it
 * is trusted the way a task's trusted copy is (DESIGN.md §3.10): sealed
 * when recorded (task_trust_seal: a manifest of every file's SHA-256,
 * read-only) and named by the manifest's hash; verified whole before it
 * is used, the manifest and the inputs checked again as they are read,
 * and, through the prepared task's trusted_hash, verified again before
 * every build like any trusted copy.  An entry that fails verification
 * (changed, added or missing files; an entry of an older layout) is
 * removed and recorded again from the trusted task directory, once; the
 * preparation's log (aka-prepare.log) says so.  A task that cannot be prepared
 * is `skipped` when the reason is the task's: a feature NVIDIA GPUs lack
 * (fp8 "fnuz", waves_per_eu, aiter, ...; aka_record.py says which), or its
 * kernel as shipped failing its own check here.  It is `infra_error`,
 * naming the reason, when the reason is arena's (a harness arena cannot
 * record, a recorder that fails): neither is the candidate's fault, and
 * arena's own shortcomings are not hidden as skips.
 *
 * Recorded inputs reach runners like drawn ones: staged by the controller
 * into shared memory while every runner is stopped (host), or written into
 * every set of a GPU sample before its `gen` request copies them to the
 * device ("u" specs); which set a call gets is the controller's draw.
 */
#include "evaluation.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/proc.h"

#define AKA_PREP_VERSION "aka-prep/3"
#define AKA_SETS 8
#define AKA_PREP_TIMEOUT_MS (20 * 60 * 1000)
#define AKA_LOG_MAX (256 * 1024)
#define AKA_MANIFEST_MAX (8u << 20)
/* Recorded inputs kept in memory per evaluation. */
#define AKA_INPUTS_MAX_BYTES ((size_t)4 << 30)

void aka_inputs_release(struct aka_inputs *in)
{
	if (!in)
		return;
	for (int i = 0; i < in->ncases; i++)
		free(in->c[i].data);
	free(in->c);
	memset(in, 0, sizeof(*in));
}

/* ---- the cache key ----------------------------------------------------- */

static void hash_str(struct sha256 *h, const char *s)
{
	sha256_update(h, s, strlen(s) + 1);
}

/* Hashes every regular file below dir (relative path and bytes), in
 * sorted order, to a bounded depth. */
static void hash_tree(struct sha256 *h, const char *dir, const char *rel,
		      int depth)
{
	char *abs = rel ? path_join(dir, rel) : xstrdup(dir);
	struct dirent **names = NULL;
	int n = scandir(abs, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		if (nm[0] != '.' && strcmp(nm, "build") &&
		    strcmp(nm, "__pycache__")) {
			char *r = rel ? path_join(rel, nm) : xstrdup(nm);
			char *a = path_join(dir, r);
			struct stat st;
			if (lstat(a, &st) == 0 && S_ISDIR(st.st_mode) &&
			    depth < 4) {
				hash_tree(h, dir, r, depth + 1);
			} else if (lstat(a, &st) == 0 && S_ISREG(st.st_mode) &&
				   st.st_size <= (8 << 20)) {
				char *data = NULL;
				size_t len = 0;
				struct errbuf e;
				errbuf_init(&e);
				hash_str(h, r);
				if (file_read_all(a, 8 << 20, &data, &len,
						  &e) == 0)
					sha256_update(h, data, len);
				free(data);
			}
			free(r);
			free(a);
		}
		free(names[i]);
	}
	free(names);
	free(abs);
}

static void hash_file(struct sha256 *h, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	struct errbuf e;

	errbuf_init(&e);
	hash_str(h, path);
	if (file_read_all(path, 4 << 20, &data, &len, &e) == 0)
		sha256_update(h, data, len);
	free(data);
}

static char *prep_key(const struct task *t, const char *device)
{
	/* The recorder's modules: a change to any of them records again. */
	static const char *const recorder[] = {
		"aka_record.py", "aka_shim.py",	 "aka_styles.py",
		"aka_pack.py",	 "aka_calls.py", "aka_perf_utils.py",
	};
	struct sha256 h;
	unsigned char d[32];
	char hex[65];
	char sets[16];

	sha256_init(&h);
	hash_str(&h, AKA_PREP_VERSION);
	hash_str(&h, t->id);
	hash_tree(&h, t->dir, NULL, 0);
	for (size_t i = 0; i < ARRAY_SIZE(recorder); i++) {
		char *f = path_join(paths_py_dir(), recorder[i]);
		hash_file(&h, f);
		free(f);
	}
	hash_str(&h, device);
	const char *rd = getenv("ARENA_AKA_RECORD_DEVICE");
	hash_str(&h, rd ? rd : "");
	hash_str(&h, paths_python());
	snprintf(sets, sizeof(sets), "%d", AKA_SETS);
	hash_str(&h, sets);
	sha256_final(&h, d);
	sha256_to_hex(d, hex);
	return xstrdup(hex);
}

/* ---- running the recorder ---------------------------------------------- */

/* Records t into out (a new directory); home is the recorder's scratch
 * (HOME, TMPDIR, Triton's cache), outside what is sealed. */
static int run_recorder(const struct task *t, const char *device,
			const char *out, const char *home, const char *log_path,
			struct errbuf *err)
{
	const struct aka_task *a = t->aka;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct proc_result pr;
	char *rec = path_join(paths_py_dir(), "aka_record.py");
	int idx = 0, rc;
	struct errbuf e;

	errbuf_init(&e);
	if (mkdir_p(home, &e) != 0) {
		free(rec);
		return errf(err, "%s", errbuf_str(&e));
	}
	if (!strncmp(device, "cuda:", 5) || !strncmp(device, "hip:", 4))
		idx = atoi(strchr(device, ':') + 1);
	strvec_push(&argv, paths_python());
	strvec_push(&argv, "-B");
	strvec_push(&argv, "-s");
	strvec_push(&argv, rec);
	strvec_pushf(&argv, "--task=%s", t->dir);
	strvec_pushf(&argv, "--out=%s", out);
	strvec_pushf(&argv, "--style=%s", aka_style_name(a->style));
	strvec_pushf(&argv, "--harness=%s", a->harness ? a->harness : "");
	for (size_t i = 0; i < t->editable.n; i++)
		strvec_pushf(&argv, "--editable=%s", t->editable.v[i]);
	for (size_t i = 0; i < a->targets.n; i++)
		strvec_pushf(&argv, "--target=%s", a->targets.v[i]);
	/* ARENA_AKA_RECORD_DEVICE=cpu: the tests' GPU emulation, whose
	 * "device" tensors are CPU tensors. */
	const char *rd = getenv("ARENA_AKA_RECORD_DEVICE");
	strvec_pushf(&argv, "--device=%s",
		     rd && *rd		      ? rd
		     : strcmp(device, "host") ? "cuda"
					      : "cpu");
	strvec_pushf(&argv, "--sets=%d", AKA_SETS);
	if (a->correctness_command.n)
		strvec_pushf(&argv, "--correctness-command=%s",
			     a->correctness_command.v[0]);
	if (a->performance_command.n)
		strvec_pushf(&argv, "--performance-command=%s",
			     a->performance_command.v[0]);
	/* A scrubbed environment: the task's code gets no keys, and caches
	 * of its own. */
	strvec_push(&env, "PATH=/usr/local/bin:/usr/bin:/bin");
	strvec_push(&env, "LC_ALL=C.UTF-8");
	strvec_pushf(&env, "HOME=%s", home);
	strvec_pushf(&env, "TMPDIR=%s", home);
	strvec_pushf(&env, "TRITON_CACHE_DIR=%s/triton", home);
	strvec_pushf(&env, "XDG_CACHE_HOME=%s", home);
	strvec_pushf(&env, "CUDA_VISIBLE_DEVICES=%d", idx);
	strvec_pushf(&env, "HIP_VISIBLE_DEVICES=%d", idx);
	strvec_push(&env, "PYTHONDONTWRITEBYTECODE=1");
	const char *ld = getenv("LD_LIBRARY_PATH");
	if (ld)
		strvec_pushf(&env, "LD_LIBRARY_PATH=%s", ld);
	const char *fx = getenv("AKA_FIXTURE_DEVICE");
	if (fx)
		strvec_pushf(&env, "AKA_FIXTURE_DEVICE=%s", fx);
	rc = proc_run_capture(argv.v, t->dir, env.v, AKA_PREP_TIMEOUT_MS,
			      AKA_LOG_MAX, &pr, err);
	strvec_release(&argv);
	strvec_release(&env);
	free(rec);
	if (rc) {
		errbuf_prefix(err, "the AKA recorder (aka_record.py) could not "
				   "start");
		return rc;
	}
	if (log_path)
		file_write_atomic(log_path, pr.output ? pr.output : "",
				  pr.output_len, &e);
	if (pr.timed_out)
		rc = errf(err,
			  "preparing the task did not finish within %d "
			  "minutes",
			  AKA_PREP_TIMEOUT_MS / 60000);
	else if (!WIFEXITED(pr.status) || WEXITSTATUS(pr.status) != 0) {
		char st[96];
		const char *o = pr.output ? pr.output : "";
		size_t n = pr.output_len > 600 ? 600 : pr.output_len;
		proc_describe_status(pr.status, st, sizeof(st));
		rc = errf(err, "the AKA recorder %s: %.*s", st, (int)n,
			  o + pr.output_len - n);
	}
	proc_result_release(&pr);
	return rc;
}

/* ---- the manifest -------------------------------------------------------- */

static const cJSON *jget(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static bool jint(const cJSON *o, int64_t lo, int64_t hi, int64_t *v)
{
	if (!cJSON_IsNumber(o) ||
	    o->valuedouble != (double)(int64_t)o->valuedouble)
		return false;
	*v = (int64_t)o->valuedouble;
	return *v >= lo && *v <= hi;
}

/* Every .py file below dir except the editable ones, the shim first. */
static void bundle_list(const char *dir, const char *rel, int depth,
			const struct strvec *editable, struct strvec *out)
{
	char *abs = rel ? path_join(dir, rel) : xstrdup(dir);
	struct dirent **names = NULL;
	int n = scandir(abs, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char *r = rel ? path_join(rel, nm) : xstrdup(nm);
		char *a = path_join(dir, r);
		size_t len = strlen(nm);
		if (nm[0] == '.' || !strcmp(nm, "sets") ||
		    !strcmp(nm, "__pycache__"))
			;
		else if (dir_exists(a)) {
			if (depth < 4)
				bundle_list(dir, r, depth + 1, editable, out);
		} else if (len > 3 && !strcmp(nm + len - 3, ".py") &&
			   strcmp(r, "_arena_aka.py") &&
			   !strvec_contains(editable, r) &&
			   out->n < SOURCES_MAX_FILES - 8) {
			strvec_push(out, r);
		}
		free(r);
		free(a);
		free(names[i]);
	}
	free(names);
	free(abs);
}

static int prep_fail(struct errbuf *err, const char *what)
{
	return errf(err, "the prepared task's manifest is malformed: %s", what);
}

/* Whether data (read from rel in the sealed entry) holds the bytes its
 * seal recorded: the entry was verified whole before it was read; this
 * closes the window since. */
static int sealed_bytes(const struct strvec *seal, const char *dir,
			const char *rel, const void *data, size_t len,
			struct errbuf *err)
{
	const char *want = task_trust_lookup(seal, rel);
	char got[65];

	sha256_hex(data, len, got);
	if (!want || strcmp(want, got))
		return errf_code(err, EBADMSG,
				 "the prepared task %s changed while it was "
				 "read: %s is not the file it was sealed with",
				 dir, rel);
	return 0;
}

/* The prepared task and its input sets from manifest m in the sealed
 * entry dir (seal: its verified manifest entries, hash: its name). */
static int prep_task(const struct task *t, const char *dir, const char *hash,
		     const struct strvec *seal, const cJSON *m,
		     struct task **out, struct aka_inputs *in,
		     struct errbuf *err)
{
	const cJSON *args = jget(m, "args"), *cases = jget(m, "cases");
	const cJSON *tol = jget(m, "tolerance"), *it;
	struct task *pt;
	size_t total = 0;
	int rc = 0;

	*out = NULL;
	memset(in, 0, sizeof(*in));
	if (!cJSON_IsArray(args) || cJSON_GetArraySize(args) < 1 ||
	    cJSON_GetArraySize(args) > TASK_MAX_PARAMS - 1)
		return prep_fail(err, "args");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) < 1 ||
	    cJSON_GetArraySize(cases) > TASK_MAX_CASES)
		return prep_fail(err, "cases");
	pt = xcalloc(1, sizeof(*pt));
	pt->id = xstrdup(t->id);
	pt->family = xstrdup(t->family);
	pt->name = xstrdup(t->name);
	pt->dir = xstrdup(dir);
	/* Verified before every build, like a trusted copy (build.c). */
	pt->trusted_hash = xstrdup(hash);
	pt->description = xstrdup(t->description ? t->description : t->id);
	pt->language = t->language;
	pt->initial_state = TASK_IMPLEMENTED;
	for (size_t i = 0; i < t->editable.n; i++)
		strvec_push(&pt->editable, t->editable.v[i]);
	pt->entry = xstrdup("launch");
	pt->reference_file = xstrdup("_arena_aka.py");
	pt->reference_language = t->language;
	pt->reference_entry = xstrdup("launch");
	pt->reference_is_baseline = true;
	strvec_push(&pt->bundle_files, "_arena_aka.py");
	bundle_list(dir, NULL, 0, &t->editable, &pt->bundle_files);
	pt->bundle_entry = true;
	/* gpumode: the kernel is an extension module built from this
	 * editable file (pybuild.c). */
	const cJSON *ext = jget(m, "extension");
	if (ext) {
		if (!cJSON_IsString(ext) ||
		    !strvec_contains(&t->editable, ext->valuestring)) {
			rc = prep_fail(err, "extension");
			goto fail;
		}
		pt->torch_ext = xstrdup(ext->valuestring);
	}
	pt->config_sha256 = xstrdup(t->config_sha256 ? t->config_sha256 : "-");
	pt->timing_floor_us = -1;
	const char *fl = getenv("ARENA_AKA_TIMING_FLOOR_US");
	if (fl && *fl) {
		pt->timing_floor_us = atof(fl);
		pt->timing_floor_reason = xstrdup("ARENA_AKA_TIMING_FLOOR_US");
	}

	pt->nargs = cJSON_GetArraySize(args);
	pt->nparams = pt->nargs + 1;
	pt->params[0] = xstrdup("aka_case");
	int a = 0;
	cJSON_ArrayForEach(it, args)
	{
		const cJSON *nm = jget(it, "name"), *io = jget(it, "io"),
			    *dt = jget(it, "dtype");
		struct task_arg *ta = &pt->args[a];
		if (!cJSON_IsString(nm) || strlen(nm->valuestring) > 60 ||
		    !cJSON_IsString(io) || !cJSON_IsString(dt) ||
		    dtype_parse(dt->valuestring, &ta->dtype) != 0) {
			rc = prep_fail(err, "an argument");
			goto fail;
		}
		ta->name = xstrdup(nm->valuestring);
		if (!strcmp(io->valuestring, "in"))
			ta->io = IO_IN;
		else if (!strcmp(io->valuestring, "inout"))
			ta->io = IO_INOUT;
		else if (!strcmp(io->valuestring, "scratch")) {
			ta->io = IO_INOUT;
			ta->scratch = true;
		} else if (!strcmp(io->valuestring, "out"))
			ta->io = IO_OUT;
		else {
			rc = prep_fail(err, "an argument's io");
			goto fail;
		}
		ta->rank = 1;
		pt->params[a + 1] = xasprintf("n%d", a);
		ta->shape[0] = xstrdup(pt->params[a + 1]);
		if (ta->io != IO_OUT)
			ta->init.dist = INIT_RECORDED;
		a++;
	}

	in->ncases = cJSON_GetArraySize(cases);
	in->c = xcalloc((size_t)in->ncases, sizeof(*in->c));
	int k = 0;
	cJSON_ArrayForEach(it, cases)
	{
		const cJSON *id = jget(it, "id"), *numel = jget(it, "numel"),
			    *ns = jget(it, "nsets"), *sets = jget(it, "sets");
		struct task_case *c = &pt->cases[k];
		struct aka_case_sets *cs = &in->c[k];
		int64_t v;
		if (!cJSON_IsString(id) || !cJSON_IsArray(numel) ||
		    cJSON_GetArraySize(numel) != pt->nargs ||
		    !jint(ns, 1, 64, &v) || !cJSON_IsString(sets) ||
		    !path_is_safe_relative(sets->valuestring)) {
			rc = prep_fail(err, "a case");
			goto fail;
		}
		c->id = xstrdup(id->valuestring);
		c->params[0] = k;
		c->check_only = cJSON_IsTrue(jget(it, "check_only"));
		cs->nsets = (int)v;
		for (int i = 0; i < pt->nargs; i++) {
			if (!jint(cJSON_GetArrayItem(numel, i), 1,
				  (int64_t)1 << 40, &v)) {
				rc = prep_fail(err, "a case's sizes");
				goto fail;
			}
			c->params[i + 1] = v;
			cs->arg_pos[i] = SIZE_MAX;
			if (pt->args[i].io == IO_OUT)
				continue;
			cs->arg_pos[i] = cs->set_len;
			cs->set_len +=
				(size_t)v * dtype_size(pt->args[i].dtype);
		}
		char *path = path_join(dir, sets->valuestring);
		size_t len = 0;
		struct errbuf e;
		errbuf_init(&e);
		total += cs->set_len * (size_t)cs->nsets;
		if (total > AKA_INPUTS_MAX_BYTES)
			rc = errf(err,
				  "the recorded inputs take more than %zu "
				  "GiB",
				  AKA_INPUTS_MAX_BYTES >> 30);
		else if (file_read_all(path,
				       cs->set_len * (size_t)cs->nsets + 1,
				       (char **)&cs->data, &len, &e) != 0)
			rc = errf(err,
				  "the recorded inputs %s cannot be read: %s",
				  path, errbuf_str(&e));
		else if (len != cs->set_len * (size_t)cs->nsets)
			rc = errf(err,
				  "the recorded inputs %s hold %zu bytes, not "
				  "%d sets of %zu",
				  path, len, cs->nsets, cs->set_len);
		else
			rc = sealed_bytes(seal, dir, sets->valuestring,
					  cs->data, len, err);
		free(path);
		if (rc)
			goto fail;
		k++;
	}
	pt->ncases = pt->nvisible = in->ncases;

	pt->atol = 1e-5;
	pt->rtol = 1e-5;
	if (cJSON_IsTrue(jget(m, "exact"))) {
		pt->atol = pt->rtol = 0;
	} else if (cJSON_IsObject(tol)) {
		cJSON_ArrayForEach(it, tol)
		{
			arena_dtype d;
			if (dtype_parse(it->string, &d) != 0 ||
			    !cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
				continue;
			double at = cJSON_GetArrayItem(it, 0)->valuedouble;
			double rt = cJSON_GetArrayItem(it, 1)->valuedouble;
			if (!(at >= 0 && rt >= 0 && at < 1e3 && rt < 1e3))
				continue;
			pt->dtype_tol_set[d] = true;
			pt->dtype_atol[d] = at;
			pt->dtype_rtol[d] = rt;
			if (d == ARENA_F32) {
				pt->atol = at;
				pt->rtol = rt;
			}
		}
	}
	*out = pt;
	return 0;
fail:
	task_free(pt);
	aka_inputs_release(in);
	return rc ? rc : -EINVAL;
}

/* ---- preparing ------------------------------------------------------------ */

void aka_prep_release(struct aka_prep *p)
{
	task_free(p->t);
	aka_inputs_release(&p->in);
	free(p->dir);
	free(p->error);
	free(p->notes);
	free(p->check_message);
	memset(p, 0, sizeof(*p));
}

/* The hash that names the one sealed entry under keydir (a directory
 * named by 64 hex digits), into hash; -ENOENT when there is none or more
 * than one. */
static int entry_hash(const char *keydir, char hash[65])
{
	struct dirent **names = NULL;
	int n = scandir(keydir, &names, NULL, alphasort), found = 0;

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		if (strlen(nm) == 64 && strspn(nm, "0123456789abcdef") == 64) {
			memcpy(hash, nm, 65);
			found++;
		}
		free(names[i]);
	}
	free(names);
	return found == 1 ? 0 : -ENOENT;
}

/* Records t and seals the recording: <root>/<key>/<hash>/ appears whole
 * or not at all.  Concurrent preparations of one task each record; the
 * first rename wins and the others use its entry. */
static int record_entry(const struct task *t, const char *device,
			const char *root, const char *key, const char *log,
			struct errbuf *err)
{
	char *tmp = xasprintf("%s/.%s.%ld", root, key, (long)getpid());
	char *rec = path_join(tmp, "rec");
	char *home = path_join(tmp, "home");
	char *keydir = path_join(root, key);
	char hash[65];
	int rc;

	(void)rm_rf(tmp);
	rc = mkdir_p(rec, err);
	if (rc == 0)
		rc = run_recorder(t, device, rec, home, log, err);
	(void)rm_rf(home);
	if (rc == 0 && (rc = task_trust_seal(rec, hash, err)) != 0)
		errbuf_prefix(err, "sealing the prepared task");
	if (rc == 0) {
		char *named = path_join(tmp, hash);
		if (rename(rec, named) != 0)
			rc = errf_code(err, errno, "cannot rename %s: %s", rec,
				       strerror(errno));
		free(named);
	}
	if (rc == 0 && rename(tmp, keydir) != 0 && errno != ENOTEMPTY &&
	    errno != EEXIST)
		rc = errf_code(err, errno,
			       "cannot store the prepared task in %s: %s",
			       keydir, strerror(errno));
	(void)rm_rf(tmp);
	free(tmp);
	free(rec);
	free(home);
	free(keydir);
	return rc;
}

/* A recording runs the task's own module on the device, as much memory
 * and time as it takes: on a GPU it holds the device's lock exclusively,
 * like an evaluation's correctness and timing phases, so that it neither
 * disturbs another evaluation's measurements nor runs the device out of
 * memory beside other recordings (seven of AKA's gpumode tasks recorded at
 * once on an 80 GB H100 did, 2026-12-05).  *fd -1: nothing to hold (the
 * host). */
static int lock_for_recording(const char *device, const char *cache_dir,
			      const char *lock_dir, int *fd, int64_t *ticket,
			      struct errbuf *err)
{
	struct dev_id d;
	struct gpu_info g;
	struct errbuf e;
	char name[96];

	*fd = -1;
	errbuf_init(&e);
	if (dev_parse(device, &d, &e) != 0 ||
	    (d.kind != DEV_CUDA && d.kind != DEV_HIP))
		return 0;
	if (gpu_info_get(&d, cache_dir, false, &g, &e) != 0)
		memset(&g, 0, sizeof(g)); /* named by its index instead */
	ev_device_lock_name(&g, device, name, sizeof(name));
	return ev_device_lock_take(lock_dir, name, LOCK_EX, fd, ticket, err);
}

/* Appends a line to the preparation's log (log may be NULL). */
static void log_line(const char *log, const char *line)
{
	FILE *f = log ? fopen(log, "a") : NULL;

	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
}

int aka_prepare(const struct task *t, const char *device, const char *cache_dir,
		const char *lock_dir, const char *log_dir, struct aka_prep *p,
		struct errbuf *err)
{
	char *key = prep_key(t, device);
	char *root = path_join(cache_dir, "aka");
	char *keydir = path_join(root, key);
	char *log = log_dir ? path_join(log_dir, "aka-prepare.log") : NULL;
	char *dir = NULL, *text = NULL, *why = NULL, hash[65];
	struct strvec seal = STRVEC_INIT;
	size_t len = 0;
	cJSON *m = NULL;
	bool recorded = false;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = mkdir_p(root, err);
	/* The entry, verified whole against its name; one that fails is
	 * recorded again (once: a second failure is an error). */
	while (rc == 0) {
		struct errbuf e;
		if (!dir_exists(keydir)) {
			int fd;
			int64_t ticket = 0;
			rc = lock_for_recording(device, cache_dir, lock_dir,
						&fd, &ticket, err);
			if (rc)
				break;
			/* Recorded meanwhile by whoever held the lock. */
			if (!dir_exists(keydir)) {
				rc = record_entry(t, device, root, key, log,
						  err);
				recorded = true;
			}
			ev_device_lock_close(fd, fd >= 0 ? LOCK_EX : 0, ticket);
			if (rc)
				break;
		}
		errbuf_init(&e);
		if (entry_hash(keydir, hash) != 0)
			errf(&e, "%s holds no sealed prepared task", keydir);
		else {
			free(dir);
			dir = path_join(keydir, hash);
			strvec_release(&seal);
			if (task_trust_verify(dir, hash, &seal, &e) == 0)
				break;
		}
		if (recorded) {
			rc = errf_code(err, EBADMSG,
				       "the prepared task does not verify "
				       "right after it was recorded: %s",
				       errbuf_str(&e));
			break;
		}
		/* Said after the recording, whose output the log gets. */
		why = xasprintf("the cached prepared task was not used: %s; "
				"it was recorded again",
				errbuf_str(&e));
		if (rm_rf(keydir) != 0) {
			rc = errf(err, "cannot remove the prepared task %s",
				  keydir);
			break;
		}
	}
	if (why) {
		log_line(log, why);
		free(why);
	}
	if (rc == 0) {
		char *manifest = path_join(dir, "manifest.json");
		rc = file_read_all(manifest, AKA_MANIFEST_MAX, &text, &len,
				   err);
		if (rc == 0)
			rc = sealed_bytes(&seal, dir, "manifest.json", text,
					  len, err);
		free(manifest);
	}
	if (rc == 0 && !(m = cJSON_ParseWithLength(text, len)))
		rc = prep_fail(err, "not JSON");
	if (rc == 0) {
		const cJSON *e = jget(m, "error"), *amd = jget(m, "amd_only");
		const cJSON *notes = jget(m, "notes"), *it;
		struct strbuf sb = STRBUF_INIT;
		cJSON_ArrayForEach(it, notes) if (cJSON_IsString(it))
			strbuf_addf(&sb, "%s%s", sb.len ? "; " : "",
				    it->valuestring);
		p->notes = sb.len ? strbuf_detach(&sb) : NULL;
		strbuf_release(&sb);
		const cJSON *ck = jget(m, "check");
		const cJSON *cm = jget(ck, "message"),
			    *cw = jget(ck, "catches_wrong");
		p->check_passed = cJSON_IsTrue(jget(ck, "passed"));
		p->task_fails = cJSON_IsTrue(jget(m, "task_fails"));
		p->check_message = cJSON_IsString(cm) ? xstrdup(cm->valuestring)
						      : NULL;
		p->catches_wrong = cJSON_IsBool(cw) ? cJSON_IsTrue(cw) : -1;
		if (cJSON_IsString(e)) {
			p->error = xstrdup(e->valuestring);
			if (cJSON_IsString(amd)) {
				p->amd_only = true;
				free(p->error);
				p->error = xasprintf("%s: %s", amd->valuestring,
						     e->valuestring);
			}
		} else {
			rc = prep_task(t, dir, hash, &seal, m, &p->t, &p->in,
				       err);
			/* The recorder found the kernel as shipped
			 * intolerant of moved inputs: its reason joins
			 * the notes (aka_jitter.c). */
			const cJSON *vb = jget(m, "verbatim");
			if (rc == 0 && cJSON_IsString(vb)) {
				p->in.verbatim = true;
				char *n = xasprintf(
					"%s%sinputs replayed as recorded: %s",
					p->notes ? p->notes : "",
					p->notes ? "; " : "", vb->valuestring);
				free(p->notes);
				p->notes = n;
			}
			/* A gpumode task's bundles are Python's, run on
			 * the device: PyTorch on the CPU, or the GPU
			 * runner's CUDA (the Triton runner's). */
			if (rc == 0 && p->t->torch_ext)
				p->t->language = p->t->reference_language =
					strcmp(device, "host") ? LANG_TRITON
							       : LANG_PYTHON;
		}
	}
	if (rc == 0)
		p->dir = xstrdup(dir);
	cJSON_Delete(m);
	strvec_release(&seal);
	free(text);
	free(key);
	free(root);
	free(keydir);
	free(dir);
	free(log);
	return rc;
}

/* ---- recorded inputs ------------------------------------------------------ */

/* The set a call of case ci gets for the controller's draw. */
static int pick(const struct eval_ctx *x, int ci, uint64_t draw)
{
	int n = x->rec->c[ci].nsets;

	return (int)(draw % (uint64_t)n);
}

/* Argument a of set `set` into dst, moved by jitter. */
static void fill_arg(const struct eval_ctx *x, const struct aka_case_sets *cs,
		     const struct case_layout *l, int set, uint64_t jitter,
		     int a, void *dst)
{
	memcpy(dst, cs->data + (size_t)set * cs->set_len + cs->arg_pos[a],
	       l->bytes[a]);
	if (jitter)
		ev_aka_jitter(x->t->args[a].dtype, dst, l->bytes[a],
			      ev_derive(jitter, 4, (uint64_t)a, 0) | 1);
}

/* Set `set` of case ci into host buffers, moved by jitter. */
static void fill_stage(const struct eval_ctx *x, int ci,
		       const struct case_layout *l, int set, uint64_t jitter,
		       void **stage)
{
	const struct aka_case_sets *cs = &x->rec->c[ci];

	for (int a = 0; a < x->t->nargs; a++)
		if (cs->arg_pos[a] != SIZE_MAX)
			fill_arg(x, cs, l, set, jitter, a, stage[a]);
}

void ev_aka_fill(const struct eval_ctx *x, int ci, const struct case_layout *l,
		 uint64_t draw, void **stage)
{
	fill_stage(x, ci, l, pick(x, ci, draw), ev_aka_jitter_seed(x, ci, draw),
		   stage);
}

void ev_aka_fill_own(const struct eval_ctx *x, int ci,
		     const struct case_layout *l, void **stage)
{
	fill_stage(x, ci, l, 0, 0, stage);
}

void ev_aka_fill_shm(const struct eval_ctx *x, int ci,
		     const struct case_layout *l, uint64_t draw,
		     unsigned char *shm)
{
	const struct aka_case_sets *cs = &x->rec->c[ci];
	int set = pick(x, ci, draw);
	uint64_t jitter = ev_aka_jitter_seed(x, ci, draw);

	for (int a = 0; a < x->t->nargs; a++)
		if (cs->arg_pos[a] != SIZE_MAX)
			fill_arg(x, cs, l, set, jitter, a, shm + l->offset[a]);
}
