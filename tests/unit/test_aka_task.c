/*
 * test_aka_task.c - AgentKernelArena task folders as the task room loads
 * them (docs/aka.md): legacy keys and schema_version 2 parsed strictly,
 * the editable files, the harness style, what is skipped and why, task
 * roots and aka:PATH selectors, families of root-prefixed ids, TASK.md.
 * Folders are written under a mkdtemp root; tests/aka/tasks holds the
 * fixtures the evaluator's tests run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "arena/task.h"

static char *root; /* mkdtemp: <root>/tasks/<family>/... */

static const char vllm_cfg[] =
	"source_file_path:\n  - source/k.py\n"
	"target_kernel_functions:\n  - _k_kernel\n"
	"compile_command:\n  - python3 scripts/task_runner.py compile\n"
	"correctness_command:\n  - python3 scripts/task_runner.py correctness\n"
	"performance_command:\n  - python3 scripts/task_runner.py performance\n"
	"task_type: triton2triton\n"
	"task_result_template: null\n"
	"prompt:\n  source_code: null\n  instructions: |\n"
	"    Optimize the kernel.\n    Second line.\n  cheatsheet: null\n";

static void put(const char *rel, const char *text)
{
	char *path = path_join(root, rel), *dir = xstrdup(path);
	struct errbuf e;

	errbuf_init(&e);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir, &e), 0);
	assert_int_equal(file_write_atomic_str(path, text, &e), 0);
	free(path);
	free(dir);
}

static char *tasks_dir(void)
{
	return path_join(root, "tasks");
}

static int load(const char *id, struct task **t, struct errbuf *e)
{
	char *tr = tasks_dir();
	int rc;

	errbuf_init(e);
	rc = task_load(tr, id, t, e);
	free(tr);
	return rc;
}

static void vllm_folder(const char *id, const char *cfg, const char *src)
{
	char p[256];

	snprintf(p, sizeof(p), "tasks/%s/config.yaml", id);
	put(p, cfg);
	snprintf(p, sizeof(p), "tasks/%s/source/k.py", id);
	put(p,
	    src ? src : "import triton\n\ndef k(x):\n    _k_kernel[(1,)](x)\n");
	snprintf(p, sizeof(p), "tasks/%s/scripts/task_runner.py", id);
	put(p, "TEST_SHAPES = [(1, 2)]\n");
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/arena-test-aka-task-XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	root = xstrdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	free(root);
	return 0;
}

/* ---- legacy keys -------------------------------------------------------- */

static void
test_a_vllm_folder_loads_with_its_style_harness_and_editable_file(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder("triton2triton/vllm/k1", vllm_cfg, NULL);
	assert_int_equal(load("triton2triton/vllm/k1", &t, &e), 0);
	assert_non_null(t->aka);
	assert_int_equal(t->aka->schema_version, 1);
	assert_int_equal(t->aka->style, AKA_STYLE_VLLM);
	assert_string_equal(t->aka->harness, "scripts/task_runner.py");
	assert_string_equal(t->aka->task_type, "triton2triton");
	assert_int_equal(t->editable.n, 1);
	assert_string_equal(t->editable.v[0], "source/k.py");
	assert_int_equal(t->language, LANG_TRITON);
	assert_string_equal(t->description, "Optimize the kernel.");
	assert_string_equal(t->family, "triton2triton");
	assert_null(t->aka->skip_reason);
	assert_int_equal(t->aka->correctness_command.n, 1);
	assert_int_equal(t->aka->timeout_s[AKA_TIMEOUT_CORRECTNESS], 3600);
	task_free(t);
}

static void test_a_kernel_that_imports_no_triton_is_a_python_host_task(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder("triton2triton/vllm/k2", vllm_cfg,
		    "import torch\n\ndef k(x):\n    return _k_kernel(x)\n");
	assert_int_equal(load("triton2triton/vllm/k2", &t, &e), 0);
	assert_int_equal(t->language, LANG_PYTHON);
	assert_int_equal(t->reference_language, LANG_PYTHON);
	task_free(t);
}

static void test_a_pytest_correctness_command_is_the_rocmbench_style(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	put("tasks/triton2triton/rocmbench/sm/config.yaml",
	    "compile_command:\n- python -c \"import ast\"\n"
	    "correctness_command:\n- pytest -vv -x sm.py -k \"not test_performance\"\n"
	    "performance_command:\n- pytest -vv -x sm.py -k \"test_performance\"\n"
	    "task_type: triton2triton\n"
	    "source_file_path:\n- sm.py\ntarget_kernel_functions:\n- sm_kernel\n");
	put("tasks/triton2triton/rocmbench/sm/sm.py", "import triton\n");
	assert_int_equal(load("triton2triton/rocmbench/sm", &t, &e), 0);
	assert_int_equal(t->aka->style, AKA_STYLE_ROCMBENCH);
	assert_string_equal(t->aka->harness, "sm.py");
	task_free(t);
}

static void
test_an_instruction_folder_without_sources_edits_the_file_defining_its_targets(
	void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	put("tasks/instruction2triton/rocmbench/ad/config.yaml",
	    "compile_command: []\n"
	    "correctness_command:\n- pytest -x ad.py -k \"not test_performance\"\n"
	    "performance_command: []\n"
	    "task_type: instruction2triton\n"
	    "source_file_path: []\n"
	    "target_kernel_functions:\n- add_kernel,sub_kernel\n");
	put("tasks/instruction2triton/rocmbench/ad/helper.py",
	    "def other():\n  pass\n");
	put("tasks/instruction2triton/rocmbench/ad/ad.py",
	    "import triton\n@triton.jit\ndef add_kernel(x):\n  pass\n\n"
	    "@triton.jit\ndef sub_kernel(\n  x):\n  pass\n");
	assert_int_equal(load("instruction2triton/rocmbench/ad", &t, &e), 0);
	assert_int_equal(t->editable.n, 1);
	assert_string_equal(t->editable.v[0], "ad.py");
	/* "a,b" in one entry is two targets. */
	assert_int_equal(t->aka->targets.n, 2);
	assert_string_equal(t->aka->targets.v[1], "sub_kernel");
	task_free(t);
}

static void
test_target_file_path_is_the_editable_file_not_the_pytorch_module(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	put("tasks/torch2hip/gpumode/gelu/config.yaml",
	    "source_file_path:\n- pytorch_code_module/py_gelu.py\n"
	    "target_kernel_functions:\n- forward\n"
	    "compile_command:\n- python3 eval_tools/compile.py --hip_file hip/gelu.hip\n"
	    "correctness_command:\n- python3 eval_tools/correctness_check.py --hip_file hip/gelu.hip\n"
	    "performance_command: []\n"
	    "target_file_path: hip/gelu.hip\ntask_type: torch2hip\n");
	put("tasks/torch2hip/gpumode/gelu/hip/gelu.hip", "// hip\n");
	put("tasks/torch2hip/gpumode/gelu/pytorch_code_module/py_gelu.py",
	    "x = 1\n");
	assert_int_equal(load("torch2hip/gpumode/gelu", &t, &e), 0);
	assert_int_equal(t->editable.n, 1);
	assert_string_equal(t->editable.v[0], "hip/gelu.hip");
	assert_int_equal(t->aka->style, AKA_STYLE_GPUMODE);
	/* A GPU task (its extension is HIP, built through the portability
	 * layer), not skipped. */
	assert_int_equal(t->language, LANG_HIP);
	assert_null(t->aka->skip_reason);
	task_free(t);
}

static void gpumode_folder(const char *id, const char *hip)
{
	char *p = xasprintf("tasks/%s/config.yaml", id);
	put(p, "source_file_path:\n- hip/hip_1_K.hip\n"
	       "target_kernel_functions:\n- forward\n"
	       "compile_command: []\n"
	       "correctness_command:\n- python3 eval_tools/correctness_check.py "
	       "--py_modu_file pytorch_code_module/py_1_K.py --py_func_file "
	       "pytorch_code_functional/py_1_K_func.py --hip_file hip/hip_1_K.hip\n"
	       "performance_command: []\n"
	       "target_file_path: hip/hip_1_K.hip\ntask_type: hip2hip\n");
	free(p);
	p = xasprintf("tasks/%s/hip/hip_1_K.hip", id);
	put(p, hip);
	free(p);
}

static void
test_a_gpumode_extension_is_gpu_code_unless_it_is_host_cpp_and_amd_only_is_skipped(
	void **s)
{
	static const struct {
		const char *id, *hip;
		enum task_language lang;
		const char *skip; /* in the reason, or NULL: not skipped */
	} cases[] = {
		{ "hip2hip/gpumode/g1",
		  "#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
		  "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n",
		  LANG_HIP, NULL },
		{ "hip2hip/gpumode/g2",
		  "#include <torch/extension.h>\n"
		  "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n",
		  LANG_PYTHON, NULL },
		{ "hip2hip/gpumode/g3", "", LANG_HIP, NULL },
		{ "hip2hip/gpumode/g4",
		  "#include <hipblas/hipblas.h>\n__global__ void k() {}\n",
		  LANG_HIP, "hipBLAS" },
		{ "hip2hip/gpumode/g5",
		  "__global__ void k() { __builtin_amdgcn_s_barrier(); }\n",
		  LANG_HIP, "__builtin_amdgcn" },
		{ "hip2hip/gpumode/g6",
		  "__global__ void k() {}\nconstexpr int kWarpSize = 64;\n",
		  LANG_HIP, "64-wide wavefront" },
		{ "hip2hip/gpumode/g7",
		  "#define WAVE_SIZE 64\n__global__ void k() {}\n", LANG_HIP,
		  "64-wide wavefront" },
		{ "hip2hip/gpumode/g8",
		  "__global__ void k() { int lanes = warpSize; }\n"
		  "constexpr int kTile = 64;\n",
		  LANG_HIP, NULL },
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct task *t;
		struct errbuf e;
		gpumode_folder(cases[i].id, cases[i].hip);
		assert_int_equal(load(cases[i].id, &t, &e), 0);
		assert_int_equal(t->aka->style, AKA_STYLE_GPUMODE);
		if (t->language != cases[i].lang)
			fail_msg("%s: language %s", cases[i].id,
				 language_name(t->language));
		if (cases[i].skip)
			assert_non_null(t->aka->skip_reason &&
					strstr(t->aka->skip_reason,
					       cases[i].skip));
		else if (t->aka->skip_reason)
			fail_msg("%s skipped: %s", cases[i].id,
				 t->aka->skip_reason);
		task_free(t);
	}
}

static void test_an_unknown_legacy_key_is_an_error_naming_it(void **s)
{
	struct task *t;
	struct errbuf e;
	char *cfg = xasprintf("%scolour: blue\n", vllm_cfg);

	(void)s;
	vllm_folder("triton2triton/vllm/bad1", cfg, NULL);
	assert_int_not_equal(load("triton2triton/vllm/bad1", &t, &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "colour"));
	assert_non_null(strstr(errbuf_str(&e), "config.yaml"));
	free(cfg);
}

static void
test_a_command_written_as_a_string_is_an_error_showing_the_list(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder(
		"triton2triton/vllm/bad2",
		"source_file_path: [source/k.py]\n"
		"correctness_command: python3 scripts/task_runner.py correctness\n"
		"task_type: triton2triton\n",
		NULL);
	assert_int_not_equal(load("triton2triton/vllm/bad2", &t, &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "must be a list"));
	assert_non_null(strstr(errbuf_str(&e), "correctness_command: ["));
}

static void test_a_folder_without_a_correctness_command_is_an_error(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder(
		"triton2triton/vllm/bad3",
		"source_file_path: [source/k.py]\ntask_type: triton2triton\n",
		NULL);
	assert_int_not_equal(load("triton2triton/vllm/bad3", &t, &e), 0);
	assert_non_null(
		strstr(errbuf_str(&e), "correctness_command is missing"));
}

static void test_a_missing_editable_file_is_an_error(void **s)
{
	struct task *t;
	struct errbuf e;
	char *cfg = xstrdup(vllm_cfg);
	char *at = strstr(cfg, "source/k.py");

	(void)s;
	memcpy(at, "source/x.py", 11);
	vllm_folder("triton2triton/vllm/bad4", cfg, NULL);
	assert_int_not_equal(load("triton2triton/vllm/bad4", &t, &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "'source/x.py' does not exist"));
	free(cfg);
}

/* ---- what is skipped ------------------------------------------------------ */

static void
test_amd_only_folders_are_loaded_and_skipped_with_their_reason(void **s)
{
	static const struct {
		const char *id, *extra, *src, *phrase;
	} cases[] = {
		{ "triton2triton/vllm/aiter", "",
		  "import aiter\nimport triton\n", "aiter" },
		{ "flydsl2flydsl/x/fly", "", "import flydsl\n", "FlyDSL" },
		{ "triton2triton/vllm/plat",
		  "platform_support:\n  status: skip\n  skip_reason: gfx950 only\n",
		  NULL, "gfx950 only" },
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct task *t;
		struct errbuf e;
		char *cfg = xasprintf("%s%s", vllm_cfg, cases[i].extra);
		if (strstr(cases[i].id, "flydsl")) {
			free(cfg);
			cfg = xasprintf("%s", vllm_cfg);
			char *tt = strstr(cfg, "triton2triton");
			memcpy(tt, "flydsl2flydsl", 13);
		}
		vllm_folder(cases[i].id, cfg, cases[i].src);
		assert_int_equal(load(cases[i].id, &t, &e), 0);
		assert_non_null(t->aka->skip_reason);
		if (!strstr(t->aka->skip_reason, cases[i].phrase))
			fail_msg("%s: skip reason '%s' lacks '%s'", cases[i].id,
				 t->aka->skip_reason, cases[i].phrase);
		task_free(t);
		free(cfg);
	}
}

static void
test_image_and_repository_tasks_are_skipped_even_without_their_sources(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	put("tasks/image_kernel/ua/config.yaml",
	    "task_type: image_kernel\nimage_repo_path: /usr/lib/aiter\n"
	    "source_file_path: [ops/ua.py]\n"
	    "correctness_command: [python3 scripts/task_runner.py correctness]\n");
	assert_int_equal(load("image_kernel/ua", &t, &e), 0);
	assert_non_null(strstr(t->aka->skip_reason, "ROCm image"));
	task_free(t);
}

/* ---- schema_version 2 ------------------------------------------------------- */

static const char v2_cfg[] =
	"schema_version: 2\n"
	"description: RMS norm.\n"
	"candidate:\n"
	"  language: triton\n"
	"  editable:\n    - source/k.py\n"
	"  entrypoints:\n    - {file: source/k.py, kind: function, symbol: _k_kernel}\n"
	"baseline: {kind: initial_candidate, language: triton}\n"
	"evaluation:\n  runner: [python3, _arena_eval.py]\n"
	"  workloads: workloads.json\n  timeout_s: 600\n";

static void test_a_schema_v2_folder_loads_strictly(void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder("triton2triton/vllm/v2", v2_cfg, NULL);
	assert_int_equal(load("triton2triton/vllm/v2", &t, &e), 0);
	assert_int_equal(t->aka->schema_version, 2);
	assert_int_equal(t->aka->style, AKA_STYLE_VLLM);
	assert_string_equal(t->description, "RMS norm.");
	assert_int_equal(t->aka->runner.n, 2);
	assert_string_equal(t->aka->targets.v[0], "_k_kernel");
	assert_int_equal(t->aka->timeout_s[AKA_TIMEOUT_PERFORMANCE], 600);
	task_free(t);
}

static void test_schema_v2_errors_name_the_key_and_the_fix(void **s)
{
	static const struct {
		const char *from, *to, *phrase;
	} cases[] = {
		{ "schema_version: 2", "schema_version: 3",
		  "must be the integer 2" },
		{ "runner: [python3, _arena_eval.py]", "runner: python3 x.py",
		  "argv list" },
		{ "description: RMS norm.", "descripton: RMS norm.",
		  "descripton" },
		{ "  language: triton\n", "  lang: triton\n", "lang" },
		{ "    - source/k.py\n",
		  "    - {path: source/k.py, scope: line}\n",
		  "file, symbols or tree" },
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct task *t;
		struct errbuf e;
		const char *at = strstr(v2_cfg, cases[i].from);
		assert_non_null(at);
		char *cfg = xasprintf("%.*s%s%s", (int)(at - v2_cfg), v2_cfg,
				      cases[i].to, at + strlen(cases[i].from));
		char id[64];
		snprintf(id, sizeof(id), "triton2triton/vllm/v2bad%zu", i);
		vllm_folder(id, cfg, NULL);
		assert_int_not_equal(load(id, &t, &e), 0);
		if (!strstr(errbuf_str(&e), cases[i].phrase))
			fail_msg("case %zu: '%s' lacks '%s'", i, errbuf_str(&e),
				 cases[i].phrase);
		free(cfg);
	}
}

/* ---- roots and selectors ------------------------------------------------------ */

static void
test_an_aka_selector_registers_the_checkout_and_prefixes_ids(void **s)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf e;
	struct task *t;
	char *sel = xasprintf("aka:%s/tasks/triton2triton/vllm", root);

	(void)s;
	vllm_folder("triton2triton/vllm/k1", vllm_cfg, NULL);
	errbuf_init(&e);
	/* The tasks root given here is not where the folders are. */
	assert_int_equal(task_select("/nonexistent", sel, &ids, &e), 0);
	assert_true(ids.n >= 1);
	assert_true(strvec_contains(&ids, "aka/triton2triton/vllm/k1"));
	assert_non_null(task_root_path("aka"));
	assert_int_equal(task_load("/nonexistent", "aka/triton2triton/vllm/k1",
				   &t, &e),
			 0);
	assert_string_equal(t->family, "triton2triton");
	assert_string_equal(t->id, "aka/triton2triton/vllm/k1");
	task_free(t);
	char *fam = task_family_of("aka/triton2triton/vllm/k1");
	assert_string_equal(fam, "triton2triton");
	free(fam);
	assert_string_equal(task_local_id("aka/triton2triton/vllm/k1"),
			    "triton2triton/vllm/k1");
	assert_string_equal(task_local_id("c2c/saxpy"), "c2c/saxpy");
	strvec_release(&ids);
	free(sel);
}

static void test_a_root_name_cannot_be_given_another_directory(void **s)
{
	struct errbuf e;
	char *tr = tasks_dir();

	(void)s;
	errbuf_init(&e);
	assert_int_equal(task_root_add("mine", tr, &e), 0);
	assert_int_equal(task_root_add("mine", tr, &e), 0); /* same: fine */
	errbuf_init(&e);
	assert_int_not_equal(task_root_add("mine", "/tmp", &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "already"));
	errbuf_init(&e);
	assert_int_not_equal(task_root_add("bad name", tr, &e), 0);
	free(tr);
}

static void test_an_aka_selector_that_is_no_checkout_is_an_error(void **s)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf e;

	(void)s;
	errbuf_init(&e);
	assert_int_not_equal(
		task_select("/x", "aka:/nonexistent/dir", &ids, &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "not a directory"));
	errbuf_init(&e);
	assert_int_not_equal(task_select("/x", "aka:/usr", &ids, &e), 0);
	assert_non_null(strstr(errbuf_str(&e), "no tasks/ folder"));
}

/* ---- TASK.md ----------------------------------------------------------------- */

static void
test_task_md_of_an_aka_task_gives_its_prompt_commands_and_the_verdict_rules(
	void **s)
{
	struct task *t;
	struct errbuf e;

	(void)s;
	vllm_folder("triton2triton/vllm/k1", vllm_cfg, NULL);
	assert_int_equal(load("triton2triton/vllm/k1", &t, &e), 0);
	char *doc = task_doc_render(t);
	assert_non_null(strstr(doc, "Second line."));
	assert_non_null(
		strstr(doc, "python3 scripts/task_runner.py correctness"));
	assert_non_null(strstr(doc, "`source/k.py`"));
	assert_non_null(strstr(doc, "`_k_kernel`"));
	assert_non_null(strstr(doc, "arena eval triton2triton/vllm/k1"));
	assert_non_null(strstr(doc, "feedback, not the verdict"));
	free(doc);
	task_free(t);
}

static void test_aka_config_detection_tells_the_schemas_apart(void **s)
{
	(void)s;
	assert_true(aka_config_detect(vllm_cfg, strlen(vllm_cfg)));
	assert_true(aka_config_detect(v2_cfg, strlen(v2_cfg)));
	assert_false(aka_config_detect("schema: arena/1\n", 16));
	assert_false(aka_config_detect("schema: arena/1\ntask_type: x\n", 29));
	assert_false(aka_config_detect("[oops", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_a_vllm_folder_loads_with_its_style_harness_and_editable_file),
		cmocka_unit_test(
			test_a_kernel_that_imports_no_triton_is_a_python_host_task),
		cmocka_unit_test(
			test_a_pytest_correctness_command_is_the_rocmbench_style),
		cmocka_unit_test(
			test_an_instruction_folder_without_sources_edits_the_file_defining_its_targets),
		cmocka_unit_test(
			test_target_file_path_is_the_editable_file_not_the_pytorch_module),
		cmocka_unit_test(
			test_a_gpumode_extension_is_gpu_code_unless_it_is_host_cpp_and_amd_only_is_skipped),
		cmocka_unit_test(
			test_an_unknown_legacy_key_is_an_error_naming_it),
		cmocka_unit_test(
			test_a_command_written_as_a_string_is_an_error_showing_the_list),
		cmocka_unit_test(
			test_a_folder_without_a_correctness_command_is_an_error),
		cmocka_unit_test(test_a_missing_editable_file_is_an_error),
		cmocka_unit_test(
			test_amd_only_folders_are_loaded_and_skipped_with_their_reason),
		cmocka_unit_test(
			test_image_and_repository_tasks_are_skipped_even_without_their_sources),
		cmocka_unit_test(test_a_schema_v2_folder_loads_strictly),
		cmocka_unit_test(
			test_schema_v2_errors_name_the_key_and_the_fix),
		cmocka_unit_test(
			test_an_aka_selector_registers_the_checkout_and_prefixes_ids),
		cmocka_unit_test(
			test_a_root_name_cannot_be_given_another_directory),
		cmocka_unit_test(
			test_an_aka_selector_that_is_no_checkout_is_an_error),
		cmocka_unit_test(
			test_task_md_of_an_aka_task_gives_its_prompt_commands_and_the_verdict_rules),
		cmocka_unit_test(
			test_aka_config_detection_tells_the_schemas_apart),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
