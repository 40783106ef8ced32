/*
 * torchext.c - what a PyTorch extension module is built with: the kernel
 * of a gpumode AgentKernelArena task is one (its editable .hip file holds
 * kernels, a launcher and a PYBIND11_MODULE exporting `forward`;
 * docs/aka.md).
 *
 * torch_ext_flags() asks the interpreter's torch, once per process, for
 * what torch.utils.cpp_extension would build with - its headers and
 * libraries, its C++ ABI, Python's headers, torch's own nvcc flags - and
 * turns that into compiler arguments for one kind of device.  The build
 * itself is compile_build()'s (compile.c): cached by content, under the
 * build's limits, confined for a candidate, like every artifact.  Nothing
 * of torch's own build machinery (ninja, its build directories, hipify)
 * runs: the compiler is called directly, as for any kernel.
 */
#include "eval_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "arena/paths.h"
#include "arena/proc.h"

#define QUERY_TIMEOUT_MS 120000
#define QUERY_OUTPUT_MAX (64 * 1024)
#define QUERY_MARK "ARENA-TORCH "

/* Printed by the interpreter: one marked JSON line. */
static const char query_py[] =
	"import json, os, sysconfig\n"
	"import torch\n"
	"import torch.utils.cpp_extension as c\n"
	"print('" QUERY_MARK "' + json.dumps({\n"
	"  'version': torch.__version__,\n"
	"  'home': os.path.dirname(torch.__file__),\n"
	"  'include': c.include_paths(),\n"
	"  'libdirs': c.library_paths(),\n"
	"  'abi': int(torch._C._GLIBCXX_USE_CXX11_ABI),\n"
	"  'python_include': sysconfig.get_paths()['include'],\n"
	"  'nvcc': list(getattr(c, 'COMMON_NVCC_FLAGS', [])),\n"
	"  'cuda': torch.version.cuda,\n"
	"  'hip': getattr(torch.version, 'hip', None)}))\n";

struct torch_info {
	char *error;
	char *version, *home, *python_include;
	struct strvec include, libdirs, nvcc;
	int abi;
	bool cuda, hip;
};

static struct torch_info info;
static pthread_once_t info_once = PTHREAD_ONCE_INIT;

/* The array's strings, each a directory resolved (a confined compiler
 * is shown directories at their real paths, confine.c). */
static void json_dirs(const cJSON *a, struct strvec *out)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it) || !it->valuestring[0])
			continue;
		char *real = path_real(it->valuestring);
		strvec_push(out, real ? real : it->valuestring);
		free(real);
	}
}

static bool dir_has(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	bool ok = file_exists(p);

	free(p);
	return ok;
}

/* Whether one of dirs holds rel. */
static bool dirs_have(const struct strvec *dirs, const char *rel)
{
	for (size_t i = 0; i < dirs->n; i++)
		if (dir_has(dirs->v[i], rel))
			return true;
	return false;
}

static const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void query_torch(void)
{
	char *argv[] = { (char *)paths_python(), (char *)"-B",	   (char *)"-s",
			 (char *)"-c",		 (char *)query_py, NULL };
	char *const envp[] = { (char *)"PATH=/usr/local/bin:/usr/bin:/bin",
			       (char *)"LC_ALL=C.UTF-8",
			       (char *)"HOME=/nonexistent", NULL };
	struct proc_result pr;
	struct errbuf e;
	const char *line;
	cJSON *j = NULL;

	errbuf_init(&e);
	if (proc_run_capture(argv, NULL, envp, QUERY_TIMEOUT_MS,
			     QUERY_OUTPUT_MAX, &pr, &e) != 0) {
		info.error = xasprintf("%s could not start: %s", paths_python(),
				       errbuf_str(&e));
		return;
	}
	line = pr.output ? strstr(pr.output, QUERY_MARK) : NULL;
	if (line) {
		size_t n = strcspn(line, "\n");
		char *text = xstrndup(line + strlen(QUERY_MARK),
				      n - strlen(QUERY_MARK));
		j = cJSON_Parse(text);
		free(text);
	}
	if (!j) {
		char st[96];
		const char *o = pr.output ? pr.output : "";
		size_t len = pr.output_len > 400 ? 400 : pr.output_len;
		proc_describe_status(pr.status, st, sizeof(st));
		info.error = xasprintf(
			"%s cannot tell how torch builds extensions "
			"(%s): %.*s",
			paths_python(), st, (int)len, o + pr.output_len - len);
		proc_result_release(&pr);
		return;
	}
	proc_result_release(&pr);
	info.version =
		xstrdup(json_str(j, "version") ? json_str(j, "version") : "?");
	info.home = json_str(j, "home") ? path_real(json_str(j, "home")) : NULL;
	if (!info.home)
		info.home = xstrdup(json_str(j, "home") ? json_str(j, "home")
							: "?");
	if (json_str(j, "python_include")) {
		char *real = path_real(json_str(j, "python_include"));
		info.python_include =
			real ? real : xstrdup(json_str(j, "python_include"));
	}
	json_dirs(cJSON_GetObjectItemCaseSensitive(j, "include"),
		  &info.include);
	json_dirs(cJSON_GetObjectItemCaseSensitive(j, "libdirs"),
		  &info.libdirs);
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(j, "nvcc"))
	{
		if (cJSON_IsString(it) && it->valuestring[0])
			strvec_push(&info.nvcc, it->valuestring);
	}
	const cJSON *abi = cJSON_GetObjectItemCaseSensitive(j, "abi");
	info.abi = cJSON_IsNumber(abi) ? abi->valueint : 1;
	info.cuda = json_str(j, "cuda") != NULL;
	info.hip = json_str(j, "hip") != NULL;
	cJSON_Delete(j);
	if (!dirs_have(&info.include, "torch/extension.h") ||
	    info.libdirs.n == 0)
		info.error = xasprintf("torch %s at %s has no C++ headers "
				       "for extensions (torch/extension.h; "
				       "Debian: apt-get install libtorch-dev "
				       "pybind11-dev)",
				       info.version, info.home);
	else if (!info.python_include ||
		 !dir_has(info.python_include, "Python.h"))
		info.error = xasprintf("Python's headers (Python.h) are "
				       "missing under %s: apt-get install "
				       "python3-dev",
				       info.python_include ? info.python_include
							   : "?");
}

void torch_ext_flags_release(struct torch_ext_flags *f)
{
	free(f->id);
	strvec_release(&f->pre);
	strvec_release(&f->libs);
	strvec_release(&f->dirs);
	memset(f, 0, sizeof(*f));
}

int torch_ext_flags(enum dev_kind dev, const char *module,
		    struct torch_ext_flags *f, struct errbuf *err)
{
	static const char *const libs_common[] = { "c10", "torch", "torch_cpu",
						   "torch_python" };

	memset(f, 0, sizeof(*f));
	pthread_once(&info_once, query_torch);
	if (info.error)
		return errf_code(err, ENOENT,
				 "a PyTorch extension cannot be "
				 "built: %s",
				 info.error);
	if (dev == DEV_CUDA && !info.cuda)
		return errf_code(err, ENOENT,
				 "torch %s at %s was built without "
				 "CUDA: it cannot load a CUDA extension",
				 info.version, info.home);
	if (dev == DEV_HIP && !info.hip)
		return errf_code(err, ENOENT,
				 "torch %s at %s was built without "
				 "ROCm: it cannot load a HIP extension",
				 info.version, info.home);
	f->id = xasprintf("torch %s at %s (C++ ABI %d)", info.version,
			  info.home, info.abi);
	if (dev == DEV_CUDA) {
		/* torch's own flags (no implicit half conversions, relaxed
		 * constexpr), and the CUDA runtime torch itself uses. */
		for (size_t i = 0; i < info.nvcc.n; i++)
			strvec_push(&f->pre, info.nvcc.v[i]);
		strvec_push(&f->pre, "-cudart");
		strvec_push(&f->pre, "shared");
	} else if (dev == DEV_HOST) {
		strvec_push(&f->pre, "-x");
		strvec_push(&f->pre, "c++");
	}
	strvec_push(&f->pre, "-std=c++17");
	strvec_pushf(&f->pre, "-DTORCH_EXTENSION_NAME=%s", module);
	strvec_push(&f->pre, "-DTORCH_API_INCLUDE_EXTENSION_H");
	strvec_pushf(&f->pre, "-D_GLIBCXX_USE_CXX11_ABI=%d", info.abi);
	/* Two words each: nvcc knows no "-isystemDIR". */
	for (size_t i = 0; i < info.include.n; i++) {
		strvec_push(&f->pre, "-isystem");
		strvec_push(&f->pre, info.include.v[i]);
	}
	if (info.python_include) {
		strvec_push(&f->pre, "-isystem");
		strvec_push(&f->pre, info.python_include);
		strvec_push(&f->dirs, info.python_include);
	}
	/* torch may live outside the system directories a confined
	 * compiler sees (/opt/torch/.venv on the H200). */
	strvec_push(&f->dirs, info.home);
	for (size_t i = 0; i < info.include.n; i++)
		strvec_push(&f->dirs, info.include.v[i]);
	for (size_t i = 0; i < info.libdirs.n; i++)
		strvec_push(&f->dirs, info.libdirs.v[i]);
	for (size_t i = 0; i < info.libdirs.n; i++)
		strvec_pushf(&f->libs, "-L%s", info.libdirs.v[i]);
	for (size_t i = 0; i < ARRAY_SIZE(libs_common); i++)
		strvec_pushf(&f->libs, "-l%s", libs_common[i]);
	if (dev == DEV_CUDA) {
		strvec_push(&f->libs, "-lc10_cuda");
		strvec_push(&f->libs, "-ltorch_cuda");
	} else if (dev == DEV_HIP) {
		strvec_push(&f->libs, "-lc10_hip");
		strvec_push(&f->libs, "-ltorch_hip");
	}
	return 0;
}
