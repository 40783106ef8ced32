/*
 * test_check_tasks.c - `arena check-tasks` (arena/check.h) on small tasks
 * built for each test in a temporary tasks root: the vecpoly kernel of
 * tests/adversarial with a tolerance, held-out file, README or baseline
 * that makes one check pass or fail.
 *
 * The mutants run through the real evaluator (eval_run with
 * req->mutants), so these tests also prove that a tolerance loose enough
 * to let a wrong output through is noticed, and which wrong output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/check.h"
#include "arena/engine.h"
#include "arena/eval.h"
#include "arena/paths.h"
#include "arena/result.h"
#include "arena/util.h"

struct fixture {
	char *dir;  /* store and tasks root live here */
	char *root; /* <dir>/tasks */
	struct engine *e;
};

static const char *src_dir(void)
{
	const char *s = getenv("ARENA_SOURCE_DIR");

	return s ? s : ".";
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/arena-test-check-XXXXXX";
	struct errbuf err;

	errbuf_init(&err);
	f->dir = xstrdup(mkdtemp(tmpl));
	f->root = path_join(f->dir, "tasks");
	if (mkdir_p(f->root, &err) != 0 ||
	    engine_open(f->dir, f->root, &f->e, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	engine_close(f->e);
	rm_rf(f->dir);
	free(f->root);
	free(f->dir);
	free(f);
	return 0;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	struct errbuf err;

	errbuf_init(&err);
	if (file_write_atomic_str(p, text, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	free(p);
}

/* Task t/<name>: vecpoly's baseline (or `kernel`) and reference, the
 * reference key's map `reference`, cases of 64 Ki-256 Ki elements,
 * `extra` appended to config.yaml, a held-out file and a README when
 * given. */
static void make_task_ref(struct fixture *f, const char *name,
			  const char *reference, const char *extra,
			  const char *held, const char *readme,
			  const char *kernel)
{
	char *rel = xasprintf("t/%s", name), *dir = path_join(f->root, rel);
	char *vp = path_join(src_dir(), "tests/adversarial/task/vecpoly");
	char *from, *to, *cfg;
	struct errbuf err;

	errbuf_init(&err);
	if (mkdir_p(dir, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	for (int i = 0; i < 2; i++) {
		const char *n = i ? "reference.c" : "kernel.c";
		from = path_join(vp, n);
		to = path_join(dir, n);
		if (file_copy(from, to, &err) != 0)
			fail_msg("%s", errbuf_str(&err));
		free(from);
		free(to);
	}
	if (kernel)
		write_file(dir, "kernel.c", kernel);
	cfg = xasprintf(
		"schema: arena/1\n"
		"description: y = the degree-4 Taylor polynomial of exp(x).\n"
		"language: c\n"
		"editable: [kernel.c]\n"
		"reference: %s\n"
		"signature:\n"
		"  params: [n]\n"
		"  args:\n"
		"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
		"    - {name: y, dtype: f32, shape: [n], io: out}\n"
		"cases:\n"
		"  - {id: small, n: 65536}\n"
		"  - {id: large, n: 262144}\n"
		"cost: {bytes: \"8*n\", flops: \"9*n\"}\n"
		"%s",
		reference,
		extra ? extra : "tolerance: {atol: 1e-5, rtol: 1e-5}\n");
	write_file(dir, "config.yaml", cfg);
	if (held)
		write_file(dir, "held_out.yaml", held);
	if (readme)
		write_file(dir, "README.md", readme);
	free(cfg);
	free(vp);
	free(dir);
	free(rel);
}

static void make_task(struct fixture *f, const char *name, const char *extra,
		      const char *held, const char *readme, const char *kernel)
{
	make_task_ref(f, name, "{file: reference.c, language: c}", extra, held,
		      readme, kernel);
}

#define GOOD_HELD \
	"cases:\n  - {id: odd_prime, n: 100003}\n  - {id: one, n: 1}\n"

static void check(struct fixture *f, const char *name,
		  const struct check_options *o, struct task_check *out)
{
	char *id = xasprintf("t/%s", name);
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(engine_check_task(f->e, id, o, out, &err), 0);
	for (int i = 0; i < out->nitems; i++)
		fprintf(stderr, "  %s %-10s %-4s %s\n", id, out->items[i].name,
			check_status_name(out->items[i].status),
			out->items[i].detail);
	free(id);
}

/* `arena eval` of workspace ws against task t/<name> (no cache, seed 7),
 * with ARENA_REF_THREADS=ref_threads when it is not NULL. */
static void eval_workspace(struct fixture *f, const char *name,
			   const char *ws, const char *ref_threads,
			   struct task_result *r)
{
	struct eval_options o = { .no_cache = true, .has_seed = true,
				  .seed = 7 };
	char *id = xasprintf("t/%s", name);
	struct errbuf err;

	if (ref_threads)
		setenv("ARENA_REF_THREADS", ref_threads, 1);
	errbuf_init(&err);
	result_init(r);
	assert_int_equal(engine_eval_dir(f->e, id, ws, &o, r, &err), 0);
	unsetenv("ARENA_REF_THREADS");
	free(id);
}

static const struct check_item *item(const struct task_check *c,
				     const char *name)
{
	for (int i = 0; i < c->nitems; i++)
		if (!strcmp(c->items[i].name, name))
			return &c->items[i];
	fail_msg("no check item '%s'", name);
	return NULL;
}

static const struct check_mutant *mutant(const struct task_check *c,
					 const char *kind)
{
	for (int i = 0; i < c->nmutants; i++)
		if (!strcmp(c->mutants[i].kind, kind))
			return &c->mutants[i];
	fail_msg("no mutant '%s'", kind);
	return NULL;
}

static const struct check_options correctness_only = {
	.no_aa = true, .seeds = 2, .has_seed = true, .seed = 7
};

/* ---- tests -------------------------------------------------------------- */

static void test_a_tight_task_catches_every_mutant(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_task(f, "good", NULL, GOOD_HELD, NULL, NULL);
	check(f, "good", &correctness_only, &c);
	assert_false(c.failed);
	assert_int_equal(item(&c, "baseline")->status, CHECK_OK);
	assert_int_equal(c.nmutants, EVAL_MUT_COUNT);
	for (int i = 0; i < c.nmutants; i++)
		assert_string_equal(c.mutants[i].outcome, "caught");
	assert_non_null(mutant(&c, "stale")->where);
	task_check_release(&c);
}

static void test_rtol_1e_2_lets_bf16_rounding_through_and_says_so(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_task(f, "weak", "tolerance: {atol: 1e-5, rtol: 1e-2}\n", GOOD_HELD,
		  NULL, NULL);
	check(f, "weak", &correctness_only, &c);
	assert_true(c.failed);
	assert_int_equal(item(&c, "mutants")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "mutants")->detail, "precision"));
	assert_string_equal(mutant(&c, "precision")->outcome, "too_weak");
	assert_string_equal(mutant(&c, "zeros")->outcome, "caught");
	assert_string_equal(mutant(&c, "sign")->outcome, "caught");
	task_check_release(&c);
}

static void
test_a_huge_atol_lets_wrong_values_through_but_not_poison(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_task(f, "loose", "tolerance: {atol: 1e30, rtol: 0}\n", GOOD_HELD,
		  NULL, NULL);
	check(f, "loose", &correctness_only, &c);
	assert_true(c.failed);
	assert_string_equal(mutant(&c, "zeros")->outcome, "too_weak");
	assert_string_equal(mutant(&c, "stale")->outcome, "too_weak");
	assert_string_equal(mutant(&c, "shift")->outcome, "too_weak");
	/* Poison (NaN) fails whatever the tolerance. */
	assert_string_equal(mutant(&c, "no_write")->outcome, "caught");
	assert_string_equal(mutant(&c, "partial")->outcome, "caught");
	task_check_release(&c);
}

/* Task t/<name> with two float32 outputs of x: s = 1.5 x (a statistic
 * held to its own tolerance) and q = x^2 (under the task's), and a
 * baseline that is off by 1e-3 relative in s (s_err) and in q (q_err). */
static void make_two_output_task(struct fixture *f, const char *name,
				 double s_err, double q_err)
{
	static const char *const ref =
		"#include \"arena/kernel.h\"\n"
		"ARENA_EXPORT int arena_launch(const arena_arg *a, int na,\n"
		"    const int64_t *p, int np, void *stream)\n"
		"{\n"
		"	(void)stream;\n"
		"	if (na != 3 || np != 1)\n"
		"		return 1;\n"
		"	const float *x = a[0].data;\n"
		"	float *s = a[1].data, *q = a[2].data;\n"
		"	for (int64_t i = 0; i < p[0]; i++) {\n"
		"		s[i] = (float)(1.5 * (double)x[i]);\n"
		"		q[i] = (float)((double)x[i] * x[i]);\n"
		"	}\n"
		"	return 0;\n"
		"}\n";
	char *rel = xasprintf("t/%s", name), *dir = path_join(f->root, rel);
	struct errbuf err;

	errbuf_init(&err);
	if (mkdir_p(dir, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	write_file(dir, "reference.c", ref);
	char *kernel = xasprintf(
		"#include \"arena/kernel.h\"\n"
		"ARENA_EXPORT int arena_launch(const arena_arg *a, int na,\n"
		"    const int64_t *p, int np, void *stream)\n"
		"{\n"
		"	(void)stream;\n"
		"	if (na != 3 || np != 1)\n"
		"		return 1;\n"
		"	const float *x = a[0].data;\n"
		"	float *s = a[1].data, *q = a[2].data;\n"
		"	for (int64_t i = 0; i < p[0]; i++) {\n"
		"		s[i] = 1.5f * x[i] * (1.0f + (float)%.17g);\n"
		"		q[i] = x[i] * x[i] * (1.0f + (float)%.17g);\n"
		"	}\n"
		"	return 0;\n"
		"}\n",
		s_err, q_err);
	write_file(dir, "kernel.c", kernel);
	write_file(
		dir, "config.yaml",
		"schema: arena/1\n"
		"description: s = 1.5 x and q = x squared.\n"
		"language: c\n"
		"editable: [kernel.c]\n"
		"reference: {file: reference.c, language: c}\n"
		"signature:\n"
		"  params: [n]\n"
		"  args:\n"
		"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
		"    - {name: s, dtype: f32, shape: [n], io: out,\n"
		"       tolerance: {atol: 1e-6, rtol: 1e-5}}\n"
		"    - {name: q, dtype: f32, shape: [n], io: out}\n"
		"cases:\n"
		"  - {id: small, n: 65536}\n"
		"  - {id: large, n: 262144}\n"
		"cost: {bytes: \"12*n\", flops: \"3*n\"}\n"
		"tolerance: {atol: 1e-5, rtol: 1e-2}\n");
	write_file(dir, "held_out.yaml", GOOD_HELD);
	free(kernel);
	free(dir);
	free(rel);
}

static const struct check_mutant *mutant_of(const struct task_check *c,
					    const char *arg, const char *kind)
{
	for (int i = 0; i < c->nmutants; i++)
		if (!strcmp(c->mutants[i].kind, kind) &&
		    !strcmp(c->mutants[i].arg, arg))
			return &c->mutants[i];
	fail_msg("no mutant '%s' of output '%s'", kind, arg);
	return NULL;
}

static void
test_an_outputs_own_tolerance_catches_what_the_tasks_lets_through(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	/* q is off by 1e-3: inside the task's rtol 1e-2, which it keeps. */
	make_two_output_task(f, "stats", 0, 1e-3);
	check(f, "stats", &correctness_only, &c);
	assert_int_equal(item(&c, "baseline")->status, CHECK_OK);
	/* The mutants are held to each output's own tolerance: bf16
	 * rounding is caught on s (rtol 1e-5), not on q (rtol 1e-2). */
	assert_string_equal(mutant_of(&c, "s", "precision")->outcome, "caught");
	assert_string_equal(mutant_of(&c, "q", "precision")->outcome,
			    "too_weak");
	assert_int_equal(item(&c, "mutants")->status, CHECK_FAIL);
	assert_null(strstr(item(&c, "mutants")->detail, "'s'"));
	task_check_release(&c);
}

static void test_an_output_off_by_its_own_tolerance_is_incorrect(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	/* The same 1e-3 on s breaks its rtol 1e-5, though the task's 1e-2
	 * would have let it through. */
	make_two_output_task(f, "bad_stats", 1e-3, 0);
	check(f, "bad_stats", &correctness_only, &c);
	assert_true(c.failed);
	assert_int_equal(item(&c, "baseline")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "baseline")->detail, "output 's'"));
	task_check_release(&c);
}

static void test_a_readme_that_names_a_held_out_size_is_a_leak(void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .static_only = true };
	struct task_check c;

	make_task(f, "leaky", NULL, GOOD_HELD, "Make sure n = 100003 works.\n",
		  NULL);
	check(f, "leaky", &o, &c);
	assert_int_equal(item(&c, "task_md")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "task_md")->detail, "100003"));
	task_check_release(&c);

	/* A held-out id in the author's text is a leak too. */
	make_task(f, "leaky_id", NULL, GOOD_HELD,
		  "The odd_prime case is the hard one.\n", NULL);
	check(f, "leaky_id", &o, &c);
	assert_int_equal(item(&c, "task_md")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "task_md")->detail,
			       "held-out case id 'odd_prime'"));
	task_check_release(&c);
}

static void test_held_out_without_prime_or_degenerate_fails(void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .static_only = true };
	struct task_check c;

	make_task(f, "thin", NULL, "cases:\n  - {id: big, n: 524288}\n", NULL,
		  NULL);
	check(f, "thin", &o, &c);
	const char *d = item(&c, "held_out")->detail;
	assert_int_equal(item(&c, "held_out")->status, CHECK_FAIL);
	assert_non_null(strstr(d, "1 held-out case"));
	assert_non_null(strstr(d, "no prime"));
	assert_non_null(strstr(d, "no degenerate"));
	task_check_release(&c);
}

static void test_rules_supply_the_missing_held_out_sizes(void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .static_only = true };
	struct task_check c;

	make_task(f, "ruled",
		  "tolerance: {atol: 1e-5, rtol: 1e-5}\n"
		  "held_out_rules: {vary: [n]}\n",
		  "cases:\n  - {id: big, n: 524288}\n", NULL, NULL);
	check(f, "ruled", &o, &c);
	assert_false(c.failed);
	assert_int_equal(item(&c, "held_out")->status, CHECK_OK);
	assert_true(c.ngenerated >= 4);
	bool degenerate = false;
	for (int i = 0; i < c.ngenerated; i++)
		if (!strcmp(c.generated[i].id, "rule.degenerate")) {
			degenerate = true;
			assert_string_equal(c.generated[i].params, "n=1");
		}
	assert_true(degenerate);
	task_check_release(&c);
}

static void test_cost_above_the_arguments_bytes_fails(void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .static_only = true };
	struct task_check c;

	make_task(f, "costly", "tolerance: {atol: 1e-5, rtol: 1e-5}\n",
		  GOOD_HELD, NULL, NULL);
	/* 8*n is what x and y hold; 12*n is more than any kernel moves. */
	char *p = path_join(f->root, "t/costly/config.yaml"), *text = NULL;
	assert_int_equal(file_read_all(p, 1 << 16, &text, NULL, NULL), 0);
	char *at = strstr(text, "8*n");
	assert_non_null(at);
	char *fixed = xasprintf("%.*s12*n%s", (int)(at - text), text, at + 3);
	write_file(f->root, "t/costly/config.yaml", fixed);
	check(f, "costly", &o, &c);
	assert_int_equal(item(&c, "cost")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "cost")->detail, "more than its "
							 "arguments hold"));
	task_check_release(&c);
	free(fixed);
	free(text);
	free(p);
}

/* Task t/<name> as make_task's, its output y in bf16 under `tol`. */
static void make_bf16_task(struct fixture *f, const char *name, const char *tol)
{
	char *rel = xasprintf("t/%s/config.yaml", name);
	char *p = path_join(f->root, rel), *text = NULL;
	const char *out = "{name: y, dtype: f32";

	make_task(f, name, tol, GOOD_HELD, NULL, NULL);
	assert_int_equal(file_read_all(p, 1 << 16, &text, NULL, NULL), 0);
	char *at = strstr(text, out);
	assert_non_null(at);
	char *bf16 = xasprintf("%.*s{name: y, dtype: bf16%s", (int)(at - text),
			       text, at + strlen(out));
	write_file(f->root, rel, bf16);
	free(bf16);
	free(text);
	free(p);
	free(rel);
}

static void
test_a_bf16_rtol_below_one_rounding_step_fails_unless_exact(void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .static_only = true };
	struct task_check c;

	/* 5e-3 < 2^-7: a kernel rounding once can be a neighbour off. */
	make_bf16_task(f, "narrow", "tolerance: {atol: 1e-2, rtol: 5e-3}\n");
	check(f, "narrow", &o, &c);
	assert_int_equal(item(&c, "tolerance")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "tolerance")->detail,
			       "('y', bf16): rtol 0.005 is below one bf16 "
			       "rounding step"));
	task_check_release(&c);
	make_bf16_task(f, "one_step", "tolerance: {atol: 1e-3, rtol: 8e-3}\n");
	check(f, "one_step", &o, &c);
	assert_int_equal(item(&c, "tolerance")->status, CHECK_OK);
	task_check_release(&c);
	/* An exact comparison is a choice (a gather, a copy), not a slip. */
	make_bf16_task(f, "exact", "tolerance: {atol: 0, rtol: 0}\n");
	check(f, "exact", &o, &c);
	assert_int_equal(item(&c, "tolerance")->status, CHECK_OK);
	task_check_release(&c);
}

/* Correct on multiples of 4 only: the written held-out cases are, so only
 * the cases held_out_rules generates expose it. */
static const char *tail_kernel =
	"#include \"arena/kernel.h\"\n"
	"ARENA_EXPORT int arena_launch(const arena_arg *a, int na,\n"
	"    const int64_t *p, int np, void *s)\n"
	"{\n"
	"  (void)na; (void)np; (void)s;\n"
	"  const float *x = a[0].data; float *y = a[1].data;\n"
	"  for (int64_t i = 0; i < (p[0] & ~(int64_t)3); i++) {\n"
	"    float v = x[i], v2 = v * v;\n"
	"    y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;\n"
	"  }\n"
	"  return 0;\n"
	"}\n";

static void
test_a_baseline_wrong_on_a_generated_case_fails_and_names_it(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_task(f, "tail",
		  "tolerance: {atol: 1e-5, rtol: 1e-5}\n"
		  "held_out_rules: {vary: [n], rules: [prime]}\n",
		  "cases:\n  - {id: mult4, n: 1000}\n", NULL, tail_kernel);
	check(f, "tail", &correctness_only, &c);
	assert_int_equal(item(&c, "baseline")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "baseline")->detail, "rule.prime"));
	assert_non_null(strstr(item(&c, "baseline")->detail, "held_out_rules"));
	task_check_release(&c);
}

static void test_a_case_below_the_timing_floor_fails_and_difficulty_is_recorded(
	void **state)
{
	struct fixture *f = *state;
	struct check_options o = { .aa_quick = true,
				   .seeds = 1,
				   .record = true,
				   .has_seed = true,
				   .seed = 3 };
	struct task_check c;

	make_task(f, "short", NULL, GOOD_HELD, NULL, NULL);
	/* A visible case of 16 elements: far below the 20 us floor. */
	char *p = path_join(f->root, "t/short/config.yaml"), *text = NULL;
	assert_int_equal(file_read_all(p, 1 << 16, &text, NULL, NULL), 0);
	char *at = strstr(text, "  - {id: large");
	assert_non_null(at);
	char *fixed = xasprintf("%.*s  - {id: tiny, n: 16}\n%s",
				(int)(at - text), text, at);
	write_file(f->root, "t/short/config.yaml", fixed);
	check(f, "short", &o, &c);
	assert_int_equal(item(&c, "floor")->status, CHECK_FAIL);
	assert_non_null(strstr(item(&c, "floor")->detail, "'tiny'"));
	/* The timed cases still give the baseline's fraction of the
	 * roofline, and --record keeps it beside the task. */
	assert_int_equal(item(&c, "difficulty")->status, CHECK_OK);
	assert_true(c.fraction > 0 && c.fraction < 2);
	struct task_measured m;
	struct errbuf err;
	char *dir = path_join(f->root, "t/short");
	errbuf_init(&err);
	assert_int_equal(task_measured_read(dir, &m, &err), 0);
	assert_int_equal(m.n, 1);
	assert_true(str_starts_with(m.v[0].device, "host"));
	assert_true(m.v[0].fraction > 0);
	assert_int_equal(m.v[0].ncases, 2);
	task_measured_release(&m);
	task_check_release(&c);
	free(dir);
	free(fixed);
	free(text);
	free(p);
}

/* Task t/<name> with `split: n` on its reference and, when given,
 * another reference.c. */
static void make_split_task(struct fixture *f, const char *name,
			    const char *reference)
{
	make_task_ref(f, name, "{file: reference.c, language: c, split: n}",
		      NULL, GOOD_HELD, NULL, NULL);
	if (reference) {
		char *dir = path_join(f->root, "t"), *tdir = path_join(dir, name);
		write_file(tdir, "reference.c", reference);
		free(tdir);
		free(dir);
	}
}

static void test_a_reference_split_that_holds_passes(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_split_task(f, "split_ok", NULL);
	check(f, "split_ok", &correctness_only, &c);
	assert_int_equal(item(&c, "baseline")->status, CHECK_OK);
	assert_false(c.failed);
	task_check_release(&c);

	/* Threads are the reference runner's alone: in the same task a
	 * candidate that leaves a thread computing is still killed by its
	 * runner's filter. */
	struct task_result r;
	char *ws = path_join(src_dir(),
			     "tests/adversarial/candidates/thread_worker");

	eval_workspace(f, "split_ok", ws, "3", &r);
	assert_int_equal(r.status, RS_REJECTED);
	assert_non_null(strstr(r.correctness_error_message,
			       "forbidden system call"));
	result_release(&r);
	free(ws);
}

/* Each element also reads the first row's input: cut into row ranges,
 * every range but the first reads another row, and a whole call is the
 * only right answer. */
static void test_a_reference_split_that_does_not_hold_fails_and_says_so(
	void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_split_task(
		f, "split_bad",
		"#include \"arena/kernel.h\"\n"
		"ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,\n"
		"    const int64_t *params, int nparams, void *stream)\n"
		"{\n"
		"\t(void)nargs; (void)nparams; (void)stream;\n"
		"\tconst float *x = args[0].data;\n"
		"\tfloat *y = args[1].data;\n"
		"\tfor (int64_t i = 0; i < params[0]; i++) {\n"
		"\t\tdouble v = x[i];\n"
		"\t\ty[i] = (float)(1.0 + v * (1.0 + v * (0.5 + v * (1.0 / 6.0 +\n"
		"\t\t\tv / 24.0))) + 1e-3 * (double)x[0]);\n"
		"\t}\n"
		"\treturn 0;\n"
		"}\n");
	check(f, "split_bad", &correctness_only, &c);
	assert_true(c.failed);
	const struct check_item *b = item(&c, "baseline");
	assert_int_equal(b->status, CHECK_FAIL);
	assert_non_null(strstr(b->detail, "reference.split 'n' does not hold"));
	assert_non_null(strstr(b->detail, "output 'y'"));
	task_check_release(&c);

	/* An ordinary evaluation does not check the declaration; when the
	 * baseline then disagrees with the cut reference, the message says
	 * that the reference ran cut and what checks it. */
	struct task_result r;
	char *ws = path_join(f->root, "t/split_bad");

	eval_workspace(f, "split_bad", ws, "3", &r);
	assert_int_equal(r.status, RS_INFRA_ERROR);
	assert_non_null(strstr(r.correctness_error_message,
			       "its reference runs cut into row ranges"));
	result_release(&r);
	free(ws);
}

/* A Python task whose rule forbids library calls for candidates, and whose
 * baseline is PyTorch library calls (as in torch2triton): the baseline is
 * the task's own trusted code, so check-tasks holds it to the reference,
 * not to the candidates' rule; the same code handed in as a candidate is
 * still refused by the rule.  Skipped where python3 cannot import torch. */
static void test_a_python_baseline_is_not_held_to_the_candidates_rule(
	void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("%s -c 'import torch' >/dev/null 2>&1",
			      paths_python());
	int st = system(cmd);

	free(cmd);
	if (st != 0)
		skip();
	char *dir = path_join(f->root, "t/pylib");
	char *ref = path_join(src_dir(),
			      "tests/python/task/pypoly_strict/reference.py");
	char *to = path_join(dir, "reference.py");
	struct errbuf err;

	errbuf_init(&err);
	if (mkdir_p(dir, &err) != 0 || file_copy(ref, to, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	static const char baseline[] =
		"import torch\n\n\n"
		"def launch(args, params):\n"
		"    x, y = args\n"
		"    y.copy_(1 + x + x * x / 2 + x ** 3 / 6 + x ** 4 / 24)\n";
	write_file(dir, "baseline.py", baseline);
	write_file(dir, "kernel.py",
		   "def launch(args, params):\n"
		   "    raise NotImplementedError('write the kernel')\n");
	write_file(dir, "config.yaml",
		   "schema: arena/1\n"
		   "description: y = the degree-4 Taylor polynomial of exp(x).\n"
		   "language: python\n"
		   "initial_state: unimplemented\n"
		   "forbid_library_calls: true\n"
		   "editable: [kernel.py]\n"
		   "baseline: {files: [baseline.py]}\n"
		   "reference: {file: reference.py, language: python}\n"
		   "signature:\n"
		   "  params: [n]\n"
		   "  args:\n"
		   "    - {name: x, dtype: f32, shape: [n], io: in, "
		   "init: normal}\n"
		   "    - {name: y, dtype: f32, shape: [n], io: out}\n"
		   "cases:\n"
		   "  - {id: small, n: 65536}\n"
		   "tolerance: {atol: 1e-5, rtol: 1e-5}\n"
		   "cost: {bytes: \"8*n\", flops: \"9*n\"}\n");
	write_file(dir, "held_out.yaml", GOOD_HELD);

	struct task_check c;
	check(f, "pylib", &correctness_only, &c);
	assert_int_equal(item(&c, "baseline")->status, CHECK_OK);
	/* The held-out id 'one' is a word of arena's own text in a Python
	 * task's TASK.md ("one torch thread"): not the author's leak. */
	assert_int_equal(item(&c, "task_md")->status, CHECK_OK);
	task_check_release(&c);

	char *ws = path_join(f->dir, "ws");
	struct task_result r;

	if (mkdir_p(ws, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	write_file(ws, "kernel.py", baseline);
	eval_workspace(f, "pylib", ws, NULL, &r);
	assert_int_equal(r.status, RS_COMPILE_ERROR);
	assert_non_null(strstr(r.compilation_error_message, "static check"));
	result_release(&r);
	free(ws);
	free(to);
	free(ref);
	free(dir);
}

static void test_a_task_that_does_not_load_is_one_failing_item(void **state)
{
	struct fixture *f = *state;
	struct task_check c;

	make_task(f, "broken", "tolerance: {atol: -1}\n", NULL, NULL, NULL);
	check(f, "broken", &correctness_only, &c);
	assert_true(c.failed);
	assert_int_equal(c.nitems, 1);
	assert_string_equal(c.items[0].name, "load");
	task_check_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_a_tight_task_catches_every_mutant, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_rtol_1e_2_lets_bf16_rounding_through_and_says_so,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_huge_atol_lets_wrong_values_through_but_not_poison,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_an_outputs_own_tolerance_catches_what_the_tasks_lets_through,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_an_output_off_by_its_own_tolerance_is_incorrect,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_readme_that_names_a_held_out_size_is_a_leak,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_held_out_without_prime_or_degenerate_fails, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_rules_supply_the_missing_held_out_sizes, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_cost_above_the_arguments_bytes_fails, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_a_bf16_rtol_below_one_rounding_step_fails_unless_exact,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_baseline_wrong_on_a_generated_case_fails_and_names_it,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_case_below_the_timing_floor_fails_and_difficulty_is_recorded,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_reference_split_that_holds_passes, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_a_reference_split_that_does_not_hold_fails_and_says_so,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_python_baseline_is_not_held_to_the_candidates_rule,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_task_that_does_not_load_is_one_failing_item,
			setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
