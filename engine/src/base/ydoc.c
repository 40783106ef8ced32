/*
 * ydoc.c - loads one YAML document with libyaml into the owned tree of
 * arena/ydoc.h, and the small typed accessors the parsers share.
 *
 * How it works: libyaml's event parser (not its document loader) drives a
 * recursive builder, one call per node.  Working from events lets us refuse
 * anchors, aliases and tags as soon as they appear and count nodes before
 * allocating them, so a hostile file cannot make us build a huge graph
 * ("billion laughs") or recurse deeply: recursion is bounded by
 * YDOC_MAX_DEPTH and the node count by YDOC_MAX_NODES.
 *
 * Invariants: every yaml_event_t obtained is deleted exactly once on every
 * path; a node is linked into its parent as soon as it is created, so on
 * error freeing the root frees everything built so far.  Duplicate keys are
 * found by sorting the keys of each finished map (O(n log n), so a map of
 * many keys cannot make loading quadratic).
 */
#include "arena/ydoc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct yloader {
	yaml_parser_t parser;
	const char *source;
	struct errbuf *err;
	size_t nnodes;
};

static int yl_line(const yaml_mark_t *m)
{
	return m->line >= (size_t)INT_MAX - 1 ? INT_MAX : (int)m->line + 1;
}

static int yl_errf(struct yloader *l, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int yl_errf(struct yloader *l, int line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "%s:%d: ", l->source, line);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	errf(l->err, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return -EINVAL;
}

/* Reads the next event; a libyaml syntax error becomes our message. */
static int yl_next(struct yloader *l, yaml_event_t *ev)
{
	const yaml_parser_t *p = &l->parser;

	if (yaml_parser_parse(&l->parser, ev))
		return 0;
	if (p->context)
		return yl_errf(l, yl_line(&p->problem_mark),
			       "YAML syntax error: %s %s",
			       p->problem ? p->problem : "invalid YAML",
			       p->context);
	return yl_errf(l, yl_line(&p->problem_mark), "YAML syntax error: %s",
		       p->problem ? p->problem : "invalid YAML");
}

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	free(n->str);
	for (size_t i = 0; n->items && i < n->n; i++)
		ynode_free(n->items[i]);
	for (size_t i = 0; n->pairs && i < n->n; i++) {
		free(n->pairs[i].key);
		ynode_free(n->pairs[i].value);
	}
	free(n->items);
	free(n->pairs);
	free(n);
}

static int yl_new_node(struct yloader *l, enum ynode_kind kind, int line,
		       struct ynode **out)
{
	if (++l->nnodes > YDOC_MAX_NODES)
		return yl_errf(l, line, "more than %d YAML nodes; this file is "
			       "too large to be a configuration",
			       YDOC_MAX_NODES);
	*out = xcalloc(1, sizeof(**out));
	(*out)->kind = kind;
	(*out)->line = line;
	return 0;
}

/* Refuses anchors and tags on a node-start event. */
static int yl_check_plain_node(struct yloader *l, const yaml_event_t *ev)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	int line = yl_line(&ev->start_mark);

	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else if (ev->type == YAML_MAPPING_START_EVENT) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	if (anchor)
		return yl_errf(l, line, "YAML anchors (&%s) are not supported; "
			       "write the value out in full", anchor);
	if (tag)
		return yl_errf(l, line, "YAML tags (%s) are not supported; "
			       "quote a value to make it a string", tag);
	return 0;
}

static int yl_scalar(struct yloader *l, const yaml_event_t *ev,
		     struct ynode **out)
{
	int line = yl_line(&ev->start_mark);
	size_t len = ev->data.scalar.length;
	int rc;

	if (memchr(ev->data.scalar.value, '\0', len))
		return yl_errf(l, line, "a value contains a NUL character");
	if ((rc = yl_new_node(l, YNODE_SCALAR, line, out)) != 0)
		return rc;
	(*out)->str = xstrndup((const char *)ev->data.scalar.value, len);
	(*out)->str_len = len;
	(*out)->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return 0;
}

static int yl_node(struct yloader *l, yaml_event_t *ev, int depth,
		   struct ynode **out);

static int yl_sequence(struct yloader *l, int depth, struct ynode *seq)
{
	size_t cap = 0;

	for (;;) {
		yaml_event_t ev;
		int rc = yl_next(l, &ev);
		if (rc)
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (seq->n == cap) {
			cap = cap ? 2 * cap : 4;
			seq->items = xrealloc(seq->items,
					      cap * sizeof(*seq->items));
		}
		seq->items[seq->n] = NULL;
		rc = yl_node(l, &ev, depth + 1, &seq->items[seq->n]);
		if (seq->items[seq->n])
			seq->n++;
		if (rc)
			return rc;
	}
}

struct ykey_ref {
	const char *key;
	size_t index;
};

static int ykey_ref_cmp(const void *a, const void *b)
{
	const struct ykey_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts a copy of the keys to find a duplicate in O(n log n). */
static int yl_check_duplicates(struct yloader *l, const struct ynode *map)
{
	struct ykey_ref *refs;
	int rc = 0;

	if (map->n < 2)
		return 0;
	refs = xmalloc(map->n * sizeof(*refs));
	for (size_t i = 0; i < map->n; i++) {
		refs[i].key = map->pairs[i].key;
		refs[i].index = i;
	}
	qsort(refs, map->n, sizeof(*refs), ykey_ref_cmp);
	for (size_t i = 1; i < map->n; i++) {
		if (strcmp(refs[i - 1].key, refs[i].key) != 0)
			continue;
		const struct ypair *first = &map->pairs[refs[i - 1].index];
		const struct ypair *again = &map->pairs[refs[i].index];
		rc = yl_errf(l, again->line, "duplicate key '%s' (first given "
			     "on line %d); give each key once", again->key,
			     first->line);
		break;
	}
	free(refs);
	return rc;
}

/* Reads one key event of a map; the key must be a plain or quoted scalar. */
static int yl_map_key(struct yloader *l, yaml_event_t *ev, struct ypair *pair)
{
	int line = yl_line(&ev->start_mark);
	int rc;

	if (ev->type != YAML_SCALAR_EVENT) {
		if (ev->type == YAML_ALIAS_EVENT)
			return yl_errf(l, line, "YAML aliases (*%s) are not "
				       "supported; write the value out in full",
				       ev->data.alias.anchor);
		return yl_errf(l, line, "a map key must be a string, not a "
			       "list or a map");
	}
	if ((rc = yl_check_plain_node(l, ev)) != 0)
		return rc;
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
		return yl_errf(l, line, "a key contains a NUL character");
	if (++l->nnodes > YDOC_MAX_NODES)
		return yl_errf(l, line, "more than %d YAML nodes; this file is "
			       "too large to be a configuration",
			       YDOC_MAX_NODES);
	pair->key = xstrndup((const char *)ev->data.scalar.value,
			     ev->data.scalar.length);
	pair->line = line;
	return 0;
}

static int yl_mapping(struct yloader *l, int depth, struct ynode *map)
{
	size_t cap = 0;

	for (;;) {
		yaml_event_t ev;
		int rc = yl_next(l, &ev);
		if (rc)
			return rc;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return yl_check_duplicates(l, map);
		}
		if (map->n == cap) {
			cap = cap ? 2 * cap : 4;
			map->pairs = xrealloc(map->pairs,
					      cap * sizeof(*map->pairs));
		}
		struct ypair *pair = &map->pairs[map->n];
		memset(pair, 0, sizeof(*pair));
		rc = yl_map_key(l, &ev, pair);
		yaml_event_delete(&ev);
		if (rc) {
			free(pair->key);
			return rc;
		}
		map->n++;
		if ((rc = yl_next(l, &ev)) != 0)
			return rc;
		rc = yl_node(l, &ev, depth + 1, &pair->value);
		if (rc)
			return rc;
	}
}

/* Builds the node that starts with ev (consumed: deleted here) and all of
 * its children.  *out is set as soon as the node exists, so the caller can
 * free a partial tree on error. */
static int yl_node(struct yloader *l, yaml_event_t *ev, int depth,
		   struct ynode **out)
{
	int line = yl_line(&ev->start_mark);
	enum ynode_kind kind;
	int rc;

	*out = NULL;
	if (ev->type == YAML_ALIAS_EVENT) {
		rc = yl_errf(l, line, "YAML aliases (*%s) are not supported; "
			     "write the value out in full",
			     ev->data.alias.anchor);
		yaml_event_delete(ev);
		return rc;
	}
	if ((rc = yl_check_plain_node(l, ev)) != 0) {
		yaml_event_delete(ev);
		return rc;
	}
	if (ev->type == YAML_SCALAR_EVENT) {
		rc = yl_scalar(l, ev, out);
		yaml_event_delete(ev);
		return rc;
	}
	kind = ev->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ : YNODE_MAP;
	yaml_event_delete(ev);
	if (depth >= YDOC_MAX_DEPTH)
		return yl_errf(l, line, "YAML nested deeper than %d levels",
			       YDOC_MAX_DEPTH);
	if ((rc = yl_new_node(l, kind, line, out)) != 0)
		return rc;
	if (kind == YNODE_SEQ)
		return yl_sequence(l, depth, *out);
	return yl_mapping(l, depth, *out);
}

/* Expects the event of the given type and discards it. */
static int yl_expect(struct yloader *l, yaml_event_type_t type)
{
	yaml_event_t ev;
	int rc = yl_next(l, &ev);

	if (rc)
		return rc;
	bool ok = ev.type == type;
	int line = yl_line(&ev.start_mark);
	yaml_event_delete(&ev);
	if (!ok)
		return yl_errf(l, line, "the file holds more than one YAML "
			       "document; keep one (remove the '---' line)");
	return 0;
}

/* Stream: nothing, or exactly one document. */
static int yl_stream(struct yloader *l, struct ydoc *doc)
{
	yaml_event_t ev;
	int rc;

	if ((rc = yl_next(l, &ev)) != 0)
		return rc;
	yaml_event_delete(&ev);		/* STREAM_START */
	if ((rc = yl_next(l, &ev)) != 0)
		return rc;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev);		/* DOCUMENT_START */
	if ((rc = yl_next(l, &ev)) != 0)
		return rc;
	if ((rc = yl_node(l, &ev, 0, &doc->root)) != 0)
		return rc;
	if ((rc = yl_expect(l, YAML_DOCUMENT_END_EVENT)) != 0)
		return rc;
	return yl_expect(l, YAML_STREAM_END_EVENT);
}

int ydoc_parse(struct ydoc *doc, const char *source, const char *text,
	       size_t len, struct errbuf *err)
{
	struct yloader l = { .source = source ? source : "<yaml>", .err = err };
	int rc;

	doc->root = NULL;
	doc->nnodes = 0;
	if (!yaml_parser_initialize(&l.parser))
		return errf_code(err, ENOMEM, "%s: cannot start the YAML parser",
				 l.source);
	yaml_parser_set_input_string(&l.parser, (const unsigned char *)text,
				     len);
	rc = yl_stream(&l, doc);
	yaml_parser_delete(&l.parser);
	if (rc) {
		ynode_free(doc->root);
		doc->root = NULL;
		return rc;
	}
	doc->nnodes = l.nnodes;
	return 0;
}

void ydoc_release(struct ydoc *doc)
{
	if (!doc)
		return;
	ynode_free(doc->root);
	doc->root = NULL;
	doc->nnodes = 0;
}

/* ---- accessors -------------------------------------------------------- */

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(map->pairs[i].key, key))
			return map->pairs[i].value;
	return NULL;
}

bool ynode_is_null(const struct ynode *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
		if (!strcmp(n->str, nulls[i]))
			return true;
	return false;
}

bool ynode_is_text(const struct ynode *n)
{
	return n && n->kind == YNODE_SCALAR && !ynode_is_null(n);
}

const char *ynode_str(const struct ynode *n)
{
	return n && n->kind == YNODE_SCALAR ? n->str : NULL;
}

int ynode_i64(const struct ynode *n, int64_t *out)
{
	const char *s;

	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return -EINVAL;
	s = n->str;
	if (*s == '-' || *s == '+')
		s++;
	if (*s == '\0' || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	return parse_i64(n->str, out);
}

int ynode_double(const struct ynode *n, double *out)
{
	const char *s;

	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return -EINVAL;
	/* Decimal notation only: strtod would also take hex and "inf". */
	s = n->str;
	if (*s == '-' || *s == '+')
		s++;
	if (!(*s >= '0' && *s <= '9') && !(*s == '.' && s[1] >= '0' &&
					   s[1] <= '9'))
		return -EINVAL;
	if (strspn(s, "0123456789.eE+-") != strlen(s))
		return -EINVAL;
	return parse_double(n->str, out);
}

int ynode_bool(const struct ynode *n, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE" };
	static const char *const no[] = { "false", "False", "FALSE" };

	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(n->str, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(n->str, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

const char *ynode_describe(const struct ynode *n)
{
	double d;
	bool b;

	if (!n || ynode_is_null(n))
		return "empty";
	if (n->kind == YNODE_MAP)
		return "a map";
	if (n->kind == YNODE_SEQ)
		return "a list";
	if (ynode_double(n, &d) == 0)
		return "a number";
	if (ynode_bool(n, &b) == 0)
		return "a boolean";
	return "a string";
}

int ynode_errf(struct errbuf *err, const char *source, const struct ynode *n,
	       const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (n)
		strbuf_addf(&sb, "%s:%d: ", source, n->line);
	else
		strbuf_addf(&sb, "%s: ", source);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	errf(err, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return -EINVAL;
}

int ynode_check_keys(const struct ynode *map, const char *const *allowed,
		     size_t nallowed, const char *source, const char *field,
		     struct errbuf *err)
{
	for (size_t i = 0; map && map->kind == YNODE_MAP && i < map->n; i++) {
		const struct ypair *p = &map->pairs[i];
		size_t j;
		for (j = 0; j < nallowed; j++)
			if (!strcmp(p->key, allowed[j]))
				break;
		if (j < nallowed)
			continue;

		struct strbuf list = STRBUF_INIT;
		for (j = 0; j < nallowed; j++)
			strbuf_addf(&list, "%s%s", j ? ", " : "", allowed[j]);
		if (field)
			errf(err, "%s:%d: %s: unknown key '%.80s'; allowed keys "
			     "are %s", source, p->line, field, p->key,
			     strbuf_str(&list));
		else
			errf(err, "%s:%d: unknown top-level key '%.80s'; allowed "
			     "keys are %s", source, p->line, p->key,
			     strbuf_str(&list));
		strbuf_release(&list);
		return -EINVAL;
	}
	return 0;
}
