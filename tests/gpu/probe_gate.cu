/*
 * probe_gate.cu - measures the lever of docs/gpu.md section 6 ("A tighter
 * lever, not built") before it is built: a held stream's gate opened by
 * the controller rather than by the runner.
 *
 * A parent process (the controller's part) and a child (a runner's part)
 * share one page of a memfd.  The child maps it into its GPU's address
 * space (cudaHostRegister, mapped).  Per sample the parent asks for a
 * timed batch; the child queues a gate kernel spinning on the shared
 * page, a start event, `calls` calls of a busy kernel of `us`
 * microseconds and an end event, then answers "armed"; the parent reads
 * its clock (t_open) and writes the sample's number into the page; the
 * child polls the end event, reads the events' elapsed time (the claim)
 * and answers it; the parent reads its clock again (t_reply).
 *
 *   reaction = t_reply - t_open - claim
 *
 * is the gate's reaction, the end event's wait and one reply: what a
 * runner that shaves its claim would have to hide in.  Beside it the
 * probe prints today's excess, t_reply - t_request - claim (the request
 * sent to the answer, the launches included), and both again with the
 * child shaving every claim by `shave` us, so the margin can be read off.
 * The parent waits for replies blocking (as arena's controller does) or
 * spinning (PROBE_SPIN=1).
 *
 * usage: probe_gate [samples [us [calls [shave_us]]]]  (default 400 50 4 20)
 * Build here: nvcc -O2 -arch=sm_90 -o build/probe_gate tests/gpu/probe_gate.cu
 */
#include <cuda_runtime.h>
#include <errno.h>
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

static void xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n) {
		perror("write");
		exit(1);
	}
}

static void xread(int fd, void *p, size_t n, int spin)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, (char *)p + got, n - got,
				 spin ? MSG_DONTWAIT : 0);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0)
			exit(0);
		else if (errno != EAGAIN && errno != EINTR) {
			perror("recv");
			exit(1);
		}
	}
}

struct msg {
	unsigned seq;
	int shave_ns; /* request: the shave; reply: unused */
	double claim_us;
};

static void child(int fd, volatile unsigned *page, int us, int calls)
{
	unsigned *dflag;
	float *out;
	cudaStream_t s;
	cudaEvent_t e0, e1;

	CHECK(cudaHostRegister((void *)page, 4096, cudaHostRegisterMapped));
	CHECK(cudaHostGetDevicePointer((void **)&dflag, (void *)page, 0));
	CHECK(cudaMalloc(&out, 132 * 128 * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	busy_kernel<<<132, 128, 0, s>>>(out, 1000);
	CHECK(cudaStreamSynchronize(s));
	for (;;) {
		struct msg m;

		xread(fd, &m, sizeof(m), 1);
		gate_kernel<<<1, 1, 0, s>>>(dflag, m.seq, 200000000ull);
		CHECK(cudaEventRecord(e0, s));
		for (int i = 0; i < calls; i++)
			busy_kernel<<<132, 128, 0, s>>>(out, us * 1000ull);
		CHECK(cudaEventRecord(e1, s));
		xwrite(fd, &m, sizeof(m)); /* armed */
		while (cudaEventQuery(e1) == cudaErrorNotReady)
			;
		float ms;
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		m.claim_us = ms * 1000.0 - m.shave_ns / 1000.0;
		xwrite(fd, &m, sizeof(m));
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	printf("  %-26s median %8.2f  p10 %8.2f  p25 %8.2f  p75 %8.2f  "
	       "p90 %8.2f  iqr %7.2f us\n",
	       what, v[n / 2], v[n / 10], v[n / 4], v[3 * n / 4], v[9 * n / 10],
	       v[3 * n / 4] - v[n / 4]);
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 400;
	int us = argc > 2 ? atoi(argv[2]) : 50;
	int calls = argc > 3 ? atoi(argv[3]) : 4;
	int shave = argc > 4 ? atoi(argv[4]) : 20;
	int spin = getenv("PROBE_SPIN") && atoi(getenv("PROBE_SPIN"));
	int sv[2];
	int mfd = memfd_create("probe-gate", 0);

	if (mfd < 0 || ftruncate(mfd, 4096) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("setup");
		return 1;
	}
	volatile unsigned *page = (volatile unsigned *)mmap(
		NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], page, us, calls);
		_exit(0);
	}
	close(sv[1]);
	double *react = (double *)calloc(2 * samples, sizeof(double));
	double *excess = (double *)calloc(2 * samples, sizeof(double));
	int n[2] = { 0, 0 };
	unsigned seq = 1;

	for (int i = 0; i < 2 * samples + 20; i++) {
		int shaved = i % 2; /* alternate honest and shaved samples */
		struct msg m = { seq++, shaved ? shave * 1000 : 0, 0 };
		uint64_t t_req = now_ns();

		xwrite(sv[0], &m, sizeof(m));
		xread(sv[0], &m, sizeof(m), spin); /* armed */
		uint64_t t_open = now_ns();
		*page = m.seq;
		xread(sv[0], &m, sizeof(m), spin);
		uint64_t t_reply = now_ns();
		if (i < 20)
			continue; /* warm-up */
		int k = shaved;
		react[k * samples + n[k]] =
			(double)(t_reply - t_open) / 1e3 - m.claim_us;
		excess[k * samples + n[k]] =
			(double)(t_reply - t_req) / 1e3 - m.claim_us;
		n[k]++;
	}
	printf("probe_gate: %d samples each, %d calls of %d us, shave %d us, "
	       "parent %s\n",
	       n[0], calls, us, shave, spin ? "spinning" : "blocking");
	report("reaction, honest", react, n[0]);
	report("reaction, shaved", react + samples, n[1]);
	report("excess, honest", excess, n[0]);
	report("excess, shaved", excess + samples, n[1]);
	close(sv[0]);
	waitpid(pid, NULL, 0);
	return 0;
}
