/*
 * spawn.h - starting an agent program the way every agent launcher must:
 * argv as a vector (never a shell string), its own process group, stdin
 * from a file (the prompt) or /dev/null, stdout and stderr appended to a
 * log file (capped), extra environment variables, and a deadline after
 * which the whole group gets SIGTERM and, after a grace period, SIGKILL.
 *
 * Agent CLIs that report in JSON need their stdout apart from stderr: with
 * stdout_path or on_stdout set, stdout goes to its own pipe (copied to
 * stdout_path, capped, and handed whole to on_stdout as it arrives) and
 * the log receives stderr only.  env_replace makes env_add the complete
 * environment, so a launcher decides exactly what an agent sees.
 */
#ifndef ARENA_AGENTS_SPAWN_H
#define ARENA_AGENTS_SPAWN_H

#include <stdbool.h>
#include "arena/util.h"

#define SPAWN_LOG_MAX ((size_t)16 << 20)	/* bytes of output kept */
#define SPAWN_KILL_GRACE_S 5.0

struct spawn_spec {
	char *const *argv;		/* argv[0] searched in PATH */
	const char *cwd;
	const char *stdin_path;		/* NULL: /dev/null */
	const char *log_path;		/* stdout+stderr; NULL: discarded */
	const struct strvec *env_add;	/* "NAME=value" entries, or NULL */
	double timeout_s;		/* <= 0: none */
	/* Optional (zero = the behaviour above). */
	bool env_replace;		/* env_add is the whole environment */
	const char *stdout_path;	/* stdout alone, capped; NULL: none */
	/* Called with every chunk of stdout as it arrives, uncapped. */
	void (*on_stdout)(void *ctx, const char *data, size_t n);
	void *on_stdout_ctx;
	double kill_grace_s;		/* <= 0: SPAWN_KILL_GRACE_S */
};

struct spawn_result {
	int status;		/* wait status */
	bool timed_out;
	double seconds;
	size_t output_bytes;	/* total written by the program (stdout and
				 * stderr together) */
	size_t stdout_bytes;	/* of which on stdout, when split */
};

/* Returns 0 when the program ran (whatever its status), a negative errno
 * with a message when it could not be started. */
int spawn_run(const struct spawn_spec *spec, struct spawn_result *res,
	      struct errbuf *err);

#endif /* ARENA_AGENTS_SPAWN_H */
