/*
 * agent.c - the agent registry and outcome helpers (arena/agent.h).
 *
 * The registry is a fixed table filled at start-up by the front end (the
 * CLI calls agents_register_builtin()); the engine only looks names up.
 * Names are compared after AgentKernelArena's normalisation: case-folded,
 * '-' equal to '_'.
 */
#include "arena/agent.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define AGENT_MAX 32

static const struct agent_ops *registry[AGENT_MAX];
static int nregistry;

static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
		char y = *b == '-' ? '_' : (char)tolower((unsigned char)*b);
		if (x != y)
			return false;
	}
	return *a == *b;
}

void agent_register(const struct agent_ops *ops)
{
	for (int i = 0; i < nregistry; i++)
		if (name_eq(registry[i]->name, ops->name)) {
			registry[i] = ops;
			return;
		}
	if (nregistry < AGENT_MAX)
		registry[nregistry++] = ops;
}

const struct agent_ops *agent_find(const char *name)
{
	for (int i = 0; i < nregistry && name; i++)
		if (name_eq(registry[i]->name, name))
			return registry[i];
	return NULL;
}

void agent_list(struct strbuf *out)
{
	for (int i = 0; i < nregistry; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", registry[i]->name);
}

void agent_outcome_init(struct agent_outcome *o)
{
	memset(o, 0, sizeof(*o));
}

void agent_outcome_release(struct agent_outcome *o)
{
	free(o->status);
	free(o->error);
	free(o->summary);
	agent_outcome_init(o);
}
