/*
 * serve_request.h - the body of POST /v1/batches (docs/serve.md), parsed
 * from hostile bytes into a batch of requests, before anything touches a
 * task or the store.
 *
 * The parser is strict: unknown keys, wrong types, duplicate file names,
 * out-of-range numbers and oversized values are refused with the JSON
 * path of the field at fault ("items[3].sources.kernel.c") and a
 * sentence.  Sizes are capped before anything is copied.  It is a pure
 * function of the bytes (tests/fuzz/fuzz_serve_request.c fuzzes it).
 */
#ifndef ARENA_SERVE_REQUEST_H
#define ARENA_SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "arena/util.h"

#define SERVE_MAX_ITEMS 1000		   /* requests in one batch */
#define SERVE_MAX_FILES 64		   /* source files of one request */
#define SERVE_MAX_FILE_BYTES (1024 * 1024) /* one source file */
#define SERVE_MAX_NAME 255		   /* a file name, a task id */
#define SERVE_MAX_CLIENT_KEY 128
#define SERVE_MAX_PRIORITY 1000 /* |priority| */

struct serve_file {
	char *name; /* a relative path, checked by path_is_safe_relative */
	char *data; /* NUL-terminated; sources never hold NUL */
	size_t len;
};

struct serve_item {
	char *task_id;
	struct serve_file *files; /* sorted by name */
	int nfiles;
	int priority; /* higher first; default 0 */
	bool quick;   /* one timing block: never shared with twins */
};

struct serve_batch_req {
	char *client_key; /* or NULL */
	struct serve_item *items;
	int n;
};

/* What is wrong with a request: the field's JSON path ("" for the body
 * itself) and a sentence in err. */
struct serve_error {
	char field[160];
	struct errbuf err;
};
void serve_error_init(struct serve_error *e);

/* Parses body[0..len) into *out (released by serve_batch_req_release,
 * also after a failure).  -EINVAL with e filled when the body is not a
 * valid batch. */
int serve_request_parse(const char *body, size_t len,
			struct serve_batch_req *out, struct serve_error *e);
void serve_batch_req_release(struct serve_batch_req *b);

/* The item's sources as one JSON object {"name": "text", ...} (caller
 * frees): what the queue keeps until a worker writes the files. */
char *serve_item_sources_json(const struct serve_item *it);
/* Parses what serve_item_sources_json wrote back into it->files (the
 * worker's side; the same checks as the parser). */
int serve_sources_from_json(const char *json, struct serve_item *it,
			    struct errbuf *err);
/* The key under which twins of an item share one evaluation: SHA-256 of
 * the task id, the quick flag and every file's name and bytes. */
void serve_item_key(const struct serve_item *it, char key[65]);

#endif /* ARENA_SERVE_REQUEST_H */
