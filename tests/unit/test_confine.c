/*
 * test_confine.c - the confinement module (arena/confine.h): what a
 * confined process can see, measured from inside one.
 *
 * Each test builds a plan, runs a shell inside it through proc_run() and
 * asserts on what the shell printed: the allow-list holds (no /home, no
 * /work, nothing of the caller's /tmp), hidden paths under an allowed
 * directory are masked (those hidden always - registered task roots, runs'
 * places - in every plan built after), the process is alone in its PID
 * namespace and has
 * no network, and the bubblewrap rendering keeps the order that makes
 * masks win over what they cover.  Skipped (as a whole) where the sandbox
 * cannot be built here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/confine.h"
#include "arena/proc.h"
#include "arena/util.h"

static char dir[] = "/tmp/arena-test-confine-XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	char *secret = path_join(dir, "secret.txt");
	file_write_atomic_str(secret, "the held-out cases\n", NULL);
	free(secret);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static void need_sandbox(void)
{
	const char *why;

	if (!confine_available(&why)) {
		fprintf(stderr, "skip: %s\n", why);
		skip();
	}
}

/* Runs `sh -c script` under the plan of spec; returns its output (owned)
 * and its exit status in *status. */
static char *run_in(const struct confine_spec *spec, const char *script,
		    int *status)
{
	struct confine_plan p;
	struct confine_prep *cp;
	struct proc_result r;
	struct errbuf err;
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script,
			 NULL };
	char *envp[] = { (char *)"PATH=/usr/bin:/bin", NULL };

	errbuf_init(&err);
	confine_plan_for(spec, &p);
	cp = confine_prepare(&p, &err);
	confine_plan_release(&p);
	assert_non_null(cp);
	struct proc_capture c = {
		.argv = argv,
		.envp = envp,
		.timeout_ms = 60000,
		.out_max = 1 << 20,
		.confine = cp,
	};
	assert_int_equal(proc_run(&c, &r, &err), 0);
	confine_prep_free(cp);
	*status = r.status;
	return r.output;
}

static void test_runner_sees_only_the_allow_list(void **state)
{
	struct confine_spec s = { .profile = CONFINE_RUNNER };
	int st;

	(void)state;
	need_sandbox();
	char *script = xasprintf("ls -a /; echo tmp=$(ls -A /tmp | wc -l); "
				 "cat %s/secret.txt 2>/dev/null; "
				 "ls /work /home /root 2>/dev/null | wc -l",
				 dir);
	char *out = run_in(&s, script, &st);
	fprintf(stderr, "%s", out);
	assert_true(WIFEXITED(st));
	/* The root holds the system directories and nothing of ours. */
	assert_non_null(strstr(out, "usr\n"));
	assert_non_null(strstr(out, "proc\n"));
	assert_null(strstr(out, "home\n"));
	assert_null(strstr(out, "root\n"));
	assert_null(strstr(out, "work\n"));
	assert_null(strstr(out, "var\n"));
	/* A private /tmp: the caller's files are not there. */
	assert_non_null(strstr(out, "tmp=0\n"));
	assert_null(strstr(out, "the held-out cases"));
	free(out);
	free(script);
}

/* A directory under the allowed /etc to hide, or NULL. */
static const char *etc_victim(void)
{
	static const char *const cands[] = { "/etc/apt", "/etc/default",
					     "/etc/init.d", "/etc/skel" };

	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		struct stat sb;
		if (stat(cands[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			return cands[i];
	}
	return NULL;
}

static void test_hidden_directory_under_an_allowed_one_is_empty(void **state)
{
	/* /etc is allowed; a directory of it named hidden must show
	 * nothing (the installed catalogue under /usr is hidden the same
	 * way). */
	struct strvec hide = STRVEC_INIT;
	struct confine_spec s = { .profile = CONFINE_RUNNER, .hide = &hide };
	const char *victim = etc_victim();
	int st;

	(void)state;
	need_sandbox();
	if (!victim)
		skip();
	strvec_push(&hide, victim);
	/* A hidden path inside another: the outer mask covers it. */
	DIR *d = opendir(victim);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *sub = path_join(victim, e->d_name);
		if (e->d_name[0] != '.' && dir_exists(sub)) {
			strvec_push(&hide, sub);
			free(sub);
			break;
		}
		free(sub);
	}
	if (d)
		closedir(d);
	char *script = xasprintf("echo visible:; ls -A %s; echo :end; "
				 "touch %s/x 2>&1 || echo refused",
				 victim, victim);
	char *out = run_in(&s, script, &st);
	fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, "visible:\n:end\n"));
	assert_non_null(strstr(out, "refused"));
	/* The same directory, not hidden, lists its files. */
	struct confine_spec open_spec = { .profile = CONFINE_RUNNER };
	char *out2 = run_in(&open_spec, script, &st);
	assert_null(strstr(out2, "visible:\n:end\n"));
	free(out2);
	free(out);
	free(script);
	strvec_release(&hide);
}

static void test_compiler_writes_only_its_scratch(void **state)
{
	char *scratch = path_join(dir, "scratch");
	struct confine_spec s = {
		.profile = CONFINE_COMPILER,
		.scratch = scratch,
		.tool = "/bin/sh",
	};
	int st;

	(void)state;
	need_sandbox();
	assert_int_equal(mkdir_p(scratch, NULL), 0);
	char *out = run_in(&s,
			   "pwd; echo built > out.so; cat out.so; "
			   "touch /usr/x 2>&1 || echo usr-refused; "
			   "cat ../secret.txt 2>&1 || echo no-secret; "
			   "ls /arena/include",
			   &st);
	fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, CONFINE_BUILD_DIR "\nbuilt\n"));
	assert_non_null(strstr(out, "usr-refused"));
	assert_non_null(strstr(out, "no-secret"));
	assert_null(strstr(out, "the held-out cases"));
	/* What it wrote is in the scratch directory outside. */
	char *built = path_join(scratch, "out.so");
	assert_true(file_exists(built));
	free(built);
	free(out);
	free(scratch);
}

static void test_compiler_inside_a_hidden_directory_is_shown_alone(void **state)
{
	/* A test's compiler stand-in kept in its catalogue: the compiler
	 * runs, the catalogue around it stays hidden. */
	char *cat = path_join(dir, "catalogue");
	char *tool = path_join(dir, "catalogue/bin/cc-standin");
	char *secret = path_join(dir, "catalogue/held_out.yaml");
	char *scratch = path_join(dir, "scratch2");
	struct strvec hide = STRVEC_INIT;
	struct confine_spec s = {
		.profile = CONFINE_COMPILER,
		.scratch = scratch,
		.tool = tool,
		.hide = &hide,
	};
	int st;

	(void)state;
	need_sandbox();
	assert_int_equal(mkdir_p(scratch, NULL), 0);
	char *bin = path_join(dir, "catalogue/bin");
	assert_int_equal(mkdir_p(bin, NULL), 0);
	assert_int_equal(file_write_atomic_str(tool,
					       "#!/bin/sh\necho standin "
					       "ran\n",
					       NULL),
			 0);
	chmod(tool, 0755);
	assert_int_equal(file_write_atomic_str(secret, "cases: [odd]\n", NULL),
			 0);
	strvec_push(&hide, cat);
	char *script = xasprintf("%s; cat %s 2>/dev/null || echo no-secret; "
				 "ls %s",
				 tool, secret, bin);
	char *out = run_in(&s, script, &st);
	fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, "standin ran"));
	assert_non_null(strstr(out, "no-secret"));
	assert_null(strstr(out, "cases:"));
	free(out);
	free(script);
	free(bin);
	free(cat);
	free(tool);
	free(secret);
	free(scratch);
	strvec_release(&hide);
}

static void test_runner_is_alone_and_offline(void **state)
{
	struct confine_spec s = { .profile = CONFINE_RUNNER };
	int st;

	(void)state;
	need_sandbox();
	/* Its own PID namespace: the shell is pid 1 and sees only the
	 * processes it started; no network device but lo. */
	char *out = run_in(&s,
			   "echo pid=$$; ls -d /proc/[0-9]* | wc -l; "
			   "tail -n +3 /proc/net/dev | cut -d: -f1",
			   &st);
	fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, "pid=1\n"));
	assert_non_null(strstr(out, "lo"));
	assert_null(strstr(out, "eth"));
	assert_null(strstr(out, "ens"));
	/* /proc lists the shell and ls (and at most the pipeline's other
	 * commands): a handful, not the machine's hundreds. */
	int n = atoi(strstr(out, "\n") + 1);
	assert_true(n >= 1 && n <= 4);
	free(out);
}

static void test_nothing_started_inside_outlives_the_first_process(void **state)
{
	struct confine_spec s = { .profile = CONFINE_RUNNER };
	int st;

	(void)state;
	need_sandbox();
	/* A background sleeper left behind by pid 1: killed when pid 1
	 * exits, so proc_run returns at once instead of after 30 s
	 * (the pipe closes when the namespace is gone). */
	uint64_t t0 = now_ns();
	char *out = run_in(&s, "sleep 30 & echo started", &st);
	double s_taken = (double)(now_ns() - t0) / 1e9;
	fprintf(stderr, "%s(%.2f s)\n", out, s_taken);
	assert_non_null(strstr(out, "started"));
	assert_true(s_taken < 25);
	free(out);
}

/* arena's libraries may be where only $LD_LIBRARY_PATH finds them, under
 * a /tmp that the agent's private one would hide (the H200 stages them in
 * /tmp/arena-deps): the agent, which runs arena for its evaluations, is
 * shown those directories and nothing else of the caller's /tmp. */
static void test_agent_sees_the_library_path_under_its_private_tmp(void **state)
{
	char *lib = path_join(dir, "lib"), *ws = path_join(dir, "ws");
	char *so = path_join(lib, "libstaged.so.1");
	const char *old = getenv("LD_LIBRARY_PATH");
	char *saved = old ? xstrdup(old) : NULL;
	struct confine_spec s = { .profile = CONFINE_AGENT, .workspace = ws };
	int st;

	(void)state;
	need_sandbox();
	assert_int_equal(mkdir_p(lib, NULL), 0);
	assert_int_equal(mkdir_p(ws, NULL), 0);
	file_write_atomic_str(so, "a staged library\n", NULL);
	setenv("LD_LIBRARY_PATH", lib, 1);
	char *script = xasprintf("cat %s; cat %s/secret.txt 2>/dev/null; "
				 "echo done",
				 so, dir);
	char *out = run_in(&s, script, &st);
	if (saved)
		setenv("LD_LIBRARY_PATH", saved, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, "a staged library\n"));
	assert_null(strstr(out, "the held-out cases"));
	assert_non_null(strstr(out, "done\n"));
	free(out);
	free(script);
	free(saved);
	free(so);
	free(ws);
	free(lib);
}

static void
test_bwrap_rendering_puts_masks_after_binds_and_rw_last(void **state)
{
	struct strvec hide = STRVEC_INIT, ro = STRVEC_INIT, argv = STRVEC_INIT;
	char *ws = path_join(dir, "ws");
	struct confine_spec s = {
		.profile = CONFINE_AGENT,
		.workspace = ws,
		.hide = &hide,
		.ro = &ro,
	};
	struct confine_plan p;
	ssize_t usr = -1, mask = -1, rw = -1, net = -1;

	(void)state;
	assert_int_equal(mkdir_p(ws, NULL), 0);
	strvec_push(&hide, "/etc/ssh");
	strvec_push(&hide, dir);
	confine_plan_for(&s, &p);
	confine_bwrap_argv(&p, &argv);
	for (size_t i = 0; i + 1 < argv.n; i++) {
		if (!strcmp(argv.v[i], "--ro-bind") &&
		    !strcmp(argv.v[i + 1], "/usr"))
			usr = (ssize_t)i;
		if (!strcmp(argv.v[i], "--remount-ro") && mask < 0)
			mask = (ssize_t)i;
		if (!strcmp(argv.v[i], "--bind") && !strcmp(argv.v[i + 2], ws))
			rw = (ssize_t)i;
		if (!strcmp(argv.v[i], "--unshare-net"))
			net = (ssize_t)i;
	}
	assert_true(usr >= 0);
	if (file_exists("/etc/ssh") || dir_exists("/etc/ssh"))
		assert_true(mask > usr);
	assert_true(rw > usr && (mask < 0 || rw > mask));
	/* Agents keep the network (their model's API). */
	assert_true(net < 0);
	/* The caller's directory is not under any allowed one: no mask is
	 * laid for it, it is simply absent. */
	for (size_t i = 0; i < argv.n; i++)
		if (!strcmp(argv.v[i], "--tmpfs"))
			assert_string_not_equal(argv.v[i + 1], dir);
	confine_plan_release(&p);
	strvec_release(&argv);
	strvec_release(&hide);
	strvec_release(&ro);
	free(ws);
}

/* What the process hides always (a registered task root, a run's places)
 * is masked in every plan built after, with no spec naming it.  Last in
 * the group: the registration is process-wide. */
static void test_a_path_hidden_always_is_masked_in_later_plans(void **state)
{
	struct confine_spec s = { .profile = CONFINE_RUNNER };
	const char *victim = etc_victim();
	int st;

	(void)state;
	need_sandbox();
	if (!victim)
		skip();
	char *script = xasprintf("echo visible:; ls -A %s; echo :end", victim);
	char *before = run_in(&s, script, &st);
	assert_null(strstr(before, "visible:\n:end\n"));
	confine_hide_always(victim);
	confine_hide_always(victim); /* kept once */
	confine_hide_always("relative/ignored");
	char *after = run_in(&s, script, &st);
	fprintf(stderr, "%s", after);
	assert_non_null(strstr(after, "visible:\n:end\n"));
	free(after);
	free(before);
	free(script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runner_sees_only_the_allow_list),
		cmocka_unit_test(
			test_hidden_directory_under_an_allowed_one_is_empty),
		cmocka_unit_test(test_compiler_writes_only_its_scratch),
		cmocka_unit_test(
			test_compiler_inside_a_hidden_directory_is_shown_alone),
		cmocka_unit_test(test_runner_is_alone_and_offline),
		cmocka_unit_test(
			test_nothing_started_inside_outlives_the_first_process),
		cmocka_unit_test(
			test_agent_sees_the_library_path_under_its_private_tmp),
		cmocka_unit_test(
			test_bwrap_rendering_puts_masks_after_binds_and_rw_last),
		cmocka_unit_test(
			test_a_path_hidden_always_is_masked_in_later_plans),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
