/*
 * pipeline.c - several evaluations in flight (eval_run_many, arena/
 * eval.h): a stream of requests taken in order by up to in_flight
 * threads, each running eval_run.  What keeps it sound is eval_run's own
 * device lock (runners.c): timing holds it exclusively, so two
 * measurements never overlap, while building and correctness (which on
 * a host take no lock, and on a GPU take it shared) proceed for the
 * others.  Every evaluation keeps its fresh runners, its own seed secret
 * and every check; what they may share is what the requests share (an
 * eval_refcache, docs/evaluator.md "Reuse across evaluations").
 *
 * Locking: one mutex hands out the next index; each thread writes only
 * the slots of the requests it took.
 */
#include "evaluation.h"

#include <pthread.h>
#include <stdlib.h>

#define PIPELINE_MAX_THREADS 16

struct stream {
	const struct eval_request *reqs;
	struct task_result *res;
	int *rcs;
	struct errbuf *errs;
	int n, next;
	pthread_mutex_t mu;
};

static void run_one(struct stream *s, int i)
{
	struct errbuf own;

	errbuf_init(&own);
	struct errbuf *err = s->errs ? &s->errs[i] : &own;
	result_init(&s->res[i]);
	s->rcs[i] = eval_run(&s->reqs[i], &s->res[i], err);
}

static void *stream_worker(void *arg)
{
	struct stream *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->mu);
		int i = s->next < s->n ? s->next++ : -1;
		pthread_mutex_unlock(&s->mu);
		if (i < 0)
			return NULL;
		run_one(s, i);
	}
}

void eval_run_many(const struct eval_request *reqs, int n, int in_flight,
		   struct task_result *res, int *rcs, struct errbuf *errs)
{
	struct stream s = {
		.reqs = reqs, .res = res, .rcs = rcs, .errs = errs, .n = n
	};
	pthread_t th[PIPELINE_MAX_THREADS];
	int started = 0;

	if (in_flight > PIPELINE_MAX_THREADS)
		in_flight = PIPELINE_MAX_THREADS;
	if (in_flight > n)
		in_flight = n;
	pthread_mutex_init(&s.mu, NULL);
	/* One in flight, or no thread to be had: this thread runs them. */
	for (int i = 1; i < in_flight; i++)
		if (pthread_create(&th[started], NULL, stream_worker, &s) == 0)
			started++;
	stream_worker(&s);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&s.mu);
}
