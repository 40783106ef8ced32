/*
 * ydoc.h - a YAML document loaded into a small owned tree, for every
 * parser of files users and agents write: tasks and run configs (engine
 * task room), agent_config.yaml (agents/cli).  Implemented by
 * engine/src/base/ydoc.c on libyaml.
 *
 * The tree keeps what validation needs and nothing more: scalars as text
 * (plus whether they were written plain, so `5` is a number and "5" a
 * string), lists, and maps that keep their keys in file order with the
 * line of every node for messages.
 *
 * Refused while loading (they come from files users and agents write):
 * anchors and aliases, explicit tags, non-scalar map keys, duplicate keys,
 * more than one document, nesting deeper than YDOC_MAX_DEPTH and more than
 * YDOC_MAX_NODES nodes.
 */
#ifndef ARENA_YDOC_H
#define ARENA_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena/util.h"

#define YDOC_MAX_DEPTH 32
#define YDOC_MAX_NODES 100000

enum ynode_kind { YNODE_SCALAR = 1, YNODE_SEQ, YNODE_MAP };

struct ynode;

struct ypair {
	char *key;		/* owned */
	int line;		/* 1-based line of the key */
	struct ynode *value;	/* owned */
};

struct ynode {
	enum ynode_kind kind;
	int line;		/* 1-based */
	/* YNODE_SCALAR */
	char *str;		/* owned, NUL-terminated (may hold NULs) */
	size_t str_len;
	bool plain;		/* written without quotes or block style */
	/* YNODE_SEQ: items[0..n); YNODE_MAP: pairs[0..n) in file order */
	size_t n;
	struct ynode **items;
	struct ypair *pairs;
};

struct ydoc {
	struct ynode *root;	/* NULL when the document is empty */
	size_t nnodes;
};

/* Parses text[0..len) into doc (initialised here).  source names the file
 * in messages ("tasks/c2c/x/config.yaml:3: ...").  On error doc is left
 * empty and nothing needs releasing; on success release it with
 * ydoc_release(). */
int ydoc_parse(struct ydoc *doc, const char *source, const char *text,
	       size_t len, struct errbuf *err);
void ydoc_release(struct ydoc *doc);

/* The value under key in a map, or NULL (also when map is not a map).
 * Borrowed from the document. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* "a map", "a list", "a number", "a string", "empty" (null): for messages
 * like "must be a list, not a map". */
const char *ynode_describe(const struct ynode *n);

/* A plain `~`, `null`, `Null`, `NULL` or an empty plain scalar. */
bool ynode_is_null(const struct ynode *n);
/* A scalar that is not null. */
bool ynode_is_text(const struct ynode *n);
/* Scalar text (borrowed), or NULL when n is not a scalar. */
const char *ynode_str(const struct ynode *n);
/* A plain decimal integer ("42", "-7"); -EINVAL for anything else,
 * including quoted numbers, floats and out-of-range values. */
int ynode_i64(const struct ynode *n, int64_t *out);
/* A plain finite number ("1e-5", "2", "0.5"); -EINVAL otherwise. */
int ynode_double(const struct ynode *n, double *out);
/* A plain true/false (any capitalisation YAML 1.2 allows). */
int ynode_bool(const struct ynode *n, bool *out);

/* Sets err to "source:LINE: " + the formatted text, LINE being n's line
 * (the line is left out when n is NULL).  Returns -EINVAL. */
int ynode_errf(struct errbuf *err, const char *source, const struct ynode *n,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Checks that every key of map is one of allowed[0..nallowed).  On the
 * first other key sets "source:LINE: FIELD: unknown key 'k'; allowed keys
 * are a, b, c" (FIELD NULL for the top level: "unknown top-level key") and
 * returns -EINVAL. */
int ynode_check_keys(const struct ynode *map, const char *const *allowed,
		     size_t nallowed, const char *source, const char *field,
		     struct errbuf *err);

#endif /* ARENA_YDOC_H */
