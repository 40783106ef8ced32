/*
 * logits_penalties - timing baseline (not shown to the agent as a
 * starting point): out = penalized(logits) / temperature.
 * Two launches: (1) one thread per logit writes logits / temperature (the
 * value of every token absent from the history); (2) one block per
 * request loads its history into shared memory, sorts it with a bitonic
 * network (padded with INT_MAX), and each thread that finds the start of
 * a run of equal ids counts the run serially and rewrites that token's
 * entry with the penalties applied.  The second launch follows the first
 * on the stream, so its writes win.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

#define MAX_HIST 8192

__global__ void __launch_bounds__(BLOCK)
temperature_kernel(const float *__restrict__ logits,
		   const float *__restrict__ temperature, float *__restrict__ out,
		   int64_t total, int64_t vocab)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e < total)
		out[e] = logits[e] / temperature[e / vocab];
}

__global__ void __launch_bounds__(BLOCK)
penalty_kernel(const float *__restrict__ logits, const int *__restrict__ history,
	       const float *__restrict__ rep, const float *__restrict__ freq,
	       const float *__restrict__ pres, const float *__restrict__ temperature,
	       float *__restrict__ out, int64_t vocab, int hist, int p2)
{
	__shared__ int ids[MAX_HIST];
	int64_t b = blockIdx.x;
	const int *h = history + b * hist;

	for (int i = threadIdx.x; i < p2; i += BLOCK)
		ids[i] = i < hist ? h[i] : 0x7fffffff;
	__syncthreads();
	for (int size = 2; size <= p2; size *= 2)
		for (int stride = size / 2; stride > 0; stride /= 2) {
			for (int t = threadIdx.x; t < p2 / 2; t += BLOCK) {
				int i = 2 * stride * (t / stride) + t % stride;
				int j = i + stride;
				bool up = (i & size) == 0;
				if ((ids[i] > ids[j]) == up) {
					int tmp = ids[i];
					ids[i] = ids[j];
					ids[j] = tmp;
				}
			}
			__syncthreads();
		}
	for (int i = threadIdx.x; i < hist; i += BLOCK) {
		if (i > 0 && ids[i - 1] == ids[i])
			continue;		/* not the start of a run */
		int cnt = 1;
		while (i + cnt < hist && ids[i + cnt] == ids[i])
			cnt++;
		int64_t v = ids[i];
		float l = logits[b * vocab + v];
		l = l > 0.0f ? l / rep[b] : l * rep[b];
		l = l - freq[b] * (float)cnt - pres[b];
		out[b * vocab + v] = l / temperature[b];
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 7 || nparams != 3)
		return 1;
	int64_t batch = params[0], vocab = params[1], hist = params[2];
	if (batch <= 0 || batch > 0x7fffffff || vocab <= 0 || hist < 1 ||
	    hist > MAX_HIST)
		return 2;
	int64_t total = batch * vocab;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != total ||
	    args[1].dtype != ARENA_I32 || args[1].numel != batch * hist ||
	    args[6].dtype != ARENA_F32 || args[6].numel != total)
		return 3;
	for (int a = 2; a <= 5; a++)
		if (args[a].dtype != ARENA_F32 || args[a].numel != batch)
			return 3;
	int p2 = 1;
	while (p2 < hist)
		p2 *= 2;
	hipStream_t s = (hipStream_t)stream;
	hipLaunchKernelGGL(temperature_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, s, (const float *)args[0].data,
			   (const float *)args[5].data, (float *)args[6].data, total,
			   vocab);
	hipLaunchKernelGGL(penalty_kernel, dim3((unsigned)batch), dim3(BLOCK), 0, s,
			   (const float *)args[0].data, (const int *)args[1].data,
			   (const float *)args[2].data, (const float *)args[3].data,
			   (const float *)args[4].data, (const float *)args[5].data,
			   (float *)args[6].data, vocab, (int)hist, p2);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
