/*
 * html_check.h - for unit tests of the HTML pages (included by one test
 * file each): reads the numbers a page tags (data-k, RFC 6901 pointers;
 * engine/src/report/html.h) back against the JSON they come from.
 * Needs cmocka, cJSON and arena/util.h included before it.
 */
#ifndef ARENA_TEST_HTML_CHECK_H
#define ARENA_TEST_HTML_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value at an RFC 6901 pointer, or NULL. */
static const cJSON *resolve(const cJSON *root, const char *ptr)
{
	const cJSON *cur = root;
	const char *p = ptr;

	while (cur && *p == '/') {
		struct strbuf tok = STRBUF_INIT;

		for (p++; *p && *p != '/'; p++) {
			if (*p == '~' && p[1] == '0') {
				strbuf_addch(&tok, '~');
				p++;
			} else if (*p == '~' && p[1] == '1') {
				strbuf_addch(&tok, '/');
				p++;
			} else {
				strbuf_addch(&tok, *p);
			}
		}
		if (cJSON_IsArray(cur))
			cur = cJSON_GetArrayItem(cur, atoi(strbuf_str(&tok)));
		else
			cur = cJSON_GetObjectItemCaseSensitive(
				cur, strbuf_str(&tok));
		strbuf_release(&tok);
	}
	return cur;
}

/* Checks every data-k of html against json: the text shown is the
 * value, rounded to the digits shown (a percentage is a fraction times
 * 100, "&ndash;" is null).  Returns the number of mismatches (each
 * printed); *checked gets the number of tags. */
static int check_tags(const char *html, const char *json, int *checked)
{
	cJSON *root = cJSON_Parse(json);
	int bad = 0;

	assert_non_null(root);
	*checked = 0;
	for (const char *p = html; (p = strstr(p, "data-k=\""));) {
		char ptr[256], text[64], num[64];
		const char *q = p + 8, *end = strchr(q, '"'), *gt, *lt;
		size_t k = 0;

		assert_non_null(end);
		assert_true((size_t)(end - q) < sizeof(ptr));
		memcpy(ptr, q, (size_t)(end - q));
		ptr[end - q] = '\0';
		gt = strchr(end, '>');
		lt = strchr(gt, '<');
		assert_true((size_t)(lt - gt - 1) < sizeof(text));
		memcpy(text, gt + 1, (size_t)(lt - gt - 1));
		text[lt - gt - 1] = '\0';
		p = lt;
		(*checked)++;
		const cJSON *v = resolve(root, ptr);
		if (!strcmp(text, "&ndash;")) {
			if (!v || !cJSON_IsNull(v)) {
				print_error("tag %s: shown as none, the JSON "
					    "holds a value\n",
					    ptr);
				bad++;
			}
			continue;
		}
		if (!v || !cJSON_IsNumber(v)) {
			print_error("tag %s ('%s'): the JSON holds no number "
				    "there\n",
				    ptr, text);
			bad++;
			continue;
		}
		/* The digits shown: "$0.2500", "66.7%", "2.0000&#215;". */
		int decimals = 0;
		bool dot = false, pct = strchr(text, '%') != NULL;
		for (const char *t = text;
		     *t && *t != '&' && k + 1 < sizeof(num); t++) {
			if ((*t >= '0' && *t <= '9') || *t == '-' ||
			    *t == '.') {
				num[k++] = *t;
				decimals += dot && *t != '.';
				dot |= *t == '.';
			}
		}
		num[k] = '\0';
		double shown = strtod(num, NULL);
		double want = v->valuedouble * (pct ? 100 : 1);
		if (fabs(shown - want) >
		    0.5 * pow(10, -decimals) + 1e-9 * fabs(want)) {
			print_error("tag %s: the page shows %s, the JSON holds "
				    "%.17g\n",
				    ptr, text, v->valuedouble);
			bad++;
		}
	}
	cJSON_Delete(root);
	return bad;
}

#endif /* ARENA_TEST_HTML_CHECK_H */
