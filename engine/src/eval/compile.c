/*
 * compile.c - from source files to a cached shared object.
 *
 * Sources are first read into memory (sources_read): every later step -
 * hashing, copying, compiling - works on that snapshot, so the artifact and
 * the recorded hashes always describe the same bytes, even if an agent
 * edits its workspace during the evaluation.  No component of a source path
 * may be a symbolic link.
 *
 * A build copies the snapshot into a private scratch directory under
 * <cache_dir>/scratch and runs, with that directory as its working
 * directory, one of (docs/gpu.md has the GPU ones):
 *     c:             cc -O2 -shared -fPIC -I<include dir> -I. [-I<task dir>]
 *                    <task flags> <-Ddefines> -o out.so <sources> -lm
 *     cuda:          nvcc -O2 -shared -Xcompiler -fPIC -arch=sm_XX ...
 *     hip, NVIDIA:   nvcc -x cu -O2 -shared -Xcompiler -fPIC -arch=sm_XX
 *                    -I<include dir>/arena/hip_nvidia ...
 *     hip, AMD:      hipcc -O2 -shared -fPIC --offload-arch=gfxNNN -x hip ...
 * in its own process group with a deadline.  Only the baseline and the
 * reference get -I<task dir>; a candidate sees its editable files and
 * kernel.h and nothing else of its workspace, so that its artifact is a
 * function of the bytes that were hashed.
 *
 * Artifacts are cached under <cache_dir>/artifacts/<key>.so, where key is
 * the SHA-256 of every input of the build: the compiler's resolved path and
 * version line, the flags, the defines, each source's path and bytes,
 * kernel.h's bytes and (for task builds) the bytes of the task directory's
 * headers.  A finished build is renamed into place, so readers never see a
 * partial artifact and concurrent builds of the same key are harmless.
 */
#include "eval_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/confine.h"
#include "arena/eval.h"
#include "arena/paths.h"
#include "arena/proc.h"

#define COMPILE_MSG_MAX 4096
#define COMPILE_LOG_MAX (64 * 1024)

/* ---- sources ---------------------------------------------------------- */

/* Opens dir/rel for reading with no symlink anywhere below dir.  Returns an
 * fd, or -errno (-ELOOP for a link). */
static int open_beneath(const char *dir, const char *rel)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *copy, *p, *slash;
	int fd;

	if (dfd < 0)
		return -errno;
	copy = xstrdup(rel);
	p = copy;
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		int nfd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
		int e = errno;
		close(dfd);
		if (nfd < 0) {
			free(copy);
			return e == ENOTDIR ? -ELOOP : -e;
		}
		dfd = nfd;
		p = slash + 1;
	}
	fd = openat(dfd, p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(dfd);
	free(copy);
	return fd;
}

int sources_read(const char *dir, const struct strvec *files,
		 struct source_set *out, struct errbuf *err)
{
	memset(out, 0, sizeof(*out));
	if (files->n > SOURCES_MAX_FILES)
		return errf(err, "too many source files (%zu, at most %d)",
			    files->n, SOURCES_MAX_FILES);
	for (size_t i = 0; i < files->n; i++) {
		const char *rel = files->v[i];
		int k = out->n++;
		struct stat st;

		out->path[k] = xstrdup(rel);
		snprintf(out->sha256[k], 65, "-");
		if (!path_is_safe_relative(rel)) {
			sources_release(out);
			return errf(err, "'%s' is not a plain relative path", rel);
		}
		int fd = open_beneath(dir, rel);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			sources_release(out);
			if (fd == -ELOOP)
				return errf(err, "%s: a symbolic link; the "
					    "evaluator reads regular files "
					    "only", rel);
			return errf_code(err, -fd, "%s/%s: %s", dir, rel,
					 strerror(-fd));
		}
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			sources_release(out);
			return errf(err, "%s: not a regular file", rel);
		}
		if (st.st_size > SOURCES_MAX_BYTES) {
			close(fd);
			sources_release(out);
			return errf_code(err, EFBIG, "%s: %lld bytes, more than "
					 "the %d allowed", rel,
					 (long long)st.st_size,
					 SOURCES_MAX_BYTES);
		}
		struct strbuf sb = STRBUF_INIT;
		char buf[65536];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || sb.len + (size_t)n > SOURCES_MAX_BYTES) {
				int e = n < 0 ? errno : EFBIG;
				close(fd);
				strbuf_release(&sb);
				sources_release(out);
				return errf_code(err, e, "%s: cannot read: %s",
						 rel, strerror(e));
			}
			strbuf_add(&sb, buf, (size_t)n);
		}
		close(fd);
		out->len[k] = sb.len;
		out->data[k] = strbuf_detach(&sb);
		sha256_hex(out->data[k], out->len[k], out->sha256[k]);
	}
	return 0;
}

void sources_release(struct source_set *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->path[i]);
		free(s->data[i]);
	}
	memset(s, 0, sizeof(*s));
}

/* ---- compiler identity ------------------------------------------------ */

static char *which(const char *prog)
{
	return strchr(prog, '/') ? path_real(prog) : path_search(prog, NULL);
}

/* "<path of prog>: <first line of prog --version>", or NULL. */
static char *tool_id(const char *prog)
{
	char *argv[] = { (char *)prog, (char *)"--version", NULL };
	struct proc_result pr;
	struct errbuf e;
	char *cc = which(prog), *id = NULL;

	errbuf_init(&e);
	if (!cc)
		return NULL;
	if (proc_run_capture(argv, NULL, NULL, 10000, 4096, &pr, &e) == 0) {
		if (WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0) {
			size_t n = strcspn(pr.output, "\n");
			id = xasprintf("%s: %.*s", cc, (int)n, pr.output);
		}
		proc_result_release(&pr);
	}
	free(cc);
	return id;
}

char *compile_compiler_id(void)
{
	return tool_id("cc");
}

/* The GPU compilers, found once per process: $NVCC / $HIPCC, else the
 * PATH, else the toolkits' usual homes. */
struct tool {
	char *path;		/* resolved, or NULL when missing */
	char *version;		/* --version output (first 1 KiB) */
	char *line;		/* its most telling line */
};
static struct tool tools[2];	/* 0: nvcc, 1: hipcc */
static pthread_once_t tools_once[2] = { PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT };

static char *first_tool(const char *env, const char *name,
			const char *const *homes, size_t nhomes)
{
	const char *e = getenv(env);
	char *p;

	if (e && *e)
		return which(e);
	if ((p = which(name)))
		return p;
	for (size_t i = 0; i < nhomes; i++) {
		const char *h = homes[i][0] == '$' ? getenv(homes[i] + 1)
						     : homes[i];
		if (!h || !*h)
			continue;
		char *cand = xasprintf("%s/bin/%s", h, name);
		if (access(cand, X_OK) == 0) {
			p = path_real(cand);
			free(cand);
			return p;
		}
		free(cand);
	}
	return NULL;
}

/* Finds tool i and reads its version (hipcc is a script that takes a
 * while to answer: each tool is looked at only when first needed). */
static void find_tool(int i)
{
	static const char *const cuda_homes[] = { "$CUDA_HOME", "$CUDA_PATH",
						  "/usr/local/cuda" };
	static const char *const rocm_homes[] = { "$ROCM_PATH", "/opt/rocm" };
	const char *want[2] = { "release", "HIP version" };
	struct proc_result pr;
	struct errbuf e;

	tools[i].path = i == 0 ? first_tool("NVCC", "nvcc", cuda_homes,
					    ARRAY_SIZE(cuda_homes))
			       : first_tool("HIPCC", "hipcc", rocm_homes,
					    ARRAY_SIZE(rocm_homes));
	if (!tools[i].path)
		return;
	char *argv[] = { tools[i].path, (char *)"--version", NULL };
	errbuf_init(&e);
	memset(&pr, 0, sizeof(pr));
	if (proc_run_capture(argv, NULL, NULL, 60000, 1024, &pr, &e) == 0 &&
	    WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0) {
		tools[i].version = xstrdup(pr.output);
		const char *l = strstr(pr.output, want[i]);
		while (l && l > pr.output && l[-1] != '\n')
			l--;
		if (!l)
			l = pr.output;
		size_t n = strcspn(l, "\n");
		tools[i].line = xstrndup(l, n);
	} else {
		free(tools[i].path);	/* present but not working */
		tools[i].path = NULL;
	}
	if (pr.output)
		proc_result_release(&pr);
}

static void find_nvcc(void)
{
	find_tool(0);
}

static void find_hipcc(void)
{
	find_tool(1);
}

static const struct tool *tool_for(enum task_language lang,
				   enum dev_kind kind)
{
	int i = lang == LANG_HIP && kind == DEV_HIP;

	pthread_once(&tools_once[i], i ? find_hipcc : find_nvcc);
	return &tools[i];
}

char *compile_tool_id(enum task_language lang, enum dev_kind kind)
{
	if (lang == LANG_C)
		return compile_compiler_id();
	if (language_is_python(lang))
		return xasprintf("%s (no compiler: a Python bundle)",
				 paths_python());
	const struct tool *t = tool_for(lang, kind);
	if (!t->path)
		return NULL;
	return xasprintf("%s: %s", t->path, t->line ? t->line : "?");
}

bool compile_source_ok(enum task_language lang, const char *path)
{
	switch (lang) {
	case LANG_C:
		return str_ends_with(path, ".c");
	case LANG_CUDA:
		return str_ends_with(path, ".cu");
	case LANG_HIP:
		return str_ends_with(path, ".hip") ||
		       str_ends_with(path, ".cpp") || str_ends_with(path, ".cc");
	case LANG_PYTHON:
	case LANG_TRITON:
		return str_ends_with(path, ".py");
	}
	return false;
}

/* ---- cache key -------------------------------------------------------- */

static void hash_field(struct sha256 *h, const void *data, size_t n)
{
	uint64_t len = n;
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(len >> (8 * i));
	sha256_update(h, le, 8);
	sha256_update(h, data, n);
}

static void hash_str(struct sha256 *h, const char *s)
{
	hash_field(h, s, strlen(s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Folds every *.h directly in dir into h (sorted by name). */
static void hash_dir_headers(struct sha256 *h, const char *dir)
{
	DIR *d = opendir(dir);
	struct strvec names = STRVEC_INIT;
	struct dirent *e;

	hash_str(h, "headers");
	if (!d)
		return;
	while ((e = readdir(d)))
		if ((str_ends_with(e->d_name, ".h") ||
		     str_ends_with(e->d_name, ".hpp") ||
		     str_ends_with(e->d_name, ".cuh") ||
		     str_ends_with(e->d_name, ".inc")) &&
		    names.n < 256)
			strvec_push(&names, e->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(dir, names.v[i]), *data = NULL;
		size_t len = 0;
		struct errbuf e2;
		errbuf_init(&e2);
		hash_str(h, names.v[i]);
		if (file_read_all(p, SOURCES_MAX_BYTES, &data, &len, &e2) == 0)
			hash_field(h, data, len);
		else
			hash_str(h, "-");
		free(data);
		free(p);
	}
	strvec_release(&names);
}

/* ---- build ------------------------------------------------------------ */

static const char *const base_flags[] = { "-O2", "-shared", "-fPIC" };

void build_out_release(struct build_out *o)
{
	free(o->so_path);
	free(o->message);
	memset(o, 0, sizeof(*o));
}

/* Writes the snapshot into dir (creating subdirectories). */
static int write_sources(const struct source_set *src, const char *dir,
			 struct errbuf *err)
{
	for (int i = 0; i < src->n; i++) {
		if (!src->data[i])
			continue;
		char *p = path_join(dir, src->path[i]);
		char *slash = strrchr(p, '/');
		int rc = 0;
		*slash = '\0';
		rc = mkdir_p(p, err);
		*slash = '/';
		if (!rc)
			rc = file_write_atomic(p, src->data[i], src->len[i], err);
		free(p);
		if (rc)
			return rc;
	}
	return 0;
}

/* Keeps the first COMPILE_MSG_MAX bytes of the compiler's output (the
 * first errors are the useful ones) without the scratch path. */
static char *compile_message(const char *output, const char *scratch)
{
	struct strbuf sb = STRBUF_INIT;
	const char *strip[] = { scratch, CONFINE_BUILD_DIR };
	const char *p = output;

	while (*p && sb.len < COMPILE_MSG_MAX) {
		bool cut = false;
		for (size_t i = 0; i < ARRAY_SIZE(strip) && !cut; i++) {
			size_t sl = strlen(strip[i]);
			if (strncmp(p, strip[i], sl) == 0 &&
			    (p[sl] == '/' || p[sl] == ':')) {
				p += sl + (p[sl] == '/');
				cut = true;
			}
		}
		if (cut)
			continue;
		strbuf_addch(&sb, *p++);
	}
	if (*p)
		strbuf_addstr(&sb, "\n[... compiler output truncated]");
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == ' '))
		sb.buf[--sb.len] = '\0';
	if (!sb.len)
		strbuf_addstr(&sb, "the compiler failed without output");
	return strbuf_detach(&sb);
}

/* ---- limits, confinement, the negative cache ----------------------------- */

/* Which of the compiler's limits output and status say it hit, in words,
 * or NULL.  The driver reports what stopped its passes (cc1, cicc, ptxas,
 * clang) in their words: gcc's "out of memory allocating", "virtual
 * memory exhausted", LLVM's "out of memory", "std::bad_alloc", a pass
 * "terminated" by SIGXCPU or SIGXFSZ. */
static const char *limit_hit(const char *output, int status)
{
	static const struct {
		const char *needle, *what;
	} marks[] = {
		{ "out of memory", "memory" },
		{ "virtual memory exhausted", "memory" },
		{ "Cannot allocate memory", "memory" },
		{ "std::bad_alloc", "memory" },
		{ "CPU time limit exceeded", "CPU time" },
		{ "File size limit exceeded", "file size" },
		{ "File too large", "file size" },
	};

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
		return "CPU time";
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ)
		return "file size";
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (strstr(output, marks[i].needle))
			return marks[i].what;
	return NULL;
}

/* The compiler's environment, built from nothing: what toolchains read
 * (no store, no catalogue, no keys).  Temporary files go to tmp_dir:
 * hipcc (clang's HIP driver) leaves an empty <source stem>-XXXXXX
 * directory there for every compile (two per kernel), which in a shared
 * /tmp would pile up by the thousand. */
static void compile_env(struct strvec *env, const char *tool_dir,
			const char *tmp_dir)
{
	static const char *const pass[] = {
		"CUDA_HOME",	       "CUDA_PATH",
		"ROCM_PATH",	       "HIP_PATH",
		"HIP_PLATFORM",	       "HIP_CLANG_PATH",
		"HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH",
		"LD_LIBRARY_PATH",     "LIBRARY_PATH",
		"NVCC_CCBIN",	       "NVCC_PREPEND_FLAGS",
		"NVCC_APPEND_FLAGS",
	};

	strvec_pushf(env, "PATH=%s%s/usr/local/bin:/usr/bin:/bin",
		     tool_dir ? tool_dir : "", tool_dir ? ":" : "");
	strvec_push(env, "HOME=/tmp");
	strvec_pushf(env, "TMPDIR=%s", tmp_dir);
	strvec_push(env, "LC_ALL=C");
	for (size_t i = 0; i < ARRAY_SIZE(pass); i++) {
		const char *v = getenv(pass[i]);
		if (v)
			strvec_pushf(env, "%s=%s", pass[i], v);
	}
}

/* The negative cache's entry for an artifact key under these limits. */
static char *fail_path(const char *artdir, const char *key,
		       const struct proc_limits *lim, bool confined)
{
	/* The evaluator's version too: a failure that came from arena (a
	 * directory the confinement did not show) ends with the version that
	 * fixes it. */
	char *id = xasprintf("%s|%s|as=%llu|cpu=%llu|fsize=%llu|confined=%d",
			     key, ARENA_EVALUATOR_VERSION,
			     (unsigned long long)lim->as_bytes,
			     (unsigned long long)lim->cpu_s,
			     (unsigned long long)lim->fsize_bytes, confined);
	char hex[65];

	sha256_hex(id, strlen(id), hex);
	free(id);
	return xasprintf("%s/%s.fail", artdir, hex);
}

int compile_build(const struct build_spec *s, struct build_out *out,
		  struct errbuf *err)
{
	const char *inc = paths_include_dir();
	char *kh_path = path_join(inc, "arena/kernel.h");
	char *kh = NULL, *ccid = NULL, *scratch = NULL, *artdir = NULL;
	char *tmpl = NULL;
	size_t khlen = 0;
	struct sha256 h;
	unsigned char dig[32];
	char key[65];
	struct strvec argv = STRVEC_INIT, pre = STRVEC_INIT, libs = STRVEC_INIT;
	struct strvec src_lang = STRVEC_INIT;
	const char *tool_path = NULL;
	char *shim = NULL, *fail = NULL, *tool_real = NULL;
	struct confine_prep *cp = NULL;
	struct strvec env = STRVEC_INIT;
	struct proc_limits lim = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (language_is_python(s->lang)) {
		free(kh_path);
		return pybuild(s, out, err);
	}
	rc = file_read_all(kh_path, SOURCES_MAX_BYTES, &kh, &khlen, err);
	if (rc) {
		errbuf_prefix(err, "the kernel ABI header (set "
			      "ARENA_INCLUDE_DIR)");
		goto done;
	}
	if (s->torch && s->dev == DEV_HOST) {
		/* A PyTorch extension for the host: C++ (torchext.c). */
		ccid = tool_id("c++");
		if (!ccid) {
			rc = errf_code(err, ENOENT, "no working C++ compiler: "
				       "`c++ --version` failed; install g++");
			goto done;
		}
		tool_path = "c++";
		for (size_t i = 0; i < ARRAY_SIZE(base_flags); i++)
			strvec_push(&pre, base_flags[i]);
	} else if (s->lang == LANG_C) {
		ccid = compile_compiler_id();
		if (!ccid) {
			rc = errf_code(err, ENOENT, "no working C compiler: `cc "
				       "--version` failed; install gcc or "
				       "clang");
			goto done;
		}
		tool_path = "cc";
		for (size_t i = 0; i < ARRAY_SIZE(base_flags); i++)
			strvec_push(&pre, base_flags[i]);
		strvec_push(&libs, "-lm");
	} else {
		const struct tool *t = tool_for(s->lang, s->dev);
		bool amd = s->lang == LANG_HIP && s->dev == DEV_HIP;
		if (!t->path) {
			rc = errf_code(err, ENOENT, "%s sources need %s, which is "
				       "not installed (or does not run); "
				       "`arena doctor` says how to install it",
				       language_name(s->lang),
				       amd ? "hipcc (ROCm)" : "nvcc (the CUDA "
				       "toolkit)");
			goto done;
		}
		if (!s->arch || !*s->arch) {
			rc = errf(err, "no target architecture for a %s build",
				  language_name(s->lang));
			goto done;
		}
		tool_path = t->path;
		ccid = xasprintf("%s\n%s", t->path, t->version);
		if (amd) {
			strvec_push(&pre, "-O2");
			strvec_push(&pre, "-shared");
			strvec_push(&pre, "-fPIC");
			strvec_pushf(&pre, "--offload-arch=%s", s->arch);
			/* .cpp sources are HIP too */
			strvec_push(&src_lang, "-x");
			strvec_push(&src_lang, "hip");
		} else {
			if (s->lang == LANG_HIP) {
				strvec_push(&pre, "-x");
				strvec_push(&pre, "cu");
				shim = path_join(inc, "arena/hip_nvidia");
			}
			strvec_push(&pre, "-O2");
			strvec_push(&pre, "-shared");
			strvec_push(&pre, "-Xcompiler");
			strvec_push(&pre, "-fPIC");
			strvec_pushf(&pre, "-arch=%s", s->arch);
		}
	}

	if (s->torch) {
		for (size_t i = 0; i < s->torch->pre.n; i++)
			strvec_push(&pre, s->torch->pre.v[i]);
		for (size_t i = 0; i < s->torch->libs.n; i++)
			strvec_push(&libs, s->torch->libs.v[i]);
	}

	sha256_init(&h);
	hash_str(&h, "arena-artifact/2");
	hash_str(&h, ccid);
	if (s->torch)
		hash_str(&h, s->torch->id);
	for (size_t i = 0; i < pre.n; i++)
		hash_str(&h, pre.v[i]);
	hash_str(&h, "flags");
	for (size_t i = 0; s->flags && i < s->flags->n; i++)
		hash_str(&h, s->flags->v[i]);
	hash_str(&h, "defines");
	for (size_t i = 0; s->defines && i < s->defines->n; i++)
		hash_str(&h, s->defines->v[i]);
	hash_str(&h, "sources");
	for (int i = 0; i < s->src->n; i++) {
		hash_str(&h, s->src->path[i]);
		if (s->src->data[i])
			hash_field(&h, s->src->data[i], s->src->len[i]);
		else
			hash_str(&h, "-");
	}
	for (size_t i = 0; i < src_lang.n; i++)
		hash_str(&h, src_lang.v[i]);
	for (size_t i = 0; i < libs.n; i++)
		hash_str(&h, libs.v[i]);
	hash_str(&h, "compile");
	for (size_t i = 0; i < s->compile->n; i++)
		hash_str(&h, s->compile->v[i]);
	hash_field(&h, kh, khlen);
	if (shim) {
		static const char *const dirs[] = { "hip", "c10/hip",
						    "ATen/hip" };
		for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
			char *d = path_join(shim, dirs[i]);
			hash_dir_headers(&h, d);
			free(d);
		}
	}
	if (s->extra_include)
		hash_dir_headers(&h, s->extra_include);
	sha256_final(&h, dig);
	sha256_to_hex(dig, key);

	artdir = path_join(s->cache_dir, "artifacts");
	if ((rc = mkdir_p(artdir, err)))
		goto done;
	char *art = xasprintf("%s/%s.so", artdir, key);
	struct stat st;
	if (stat(art, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		out->so_path = art;
		out->cached = true;
		goto done;
	}

	/* Limits for every build; confinement and the negative cache for
	 * the candidate's (its sources are the agent's). */
	lim.as_bytes = (uint64_t)(s->memory_mb > 0    ? s->memory_mb
				  : s->lang == LANG_C ? 4096
						      : 16384)
		       << 20;
	lim.cpu_s = (uint64_t)(s->timeout_s > 20 ? s->timeout_s / 2 : 10);
	lim.fsize_bytes = 1ull << 30;
	tool_real = which(tool_path);
	bool confined = s->confine && confine_available(NULL);
	if (s->confine) {
		char *data = NULL;
		size_t len = 0;
		struct errbuf ign;
		errbuf_init(&ign);
		fail = fail_path(artdir, key, &lim, confined);
		if (file_read_all(fail, 2 * COMPILE_MSG_MAX, &data, &len,
				  &ign) == 0) {
			out->message =
				xasprintf("%s\n[answered from the cache of "
					  "failed builds: these exact "
					  "sources failed before under "
					  "the same limits]",
					  data);
			out->negative_cached = true;
			out->confined = confined;
			free(data);
			free(art);
			goto done;
		}
	}

	/* Missing sources are the author's problem, not a build failure. */
	for (size_t i = 0; i < s->compile->n; i++) {
		for (int k = 0; k < s->src->n; k++)
			if (strcmp(s->src->path[k], s->compile->v[i]) == 0 &&
			    !s->src->data[k]) {
				out->message = xasprintf("%s is missing",
							 s->compile->v[i]);
				free(art);
				goto done;
			}
	}
	if (s->compile->n == 0) {
		out->message = xasprintf("there is no %s source file to "
					 "compile", language_name(s->lang));
		free(art);
		goto done;
	}

	char *sdir = path_join(s->cache_dir, "scratch");
	rc = mkdir_p(sdir, err);
	tmpl = xasprintf("%s/build-%s-XXXXXX", sdir, s->role);
	free(sdir);
	if (rc || !mkdtemp(tmpl)) {
		if (!rc)
			rc = errf_code(err, errno, "cannot create a build "
				       "directory under %s: %s", s->cache_dir,
				       strerror(errno));
		free(art);
		goto done;
	}
	scratch = tmpl;
	tmpl = NULL;
	if ((rc = write_sources(s->src, scratch, err))) {
		free(art);
		goto done;
	}
	if (confined) {
		struct confine_plan plan;
		struct confine_spec cs = {
			.profile = CONFINE_COMPILER,
			.scratch = scratch,
			.tool = tool_real,
			.hide = s->hide,
			.ro = s->torch ? &s->torch->dirs : NULL,
		};
		struct errbuf ce;
		errbuf_init(&ce);
		confine_plan_for(&cs, &plan);
		cp = confine_prepare(&plan, &ce);
		confine_plan_release(&plan);
		confined = cp != NULL;
	}
	out->confined = confined;
	/* Inside the sandbox the include directory is at a fixed path. */
	const char *inc_arg = confined ? CONFINE_INCLUDE_DIR : inc;
	if (shim) {
		free(shim);
		shim = path_join(inc_arg, "arena/hip_nvidia");
	}

	strvec_push(&argv, tool_real ? tool_real : tool_path);
	for (size_t i = 0; i < pre.n; i++)
		strvec_push(&argv, pre.v[i]);
	if (shim)
		strvec_pushf(&argv, "-I%s", shim);
	strvec_pushf(&argv, "-I%s", inc_arg);
	strvec_push(&argv, "-I.");
	if (s->extra_include)
		strvec_pushf(&argv, "-I%s", s->extra_include);
	for (size_t i = 0; s->flags && i < s->flags->n; i++)
		strvec_push(&argv, s->flags->v[i]);
	for (size_t i = 0; s->defines && i < s->defines->n; i++)
		strvec_pushf(&argv, "-D%s", s->defines->v[i]);
	strvec_push(&argv, "-o");
	strvec_push(&argv, "out.so");
	for (size_t i = 0; i < src_lang.n; i++)
		strvec_push(&argv, src_lang.v[i]);
	for (size_t i = 0; i < s->compile->n; i++)
		strvec_push(&argv, s->compile->v[i]);
	/* The runner does not load libm for its own sake (as-needed); a
	 * C kernel that calls exp() must say that it needs it. */
	for (size_t i = 0; i < libs.n; i++)
		strvec_push(&argv, libs.v[i]);

	struct proc_result pr;
	int tmo = (int)(s->timeout_s > 0 ? s->timeout_s * 1000 : 60000);
	char *tool_dir = tool_real ? xstrdup(tool_real) : NULL;
	if (tool_dir)
		*strrchr(tool_dir, '/') = '\0';
	/* Confined, /tmp is the sandbox's own; otherwise the scratch
	 * directory, removed with the build. */
	compile_env(&env, tool_dir, confined ? "/tmp" : scratch);
	free(tool_dir);
	struct proc_capture pc = {
		.argv = argv.v,
		.cwd = confined ? CONFINE_BUILD_DIR : scratch,
		.envp = env.v,
		.timeout_ms = tmo,
		.out_max = COMPILE_LOG_MAX,
		.limits = &lim,
		.confine = cp,
	};
	rc = proc_run(&pc, &pr, err);
	if (rc) {
		free(art);
		goto done;
	}
	if (s->log_path) {
		struct errbuf ign;
		errbuf_init(&ign);
		struct strbuf log = STRBUF_INIT;
		strbuf_addf(&log, "# %s\n",
			    confined ? "confined (arena/confine.h)"
				     : "not confined");
		for (size_t i = 0; i < argv.n; i++)
			strbuf_addf(&log, "%s%s", i ? " " : "$ ", argv.v[i]);
		strbuf_addf(&log, "\n%s", pr.output);
		file_write_atomic(s->log_path, log.buf, log.len, &ign);
		strbuf_release(&log);
	}
	const char *limit = limit_hit(pr.output, pr.status);
	if (pr.timed_out) {
		out->message = xasprintf("compilation did not finish within "
					 "%.3g s", tmo / 1000.0);
	} else if (WIFEXITED(pr.status) &&
		   WEXITSTATUS(pr.status) == CONFINE_EXIT_FAILED && cp) {
		rc = errf_code(err, EPERM,
			       "the candidate's compiler could not "
			       "enter its sandbox: %s",
			       pr.output);
		free(art);
		proc_result_release(&pr);
		goto done;
	} else if (WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 127 &&
		   str_starts_with(pr.output, "cannot run ")) {
		/* Not the sources' fault: the compiler did not start. */
		size_t n = strcspn(pr.output, "\n");
		rc = errf_code(err, ENOENT,
			       "the %s compiler did not start%s: "
			       "%.*s",
			       s->role, confined ? " in its sandbox" : "",
			       (int)n, pr.output);
		free(art);
		proc_result_release(&pr);
		goto done;
	} else if (!WIFEXITED(pr.status) || WEXITSTATUS(pr.status) != 0) {
		char *msg = compile_message(pr.output, scratch);
		if (limit) {
			char lim_s[64];
			if (!strcmp(limit, "memory"))
				snprintf(lim_s, sizeof(lim_s),
					 "%llu MiB of "
					 "address space per process",
					 (unsigned long long)(lim.as_bytes >>
							      20));
			else if (!strcmp(limit, "CPU time"))
				snprintf(lim_s, sizeof(lim_s),
					 "%llu s of CPU "
					 "per process",
					 (unsigned long long)lim.cpu_s);
			else
				snprintf(lim_s, sizeof(lim_s),
					 "%llu MiB per "
					 "file",
					 (unsigned long long)(lim.fsize_bytes >>
							      20));
			out->message = xasprintf("compilation stopped at the "
						 "compiler's %s limit (%s; "
						 "timing.compile_memory_mb and "
						 "compile_timeout_s set them): "
						 "%s",
						 limit, lim_s, msg);
			free(msg);
		} else {
			out->message = msg;
		}
		/* Deterministic failures only: a compile error or one of the
		 * compiler's own limits depends on the sources; a deadline
		 * depends on the load, and a pass killed by a signal of
		 * another kind (the machine's OOM killer) or crashing
		 * ("internal compiler error") may not happen again. */
		bool other_signal =
			(WIFSIGNALED(pr.status) && !limit) ||
			strstr(pr.output, "Killed signal") ||
			(strstr(pr.output, "terminated program") && !limit) ||
			strstr(pr.output, "internal compiler error");
		if (fail && !other_signal) {
			struct errbuf ign;
			errbuf_init(&ign);
			file_write_atomic_str(fail, out->message, &ign);
		}
	} else {
		char *built = path_join(scratch, "out.so");
		if (rename(built, art) != 0) {
			rc = errf_code(err, errno, "cannot store the artifact "
				       "%s: %s", art, strerror(errno));
			free(built);
			free(art);
			proc_result_release(&pr);
			goto done;
		}
		free(built);
		out->so_path = art;
		art = NULL;
	}
	free(art);
	proc_result_release(&pr);
	rc = 0;
done:
	if (scratch)
		rm_rf(scratch);
	free(scratch);
	free(tmpl);
	free(artdir);
	free(kh);
	free(kh_path);
	free(ccid);
	free(shim);
	free(fail);
	free(tool_real);
	confine_prep_free(cp);
	strvec_release(&env);
	strvec_release(&argv);
	strvec_release(&pre);
	strvec_release(&libs);
	strvec_release(&src_lang);
	return rc;
}
