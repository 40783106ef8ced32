/*
 * pybuild.c - the build of a Python-language kernel (python, triton, or a
 * Python reference): what compile_build() does for them (docs/python.md).
 *
 * There is no compiler.  The snapshot's .py files, the entry module and
 * the defines (tunables) are written into one bundle, the artifact the
 * runner receives in a sealed memfd exactly as a compiled kernel's shared
 * object:
 *
 *     arena-pybundle 1
 *     entry <module>
 *     file <path> <nbytes>\n<bytes>\n       (per .py file)
 *     ext <module> <nbytes>\n<bytes>\n      (a gpumode task's extension)
 *     define <NAME> <value>                  (per define)
 *     end
 *
 * A gpumode AgentKernelArena task's kernel is a PyTorch extension module
 * built from its editable .hip file (docs/aka.md): compiled here with
 * torch's flags (torchext.c) by compile_build(), like any kernel (cached,
 * limited, confined for a candidate), and carried in the bundle, which
 * the runner loads it from.  The reference has none (its kernel is the
 * functional module's PyTorch function), nor has the baseline of a task
 * whose .hip file ships empty (torch2hip); a candidate must have one.
 *
 * A candidate's bundle is first checked by pycheck.py (trusted code, its
 * own process, a deadline; it parses and never imports): every file must
 * parse, and where the task forbids library calls, the rules of that
 * check hold.  A finding is the candidate's compile_error, with the lines
 * pycheck printed.
 *
 * Bundles are cached under <cache_dir>/artifacts/<key>.pyz like shared
 * objects; the key covers the sources, the defines, the entry and, for a
 * checked build, the check's rules and pycheck.py's own bytes.
 */
#include "eval_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/proc.h"

#define CHECK_OUTPUT_MAX (16 * 1024)
#define CHECK_TIMEOUT_MS 60000

static void hash_field(struct sha256 *h, const void *data, size_t n)
{
	unsigned char le[8];
	uint64_t len = n;

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(len >> (8 * i));
	sha256_update(h, le, 8);
	sha256_update(h, data, n);
}

static void hash_str(struct sha256 *h, const char *s)
{
	hash_field(h, s, strlen(s));
}

/* The snapshot's bytes of path, or NULL. */
static const struct source_set *find_src(const struct source_set *src,
					 const char *path, int *k)
{
	for (int i = 0; i < src->n; i++)
		if (!strcmp(src->path[i], path) && src->data[i]) {
			*k = i;
			return src;
		}
	return NULL;
}

/* A define "NAME=VALUE" as the bundle's "define NAME VALUE" line. */
static void add_define(struct strbuf *b, const char *def)
{
	const char *eq = strchr(def, '=');

	if (eq)
		strbuf_addf(b, "define %.*s %s\n", (int)(eq - def), def,
			    eq + 1);
	else
		strbuf_addf(b, "define %s 1\n", def);
}

/* Runs pycheck.py on the bundle at path; 0 with *message NULL when it
 * passes, 0 with *message set on findings, negative errno when the check
 * could not run. */
static int run_check(const struct build_spec *s, const char *path,
		     char **message, struct errbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	struct proc_result pr;
	char *checker = path_join(paths_py_dir(), "pycheck.py");
	char *const envp[] = { (char *)"PATH=/usr/bin:/bin",
			       (char *)"LC_ALL=C.UTF-8", NULL };
	int rc;

	*message = NULL;
	strvec_push(&argv, paths_python());
	strvec_push(&argv, "-B");
	strvec_push(&argv, "-E");
	strvec_push(&argv, "-s");
	strvec_push(&argv, checker);
	strvec_push(&argv, path);
	if (s->entry) {
		strvec_push(&argv, "--entry");
		strvec_push(&argv, s->entry);
	}
	if (s->forbid_library_calls) {
		strvec_push(&argv, "--forbid-library-calls");
		for (size_t i = 0; s->allowed_calls && i < s->allowed_calls->n;
		     i++) {
			strvec_push(&argv, "--allow");
			strvec_push(&argv, s->allowed_calls->v[i]);
		}
	}
	rc = proc_run_capture(argv.v, NULL, envp, CHECK_TIMEOUT_MS,
			      CHECK_OUTPUT_MAX, &pr, err);
	strvec_release(&argv);
	free(checker);
	if (rc) {
		errbuf_prefix(err, "the Python check (pycheck.py) could not "
				   "start");
		return rc;
	}
	if (pr.timed_out) {
		*message = xstrdup("the static check of the Python sources did "
				   "not finish within 60 s");
	} else if (WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 1) {
		size_t n = pr.output_len;
		while (n &&
		       (pr.output[n - 1] == '\n' || pr.output[n - 1] == ' '))
			n--;
		*message = xasprintf(
			"%s%.*s",
			s->forbid_library_calls
				? "the static check refused the kernel "
				  "(this task forbids library calls):\n"
				: "",
			(int)n, pr.output);
	} else if (!WIFEXITED(pr.status) || WEXITSTATUS(pr.status) != 0) {
		char st[96];
		proc_describe_status(pr.status, st, sizeof(st));
		rc = errf(err, "the Python check (%s pycheck.py) %s: %.300s",
			  paths_python(), st, pr.output ? pr.output : "");
	}
	proc_result_release(&pr);
	return rc;
}

static bool blank(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' &&
		    data[i] != '\r')
			return false;
	return true;
}

/* The extension module of a gpumode task's build, into *so (its bytes)
 * and *so_len; *so NULL where the role has none.  0, 0 with
 * out->message when it does not compile (or a candidate's file is
 * empty), or an errno when it could not be built at all. */
static int build_extension(const struct build_spec *s, struct build_out *out,
			   char **so, size_t *so_len, struct errbuf *err)
{
	struct torch_ext_flags tf;
	struct build_out eo;
	struct strvec compile = STRVEC_INIT;
	int k = 0, rc;

	*so = NULL;
	*so_len = 0;
	if (!s->torch_ext)
		return 0;
	if (!find_src(s->src, s->torch_ext, &k)) {
		out->message = xasprintf("%s is missing", s->torch_ext);
		return 0;
	}
	if (blank(s->src->data[k], s->src->len[k])) {
		if (!s->ext_required)
			return 0;
		out->message = xasprintf(
			"%s is empty: write the kernel there as a PyTorch "
			"extension (its kernels, a launcher and "
			"PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) exporting "
			"forward)",
			s->torch_ext);
		return 0;
	}
	/* The tests' GPU emulation (ARENA_AKA_RECORD_DEVICE=cpu, as for
	 * recording): its "device" tensors are CPU tensors, and so the
	 * extension is host code. */
	const char *rd = getenv("ARENA_AKA_RECORD_DEVICE");
	enum dev_kind dev = rd && !strcmp(rd, "cpu") ? DEV_HOST : s->dev;
	if ((rc = torch_ext_flags(dev, TORCH_EXT_MODULE, &tf, err)))
		return rc;
	struct build_spec es = *s;
	strvec_push(&compile, s->torch_ext);
	es.lang = LANG_HIP;
	es.dev = dev;
	es.compile = &compile;
	es.torch = &tf;
	es.torch_ext = NULL;
	es.check = false;
	memset(&eo, 0, sizeof(eo));
	rc = compile_build(&es, &eo, err);
	strvec_release(&compile);
	torch_ext_flags_release(&tf);
	if (rc)
		return rc;
	/* The candidate's compiler ran confined, or not at all here. */
	if (!eo.confined && !eo.cached)
		out->confined = false;
	out->negative_cached = eo.negative_cached;
	if (eo.message) {
		out->message = eo.message;
		eo.message = NULL;
	} else if ((rc = file_read_all(eo.so_path, (size_t)1 << 30, so, so_len,
				       err))) {
		errbuf_prefix(err, "the extension module just built");
	}
	build_out_release(&eo);
	return rc;
}

int pybuild(const struct build_spec *s, struct build_out *out,
	    struct errbuf *err)
{
	char *ext = NULL;
	size_t ext_len = 0;
	struct strbuf b = STRBUF_INIT;
	struct sha256 h;
	unsigned char dig[32];
	char key[65], *artdir = NULL, *art = NULL, *tmp = NULL;
	char *checker_src = NULL;
	size_t checker_len = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* Nothing of the candidate runs here (a bundle, and pycheck.py only
	 * parses it) but a gpumode task's compiler, which build_extension
	 * reports. */
	out->confined = true;
	if (s->compile->n == 0) {
		out->message = xasprintf("there is no Python source file (.py) "
					 "to load");
		return 0;
	}
	/* The bundle: the entry module is the first file to compile. */
	const char *first = s->compile->v[0];
	strbuf_addf(&b, "arena-pybundle 1\nentry %.*s\n",
		    (int)(strlen(first) - 3), first);
	for (size_t i = 0; i < s->compile->n; i++) {
		int k = 0;
		if (!find_src(s->src, s->compile->v[i], &k)) {
			out->message =
				xasprintf("%s is missing", s->compile->v[i]);
			goto done;
		}
		strbuf_addf(&b, "file %s %zu\n", s->compile->v[i],
			    s->src->len[k]);
		strbuf_add(&b, s->src->data[k], s->src->len[k]);
		strbuf_addch(&b, '\n');
	}
	if ((rc = build_extension(s, out, &ext, &ext_len, err)) || out->message)
		goto done;
	if (ext) {
		strbuf_addf(&b, "ext %s %zu\n", TORCH_EXT_MODULE, ext_len);
		strbuf_add(&b, ext, ext_len);
		strbuf_addch(&b, '\n');
	}
	for (size_t i = 0; s->defines && i < s->defines->n; i++)
		add_define(&b, s->defines->v[i]);
	strbuf_addstr(&b, "end\n");

	sha256_init(&h);
	hash_str(&h, "arena-pybundle/1");
	hash_field(&h, b.buf, b.len);
	if (s->check) {
		char *checker = path_join(paths_py_dir(), "pycheck.py");
		struct errbuf e2;
		errbuf_init(&e2);
		if (file_read_all(checker, SOURCES_MAX_BYTES, &checker_src,
				  &checker_len, &e2) != 0) {
			rc = errf_code(err, ENOENT,
				       "the Python runner's "
				       "pycheck.py cannot be read (%s); build "
				       "it with `make` or set ARENA_PY_DIR",
				       errbuf_str(&e2));
			free(checker);
			goto done;
		}
		free(checker);
		hash_str(&h, "checked");
		hash_field(&h, checker_src, checker_len);
		hash_str(&h, s->forbid_library_calls ? "forbid" : "allow");
		hash_str(&h, s->entry ? s->entry : "-");
		for (size_t i = 0; s->allowed_calls && i < s->allowed_calls->n;
		     i++)
			hash_str(&h, s->allowed_calls->v[i]);
	}
	sha256_final(&h, dig);
	sha256_to_hex(dig, key);

	artdir = path_join(s->cache_dir, "artifacts");
	if ((rc = mkdir_p(artdir, err)))
		goto done;
	art = xasprintf("%s/%s.pyz", artdir, key);
	struct stat st;
	if (stat(art, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		out->so_path = art;
		art = NULL;
		out->cached = true;
		goto done;
	}
	tmp = xasprintf("%s/.%s.%ld.tmp", artdir, key, (long)getpid());
	if ((rc = file_write_atomic(tmp, b.buf, b.len, err)))
		goto done;
	if (s->check) {
		char *msg = NULL;
		rc = run_check(s, tmp, &msg, err);
		if (rc || msg) {
			out->message = msg;
			unlink(tmp);
			goto done;
		}
	}
	if (rename(tmp, art) != 0) {
		rc = errf_code(err, errno, "cannot store the artifact %s: %s",
			       art, strerror(errno));
		unlink(tmp);
		goto done;
	}
	if (s->log_path) {
		struct errbuf ign;
		errbuf_init(&ign);
		char *log =
			xasprintf("Python bundle %s (%zu bytes, %zu files)%s\n",
				  art, b.len, s->compile->n,
				  s->check ? ", static check passed" : "");
		file_write_atomic(s->log_path, log, strlen(log), &ign);
		free(log);
	}
	out->so_path = art;
	art = NULL;
done:
	strbuf_release(&b);
	free(ext);
	free(checker_src);
	free(artdir);
	free(art);
	free(tmp);
	return rc;
}
