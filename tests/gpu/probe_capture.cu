/*
 * probe_capture.cu - what a kernel's host code may do while the runner
 * captures its batch (docs/gpu.md section 6, "A batch captured before its
 * inputs exist"), step by step, each step's result printed and flushed
 * before the next, so that a crash names the step it happened in.
 *
 * The runner captures on its stream in relaxed mode, ends the capture,
 * instantiates and uploads the graph (gpu_rt.h, gpu_capture_end).  The
 * adversarial `cache_pointer` (tests/gpu/adversarial/candidates) frees and
 * allocates device memory in its calls; under captures on an H100
 * (2026-12-07) its runner was killed by SIGSEGV while capturing.  Each
 * scenario here runs in a child process of its own (a crash ends only it)
 * and does what a kernel's call might: a free, an allocation, a
 * synchronous copy, a stream synchronisation, work on another stream.
 *
 * Each scenario runs in relaxed mode (what the runner used first) and in
 * thread-local mode, where a call the capture cannot hold (an allocation,
 * a free, a synchronisation) fails and ends the capture instead.
 *
 * usage: probe_capture [scenario...]   (default: all)
 * Build here: nvcc -O2 -arch=sm_90 -o build/probe_capture tests/gpu/probe_capture.cu
 */
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1 << 20)

__global__ void poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0f + x[i] * x[i];
}

__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

static void step(const char *what, cudaError_t e)
{
	printf("    %-44s %s\n", what, cudaGetErrorName(e));
	fflush(stdout);
}

static float *x, *y, *saved, *other;
static cudaStream_t s, side;

/* One call of each kind, on the runner's stream s. */
static int call(const char *kind)
{
	poly<<<N / 256, 256, 0, s>>>(x, y, N);
	step("kernel launch", cudaGetLastError());
	if (!strcmp(kind, "free_malloc")) {
		step("cudaFree (a buffer of an earlier call)", cudaFree(saved));
		saved = NULL;
		step("cudaMalloc", cudaMalloc((void **)&saved, N * 4));
		step("cudaMemcpyAsync device to device",
		     cudaMemcpyAsync(saved, y, N * 4, cudaMemcpyDeviceToDevice,
				     s));
	} else if (!strcmp(kind, "free_only")) {
		step("cudaFree", cudaFree(other));
		other = NULL;
	} else if (!strcmp(kind, "malloc_only")) {
		float *p = NULL;
		step("cudaMalloc", cudaMalloc((void **)&p, N * 4));
	} else if (!strcmp(kind, "sync_copy")) {
		float h[4];
		step("cudaMemcpy device to host",
		     cudaMemcpy(h, y, sizeof(h), cudaMemcpyDeviceToHost));
	} else if (!strcmp(kind, "stream_sync")) {
		step("cudaStreamSynchronize", cudaStreamSynchronize(s));
	} else if (!strcmp(kind, "workspace")) {
		float *tmp = NULL;
		step("cudaMalloc a workspace",
		     cudaMalloc((void **)&tmp, N * 4));
		if (tmp) {
			poly<<<N / 256, 256, 0, s>>>(y, tmp, N);
			step("kernel on the workspace", cudaGetLastError());
			step("cudaFree the workspace", cudaFree(tmp));
		}
	} else if (!strcmp(kind, "side_stream")) {
		spin<<<1, 1, 0, side>>>(4000000LL);
		step("spin on another stream", cudaGetLastError());
	}
	return 0;
}

static cudaStreamCaptureMode mode;

static void scenario(const char *kind)
{
	cudaGraph_t g = NULL;
	cudaGraphExec_t ex = NULL;
	cudaStreamCaptureStatus st;

	step("cudaStreamCreate",
	     cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	step("side stream",
	     cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
	step("cudaMalloc x, y, saved, other",
	     cudaMalloc((void **)&x, N * 4) ?: cudaMalloc((void **)&y, N * 4) ?:
	     cudaMalloc((void **)&saved, N * 4) ?: cudaMalloc((void **)&other, N * 4));
	printf("  live call\n");
	call(kind);
	step("cudaDeviceSynchronize", cudaDeviceSynchronize());
	for (int round = 0; round < 2; round++) {
		printf("  captured call, round %d\n", round);
		if (!other)
			(void)cudaMalloc((void **)&other, N * 4);
		step("cudaStreamBeginCapture", cudaStreamBeginCapture(s, mode));
		/* Two calls, as a batch of two: the second frees what the
		 * first captured (free_malloc). */
		call(kind);
		call(kind);
		step("cudaStreamIsCapturing", cudaStreamIsCapturing(s, &st));
		printf("    capture status %d\n", (int)st);
		cudaError_t e = cudaStreamEndCapture(s, &g);
		step("cudaStreamEndCapture", e);
		printf("    graph %p\n", (void *)g);
		fflush(stdout);
		step("cudaStreamIsCapturing after",
		     cudaStreamIsCapturing(s, &st));
		printf("    capture status %d\n", (int)st);
		if (e == cudaSuccess && g) {
			step("cudaGraphInstantiateWithFlags",
			     e = cudaGraphInstantiateWithFlags(&ex, g, 0));
			if (e == cudaSuccess) {
				step("cudaGraphUpload", cudaGraphUpload(ex, s));
				step("cudaStreamSynchronize",
				     cudaStreamSynchronize(s));
				step("cudaGraphLaunch", cudaGraphLaunch(ex, s));
				step("cudaStreamSynchronize",
				     cudaStreamSynchronize(s));
				step("cudaGraphExecDestroy",
				     cudaGraphExecDestroy(ex));
			}
			step("cudaGraphDestroy", cudaGraphDestroy(g));
		}
		step("cudaGetLastError", cudaGetLastError());
		printf("  live call after the capture\n");
		call("plain");
		step("cudaDeviceSynchronize", cudaDeviceSynchronize());
	}
}

int main(int argc, char **argv)
{
	static const char *all[] = { "free_malloc", "free_only", "malloc_only",
				     "workspace",   "sync_copy", "stream_sync",
				     "side_stream" };
	static const struct {
		cudaStreamCaptureMode m;
		const char *name;
	} modes[] = { { cudaStreamCaptureModeRelaxed, "relaxed" },
		      { cudaStreamCaptureModeThreadLocal, "thread-local" } };
	int n = argc > 1 ? argc - 1 : (int)(sizeof(all) / sizeof(all[0]));

	for (int m = 0; m < 2; m++)
		for (int i = 0; i < n; i++) {
			const char *kind = argc > 1 ? argv[i + 1] : all[i];
			printf("scenario %s, %s\n", kind, modes[m].name);
			fflush(stdout);
			mode = modes[m].m;
			pid_t pid = fork();
			if (pid == 0) {
				scenario(kind);
				_exit(0);
			}
			int ws = 0;
			waitpid(pid, &ws, 0);
			if (WIFSIGNALED(ws))
				printf("scenario %s, %s: killed by signal %d "
				       "(%s)\n",
				       kind, modes[m].name, WTERMSIG(ws),
				       strsignal(WTERMSIG(ws)));
			else
				printf("scenario %s, %s: exit %d\n", kind,
				       modes[m].name, WEXITSTATUS(ws));
			fflush(stdout);
		}
	return 0;
}
