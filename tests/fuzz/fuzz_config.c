/*
 * fuzz_config.c - libFuzzer harness for the run config parser.
 *
 * runconfig_parse() expands task selectors against a tasks root, so on the
 * first call the harness builds a tiny tree under /tmp (c2c/a and c2c/b
 * valid, broken/bad invalid) and removes it at exit; selectors in the
 * corpus ("c2c", "all", "c2c/a", "broken") then reach the loading paths.
 * A failure must come with a message and leave *out NULL.
 */
#include "arena/config.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_task_cfg[] =
	"schema: arena/1\n"
	"description: Scale a vector.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"cases:\n"
	"  - {id: small, n: 16}\n"
	"tolerance: {atol: 1e-6, rtol: 1e-6}\n";

static char *fuzz_root;

static void fuzz_cleanup(void)
{
	if (fuzz_root)
		rm_rf(fuzz_root);
	free(fuzz_root);
	fuzz_root = NULL;
}

static void fuzz_write(const char *rel, const char *text)
{
	char *path = path_join(fuzz_root, rel);
	char *parent = xstrdup(path);
	struct errbuf err;

	*strrchr(parent, '/') = '\0';
	errbuf_init(&err);
	if (mkdir_p(parent, &err) || file_write_atomic_str(path, text, &err))
		abort();
	free(parent);
	free(path);
}

static const char *fuzz_tasks_root(void)
{
	static char *tasks;
	char tmpl[] = "/tmp/arena-fuzz-config-XXXXXX";

	if (tasks)
		return tasks;
	if (!mkdtemp(tmpl))
		abort();
	fuzz_root = xstrdup(tmpl);
	atexit(fuzz_cleanup);
	fuzz_write("tasks/c2c/a/config.yaml", fuzz_task_cfg);
	fuzz_write("tasks/c2c/a/kernel.c", "/* a */\n");
	fuzz_write("tasks/c2c/a/reference.c", "/* a */\n");
	fuzz_write("tasks/c2c/b/config.yaml", fuzz_task_cfg);
	fuzz_write("tasks/c2c/b/kernel.c", "/* b */\n");
	fuzz_write("tasks/c2c/b/reference.c", "/* b */\n");
	fuzz_write("tasks/broken/bad/config.yaml", "schema: arena/1\n");
	tasks = path_join(fuzz_root, "tasks");
	return tasks;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = fuzz_tasks_root();
	struct runconfig *c = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (runconfig_parse("fuzz.yaml", (const char *)data, size, root, &c,
			    &err) == 0) {
		if (!c || c->task_ids.n == 0 || c->repeats < 1 ||
		    c->timing.correctness_trials < 3)
			abort();
		runconfig_free(c);
	} else if (!err.set || c != NULL) {
		abort();
	}
	return 0;
}
