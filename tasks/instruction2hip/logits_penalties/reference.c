/*
 * logits_penalties - trusted reference: per request, a count of every
 * token id in its history (one array of vocab counters), then every logit
 * processed in double as specified, rounded once to float.
 */
#include <stdint.h>
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 7 || nparams != 3)
		return 1;
	int64_t batch = params[0], vocab = params[1], hist = params[2];
	if (batch <= 0 || vocab <= 0 || hist < 1 ||
	    args[0].dtype != ARENA_F32 || args[0].numel != batch * vocab ||
	    args[1].dtype != ARENA_I32 || args[1].numel != batch * hist ||
	    args[6].dtype != ARENA_F32 || args[6].numel != batch * vocab)
		return 2;
	for (int a = 2; a <= 5; a++)
		if (args[a].dtype != ARENA_F32 || args[a].numel != batch)
			return 2;
	const float *logits = (const float *)args[0].data;
	const int32_t *history = (const int32_t *)args[1].data;
	const float *rep = (const float *)args[2].data;
	const float *freq = (const float *)args[3].data;
	const float *pres = (const float *)args[4].data;
	const float *temp = (const float *)args[5].data;
	float *out = (float *)args[6].data;
	int64_t *cnt = (int64_t *)malloc((size_t)vocab * sizeof(int64_t));
	if (!cnt)
		return 3;
	for (int64_t b = 0; b < batch; b++) {
		for (int64_t v = 0; v < vocab; v++)
			cnt[v] = 0;
		for (int64_t i = 0; i < hist; i++) {
			int32_t v = history[b * hist + i];
			if (v < 0 || v >= vocab) {
				free(cnt);
				return 4;
			}
			cnt[v]++;
		}
		for (int64_t v = 0; v < vocab; v++) {
			double l = logits[b * vocab + v];
			if (cnt[v] > 0) {
				l = l > 0 ? l / rep[b] : l * rep[b];
				l = l - (double)freq[b] * (double)cnt[v] - pres[b];
			}
			out[b * vocab + v] = (float)(l / temp[b]);
		}
	}
	free(cnt);
	return 0;
}
