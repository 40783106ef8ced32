/*
 * decode_attention - baseline: one decode step of grouped-query attention
 * on the CPU (llama.cpp's ggml_flash_attn_ext / soft_max + mul_mat path
 * for one token), float32.
 *
 * Per query head: every score is a head_dim dot product with the scale
 * applied afterwards, then the maximum, the exponentials and their sum
 * (in float), then out = sum of p_t v_t / sum.
 *
 * VEC = 0 is the direct transcription: each dot product is one running
 * sum, and each output dimension walks all t with a stride of head_dim
 * floats through V.  VEC = 1 computes dot products with 8 independent
 * partial sums and accumulates the output row by row (t outer, the
 * dimensions inner, contiguous), both of which gcc -O2 vectorises.  The
 * results differ only in float summation order.
 */
#include <math.h>
#include <stdlib.h>
#include "arena/kernel.h"

#ifndef VEC
#define VEC 0
#endif
#define LANES 8

static float dot(const float *restrict a, const float *restrict b, int64_t d)
{
#if VEC
	float lane[LANES] = {0};
	int64_t i = 0;
	for (; i + LANES <= d; i += LANES)
		for (int l = 0; l < LANES; l++)
			lane[l] += a[i + l] * b[i + l];
	float s = 0.0f;
	for (int l = 0; l < LANES; l++)
		s += lane[l];
	for (; i < d; i++)
		s += a[i] * b[i];
	return s;
#else
	float s = 0.0f;
	for (int64_t i = 0; i < d; i++)
		s += a[i] * b[i];
	return s;
#endif
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t heads = params[0], kv = params[1], d = params[2],
		ctx = params[3];
	if (heads <= 0 || kv <= 0 || heads % kv || d <= 0 || ctx <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != heads * d ||
	    args[1].dtype != ARENA_F32 || args[1].numel != kv * ctx * d ||
	    args[2].dtype != ARENA_F32 || args[2].numel != kv * ctx * d ||
	    args[3].dtype != ARENA_F32 || args[3].numel != heads * d)
		return 3;
	const float *q = args[0].data, *k = args[1].data, *v = args[2].data;
	float *out = args[3].data;
	float *p = malloc(sizeof(float) * (size_t)ctx);
	if (!p)
		return 4;
	const float scale = 1.0f / sqrtf((float)d);
	for (int64_t h = 0; h < heads; h++) {
		int64_t g = h / (heads / kv);
		const float *kg = k + g * ctx * d, *vg = v + g * ctx * d;
		float m = -INFINITY, l = 0.0f;
		for (int64_t t = 0; t < ctx; t++) {
			p[t] = dot(q + h * d, kg + t * d, d) * scale;
			m = fmaxf(m, p[t]);
		}
		for (int64_t t = 0; t < ctx; t++) {
			p[t] = expf(p[t] - m);
			l += p[t];
		}
		float *o = out + h * d;
#if VEC
		for (int64_t i = 0; i < d; i++)
			o[i] = 0.0f;
		for (int64_t t = 0; t < ctx; t++) {
			const float *restrict vt = vg + t * d;
			float *restrict ov = o;
			for (int64_t i = 0; i < d; i++)
				ov[i] += p[t] * vt[i];
		}
		for (int64_t i = 0; i < d; i++)
			o[i] /= l;
#else
		for (int64_t i = 0; i < d; i++) {
			float acc = 0.0f;
			for (int64_t t = 0; t < ctx; t++)
				acc += p[t] * vg[t * d + i];
			o[i] = acc / l;
		}
#endif
	}
	free(p);
	return 0;
}
