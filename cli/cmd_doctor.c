/*
 * cmd_doctor.c - `arena doctor`: what this machine can evaluate and what
 * is missing (engine/src/eval/doctor.c does the work).
 */
#include <stdio.h>
#include <string.h>

#include "arena/doctor.h"
#include "cli.h"

static int doctor_usage(FILE *f)
{
	fputs("usage: arena doctor [--no-measure | --remeasure]\n"
	      "\n"
	      "Compilers, runners, GPU drivers and devices, measured peaks "
	      "(cached in the\nstore), sandboxing, and what is missing with "
	      "the command that installs it.\n"
	      "  --no-measure   do not measure device peaks that are not "
	      "cached yet\n"
	      "  --remeasure    measure device peaks again\n"
	      "Exits 1 when something an evaluation on this machine needs is "
	      "missing.\n", f);
	return f == stdout ? 0 : 2;
}

int cmd_doctor(struct cli *c, int argc, char **argv)
{
	struct doctor_options o = { .store_dir = c->store_dir,
				    .measure = true };
	struct strbuf out = STRBUF_INIT;
	int problems;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-measure"))
			o.measure = false;
		else if (!strcmp(argv[i], "--remeasure"))
			o.remeasure = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return doctor_usage(stdout);
		else {
			doctor_usage(stderr);
			return cli_fail("unexpected argument '%s'", argv[i]) + 1;
		}
	}
	problems = doctor_report(&o, &out);
	fputs(strbuf_str(&out), stdout);
	strbuf_release(&out);
	return problems ? 1 : 0;
}
