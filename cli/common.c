/*
 * common.c - helpers shared by the subcommands: error printing, opening
 * the engine from the global options (with the mount's view of workspaces
 * when the mount started this process), and printing a run's events.
 * Kept out of main.c so that unit tests can link the subcommands without
 * the program's main().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "fsv.h"

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("arena: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int cli_open(const struct cli *c, struct engine **e)
{
	struct errbuf err;

	errbuf_init(&err);
	if (engine_open(c->store_dir, c->tasks_dir, e, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	/* An executor the mount started (fsv_spawn_executor sets
	 * $ARENA_MOUNT) shows agents their workspace through the mount. */
	const char *mount = getenv("ARENA_MOUNT");
	if (mount && *mount)
		engine_set_workspace_view(*e, fsv_workspace_view,
					  (void *)mount);
	return 0;
}

void cli_print_event(void *ctx, const char *run_id, const char *task_id,
		     const char *kind, const char *message)
{
	char ts[32];

	(void)ctx;
	(void)run_id;
	time_stamp_iso(ts, now_wall());
	printf("%s %-11s %-24s %s\n", ts + 11, kind, task_id ? task_id : "-",
	       message);
	fflush(stdout);
}

int cli_parse_gpus(const char *cmd, const char *list, int *gpus, int *n)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v > 1023 || (*end && *end != ','))
			return cli_usage_error(cmd,
					       "--gpus '%s': give device "
					       "indices separated by commas, "
					       "as in --gpus 0,1,3",
					       list);
		for (int k = 0; k < *n; k++)
			if (gpus[k] == (int)v)
				return cli_usage_error(cmd,
						       "--gpus '%s': "
						       "device %ld is named "
						       "twice",
						       list, v);
		if (*n == CLI_MAX_GPUS)
			return cli_usage_error(cmd,
					       "--gpus '%s': at most %d "
					       "devices",
					       list, CLI_MAX_GPUS);
		gpus[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (*n == 0)
		return cli_usage_error(cmd, "--gpus needs at least one device "
					    "index, as in --gpus 0,1");
	return 0;
}
