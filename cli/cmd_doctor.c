/*
 * cmd_doctor.c - `arena doctor`: what this machine can evaluate and what
 * is missing (engine/src/eval/doctor.c does the work).
 */
#include <stdio.h>
#include <string.h>

#include "arena/doctor.h"
#include "cli.h"

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
		else
			return cli_usage_error("doctor",
					       "unexpected argument "
					       "'%s'",
					       argv[i]);
	}
	problems = doctor_report(&o, &out);
	fputs(strbuf_str(&out), stdout);
	strbuf_release(&out);
	return problems ? 1 : 0;
}
