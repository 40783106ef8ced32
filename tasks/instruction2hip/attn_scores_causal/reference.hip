/*
 * attn_scores_causal - trusted reference (GPU): one thread per output, the
 * dot product of the exact bf16 inputs in float64, times 1/sqrt(d) in
 * float64, rounded once to float; -inf above the diagonal.  The cases are
 * 8-17 GFLOP with outputs of up to 134 M floats, too slow for the host,
 * so this runs on the device in its own runner.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

__device__ double bf16_to_double(uint16_t b)
{
	return (double)__uint_as_float((uint32_t)b << 16);
}

__global__ void scores_ref(const uint16_t *q, const uint16_t *k, float *s,
			   int64_t batch, int64_t seq, int64_t hq, int64_t hkv,
			   int64_t d)
{
	int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= batch * hq * seq * seq)
		return;
	int64_t j = e % seq, i = (e / seq) % seq, h = (e / (seq * seq)) % hq;
	int64_t b = e / (seq * seq * hq), g = h / (hq / hkv);
	if (j > i) {
		s[e] = -INFINITY;
		return;
	}
	double acc = 0.0;
	for (int64_t c = 0; c < d; c++)
		acc += bf16_to_double(q[((b * hq + h) * seq + i) * d + c]) *
		       bf16_to_double(k[((b * hkv + g) * seq + j) * d + c]);
	s[e] = (float)(acc / sqrt((double)d));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], hq = params[2];
	int64_t hkv = params[3], d = params[4];
	int64_t total = batch * hq * seq * seq;
	if (batch <= 0 || seq <= 0 || hq <= 0 || hkv <= 0 || hq % hkv || d <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != batch * hq * seq * d ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batch * hkv * seq * d ||
	    args[2].dtype != ARENA_F32 || args[2].numel != total)
		return 2;
	hipLaunchKernelGGL(scores_ref, dim3((unsigned)((total + 127) / 128)), dim3(128),
			   0, (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (float *)args[2].data,
			   batch, seq, hq, hkv, d);
	return hipGetLastError() == hipSuccess ? 0 : 3;
}
