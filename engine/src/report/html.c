/*
 * html.c - the page frame, escaping, tagged numbers and the SVG charts of
 * the report room's pages (html.h).
 *
 * The charts are plain SVG text, sized in pixels, drawn once: no script
 * lays anything out.  Speedups live on a log axis because a ratio is
 * symmetric there (2x faster and 2x slower sit at equal distances from
 * 1.0) and because one 40x outlier would otherwise squash every other
 * row against the origin.
 */
#include "html.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping and the frame -------------------------------------------- */

void html_escape(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

/* Text from results can hold any bytes; the page is UTF-8. */
static void escape_clean(struct strbuf *sb, const char *s)
{
	char *clean = result_utf8_sanitize(s ? s : "");

	html_escape(sb, clean);
	free(clean);
}

void html_page_open(struct strbuf *sb, const char *title)
{
	strbuf_addstr(
		sb,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, "
		"initial-scale=1\">\n"
		/* Nothing may be fetched: no script, no font, no image
		 * from anywhere (the charts are inline SVG). */
		"<meta http-equiv=\"Content-Security-Policy\" content=\""
		"default-src 'none'; style-src 'unsafe-inline'; img-src data:;"
		" base-uri 'none'; form-action 'none'\">\n"
		"<meta name=\"generator\" content=\"arena\">\n<title>");
	escape_clean(sb, title);
	strbuf_addstr(
		sb,
		"</title>\n<style>\n"
		"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
		"margin:1.5em 2em;color:#1d1d1f;max-width:1400px}\n"
		"h1{font-size:1.45em;margin-bottom:.2em}"
		"h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid "
		"#ddd;padding-bottom:.2em}h3{font-size:1em;margin:1em 0 .3em}\n"
		"p.meta{color:#555;margin-top:0}\n"
		"table{border-collapse:collapse;font-size:.86em;margin:.4em 0}\n"
		"th,td{border:1px solid #d6d6d6;padding:3px 7px;text-align:left;"
		"vertical-align:top}\nth{background:#f2f2f2;font-weight:600}\n"
		"td.num,th.num{text-align:right;font-variant-numeric:"
		"tabular-nums}td.num{white-space:nowrap}\n"
		"td.note{color:#666;max-width:34em;overflow-wrap:anywhere}\n"
		"td.wrap{color:#555;overflow-wrap:anywhere;font-size:.95em}\n"
		"table.attempts{font-size:.8em}table.attempts td,"
		"table.attempts th{padding:2px 5px}\n"
		".faster{color:#17692d}.slower{color:#a4161a}.same,.none,"
		".muted{color:#6b6b6b}\n"
		".cards{display:flex;flex-wrap:wrap;gap:.6em;margin:.6em 0}\n"
		".card{border:1px solid #ddd;border-radius:6px;padding:.45em "
		".8em;min-width:8.5em;background:#fafafa}\n"
		".card .v{font-size:1.35em;font-weight:600;display:block;"
		"font-variant-numeric:tabular-nums}\n"
		".card .k{font-size:.78em;color:#555}\n"
		".headline{font-size:1.05em;background:#f4f8ff;border-left:4px "
		"solid #3b6fd8;padding:.5em .8em}\n"
		"details{margin:.2em 0}summary{cursor:pointer}\n"
		"svg{max-width:100%;height:auto}\n"
		"svg text{font-size:12px;font-family:system-ui,sans-serif;"
		"fill:#1d1d1f}svg text.small{font-size:10.5px}\n"
		"svg text.muted{fill:#6b6b6b}svg text.faster{fill:#17692d}"
		"svg text.slower{fill:#a4161a}\n"
		"footer{margin-top:2.5em;color:#666;font-size:.85em}\n"
		"</style>\n</head>\n<body>\n");
}

void html_page_close(struct strbuf *sb)
{
	strbuf_addstr(sb, "</body>\n</html>\n");
}

/* ---- tagged numbers ---------------------------------------------------- */

void jptr_add(struct strbuf *p, const char *token)
{
	strbuf_addch(p, '/');
	for (const char *s = token ? token : ""; *s; s++) {
		if (*s == '~')
			strbuf_addstr(p, "~0");
		else if (*s == '/')
			strbuf_addstr(p, "~1");
		else
			strbuf_addch(p, *s);
	}
}

void jptr_addf(struct strbuf *p, const char *fmt, ...)
{
	struct strbuf tok = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&tok, fmt, ap);
	va_end(ap);
	jptr_add(p, strbuf_str(&tok));
	strbuf_release(&tok);
}

static void tag_open(struct strbuf *sb, const char *ptr)
{
	if (!ptr)
		return;
	strbuf_addstr(sb, "<span data-k=\"");
	escape_clean(sb, ptr);
	strbuf_addstr(sb, "\">");
}

static void tag_close(struct strbuf *sb, const char *ptr)
{
	if (ptr)
		strbuf_addstr(sb, "</span>");
}

void html_int(struct strbuf *sb, const char *ptr, int64_t v)
{
	tag_open(sb, ptr);
	strbuf_addf(sb, "%" PRId64, v);
	tag_close(sb, ptr);
}

void html_fixed(struct strbuf *sb, const char *ptr, double v, int decimals,
		const char *unit)
{
	tag_open(sb, ptr);
	if (isfinite(v))
		strbuf_addf(sb, "%.*f%s", decimals, v, unit ? unit : "");
	else
		strbuf_addstr(sb, "&ndash;");
	tag_close(sb, ptr);
}

void html_pct(struct strbuf *sb, const char *ptr, double rate)
{
	tag_open(sb, ptr);
	if (isfinite(rate))
		strbuf_addf(sb, "%.1f%%", 100.0 * rate);
	else
		strbuf_addstr(sb, "&ndash;");
	tag_close(sb, ptr);
}

void html_usd(struct strbuf *sb, const char *ptr, double v)
{
	tag_open(sb, ptr);
	if (isfinite(v))
		strbuf_addf(sb, "$%.4f", v);
	else
		strbuf_addstr(sb, "&ndash;");
	tag_close(sb, ptr);
}

void html_duration(struct strbuf *sb, double s)
{
	long t;

	if (!isfinite(s) || s < 0) {
		strbuf_addstr(sb, "&ndash;");
		return;
	}
	t = (long)(s + 0.5);
	if (s < 60)
		strbuf_addf(sb, "%.1fs", s);
	else if (t < 3600)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60,
			    t % 60);
}

void html_ratio_label(struct strbuf *sb, double v)
{
	char buf[32];
	size_t n;

	if (v >= 10)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		snprintf(buf, sizeof(buf), "%.3f", v);
	n = strlen(buf);
	if (strchr(buf, '.')) {
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	strbuf_addf(sb, "%s&#215;", buf);
}

const char *html_status_color(const char *status)
{
	static const struct {
		const char *name, *color;
	} map[] = {
		{ "ok", "#2e8b57" },
		{ "incorrect", "#e07a1f" },
		{ "compile_error", "#a4161a" },
		{ "runtime_error", "#c2185b" },
		{ "timeout", "#7b3fa0" },
		{ "rejected", "#5d4037" },
		{ "infra_error", "#455a64" },
		{ "not_evaluated", "#9e9e9e" },
		{ "pending", "#cfcfcf" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].name, status))
			return map[i].color;
	return "#999999";
}

/* ---- the log axis ------------------------------------------------------ */

#define AXIS_MIN (1.0 / 64)
#define AXIS_MAX 64.0

struct logaxis {
	double lo, hi; /* the domain, lo < 1 < hi */
	double x0, x1; /* pixels */
};

static bool pos(double v)
{
	return v > 0 && isfinite(v);
}

static void logaxis_widen(double *lo, double *hi, double v)
{
	if (!pos(v))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* The domain: every value given and 1.0, padded by 8% of its log width
 * (at least to [0.9, 1.1]), clamped to [1/64, 64]. */
static void logaxis_fit(struct logaxis *a, double lo, double hi, double x0,
			double x1)
{
	double pad;

	if (lo > 0.9)
		lo = 0.9;
	if (hi < 1.1)
		hi = 1.1;
	pad = 0.08 * (log(hi) - log(lo));
	a->lo = fmax(AXIS_MIN, exp(log(lo) - pad));
	a->hi = fmin(AXIS_MAX, exp(log(hi) + pad));
	a->x0 = x0;
	a->x1 = x1;
}

static double logaxis_x(const struct logaxis *a, double v)
{
	double t;

	if (!pos(v) || v < a->lo)
		v = a->lo;
	if (v > a->hi)
		v = a->hi;
	t = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	return a->x0 + t * (a->x1 - a->x0);
}

/* Tick values: powers of two on a wide axis (a factor of 4 or more),
 * else multiples of a round step, at most about eight; 1.0 always. */
static int logaxis_ticks(const struct logaxis *a, double *t, int max)
{
	int n = 0;

	if (a->hi / a->lo >= 4) {
		int k0 = (int)ceil(log2(a->lo)), k1 = (int)floor(log2(a->hi));
		int step = (k1 - k0) / 8 + 1;

		for (int k = 0; k >= k0 && n < max; k -= step)
			t[n++] = ldexp(1.0, k);
		for (int k = step; k <= k1 && n < max; k += step)
			t[n++] = ldexp(1.0, k);
		return n;
	}
	static const double steps[] = { 0.005, 0.01, 0.02, 0.025, 0.05,
					0.1,   0.2,  0.25, 0.5,	  1.0 };
	double step = 1.0;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		if ((a->hi - a->lo) / steps[i] <= 8) {
			step = steps[i];
			break;
		}
	for (double v = ceil(a->lo / step) * step; v <= a->hi && n < max;
	     v += step)
		t[n++] = fabs(v - 1.0) < step / 2 ? 1.0 : v;
	return n;
}

/* Grid lines from y0 to y1, tick labels under y1, the rule at 1.0
 * labelled "1× (baseline)". */
static void logaxis_draw(struct strbuf *sb, const struct logaxis *a, double y0,
			 double y1, const char *what)
{
	double t[24];
	int n = logaxis_ticks(a, t, 24);

	strbuf_addf(sb,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#444\"/>\n",
		    a->x0, y1, a->x1, y1);
	for (int i = 0; i < n; i++) {
		double x = logaxis_x(a, t[i]);

		if (t[i] != 1.0)
			strbuf_addf(sb,
				    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				    "y2=\"%.1f\" stroke=\"#e6e6e6\"/>\n",
				    x, y0, x, y1);
		strbuf_addf(sb,
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor="
			    "\"middle\" class=\"small\">",
			    x, y1 + 14);
		html_ratio_label(sb, t[i]);
		strbuf_addstr(sb, "</text>\n");
	}
	double one = logaxis_x(a, 1.0);
	strbuf_addf(sb,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#222\" stroke-width=\"1.3\"/>\n",
		    one, y0 - 4, one, y1);
	strbuf_addf(sb,
		    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		    "class=\"small\">1&#215; = baseline</text>\n",
		    one, y0 - 7);
	strbuf_addf(sb,
		    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		    "class=\"small muted\">",
		    (a->x0 + a->x1) / 2, y1 + 29);
	html_escape(sb, what);
	strbuf_addstr(sb, " (log scale)</text>\n");
}

/* ---- the forest chart --------------------------------------------------- */

#define FOREST_W 1020
#define FOREST_LABEL 300
#define FOREST_VALUE 215
#define FOREST_ROW 20
#define FOREST_TOP 24

static const char *cls_color(const char *cls)
{
	if (!strcmp(cls, "faster"))
		return "#2e8b57";
	if (!strcmp(cls, "slower"))
		return "#c0392b";
	return "#7a7a7a";
}

static void forest_one(struct strbuf *sb, const struct logaxis *a,
		       const struct forest_row *r, double y)
{
	double ym = y + FOREST_ROW / 2.0;

	/* The label, right-aligned before the plot. */
	strbuf_addf(sb, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
		    FOREST_LABEL - 8, ym + 4);
	escape_clean(sb, r->label);
	if (r->sublabel && *r->sublabel) {
		strbuf_addstr(sb, " <tspan class=\"muted\">[");
		escape_clean(sb, r->sublabel);
		strbuf_addstr(sb, "]</tspan>");
	}
	if (r->attempt > 0)
		strbuf_addf(sb, " <tspan class=\"muted\">#%d</tspan>",
			    r->attempt);
	strbuf_addstr(sb, "</text>\n");
	if (r->band > 0 && isfinite(r->band) && r->band < 1) {
		double bx0 = logaxis_x(a, 1 - r->band);
		double bx1 = logaxis_x(a, 1 + r->band);

		strbuf_addf(sb,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"#dcdcdc\" "
			    "fill-opacity=\"0.75\"/>\n",
			    bx0, y + 1, fmax(bx1 - bx0, 1.0), FOREST_ROW - 2);
	}
	if (!r->has_point) {
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"muted\">",
			    a->x0 + 4, ym + 4);
		escape_clean(sb, r->note ? r->note : "no speedup");
		strbuf_addstr(sb, "</text>\n");
		return;
	}
	const char *col = cls_color(r->cls ? r->cls : "none");
	if (pos(r->lo) && pos(r->hi) && r->lo <= r->hi) {
		double l = logaxis_x(a, r->lo), h = logaxis_x(a, r->hi);

		strbuf_addf(sb,
			    "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
			    "%.1fV%.1f\" stroke=\"%s\" stroke-width=\"1.6\" "
			    "fill=\"none\"/>\n",
			    l, ym, h, l, ym - 5, ym + 5, h, ym - 5, ym + 5,
			    col);
	}
	double x = logaxis_x(a, r->v);
	if (r->v < a->lo || r->v > a->hi) {
		/* Beyond the axis: an arrow at the edge. */
		double d = r->v > a->hi ? 7 : -7;
		strbuf_addf(sb,
			    "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
			    "fill=\"%s\"/>\n",
			    x + d, ym, x, ym - 5, x, ym + 5, col);
	} else {
		strbuf_addf(sb,
			    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.2\" "
			    "fill=\"%s\"/>\n",
			    x, ym, col);
	}
	strbuf_addf(sb, "<text x=\"%d\" y=\"%.1f\" class=\"%s\">",
		    FOREST_W - FOREST_VALUE + 8, ym + 4,
		    r->cls ? r->cls : "none");
	if (r->ptr) {
		strbuf_addstr(sb, "<tspan data-k=\"");
		escape_clean(sb, r->ptr);
		strbuf_addf(sb, "\">%.4f</tspan>&#215;", r->v);
	} else {
		strbuf_addf(sb, "%.4f&#215;", r->v);
	}
	if (pos(r->lo) && pos(r->hi))
		strbuf_addf(sb,
			    " <tspan class=\"small muted\">[%.3f, %.3f]"
			    "</tspan>",
			    r->lo, r->hi);
	strbuf_addstr(sb, "</text>\n");
}

void forest_chart(struct strbuf *sb, const char *aria,
		  const struct forest_row *rows, int n, const char *what,
		  double overall, double overall_lo, double overall_hi)
{
	struct logaxis a;
	double lo = 1, hi = 1;
	double height = FOREST_TOP + FOREST_ROW * (n > 0 ? n : 1) + 40;

	for (int i = 0; i < n; i++) {
		if (!rows[i].has_point)
			continue;
		logaxis_widen(&lo, &hi, rows[i].v);
		logaxis_widen(&lo, &hi, rows[i].lo);
		logaxis_widen(&lo, &hi, rows[i].hi);
		if (rows[i].band > 0 && rows[i].band < 1) {
			logaxis_widen(&lo, &hi, 1 - rows[i].band);
			logaxis_widen(&lo, &hi, 1 + rows[i].band);
		}
	}
	logaxis_widen(&lo, &hi, overall_lo);
	logaxis_widen(&lo, &hi, overall_hi);
	logaxis_fit(&a, lo, hi, FOREST_LABEL, FOREST_W - FOREST_VALUE);
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\" "
		    "aria-label=\"",
		    FOREST_W, height, FOREST_W, height);
	escape_clean(sb, aria);
	strbuf_addstr(sb, "\">\n");
	double y1 = FOREST_TOP + FOREST_ROW * (n > 0 ? n : 1) + 4;
	if (pos(overall) && pos(overall_lo) && pos(overall_hi)) {
		double l = logaxis_x(&a, overall_lo);
		double h = logaxis_x(&a, overall_hi);

		strbuf_addf(sb,
			    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"#3b6fd8\" "
			    "fill-opacity=\"0.12\"/>\n",
			    l, FOREST_TOP, fmax(h - l, 1.0), y1 - FOREST_TOP);
	}
	if (pos(overall)) {
		double x = logaxis_x(&a, overall);

		strbuf_addf(
			sb,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#3b6fd8\" stroke-width=\"1.5\" "
			"stroke-dasharray=\"5 3\"/>\n",
			x, FOREST_TOP, x, y1);
	}
	logaxis_draw(sb, &a, FOREST_TOP, y1, what);
	for (int i = 0; i < n; i++)
		forest_one(sb, &a, &rows[i],
			   FOREST_TOP + (double)i * FOREST_ROW);
	if (n == 0)
		strbuf_addf(sb,
			    "<text x=\"%d\" y=\"%d\" class=\"muted\">"
			    "nothing yet</text>\n",
			    FOREST_LABEL + 4, FOREST_TOP + 14);
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- stacked bar and horizontal bars ------------------------------------ */

void stacked_bar(struct strbuf *sb, const char *aria, const struct segment *s,
		 int nseg)
{
	int total = 0, w = 700, shown = 0;
	double x = 0;

	for (int i = 0; i < nseg; i++)
		total += s[i].n > 0 ? s[i].n : 0;
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		    "aria-label=\"",
		    w, 58, w, 58);
	escape_clean(sb, aria);
	strbuf_addstr(sb, "\">\n");
	strbuf_addf(sb,
		    "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"22\" "
		    "fill=\"#f2f2f2\"/>\n",
		    w);
	for (int i = 0; i < nseg && total > 0; i++) {
		double sw = (double)w * (s[i].n > 0 ? s[i].n : 0) / total;

		if (sw <= 0)
			continue;
		strbuf_addf(sb,
			    "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" "
			    "height=\"22\" fill=\"%s\"><title>",
			    x, sw, s[i].color);
		escape_clean(sb, s[i].name);
		strbuf_addf(sb, ": %d</title></rect>\n", s[i].n);
		x += sw;
	}
	/* The legend: every segment with a count, in order. */
	double lx = 0;
	for (int i = 0; i < nseg; i++) {
		if (s[i].n <= 0 && shown >= 1)
			continue;
		strbuf_addf(sb,
			    "<rect x=\"%.1f\" y=\"32\" width=\"11\" "
			    "height=\"11\" fill=\"%s\"/>\n<text x=\"%.1f\" "
			    "y=\"42\">",
			    lx, s[i].color, lx + 15);
		escape_clean(sb, s[i].name);
		strbuf_addch(sb, ' ');
		if (s[i].ptr) {
			strbuf_addstr(sb, "<tspan data-k=\"");
			escape_clean(sb, s[i].ptr);
			strbuf_addf(sb, "\">%d</tspan>", s[i].n);
		} else {
			strbuf_addf(sb, "%d", s[i].n);
		}
		strbuf_addstr(sb, "</text>\n");
		lx += 15 +
		      7.2 * (double)(strlen(s[i].name ? s[i].name : "") + 6);
		shown++;
	}
	strbuf_addstr(sb, "</svg>\n");
}

void hbar_chart(struct strbuf *sb, const char *aria, const struct hbar *b,
		int n, const char *unit, int decimals)
{
	int w = 700, label = 220, row = 22;
	double mx = 0;

	for (int i = 0; i < n; i++)
		if (isfinite(b[i].v) && b[i].v > mx)
			mx = b[i].v;
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		    "aria-label=\"",
		    w, row * n + 6, w, row * n + 6);
	escape_clean(sb, aria);
	strbuf_addstr(sb, "\">\n");
	for (int i = 0; i < n; i++) {
		double y = i * row;
		double bw = mx > 0 && isfinite(b[i].v)
				    ? (w - label - 110) * b[i].v / mx
				    : 0;

		strbuf_addf(sb,
			    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			    label - 8, y + 15);
		escape_clean(sb, b[i].label);
		strbuf_addstr(sb, "</text>\n");
		strbuf_addf(sb,
			    "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"#3b6fd8\" "
			    "fill-opacity=\"0.75\"/>\n",
			    label, y + 4, bw, row - 8);
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"small\">",
			    label + bw + 6, y + 15);
		if (isfinite(b[i].v))
			strbuf_addf(sb, "%s%.*f%s",
				    !strcmp(unit, "$") ? "$" : "", decimals,
				    b[i].v, !strcmp(unit, "$") ? "" : unit);
		else
			strbuf_addstr(sb, "not reported");
		strbuf_addstr(sb, "</text>\n");
	}
	strbuf_addstr(sb, "</svg>\n");
}
