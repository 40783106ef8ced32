/*
 * cmd_check_agents.c - `arena check-agents [CONFIG | --agents a,b | --all]
 * [--json]`: for each agent CLI, is it installed (where), which version
 * (and the one its launcher was tested with), is it authenticated (which
 * variable or file), is its run configuration valid, and is the agent
 * sandbox available on this machine.  Exit status 0 when every agent
 * asked about is installed and authenticated, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_agent.h"
#include "sandbox/sandbox.h"
#include "arena/config.h"
#include "cli.h"

/* Checks one agent; appends a JSON object to arr; true when ready. */
static bool check_one(const char *name, const struct agent_config *cfg,
		      cJSON *arr, bool json)
{
	const struct cli_agent *a = cli_agent_find(name);
	const struct agent_ops *ops = agent_find(name);
	cJSON *o = cJSON_CreateObject();
	bool ready;

	cJSON_AddStringToObject(o, "agent", name);
	if (!a) {
		ready = ops != NULL;
		cJSON_AddBoolToObject(o, "builtin", ops != NULL);
		cJSON_AddBoolToObject(o, "ready", ready);
		if (!json)
			printf("%-17s %s\n", name, ops ? "built in: nothing to "
			       "install" : "unknown agent");
		cJSON_AddItemToArray(arr, o);
		return ready;
	}
	struct cli_settings s;
	struct errbuf err;
	char *bin = cli_find_bin(a), *version = NULL;
	const char *how = NULL;
	bool auth = cli_authenticated(a, &how);
	int vrc;

	errbuf_init(&err);
	vrc = cli_settings_load(a, cfg, &s, &err);
	if (bin)
		version = cli_version_of(bin, NULL);
	ready = bin && auth && vrc == 0;
	cJSON_AddStringToObject(o, "cli", a->cli);
	cJSON_AddBoolToObject(o, "installed", bin != NULL);
	if (bin)
		cJSON_AddStringToObject(o, "path", bin);
	if (version)
		cJSON_AddStringToObject(o, "version", version);
	if (s.cli_version)
		cJSON_AddStringToObject(o, "tested_version", s.cli_version);
	cJSON_AddBoolToObject(o, "authenticated", auth);
	if (how)
		cJSON_AddStringToObject(o, "auth", how);
	if (vrc)
		cJSON_AddStringToObject(o, "config_error", errbuf_str(&err));
	cJSON_AddBoolToObject(o, "ready", ready);
	cJSON_AddItemToArray(arr, o);
	if (!json) {
		printf("%-17s %-13s ", name, a->cli);
		if (!bin)
			printf("not installed (%s)\n", a->install_hint);
		else
			printf("%s%s%s%s  %s\n", version ? version : "?",
			       s.cli_version && version &&
					       strcmp(s.cli_version, version)
				       ? " (tested: " : "",
			       s.cli_version && version &&
					       strcmp(s.cli_version, version)
				       ? s.cli_version : "",
			       s.cli_version && version &&
					       strcmp(s.cli_version, version)
				       ? ")" : "",
			       auth ? "authenticated" : "NOT authenticated");
		if (bin)
			printf("%-17s   %s%s%s\n", "", bin, how ? "; auth: " : "",
			       how ? how : "");
		if (bin && !auth) {
			printf("%-17s   set one of", "");
			for (int i = 0; a->auth_env && a->auth_env[i]; i++)
				printf(" %s", a->auth_env[i]);
			if (a->auth_files)
				printf(" or log in with `%s`", a->cli);
			printf("\n");
		}
		if (vrc)
			printf("%-17s   config: %s\n", "", errbuf_str(&err));
	}
	cli_settings_release(&s);
	free(version);
	free(bin);
	return ready;
}

int cmd_check_agents(struct cli *c, int argc, char **argv)
{
	struct strvec names = STRVEC_INIT;
	struct runconfig *cfg = NULL;
	bool json = false;
	const char *why = NULL;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--all")) {
			for (int k = 0; cli_agents_all[k]; k++)
				strvec_push(&names, cli_agents_all[k]->name);
		} else if (!strcmp(argv[i], "--agents") && i + 1 < argc) {
			char *copy = xstrdup(argv[++i]), *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t;
			     t = strtok_r(NULL, ",", &save))
				strvec_push(&names, t);
			free(copy);
		} else if (argv[i][0] != '-' && !cfg) {
			struct errbuf err;
			errbuf_init(&err);
			if (runconfig_load(argv[i], c->tasks_dir ? c->tasks_dir
					   : task_default_root(), &cfg,
					   &err) != 0) {
				strvec_release(&names);
				return cli_fail("%s", errbuf_str(&err));
			}
			strvec_push(&names, cfg->agent.template_name);
		} else {
			strvec_release(&names);
			if (cfg)
				runconfig_free(cfg);
			return cli_usage_error("check-agents",
					       "unexpected "
					       "argument or missing value: "
					       "'%s'",
					       argv[i]);
		}
	}
	if (names.n == 0)
		for (int k = 0; cli_agents_all[k]; k++)
			strvec_push(&names, cli_agents_all[k]->name);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < names.n; i++)
		if (!check_one(names.v[i], cfg ? &cfg->agent : NULL, arr, json))
			bad++;
	bool sb = sandbox_available(&why);
	if (json) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddItemToObject(root, "agents", arr);
		cJSON_AddBoolToObject(root, "sandbox", sb);
		if (why)
			cJSON_AddStringToObject(root, "sandbox_unavailable",
						why);
		char *s = cJSON_Print(root);
		puts(s);
		free(s);
		cJSON_Delete(root);
	} else {
		cJSON_Delete(arr);
		printf("sandbox: %s\n", sb ? "bubblewrap available (agents run "
		       "sandboxed)" : why);
	}
	if (cfg)
		runconfig_free(cfg);
	strvec_release(&names);
	return bad ? 1 : 0;
}
