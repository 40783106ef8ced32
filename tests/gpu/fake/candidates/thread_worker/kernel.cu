/* Cheat: returns at once and leaves a host thread to compute the output
 * (GPU runners allow threads for the driver; the controller counts them). */
#include <pthread.h>
#include "arena/kernel.h"

struct job {
	const float *x;
	float *y;
	int64_t n;
};
static struct job job;

static void *worker(void *arg)
{
	struct job *j = (struct job *)arg;
	for (int64_t i = 0; i < j->n; i++) {
		float v = j->x[i], v2 = v * v;
		j->y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return NULL;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	pthread_t t;
	job.x = (const float *)args[0].data;
	job.y = (float *)args[1].data;
	job.n = params[0];
	worker(&job);	/* right answers now, and a thread that stays */
	if (pthread_create(&t, NULL, worker, &job) != 0)
		return 5;
	pthread_detach(t);
	return 0;
}
