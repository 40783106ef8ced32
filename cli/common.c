/*
 * common.c - helpers shared by the subcommands: error printing and opening
 * the engine from the global options.  Kept out of main.c so that unit
 * tests can link the subcommands without the program's main().
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

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
	return 0;
}
