/*
 * pool_probe.cu - which part of a GPU runner's sandbox, if any, breaks
 * stream-ordered allocation (cudaMallocAsync), on a real device.
 *
 * Every line is one fresh child process that opens the device as the
 * runner does (a context, a non-blocking stream, one allocation, copy and
 * memset; with "warm", a first cudaMallocAsync too, as the runner's
 * warm_pool does), then applies one layer of the runner's sandbox
 * (runner_sandbox.c: RLIMIT_NOFILE 256 as runner_client.c sets it,
 * Landlock, the GPU seccomp filter, or all of them), then asks for 2 KiB
 * and 64 MiB with cudaMallocAsync on that stream and frees them.  The
 * runner's namespaces (confine_ns.c) are not applied here: if every line
 * passes and `arena eval` still fails, they are the suspect.
 *
 * Built and run by tests/gpu/pace.sh:
 *   nvcc -O2 -Xcompiler -D_GNU_SOURCE -Iengine/runner -Iengine/include tests/gpu/bench/pool_probe.cu \
 *        engine/runner/runner_sandbox.c -o pool_probe && ./pool_probe
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner_sandbox.h"

enum { L_NOFILE = 1, L_LANDLOCK = 2, L_SECCOMP = 4, L_WARM = 8 };

static int child(int layers)
{
	cudaStream_t s;
	void *p = NULL, *a = NULL, *b = NULL;
	char host[256] = { 0 };
	cudaError_t e;

	if ((e = cudaSetDevice(0)) != cudaSuccess || (e = cudaFree(0)) ||
	    (e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) ||
	    (e = cudaMalloc(&p, sizeof(host))) ||
	    (e = cudaMemcpyAsync(p, host, sizeof(host), cudaMemcpyHostToDevice,
				 s)) ||
	    (e = cudaMemsetAsync(p, 1, sizeof(host), s)) ||
	    (e = cudaStreamSynchronize(s))) {
		printf("opening the device: %s\n", cudaGetErrorName(e));
		return 1;
	}
	if (layers & L_WARM) {
		void *w = NULL;
		e = cudaMallocAsync(&w, 1 << 20, s);
		if (e == cudaSuccess)
			e = cudaFreeAsync(w, s);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(s);
		if (e != cudaSuccess) {
			printf("warming the pool before the sandbox: %s\n",
			       cudaGetErrorName(e));
			return 1;
		}
	}
	if (layers & L_NOFILE) {
		struct rlimit rl = { 256, 256 };
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if ((layers & L_LANDLOCK) && sbx_landlock() != 0)
		printf("(landlock not available) ");
	if ((layers & L_SECCOMP) && sbx_seccomp(SBX_GPU | SBX_TRAP) != 0)
		printf("(seccomp not available) ");
	const char *step = "cudaMallocAsync(2 KiB)";
	e = cudaMallocAsync(&a, 2048, s);
	if (e == cudaSuccess) {
		step = "cudaMallocAsync(64 MiB)";
		e = cudaMallocAsync(&b, (size_t)64 << 20, s);
	}
	if (e == cudaSuccess) {
		step = "memset";
		e = cudaMemsetAsync(b, 0, (size_t)64 << 20, s);
	}
	if (e == cudaSuccess) {
		step = "cudaFreeAsync";
		e = cudaFreeAsync(a, s);
		if (e == cudaSuccess)
			e = cudaFreeAsync(b, s);
	}
	if (e == cudaSuccess) {
		step = "synchronize";
		e = cudaStreamSynchronize(s);
	}
	if (e != cudaSuccess) {
		printf("FAILED at %s: %s (%s)\n", step, cudaGetErrorName(e),
		       cudaGetErrorString(e));
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(void)
{
	static const struct {
		const char *name;
		int layers;
	} rows[] = {
		{ "no sandbox", 0 },
		{ "RLIMIT_NOFILE 256", L_NOFILE },
		{ "Landlock", L_LANDLOCK },
		{ "seccomp (GPU filter)", L_SECCOMP },
		{ "all three (a runner before warm_pool)",
		  L_NOFILE | L_LANDLOCK | L_SECCOMP },
		{ "all three, pool warmed first (a runner now)",
		  L_NOFILE | L_LANDLOCK | L_SECCOMP | L_WARM },
	};
	int bad = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		printf("pool probe, %s: ", rows[i].name);
		pid_t pid = fork();
		if (pid == 0)
			_exit(child(rows[i].layers));
		int st = 0;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st))
			printf("killed by signal %d\n",
			       WIFSIGNALED(st) ? WTERMSIG(st) : -1);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return bad;
}
