/*
 * fuzz_serve_request.c - libFuzzer harness for the parser of POST
 * /v1/batches (serve/serve_request.c), which reads whatever a client
 * sends to `arena serve`.
 *
 * Beyond "no crash, no leak, no UB": a refusal names a field and a
 * sentence; an accepted batch keeps every limit (1..SERVE_MAX_ITEMS
 * items, 1..SERVE_MAX_FILES files each, safe relative names, sizes,
 * priorities), its files are sorted and distinct, and the sources survive
 * the round trip through the queue's JSON (serve_item_sources_json, then
 * serve_sources_from_json) byte for byte, with the same twin key.
 */
#include "serve_request.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_item(const struct serve_item *it)
{
	struct serve_item back = { 0 };
	struct errbuf err;
	char k1[65], k2[65];

	if (!it->task_id || !path_is_safe_relative(it->task_id) ||
	    strlen(it->task_id) > SERVE_MAX_NAME)
		abort();
	if (it->nfiles < 1 || it->nfiles > SERVE_MAX_FILES)
		abort();
	if (it->priority < -SERVE_MAX_PRIORITY ||
	    it->priority > SERVE_MAX_PRIORITY)
		abort();
	for (int k = 0; k < it->nfiles; k++) {
		const struct serve_file *f = &it->files[k];
		if (!path_is_safe_relative(f->name) ||
		    f->len > SERVE_MAX_FILE_BYTES || strlen(f->data) != f->len)
			abort();
		if (k && strcmp(it->files[k - 1].name, f->name) >= 0)
			abort();
	}
	errbuf_init(&err);
	char *js = serve_item_sources_json(it);
	back.task_id = it->task_id;
	back.quick = it->quick;
	if (serve_sources_from_json(js, &back, &err))
		abort();
	if (back.nfiles != it->nfiles)
		abort();
	for (int k = 0; k < it->nfiles; k++)
		if (strcmp(back.files[k].name, it->files[k].name) ||
		    back.files[k].len != it->files[k].len ||
		    memcmp(back.files[k].data, it->files[k].data,
			   it->files[k].len))
			abort();
	serve_item_key(it, k1);
	serve_item_key(&back, k2);
	if (strcmp(k1, k2))
		abort();
	for (int k = 0; k < back.nfiles; k++) {
		free(back.files[k].name);
		free(back.files[k].data);
	}
	free(back.files);
	free(js);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_batch_req b;
	struct serve_error e;

	serve_error_init(&e);
	if (serve_request_parse((const char *)data, size, &b, &e) == 0) {
		if (b.n < 1 || b.n > SERVE_MAX_ITEMS)
			abort();
		for (int i = 0; i < b.n; i++)
			check_item(&b.items[i]);
	} else if (!e.err.set || !errbuf_str(&e.err)[0]) {
		abort();
	}
	serve_batch_req_release(&b);
	return 0;
}
