/*
 * fuzz_task.c - libFuzzer harness for the arena/1 task parser.
 *
 * The input is a config.yaml, optionally followed by "\n---held_out---\n"
 * and a held_out.yaml.  task_parse() runs with dir = NULL (no file checks).
 * Beyond "no crash, no leak, no UB", the harness checks two promises:
 * a failure always comes with a message, and a task that parsed can have
 * every shape, element count and cost of every case evaluated (the parser
 * evaluates them all at load time, so none may fail later).
 */
#include "arena/task.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_task_check(const struct task *t)
{
	struct errbuf err;
	int64_t numel, bytes, flops;

	for (int c = 0; c < t->ncases; c++) {
		const struct task_case *tc = &t->cases[c];
		for (int a = 0; a < t->nargs; a++)
			if (task_arg_numel(t, a, tc, &numel, &err) || numel < 1)
				abort();
		if (task_case_cost(t, tc, &bytes, &flops, &err) || bytes < 0 ||
		    flops < 0)
			abort();
		if (task_find_case(t, tc->id) != tc)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n---held_out---\n";
	const char *text = (const char *)data;
	const char *held = memmem(data, size, sep, sizeof(sep) - 1);
	size_t config_len = held ? (size_t)(held - text) : size;
	size_t held_len = 0;
	struct task *t = NULL;
	struct errbuf err;

	if (held) {
		held += sizeof(sep) - 1;
		held_len = size - (size_t)(held - text);
	}
	errbuf_init(&err);
	if (task_parse("fuzz/task", NULL, text, config_len, held, held_len, &t,
		       &err) == 0) {
		fuzz_task_check(t);
		task_free(t);
	} else if (!err.set || t != NULL) {
		abort();
	}
	return 0;
}
