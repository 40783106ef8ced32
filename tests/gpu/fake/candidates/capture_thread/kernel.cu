/* Cheat: while the runner captures a batch (before the sample's inputs
 * exist) each call starts a host thread that waits for its set's inputs
 * to be written, computes the outputs and exits; the captured batch's
 * replay then finds them written and returns at once.  Every other call
 * is honest.  The thread is gone before the sample ends, so the count of
 * the runner's threads after the sample never sees it: the count right
 * after the capture does.  Rejected, by name. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "arena/kernel.h"

extern "C" int arena_fake_gpu_capturing(void);

#define MAX_JOBS 64

struct job {
	const float *x;
	float *y;
	int64_t n;
	uint32_t x0, y0; /* the last x and y when captured: stale data */
	int done;
};
static struct job jobs[MAX_JOBS];

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

static uint32_t bits(const float *p)
{
	uint32_t b;
	memcpy(&b, p, sizeof(b));
	return b;
}

static void *ahead(void *arg)
{
	struct job *j = (struct job *)arg;
	struct timespec nap = { 0, 100000 };

	/* Up to 2 s for the coming inputs and the poison the evaluator
	 * writes over the outputs, then a moment for the rest to land. */
	for (int k = 0; k < 20000 && (bits(j->x + j->n - 1) == j->x0 ||
				      bits(j->y + j->n - 1) == j->y0);
	     k++)
		nanosleep(&nap, NULL);
	nanosleep(&nap, NULL);
	poly(j->x, j->y, j->n);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static struct job *job_for(float *y)
{
	for (int k = 0; k < MAX_JOBS; k++)
		if (jobs[k].y == y || !jobs[k].y)
			return &jobs[k];
	return NULL;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	struct job *j = job_for(y);

	if (j && arena_fake_gpu_capturing()) {
		pthread_t t;
		j->x = x;
		j->y = y;
		j->n = params[0];
		j->x0 = bits(x + j->n - 1);
		j->y0 = bits(y + j->n - 1);
		__atomic_store_n(&j->done, 0, __ATOMIC_RELEASE);
		if (pthread_create(&t, NULL, ahead, j) == 0) {
			pthread_detach(t);
			return 0;
		}
	}
	if (j && __atomic_exchange_n(&j->done, 0, __ATOMIC_ACQ_REL))
		return 0; /* written ahead, outside the clock */
	poly(x, y, params[0]);
	return 0;
}
