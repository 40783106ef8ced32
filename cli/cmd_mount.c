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

static int mount_usage(FILE *f)
{
	fputs("usage: arena mount MOUNTPOINT [--store DIR] [--foreground] "
	      "[--debug]\n"
	      "                   [--threads N] [--ws-timeout SECONDS]\n"
	      "\n"
	      "Presents the store as files (docs/fs-semantics.md).  Runs in "
	      "the background\nunless --foreground; unmount with "
	      "'fusermount3 -u MOUNTPOINT'.\n"
	      "  --threads N          worker threads (default 16)\n"
	      "  --ws-timeout S       seconds the kernel may cache workspace "
	      "names and\n"
	      "                       attributes; changes made behind the "
	      "mount are\n"
	      "                       reported through inotify (default "
	      "3600; 0 = never)\n",
	      f);
	return f == stdout ? 0 : 2;
}

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
				return cli_fail("--threads needs a number "
						"from 2 to 256, got '%s'",
						argv[i]);
			o.threads = (int)n;
		} else if (!strcmp(a, "--ws-timeout") && has_arg) {
			double t;
			if (parse_double(argv[++i], &t) || t < 0 || t > 86400)
				return cli_fail("--ws-timeout needs seconds "
						"from 0 to 86400, got '%s'",
						argv[i]);
			o.ws_timeout = t;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return mount_usage(stdout);
		} else if (a[0] != '-' && !o.mountpoint) {
			o.mountpoint = a;
		} else {
			mount_usage(stderr);
			return cli_fail("unexpected argument '%s'", a);
		}
	}
	if (!o.mountpoint)
		return mount_usage(stderr);
	return fsv_mount(&o);
}
