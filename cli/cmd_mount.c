/*
 * cmd_mount.c - `arena mount MOUNTPOINT`: the filesystem view of the store
 * (fs/, docs/fs-semantics.md).  This file only parses arguments; the
 * daemon is fs/fsv_main.c.  Two hidden modes serve the daemon's own
 * children (fs/fsv_worker.c) and are not meant to be typed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsv.h"
#include "cli.h"

int cmd_mount(struct cli *c, int argc, char **argv)
{
	struct fsv_options o = {
		.store_dir = c->store_dir, .tasks_dir = c->tasks_dir,
		.threads = FSV_DEFAULT_THREADS,
		.ws_timeout = FSV_DEFAULT_WS_TIMEOUT,
	};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_arg = i + 1 < argc;
		if (!strcmp(a, "--eval-worker") && i + 2 < argc)
			return fsv_eval_worker(c->store_dir, c->tasks_dir,
					       argv[i + 1], argv[i + 2]);
		if (!strcmp(a, "--resume-waiter") && has_arg)
			return fsv_resume_waiter(c->store_dir, c->tasks_dir,
						 argv[i + 1]);
		if (!strcmp(a, "--store") && has_arg) {
			o.store_dir = argv[++i];
		} else if (!strcmp(a, "--foreground") || !strcmp(a, "-f")) {
			o.foreground = true;
		} else if (!strcmp(a, "--debug") || !strcmp(a, "-d")) {
			o.debug = true;
			o.foreground = true;
		} else if (!strcmp(a, "--threads") && has_arg) {
			int64_t n;
			if (parse_i64(argv[++i], &n) || n < 2 || n > 256)
				return cli_usage_error("mount",
						       "--threads needs "
						       "a number from 2 to "
						       "256, got '%s'",
						       argv[i]);
			o.threads = (int)n;
		} else if (!strcmp(a, "--ws-timeout") && has_arg) {
			double t;
			if (parse_double(argv[++i], &t) || t < 0 || t > 86400)
				return cli_usage_error("mount",
						       "--ws-timeout "
						       "needs seconds from 0 "
						       "to 86400, got '%s'",
						       argv[i]);
			o.ws_timeout = t;
		} else if (a[0] != '-' && !o.mountpoint) {
			o.mountpoint = a;
		} else {
			return cli_usage_error("mount",
					       "unexpected argument or "
					       "missing value: '%s'",
					       a);
		}
	}
	if (!o.mountpoint)
		return cli_usage_error("mount", "name the directory to mount "
						"the store on");
	return fsv_mount(&o);
}
