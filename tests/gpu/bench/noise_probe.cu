/*
 * noise_probe.cu - where per-sample timing noise on a GPU comes from: times
 * one memory-bound kernel (y = gelu-like f(x) over n floats) under several
 * sampling protocols and prints the median and robust spread (1.4826 x
 * MAD / median) of each.  Protocols differ in what precedes the timed
 * launch: an idle host gap (as while the evaluator prepares a pair), a
 * clock-warming FMA kernel of some length, fresh inputs copied from the
 * host, the L2 flush.  A diagnostic for docs/gpu.md, not part of arena.
 *
 * build: nvcc -O2 -arch=sm_90 -o noise_probe noise_probe.cu
 * usage: noise_probe [n_floats] [samples]
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <time.h>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                              \
	do {                                                               \
		cudaError_t e_ = (x);                                      \
		if (e_ != cudaSuccess) {                                   \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(1);                                           \
		}                                                          \
	} while (0)

__global__ void work(const float *x, float *y, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
	}
}

__global__ void fma_warm(float *sink, int iters)
{
	float a = threadIdx.x, m = 0.9999999f, c = 1e-7f;
	for (int i = 0; i < iters; i++)
		a = fmaf(a, m, c);
	if (a == 1.2345e-30f)
		sink[0] = a;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6) };
	nanosleep(&ts, NULL);
}

struct proto {
	const char *name;
	double idle_ms;		/* host sleep before the sample */
	int warm_iters;		/* FMA warm kernel (0: none) */
	bool upload;		/* fresh inputs from the host */
	int flush;		/* L2 flush (memset 120 MiB) */
	int batch;		/* launches per event pair (own buffers each) */
};

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : (16u << 20);
	int samples = argc > 2 ? atoi(argv[2]) : 150;
	const int B = 4;
	float *x[B], *y[B], *flush, *sink;
	std::vector<float> host(n);
	cudaStream_t s;
	cudaEvent_t a, b;
	int sms = 0;

	for (size_t i = 0; i < n; i++)
		host[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	for (int k = 0; k < B; k++) {
		CK(cudaMalloc(&x[k], n * 4));
		CK(cudaMalloc(&y[k], n * 4));
		CK(cudaMemcpy(x[k], host.data(), n * 4, cudaMemcpyHostToDevice));
	}
	CK(cudaMalloc(&flush, 120u << 20));
	CK(cudaMalloc(&sink, 4096));
	/* iters per ~1 ms measured below */
	const proto ps[] = {
		{ "tight: flush, time", 0, 0, false, 1, 1 },
		{ "idle 30 ms, flush, time", 30, 0, false, 1, 1 },
		{ "idle 30 ms, warm 1 ms, flush, time (arena today)", 30, 1, false, 1, 1 },
		{ "idle 30 ms, upload, warm 1 ms, flush, time", 30, 1, true, 1, 1 },
		{ "idle 30 ms, warm 5 ms, flush, time", 30, 5, false, 1, 1 },
		{ "idle 30 ms, warm 20 ms, flush, time", 30, 20, false, 1, 1 },
		{ "idle 30 ms, upload, warm 5 ms, flush, time", 30, 5, true, 1, 1 },
		{ "idle 30 ms, warm 1 ms, flush, time x4 (own buffers)", 30, 1, false, 1, 4 },
		{ "idle 30 ms, warm 5 ms, no flush, time", 30, 5, false, 0, 1 },
		{ "tight: warm 1 ms, flush, time", 0, 1, false, 1, 1 },
	};
	/* Calibrate the warm kernel: iterations for 1 ms. */
	int it1 = 4096;
	{
		float ms = 0;
		fma_warm<<<sms * 4, 256, 0, s>>>(sink, it1);
		CK(cudaEventRecord(a, s));
		fma_warm<<<sms * 4, 256, 0, s>>>(sink, it1);
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		it1 = (int)(it1 / ms);
	}
	printf("n = %zu floats, %d samples per protocol, warm 1 ms = %d iters\n", n, samples, it1);
	unsigned blocks = (unsigned)((n + 255) / 256);
	for (int rep = 0; rep < 2; rep++)
	for (const proto &p : ps) {
		std::vector<double> t;
		for (int i = 0; i < samples; i++) {
			if (p.idle_ms > 0)
				sleep_ms(p.idle_ms);
			if (p.upload)
				for (int k = 0; k < p.batch; k++)
					CK(cudaMemcpyAsync(x[k], host.data(), n * 4,
							   cudaMemcpyHostToDevice, s));
			if (p.warm_iters)
				fma_warm<<<sms * 4, 256, 0, s>>>(sink, it1 * p.warm_iters);
			if (p.flush)
				CK(cudaMemsetAsync(flush, i & 0xff, 120u << 20, s));
			CK(cudaStreamSynchronize(s));
			CK(cudaEventRecord(a, s));
			for (int k = 0; k < p.batch; k++)
				work<<<blocks, 256, 0, s>>>(x[k], y[k], n);
			CK(cudaEventRecord(b, s));
			CK(cudaEventSynchronize(b));
			float ms = 0;
			CK(cudaEventElapsedTime(&ms, a, b));
			t.push_back(ms * 1e3 / p.batch);
		}
		std::vector<double> u = t;
		std::sort(u.begin(), u.end());
		double med = u[u.size() / 2];
		std::vector<double> d;
		for (double v : t)
			d.push_back(fabs(v - med));
		std::sort(d.begin(), d.end());
		double cv = 1.4826 * d[d.size() / 2] / med;
		/* lag-1: does a slow sample follow a slow one? */
		printf("%-58s median %8.2f us  cv %5.2f%%  p10 %8.2f  p90 %8.2f\n", p.name, med,
		       cv * 100, u[u.size() / 10], u[u.size() * 9 / 10]);
		fflush(stdout);
	}
	return 0;
}
