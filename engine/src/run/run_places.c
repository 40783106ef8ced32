/*
 * run_places.c - AgentKernelArena's `log_directory` and
 * `workspace_directory_prefix`, honoured (docs/config.md).
 *
 * AKA writes a run's log to <log_directory>/<GPU>_<agent>_<timestamp>
 * [_<suffix>].log and its workspaces under <prefix>_<GPU>_<agent>/.  An
 * AKA config run by arena gets the same places:
 *   - log_directory: every event of the run (the lines `arena run` prints
 *     when not on a terminal, with the full date) is appended to
 *     <log_directory>/<GPU>_<agent>_<stamp>[_<suffix>].log, by whichever
 *     process executes it (arena run, resume, worker, the mount);
 *   - workspace_directory_prefix: <prefix>_<GPU>_<agent>/<run id>/ is a
 *     directory, as AKA's run directory is: one symbolic link per
 *     attempt, named as the attempt's directory in the store's tasks/,
 *     to that directory (the store stays the one copy of the
 *     workspaces), and reports/, a copy of AKA's three dashboard files
 *     written whenever the run's reports are (report_aka.c).  A real
 *     directory and real files, because AKA's dashboard
 *     (`python3 -m src.visualization build --include-workspace-runs`)
 *     resolves every path it finds and keeps only reports whose real path
 *     is workspace_<...>/run_<...>/reports under its project root.
 * <GPU> is target_gpu_model, else the configured device; <agent> the
 * (first) agent's template; <stamp> the run id without "run_".  A relative
 * directory is relative to the current directory of the process that
 * creates the run from a file (as AKA, which runs from its repository),
 * and to the store for a config written to the mount's runs/new.  The
 * resolved paths are kept in the run directory (log_path, aka_run_dir),
 * so later executions write to the same places wherever they run from.
 *
 * Both places hold what the store keeps from agents (every task's
 * result, every event), so every process that opens the store hides them
 * from every process it confines (confine_hide_always): the directories
 * that hold them - the log's directory and <prefix>_<GPU>_<agent>, with
 * every run in it - are appended to <store>/places when a run is created,
 * one line each, and read back at engine_open and before each attempt
 * (eng_places_hide_all).  A store from before that file existed gets it
 * from its runs' kept paths, once.
 */
#include "engine_internal.h"

#include "arena/confine.h"
#include "arena/ydoc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* dir made absolute by the rule above (caller frees). */
static char *place_dir(struct engine *e, const struct runconfig *cfg,
		       const char *dir)
{
	char cwd[4096];

	if (dir[0] == '/')
		return xstrdup(dir);
	if (cfg->path && cfg->path[0] != '<' && getcwd(cwd, sizeof(cwd)))
		return path_join(cwd, dir);
	return path_join(store_root(e->store), dir);
}

/* "<GPU>_<agent>", with '/' made '_' (caller frees). */
static char *place_label(const struct runconfig *cfg)
{
	char *s = xasprintf("%s_%s",
			    cfg->target_gpu_model ? cfg->target_gpu_model
			    : cfg->device	  ? cfg->device
						  : "auto",
			    cfg->agent.template_name);

	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return s;
}

#define PLACES_FILE "places"
/* The run's own file naming its log (log_directory). */
#define LOG_PATH_FILE "log_path"

/* Appends dir to <store>/places unless it is listed already (one write
 * on an O_APPEND descriptor: no line of another process is lost; two
 * that race may both add it, which is harmless) and hides it in this
 * process. */
static void places_note(struct engine *e, const char *dir)
{
	char *path = path_join(store_root(e->store), PLACES_FILE);
	char *line = xasprintf("\n%s\n", dir), *text = NULL;
	int fd = -1;

	if (file_read_all(path, 16u << 20, &text, NULL, NULL) != 0 ||
	    (strncmp(text, line + 1, strlen(line + 1)) && !strstr(text, line)))
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0644);
	free(text);
	if (fd >= 0) {
		if (write(fd, line + 1, strlen(line + 1)) < 0) {
			/* still hidden in this process */
		}
		close(fd);
	}
	confine_hide_always(dir);
	free(line);
	free(path);
}

/* path without its last component, in place; false for a top-level
 * path (nothing above it worth hiding). */
static bool cut_last(char *path)
{
	char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return false;
	*slash = '\0';
	return true;
}

int eng_places_create(struct engine *e, const struct runconfig *cfg,
		      const char *run_id, struct errbuf *err)
{
	char *label = place_label(cfg),
	     *run_dir = store_run_dir(e->store, run_id);
	const char *stamp = !strncmp(run_id, "run_", 4) ? run_id + 4 : run_id;
	int rc = 0;

	if (cfg->log_directory) {
		char *dir = place_dir(e, cfg, cfg->log_directory);
		char *log = xasprintf("%s/%s_%s.log", dir, label, stamp);
		char *keep = path_join(run_dir, LOG_PATH_FILE);

		rc = mkdir_p(dir, err);
		if (rc)
			errbuf_prefix(err, "log_directory '%s'",
				      cfg->log_directory);
		if (!rc)
			rc = file_write_atomic_str(keep, log, err);
		if (!rc)
			places_note(e, dir);
		free(keep);
		free(log);
		free(dir);
	}
	if (!rc && cfg->workspace_directory_prefix) {
		char *root = place_dir(e, cfg, cfg->workspace_directory_prefix);
		char *place = xasprintf("%s_%s/%s", root, label, run_id);
		char *keep = path_join(run_dir, AKA_RUN_DIR_FILE);

		rc = mkdir_p(place, err);
		if (rc)
			errbuf_prefix(err, "workspace_directory_prefix '%s'",
				      cfg->workspace_directory_prefix);
		else
			rc = file_write_atomic_str(keep, place, err);
		if (!rc && cut_last(place))
			places_note(e, place);
		free(keep);
		free(place);
		free(root);
	}
	free(run_dir);
	free(label);
	return rc;
}

/* A path the run directory keeps in its file name, or NULL. */
static char *kept_place(struct engine *e, const char *run_id, const char *name)
{
	char *run_dir = store_run_dir(e->store, run_id);
	char *keep = path_join(run_dir, name), *place = NULL;

	if (file_read_all(keep, 4096, &place, NULL, NULL) != 0 || !*place) {
		free(place);
		place = NULL;
	}
	free(keep);
	free(run_dir);
	return place;
}

char *eng_places_run_dir(struct engine *e, const char *run_id)
{
	return kept_place(e, run_id, AKA_RUN_DIR_FILE);
}

/* <store>/places for a store whose runs were created before it: the
 * directories of every run's kept places; made even when empty, so that
 * no later open scans the runs again. */
static void places_from_runs(struct engine *e, const char *path)
{
	char *runs = path_join(store_root(e->store), "runs");
	DIR *d = opendir(runs);
	struct dirent *de;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);

	while (d && (de = readdir(d))) {
		if (!store_run_id_valid(de->d_name))
			continue;
		char *place = kept_place(e, de->d_name, AKA_RUN_DIR_FILE);
		char *log = kept_place(e, de->d_name, LOG_PATH_FILE);
		if (place && cut_last(place))
			places_note(e, place);
		if (log && cut_last(log))
			places_note(e, log);
		free(place);
		free(log);
	}
	if (d)
		closedir(d);
	free(runs);
}

void eng_places_hide_all(struct engine *e)
{
	char *path = path_join(store_root(e->store), PLACES_FILE);
	char *text = NULL;

	if (access(path, F_OK) != 0)
		places_from_runs(e, path);
	if (file_read_all(path, 16u << 20, &text, NULL, NULL) == 0) {
		for (char *line = text, *nl; line && *line; line = nl) {
			nl = strchr(line, '\n');
			if (nl)
				*nl++ = '\0';
			confine_hide_always(line);
		}
	}
	free(text);
	free(path);
}

int eng_places_link_attempt(struct engine *e, const char *run_id,
			    const char *task_dir, struct errbuf *err)
{
	char *place = eng_places_run_dir(e, run_id);
	int rc = 0;

	if (!place)
		return 0;
	char *link = path_join(place, path_last(task_dir));
	if (symlink(task_dir, link) != 0 && errno != EEXIST)
		rc = errf_code(err, errno,
			       "workspace_directory_prefix: cannot link %s to "
			       "the attempt's directory %s: %s",
			       link, task_dir, strerror(errno));
	free(link);
	free(place);
	return rc;
}

char *eng_places_target_gpu(const struct store_run *run)
{
	struct ydoc doc;
	char *gpu = NULL;

	if (!run->config_yaml ||
	    ydoc_parse(&doc, "config.yaml", run->config_yaml,
		       strlen(run->config_yaml), NULL) != 0)
		return NULL;
	const char *s = ynode_str(ynode_get(doc.root, "target_gpu_model"));
	if (s && *s)
		gpu = xstrdup(s);
	ydoc_release(&doc);
	return gpu;
}

void eng_runlog_append(struct engine *e, const char *run_id,
		       const char *task_id, const char *kind,
		       const char *message)
{
	char *log, ts[32];
	struct strbuf line = STRBUF_INIT;
	int fd;

	if (!run_id || !store_run_id_valid(run_id) ||
	    !(log = kept_place(e, run_id, LOG_PATH_FILE)))
		return;
	time_stamp_iso(ts, now_wall());
	strbuf_addf(&line, "%s %-11s %-24s %s\n", ts, kind,
		    task_id ? task_id : "-", message);
	/* One write on an O_APPEND descriptor: lines from several
	 * processes never interleave.  A log that cannot be written does
	 * not stop a run (events are also in the store). */
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, strbuf_str(&line), line.len) < 0) {
			/* nothing to do: see above */
		}
		close(fd);
	}
	strbuf_release(&line);
	free(log);
}
