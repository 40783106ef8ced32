/*
 * probe_xctx.cu - what a runner's closed gate costs another process's
 * work on the same device, measured before "inputs drawn after armed"
 * (docs/gpu.md section 6) is built on it.
 *
 * That design has the runner enqueue its batch behind the controller's
 * gate first, and only then draw the sample's inputs and let the keeper
 * (another process, another context) flush L2, all while the gate is
 * closed.  Contexts of different processes take turns on a device, so
 * the keeper's flush may wait for the runner's gate to give up its turn.
 * A child process (the runner) closes a gate on a page shared with the
 * parent (the keeper and the controller), in one of three ways:
 *
 *   none   no gate: the child's context exists and is idle
 *   spin   a one-block kernel spinning on the page (arena's gate today)
 *   wait   a stream memory operation, cuStreamWaitValue32, on the page:
 *          the wait is the device's front end's, no kernel is resident
 *
 * then a short kernel behind it, and answers "armed".  The parent times a
 * keeper-like flush (a ~20 us busy kernel and a write of `mib` MiB, then
 * a synchronisation of its own context) by its own clock, writes the
 * token, and times the child's reply (the gate's reaction).  Printed per
 * mode: the flush's median and 90th percentile, the reaction's median.
 *
 * On an H100 (2026-12-07, docs/benchmarks.md): `none` 212.7 us median
 * (p90 218.2), `spin` 2,044.7 us (p90 2,053.1) with a reaction of 189.6
 * us against 3.1: the flush waits out one time slice of the runner's
 * context, about 1.8 ms, and the runner's context takes ~190 us to come
 * back.  `wait` never finished (the call was killed after 300 s, with no
 * line for that mode): most likely the parent's flush never ran while
 * the child's stream waited on the page; it runs only when asked for.
 *
 * usage: probe_xctx [samples [mib [wait]]]   (default 60 128: none, spin)
 * Build: nvcc -O2 -arch=sm_90 -o build/probe_xctx tests/gpu/probe_xctx.cu -lcuda
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe_common.cuh"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void child(int fd, volatile unsigned *page, const char *mode, int n)
{
	cudaStream_t s;
	float *sink;
	unsigned *dpage;
	char c;

	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&sink, 4096));
	CHECK(cudaHostRegister((void *)page, 4096, cudaHostRegisterMapped));
	CHECK(cudaHostGetDevicePointer((void **)&dpage, (void *)page, 0));
	for (int i = 1; i <= n; i++) {
		if (read(fd, &c, 1) != 1)
			exit(1);
		if (strcmp(mode, "spin") == 0)
			gate_kernel<<<1, 1, 0, s>>>(dpage, (unsigned)i,
						    50000000ull);
		else if (strcmp(mode, "wait") == 0) {
			CUresult r = cuStreamWaitValue32(
				(CUstream)s, (CUdeviceptr)dpage, (cuuint32_t)i,
				CU_STREAM_WAIT_VALUE_EQ);
			if (r != CUDA_SUCCESS) {
				const char *m = "?";
				cuGetErrorString(r, &m);
				fprintf(stderr, "cuStreamWaitValue32: %s\n", m);
				exit(1);
			}
		}
		busy_kernel<<<1, 32, 0, s>>>(sink, 5000);
		CHECK(cudaGetLastError());
		c = 'a';
		if (write(fd, &c, 1) != 1)
			exit(1);
		while (cudaStreamQuery(s) == cudaErrorNotReady)
			;
		c = 'd';
		if (write(fd, &c, 1) != 1)
			exit(1);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 60;
	size_t mib = argc > 2 ? (size_t)atoll(argv[2]) : 128;
	const char *modes[] = { "none", "spin", "wait" };
	int nmodes = argc > 3 && strcmp(argv[3], "wait") == 0 ? 3 : 2;

	int sv[3][2];
	pid_t pid[3];
	volatile unsigned *pages[3];

	printf("# probe_xctx: %d samples per mode, flush of %zu MiB\n", n, mib);
	/* Every child forks before the parent touches CUDA. */
	for (int m = 0; m < nmodes; m++) {
		pages[m] = (volatile unsigned *)mmap(NULL, 4096,
						     PROT_READ | PROT_WRITE,
						     MAP_SHARED | MAP_ANONYMOUS,
						     -1, 0);
		if (pages[m] == MAP_FAILED ||
		    socketpair(AF_UNIX, SOCK_STREAM, 0, sv[m]) != 0)
			return 1;
		*pages[m] = 0;
		pid[m] = fork();
		if (pid[m] == 0) {
			close(sv[m][0]);
			child(sv[m][1], pages[m], modes[m], n);
		}
		close(sv[m][1]);
	}
	CHECK(cudaSetDevice(0));
	for (int m = 0; m < nmodes; m++) {
		volatile unsigned *page = pages[m];
		int *fd = sv[m];
		cudaStream_t s;
		void *buf;
		float *sink;
		CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		CHECK(cudaMalloc(&buf, mib << 20));
		CHECK(cudaMalloc(&sink, 4096));
		uint64_t *fl = (uint64_t *)calloc(n, 8),
			 *re = (uint64_t *)calloc(n, 8);
		char c;
		for (int i = 1; i <= n; i++) {
			c = 'g';
			if (write(fd[0], &c, 1) != 1 ||
			    read(fd[0], &c, 1) != 1 || c != 'a')
				return 1;
			usleep(200); /* the gate settles as in a real sample */
			uint64_t t0 = now_ns();
			busy_kernel<<<132, 128, 0, s>>>(sink, 20000);
			CHECK(cudaMemsetAsync(buf, i & 0xff, mib << 20, s));
			CHECK(cudaStreamSynchronize(s));
			uint64_t t1 = now_ns();
			__atomic_store_n(page, (unsigned)i, __ATOMIC_SEQ_CST);
			uint64_t t2 = now_ns();
			if (read(fd[0], &c, 1) != 1 || c != 'd')
				return 1;
			uint64_t t3 = now_ns();
			fl[i - 1] = t1 - t0;
			re[i - 1] = t3 - t2;
		}
		waitpid(pid[m], NULL, 0);
		qsort(fl, n, 8, cmp_u64);
		qsort(re, n, 8, cmp_u64);
		printf("%-4s flush median %8.1f us  p90 %8.1f us  max %8.1f us"
		       "   reaction median %7.1f us  p90 %7.1f us\n",
		       modes[m], fl[n / 2] / 1e3, fl[n * 9 / 10] / 1e3,
		       fl[n - 1] / 1e3, re[n / 2] / 1e3, re[n * 9 / 10] / 1e3);
		fflush(stdout);
		CHECK(cudaFree(buf));
		CHECK(cudaFree(sink));
		CHECK(cudaStreamDestroy(s));
		close(fd[0]);
		munmap((void *)page, 4096);
	}
	return 0;
}
