/*
 * lora_shrink_bf16 - trusted reference: each output a dot product in
 * double of the exact bf16 inputs, rounded once to float.  The adapters
 * (at most a few MB) and each token's row are widened to double once, so
 * the inner loop is a plain double dot product.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static double bf16_to_double(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t tokens = params[0], hidden = params[1], rank = params[2];
	int64_t loras = params[3];
	if (tokens <= 0 || hidden <= 0 || rank <= 0 || loras <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != loras * rank * hidden ||
	    args[2].dtype != ARENA_I32 || args[2].numel != tokens ||
	    args[3].dtype != ARENA_F32 || args[3].numel != tokens * rank)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	const uint16_t *a = (const uint16_t *)args[1].data;
	const int32_t *idx = (const int32_t *)args[2].data;
	float *out = (float *)args[3].data;
	double *ad = (double *)malloc((size_t)(loras * rank * hidden) * sizeof(double));
	double *xd = (double *)malloc((size_t)hidden * sizeof(double));
	if (!ad || !xd) {
		free(ad);
		free(xd);
		return 3;
	}
	for (int64_t i = 0; i < loras * rank * hidden; i++)
		ad[i] = bf16_to_double(a[i]);
	int rc = 0;
	for (int64_t t = 0; t < tokens && rc == 0; t++) {
		if (idx[t] < 0 || idx[t] >= loras) {
			rc = 4;
			break;
		}
		for (int64_t c = 0; c < hidden; c++)
			xd[c] = bf16_to_double(x[t * hidden + c]);
		for (int64_t r = 0; r < rank; r++) {
			const double *ar = ad + ((int64_t)idx[t] * rank + r) * hidden;
			double acc = 0.0;
			for (int64_t c = 0; c < hidden; c++)
				acc += xd[c] * ar[c];
			out[t * rank + r] = (float)acc;
		}
	}
	free(ad);
	free(xd);
	return rc;
}
