/*
 * main.c - the `arena` binary: global options, agent registration and
 * dispatch to subcommands (the table in commands.c).  Every subcommand is
 * a thin front end on engine/; nothing here computes a result.  --help is
 * answered here, before a command runs (help.c): asking for help never
 * touches a store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents.h"
#include "cli.h"

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int i;

	agents_register_builtin();
	c.store_dir = getenv("ARENA_STORE") ? getenv("ARENA_STORE")
					     : "arena-data";
	c.tasks_dir = getenv("ARENA_TASKS_DIR");
	c.tty = isatty(1);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--store") && i + 1 < argc)
			c.store_dir = argv[++i];
		else if (!strcmp(argv[i], "--tasks-dir") && i + 1 < argc)
			c.tasks_dir = argv[++i];
		else
			break;
	}
	if (i >= argc) {
		cli_usage(stderr);
		fputs("arena: name a command\n", stderr);
		return 2;
	}
	const char *cmd = argv[i];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		cli_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version"))
		cmd = "version";
	const struct cli_command *k = cli_command_find(cmd);
	if (!k) {
		cli_usage(stderr);
		fprintf(stderr, "arena: unknown command '%s'\n", cmd);
		return 2;
	}
	if (cli_wants_help(argc - i, argv + i))
		return cli_help(k, stdout);
	return k->fn(&c, argc - i, argv + i);
}
