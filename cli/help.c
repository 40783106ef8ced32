/*
 * help.c - the one convention every subcommand follows (cli.h):
 *
 *   - `arena COMMAND --help` (or -h, or `arena help COMMAND`) prints the
 *     command's usage, description, options and examples on stdout and
 *     exits 0.  main() answers it before the command runs, so asking for
 *     help never opens a store, creates ./arena-data or starts anything.
 *   - A usage error (unknown option, missing or malformed argument) prints
 *     the usage line and one sentence saying what is wrong on stderr and
 *     exits 2 (cli_usage_error).  Errors of the world (a run that does not
 *     exist, a config that does not validate) exit 1 (cli_fail).
 *   - The texts live in one table (commands.c); the man pages are
 *     rendered from the same table (`arena help --man [COMMAND]`), so the
 *     terminal help and docs/man/ cannot drift apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/eval.h"
#include "cli.h"

const struct cli_command *cli_command_find(const char *name)
{
	for (const struct cli_command *k = cli_commands; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

/* "OPTION\tMEANING" lines (meanings continued on lines starting with a
 * tab) as an aligned list. */
static void options_text(FILE *f, const char *opts)
{
	const char *p = opts;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *tab = memchr(p, '\t', n);

		if (tab == p) /* a continued meaning */
			fprintf(f, "  %-20s %.*s\n", "", (int)(n - 1), p + 1);
		else if (tab)
			fprintf(f, "  %-20.*s %.*s\n", (int)(tab - p), p,
				(int)(n - (size_t)(tab - p) - 1), tab + 1);
		else
			fprintf(f, "  %.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

/* The synopsis with "usage: " before its first line and the others
 * aligned under it. */
static void synopsis_text(FILE *f, const char *syn)
{
	const char *p = syn;
	bool first = true;

	while (*p) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)n,
			p);
		first = false;
		p += n;
		if (*p)
			p++;
	}
}

int cli_help(const struct cli_command *k, FILE *f)
{
	synopsis_text(f, k->synopsis);
	fprintf(f, "\n%s\n", k->description);
	if (k->options) {
		fputs("\nOptions:\n", f);
		options_text(f, k->options);
	}
	fputs("\nGlobal options (before the command): --store DIR, "
	      "--tasks-dir DIR.\n",
	      f);
	if (k->examples) {
		const char *p = k->examples;

		fputs("\nExample:\n", f);
		while (*p) {
			size_t n = strcspn(p, "\n");
			fprintf(f, "  %.*s\n", (int)n, p);
			p += n;
			if (*p)
				p++;
		}
	}
	return 0;
}

int cli_usage_verror(const char *command, const char *fmt, va_list ap)
{
	const struct cli_command *k = cli_command_find(command);

	if (k)
		synopsis_text(stderr, k->synopsis);
	fputs("arena: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n'arena %s --help' says more.\n", command);
	return 2;
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cli_usage_verror(command, fmt, ap);
	va_end(ap);
	return rc;
}

void cli_usage(FILE *f)
{
	fputs("usage: arena [--store DIR] [--tasks-dir DIR] COMMAND [ARGS]\n\n",
	      f);
	for (const struct cli_command *k = cli_commands; k->name; k++)
		fprintf(f, "  %-13s %s\n", k->name, k->summary);
	fputs("\n'arena COMMAND --help' describes a command; 'man arena' all "
	      "of them.\nThe store defaults to $ARENA_STORE or ./arena-data; "
	      "tasks to $ARENA_TASKS_DIR\nor the tasks/ shipped with arena.\n",
	      f);
}

/* ---- man pages ---------------------------------------------------------- */

/* Roff-escaped text: backslashes doubled as \e, a line that would start
 * with a control character protected by \&, '-' as \- (a hyphen-minus, so
 * options copied from the page work). */
static void roff(struct strbuf *sb, const char *s, size_t n)
{
	bool bol = sb->len == 0 || sb->buf[sb->len - 1] == '\n';

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (bol && (c == '.' || c == '\''))
			strbuf_addstr(sb, "\\&");
		if (c == '\\')
			strbuf_addstr(sb, "\\e");
		else if (c == '-')
			strbuf_addstr(sb, "\\-");
		else
			strbuf_addch(sb, c);
		bol = c == '\n';
	}
}

static void roff_str(struct strbuf *sb, const char *s)
{
	roff(sb, s, strlen(s));
}

/* Paragraph text: the hand-made line breaks of the terminal help are
 * kept (.br would be noisier and the text is short). */
static void roff_para(struct strbuf *sb, const char *s)
{
	roff_str(sb, s);
	strbuf_addch(sb, '\n');
}

static void roff_lines(struct strbuf *sb, const char *s, const char *before)
{
	const char *p = s;

	while (*p) {
		size_t n = strcspn(p, "\n");

		strbuf_addstr(sb, before);
		roff(sb, p, n);
		strbuf_addch(sb, '\n');
		p += n;
		if (*p)
			p++;
	}
}

static void man_options(struct strbuf *sb, const char *opts)
{
	const char *p = opts;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *tab = memchr(p, '\t', n);

		if (tab == p) {
			roff(sb, p + 1, n - 1);
			strbuf_addch(sb, '\n');
		} else if (tab) {
			strbuf_addstr(sb, ".TP\n.B ");
			roff(sb, p, (size_t)(tab - p));
			strbuf_addch(sb, '\n');
			roff(sb, tab + 1, n - (size_t)(tab - p) - 1);
			strbuf_addch(sb, '\n');
		}
		p += n;
		if (*p)
			p++;
	}
}

static void man_examples(struct strbuf *sb, const char *ex)
{
	strbuf_addstr(sb, ".PP\n.nf\n.RS 4\n");
	roff_lines(sb, ex, "");
	strbuf_addstr(sb, ".RE\n.fi\n");
}

static void man_footer(struct strbuf *sb)
{
	strbuf_addstr(
		sb,
		".SH ENVIRONMENT\n"
		".TP\n.B ARENA_STORE\nthe store directory when \\-\\-store is "
		"not given (default ./arena\\-data)\n"
		".TP\n.B ARENA_TASKS_DIR\nthe tasks directory when "
		"\\-\\-tasks\\-dir is not given\n"
		".SH EXIT STATUS\n"
		"0 on success (for eval, whenever a verdict was reached), 1 "
		"on an error (one\nsentence on stderr), 2 on a usage error "
		"(the usage, then what is wrong).\n"
		".SH FILES\n"
		".TP\n.I STORE/arena.db\nruns, attempts, evaluations, events "
		"(sqlite)\n"
		".TP\n.I STORE/runs/RUN/\nconfig.yaml, summary.csv, "
		"summary.json, report.txt, report.html,\n"
		"tasks/TASK/{workspace,baseline,logs}/, task_result.yaml\n"
		".TP\n.I STORE/index.html\nthe page across all runs "
		"(arena report \\-\\-index)\n");
}

/* One command: as a page of its own (page: SYNOPSIS, DESCRIPTION,
 * OPTIONS, EXAMPLES sections) or as a subsection of arena(1). */
static void man_command(struct strbuf *sb, const struct cli_command *k,
			bool page)
{
	if (page) {
		strbuf_addstr(sb, ".SH SYNOPSIS\n");
	} else {
		strbuf_addstr(sb, ".SS ");
		roff_str(sb, k->name);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, ".nf\n");
	roff_lines(sb, k->synopsis, ".B ");
	strbuf_addstr(sb, ".fi\n");
	strbuf_addstr(sb, page ? ".SH DESCRIPTION\n" : ".PP\n");
	roff_para(sb, k->description);
	if (page)
		strbuf_addstr(sb, ".PP\nGlobal options (before the command): "
				  "\\-\\-store DIR, \\-\\-tasks\\-dir DIR; "
				  "see arena(1).\n");
	if (k->options) {
		strbuf_addstr(sb, page ? ".SH OPTIONS\n" : ".PP\nOptions:\n");
		man_options(sb, k->options);
	}
	if (k->examples) {
		strbuf_addstr(sb, page ? ".SH EXAMPLES\n" : ".PP\nExample:\n");
		man_examples(sb, k->examples);
	}
}

void cli_man(struct strbuf *sb, const struct cli_command *only)
{
	char title[64];

	if (only) {
		snprintf(title, sizeof(title), "ARENA-%s", only->name);
		for (char *p = title; *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		strbuf_addf(sb,
			    ".TH %s 1 \"\" \"arena %s\" \"User Commands\"\n",
			    title, ARENA_VERSION);
		strbuf_addstr(sb, ".SH NAME\narena\\-");
		roff_str(sb, only->name);
		strbuf_addstr(sb, " \\- ");
		roff_str(sb, only->summary);
		strbuf_addch(sb, '\n');
		man_command(sb, only, true);
		man_footer(sb);
		strbuf_addstr(sb, ".SH SEE ALSO\n.BR arena (1)\n");
		return;
	}
	strbuf_addf(sb, ".TH ARENA 1 \"\" \"arena %s\" \"User Commands\"\n",
		    ARENA_VERSION);
	strbuf_addstr(
		sb,
		".SH NAME\narena \\- run AI agents on GPU kernel tasks and "
		"measure them\n"
		".SH SYNOPSIS\n.B arena\n[\\-\\-store DIR] [\\-\\-tasks\\-dir "
		"DIR] COMMAND [ARGS]\n"
		".SH DESCRIPTION\n"
		"arena runs an agent on a set of kernel tasks, evaluates what "
		"the agent left\nbehind with an evaluator the agent cannot "
		"reach, and reports compile,\ncorrectness, speedup and score "
		"per task, so that two agent configurations\ncan be compared "
		"with statistics.  The same store is also a filesystem\n(arena "
		"mount, arena\\-mount(1)).\n"
		".SH OPTIONS\n"
		".TP\n.B \\-\\-store DIR\nthe store (default $ARENA_STORE or "
		"./arena\\-data)\n"
		".TP\n.B \\-\\-tasks\\-dir DIR\nthe tasks (default "
		"$ARENA_TASKS_DIR, else the tasks shipped with arena)\n"
		".PP\nEvery command answers \\-\\-help with its usage, options "
		"and an example.\n"
		".SH COMMANDS\n");
	for (const struct cli_command *k = cli_commands; k->name; k++)
		man_command(sb, k, false);
	man_footer(sb);
	strbuf_addstr(sb, ".SH SEE ALSO\n.BR arena\\-mount (1),\n"
			  "docs/ in arena's source tree (docs/cli.md, "
			  "docs/results.md, docs/config.md)\n");
}

/* ---- `arena help`, `arena version` --------------------------------------- */

int cmd_help(struct cli *c, int argc, char **argv)
{
	const struct cli_command *k = NULL;
	bool man = false;

	(void)c;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--man")) {
			man = true;
		} else if (!strcmp(argv[i], "--commands")) {
			for (k = cli_commands; k->name; k++)
				puts(k->name);
			return 0;
		} else if (argv[i][0] != '-' && !k) {
			k = cli_command_find(argv[i]);
			if (!k)
				return cli_usage_error("help",
						       "there is no "
						       "command '%s'; 'arena "
						       "help' lists them",
						       argv[i]);
		} else {
			return cli_usage_error("help",
					       "unexpected argument "
					       "'%s'",
					       argv[i]);
		}
	}
	if (man) {
		struct strbuf sb = STRBUF_INIT;

		cli_man(&sb, k);
		fputs(strbuf_str(&sb), stdout);
		strbuf_release(&sb);
		return 0;
	}
	if (k)
		return cli_help(k, stdout);
	cli_usage(stdout);
	return 0;
}

int cmd_version(struct cli *c, int argc, char **argv)
{
	(void)c;
	if (argc > 1)
		return cli_usage_error("version", "unexpected argument '%s'",
				       argv[1]);
	printf("arena %s (%s)\n", ARENA_VERSION, ARENA_EVALUATOR_VERSION);
	return 0;
}
