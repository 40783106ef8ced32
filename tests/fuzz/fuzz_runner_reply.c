/*
 * fuzz_runner_reply.c - libFuzzer harness for what a runner sends the
 * controller (engine/src/eval/runner_client.c; the protocol is
 * arena/runner_proto.h).  A runner that holds candidate code is hostile,
 * so every byte it writes goes through these parsers.
 *
 * Input: byte 0 picks the exchange (hello then ready, or a reply with 0-3
 * values, or a device error), byte 1 the size of the chunks the bytes
 * arrive in (as recv() would cut them), the rest is what the runner
 * wrote.  The harness feeds the chunks into a runner struct with no
 * process behind it (pid 0: a violation's kill and reap do nothing) and
 * takes lines out as the controller does.  Beyond "no crash, no leak, no
 * UB", it checks the parsers' promises: a line never holds more than
 * RP_MAX_LINE bytes or a newline; every failure leaves a reason in
 * r->why; a reply accepted as "ok" for request 7 really starts with
 * "ok 7" and gave exactly the values asked for.
 */
#include "arena/runner_proto.h"
#include "eval_internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_fail(const struct runner *r, enum runner_fail f)
{
	if (f != RUNNER_OK && r->why[0] == '\0')
		abort();
}

static void fuzz_line(struct runner *r, int kind, const char *line)
{
	int64_t vals[3] = { 0, 0, 0 };
	enum runner_fail f;

	if (strlen(line) > RP_MAX_LINE || strchr(line, '\n'))
		abort();
	switch (kind) {
	case 0:		/* start: hello, then the line after it */
		f = runner_parse_hello(r, line);
		fuzz_check_fail(r, f);
		break;
	case 4: {	/* a device error's text */
		bool sticky = false;
		char name[64], why[512];
		if (runner_parse_device_error(line, &sticky, name,
					      sizeof(name), why, sizeof(why)) &&
		    (strlen(name) == 0 || strlen(name) >= sizeof(name)))
			abort();
		break;
	}
	default:	/* a reply to request 7 with kind - 1 values */
		r->seq = 7;
		r->why[0] = '\0';
		f = runner_parse_reply(r, line, kind - 1, vals);
		fuzz_check_fail(r, f);
		if (f == RUNNER_OK && strncmp(line, "ok 7", 4) != 0)
			abort();
		if (f == RUNNER_DEVICE && r->dev_error[0] == '\0')
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runner *r;
	size_t chunk, off = 2;
	int kind;

	if (size < 2)
		return 0;
	kind = data[0] % 5;
	chunk = (size_t)(data[1] % 64) + 1;
	r = runner_new();
	r->pid = 0;
	r->sock = -1;
	while (off < size && !r->reaped) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (n > RP_MAX_LINE - r->blen)
			n = RP_MAX_LINE - r->blen;
		memcpy(r->buf + r->blen, data + off, n);
		r->blen += n;
		off += n;
		for (;;) {
			enum runner_fail f = RUNNER_OK;
			char *line = NULL;
			/* hello may be followed by ready in one read */
			int took = runner_take_line(r, kind == 0, &line, &f);
			if (took < 0) {
				fuzz_check_fail(r, f);
				goto done;
			}
			if (took == 0)
				break;
			fuzz_line(r, kind, line);
		}
	}
done:
	runner_destroy(r);
	return 0;
}
