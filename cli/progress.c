/*
 * progress.c - what `arena run`, `arena resume` (and `arena worker`) show
 * while a run executes (cli.h, docs/cli.md "Progress").
 *
 * Not on a terminal: one plain line per event (cli_print_event), which
 * scripts and the tests read; nothing else.  On a terminal: the same event
 * lines, and under them one status line, redrawn every second by a ticker
 * thread and whenever something changes:
 *
 *   [3/12] 00:04:51 elapsed, ETA 00:14:30 | c2c/gemm#1: agent turn 14 | ...
 *
 * attempts done of all, the time since this execution started, the time
 * left estimated from the attempts this execution finished, and what each
 * running attempt does now (engine_observer.progress: the agent's turns
 * where its CLI streams them, the evaluation's step).
 *
 * Locking: the observer is called from the run's worker threads and the
 * ticker runs beside them; one mutex guards the state and stdout.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

struct slot {
	char *task;
	int attempt;
	char *agent; /* the agent's last word, or NULL */
	char *eval;  /* the evaluation's step, or NULL */
};

struct cli_progress {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t ticker;
	bool ticker_started, stop, tty, drawn;
	bool pending; /* a change not drawn yet (throttled) */
	double last_draw;
	int total, done_before, finished;
	double t0;
	struct slot *slots;
	int nslots;
};

static void hms(char *buf, size_t n, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	snprintf(buf, n, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static int term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 100;
}

/* The status line (caller frees); p->mu held. */
static char *status_line(struct cli_progress *p)
{
	struct strbuf sb = STRBUF_INIT;
	double elapsed = now_wall() - p->t0;
	int done = p->done_before + p->finished;
	int left = p->total - done;
	char el[64], eta[64];

	hms(el, sizeof(el), elapsed);
	if (p->finished > 0 && left > 0)
		hms(eta, sizeof(eta), elapsed / p->finished * left);
	else
		snprintf(eta, sizeof(eta), left > 0 ? "--:--:--" : "00:00:00");
	strbuf_addf(&sb, "[%d/%d] %s elapsed, ETA %s", done, p->total, el, eta);
	for (int i = 0; i < p->nslots; i++) {
		const struct slot *s = &p->slots[i];

		strbuf_addf(&sb, " | %s#%d: ", s->task, s->attempt);
		if (s->agent && s->eval)
			strbuf_addf(&sb, "%s; %s", s->agent, s->eval);
		else
			strbuf_addstr(&sb, s->agent  ? s->agent
					   : s->eval ? s->eval
						     : "starting");
	}
	/* One line: cut at the terminal's width, control bytes (names come
	 * from configs and task trees) made harmless. */
	size_t max = (size_t)term_cols() - 1;
	char *line = strbuf_detach(&sb);
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (strlen(line) > max)
		line[max] = '\0';
	return line;
}

/* Redraws the status line; p->mu held.  Unless forced, at most ten
 * times a second (an evaluation reports each correctness trial): a change
 * that comes sooner is drawn by the ticker when the tenth of a second is
 * over, so that a step shorter than the ticker's second (an evaluation's
 * timing) still shows. */
#define REDRAW_MIN_S 0.1

static void redraw_if(struct cli_progress *p, bool force)
{
	double now = now_wall();

	if (!force && now - p->last_draw < REDRAW_MIN_S) {
		if (!p->pending) {
			p->pending = true;
			pthread_cond_signal(&p->cv);
		}
		return;
	}
	p->pending = false;
	p->last_draw = now;
	char *line = status_line(p);

	fprintf(stdout, "\r\033[K%s", line);
	fflush(stdout);
	p->drawn = true;
	free(line);
}

static void redraw(struct cli_progress *p)
{
	redraw_if(p, true);
}

static void *ticker_main(void *arg)
{
	struct cli_progress *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		/* Every second, or when a throttled change is due. */
		double wait = 1.0;
		if (p->pending)
			wait = p->last_draw + REDRAW_MIN_S - now_wall();
		if (wait > 0) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			long ns = ts.tv_nsec + (long)(wait * 1e9);
			ts.tv_sec += ns / 1000000000L;
			ts.tv_nsec = ns % 1000000000L;
			pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		}
		if (p->stop)
			break;
		/* Woken early by a change that is not due yet: wait on. */
		if (p->pending &&
		    now_wall() - p->last_draw < REDRAW_MIN_S)
			continue;
		redraw(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static struct slot *slot_find(struct cli_progress *p, const char *task,
			      int attempt)
{
	for (int i = 0; i < p->nslots; i++)
		if (p->slots[i].attempt == attempt &&
		    !strcmp(p->slots[i].task, task))
			return &p->slots[i];
	return NULL;
}

static void slot_drop(struct cli_progress *p, struct slot *s)
{
	free(s->task);
	free(s->agent);
	free(s->eval);
	*s = p->slots[--p->nslots];
}

static void on_progress(void *ctx, const char *run_id, const char *task_id,
			int attempt, const char *what)
{
	struct cli_progress *p = ctx;
	struct slot *s;

	(void)run_id;
	if (!p->tty || !task_id)
		return;
	pthread_mutex_lock(&p->mu);
	s = slot_find(p, task_id, attempt);
	if (!what) {
		if (s)
			slot_drop(p, s);
	} else {
		if (!s) {
			p->slots = xrealloc(p->slots, ((size_t)p->nslots +
						       1) * sizeof(*p->slots));
			s = &p->slots[p->nslots++];
			*s = (struct slot){ xstrdup(task_id), attempt, NULL,
					    NULL };
		}
		/* The agent's words stay while it runs; the evaluation's
		 * step replaces the previous one. */
		char **field = !strncmp(what, "evaluating", 10) ? &s->eval
								: &s->agent;
		free(*field);
		*field = xstrdup(what);
		if (!strcmp(what, "evaluating")) { /* the final one */
			free(s->agent);
			s->agent = NULL;
		}
	}
	redraw_if(p, what == NULL);
	pthread_mutex_unlock(&p->mu);
}

static void on_event(void *ctx, const char *run_id, const char *task_id,
		     const char *kind, const char *message)
{
	struct cli_progress *p = ctx;

	pthread_mutex_lock(&p->mu);
	if (!strcmp(kind, "eval_end"))
		p->finished++;
	else if (!strcmp(kind, "stale"))
		p->done_before--; /* counted done, evaluated again */
	if (p->tty && p->drawn)
		fputs("\r\033[K", stdout);
	cli_print_event(NULL, run_id, task_id, kind, message);
	if (p->tty)
		redraw(p);
	pthread_mutex_unlock(&p->mu);
}

struct cli_progress *cli_progress_start(struct engine *e, const char *run_id,
					bool tty, struct engine_observer *obs)
{
	struct cli_progress *p = xcalloc(1, sizeof(*p));
	struct store_attempt *as = NULL;
	int n = 0;

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->tty = tty;
	p->t0 = now_wall();
	if (store_attempt_list(engine_store(e), run_id, &as, &n, NULL) == 0) {
		p->total = n;
		for (int i = 0; i < n; i++)
			p->done_before += !strcmp(as[i].state, "done");
		store_attempts_free(as, n);
	}
	*obs = (struct engine_observer){ .event = on_event,
					 .ctx = p,
					 .progress = on_progress };
	if (tty) {
		pthread_mutex_lock(&p->mu);
		redraw(p);
		pthread_mutex_unlock(&p->mu);
		p->ticker_started =
			pthread_create(&p->ticker, NULL, ticker_main, p) == 0;
	}
	return p;
}

void cli_progress_stop(struct cli_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->ticker_started)
		pthread_join(p->ticker, NULL);
	if (p->tty && p->drawn) {
		char *line = status_line(p);

		/* The last state stays on the screen, as a line of its own. */
		fprintf(stdout, "\r\033[K%s\n", line);
		fflush(stdout);
		free(line);
	}
	for (int i = 0; i < p->nslots; i++) {
		free(p->slots[i].task);
		free(p->slots[i].agent);
		free(p->slots[i].eval);
	}
	free(p->slots);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
