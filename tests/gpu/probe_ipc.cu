/*
 * tests/gpu/probe_ipc.cu - can a trusted process read a runner's device
 * buffers where they lie, across arena's confinement, and how fast is a
 * comparison there against copying them to the host? (issue 17: a timed
 * pair's fetch of every set's outputs to the host is half its cost on the
 * H200, docs/gpu.md section 6, "What would cut a pair's cost").
 *
 * The parent allocates SETS buffers of MIB MiB each with the driver's
 * virtual memory API (cuMemCreate, shareable as a POSIX file descriptor:
 * a capability that travels over a Unix socket, SCM_RIGHTS, and cannot be
 * guessed as a legacy IPC handle's bytes might), fills them, and sends the
 * descriptors to a child it starts: confined as arena confines a GPU
 * runner when $PROBE_CONFINE names tests/helpers/confine_run (built by
 * tests/gpu/probe_ipc.sh), else under `bwrap --unshare-pid --unshare-ipc`
 * when bwrap is there (under which, on an H100, the child could not open
 * the device at all, 2026-12-06), else unconfined.  The
 * child maps them, checks their contents, then times (a) comparing them
 * with buffers of its own on the device, one kernel, and (b) copying them
 * to pinned host memory, as a fetch does.  It prints one line per fact.
 *
 * usage: probe_ipc [MIB [SETS]]       (default 128 MiB x 6 sets)
 * build: nvcc -O2 -o build/probe_ipc tests/gpu/probe_ipc.cu -lcuda
 *        (-L/usr/local/cuda/lib64/stubs where no driver is installed)
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SETS 16

#define CU(x)                                                            \
	do {                                                             \
		CUresult r_ = (x);                                       \
		if (r_ != CUDA_SUCCESS) {                                \
			const char *s_ = "?";                            \
			cuGetErrorString(r_, &s_);                       \
			printf("FAIL %s: %s (%d)\n", #x, s_, (int)r_);   \
			exit(1);                                         \
		}                                                        \
	} while (0)
#define RT(x)                                                            \
	do {                                                             \
		cudaError_t r_ = (x);                                    \
		if (r_ != cudaSuccess) {                                 \
			printf("FAIL %s: %s\n", #x, cudaGetErrorString(r_)); \
			exit(1);                                         \
		}                                                        \
	} while (0)

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static CUmemAllocationProp prop(void)
{
	CUmemAllocationProp p;
	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = 0;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return p;
}

/* Maps handle h of size bytes at a fresh address, readable and writable
 * by device 0. */
static CUdeviceptr map(CUmemGenericAllocationHandle h, size_t size)
{
	CUdeviceptr p;
	CUmemAccessDesc a;

	CU(cuMemAddressReserve(&p, size, 0, 0, 0));
	CU(cuMemMap(p, size, 0, h, 0));
	memset(&a, 0, sizeof(a));
	a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	a.location.id = 0;
	a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CU(cuMemSetAccess(p, size, &a, 1));
	return p;
}

__global__ void fill(float *p, size_t n, float base)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = base + (float)(i & 1023);
}

/* Counts the elements of a and b that differ by more than atol + rtol
 * |b|, as a comparison at a task's tolerance would. */
__global__ void compare(const float *a, const float *b, size_t n,
			float atol, float rtol, unsigned long long *bad)
{
	unsigned long long mine = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float x = a[i], y = b[i];
		if (!(fabsf(x - y) <= atol + rtol * fabsf(y)))
			mine++;
	}
	if (mine)
		atomicAdd(bad, mine);
}

static void send_fds(int sock, const int *fds, int n)
{
	char c = 'f';
	struct iovec iov = { &c, 1 };
	char ctl[CMSG_SPACE(sizeof(int) * MAX_SETS)];
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	memset(ctl, 0, sizeof(ctl));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = CMSG_SPACE(sizeof(int) * n);
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(h), fds, sizeof(int) * n);
	if (sendmsg(sock, &m, 0) != 1) {
		perror("FAIL sendmsg");
		exit(1);
	}
}

static int recv_fds(int sock, int *fds, int n)
{
	char c;
	struct iovec iov = { &c, 1 };
	char ctl[CMSG_SPACE(sizeof(int) * MAX_SETS)];
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS)
		return -1;
	int got = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	memcpy(fds, CMSG_DATA(h), sizeof(int) * (got < n ? got : n));
	return got;
}

static int child(int sock, size_t size, int sets)
{
	int fds[MAX_SETS];
	CUdeviceptr theirs[MAX_SETS];
	float *mine[MAX_SETS];
	unsigned long long *bad, nbad = 0;
	size_t n = size / sizeof(float);

	RT(cudaSetDevice(0));
	RT(cudaFree(0));
	if (recv_fds(sock, fds, sets) != sets) {
		printf("FAIL the child got no descriptors\n");
		return 1;
	}
	double t0 = now_ms();
	for (int k = 0; k < sets; k++) {
		CUmemGenericAllocationHandle h;
		CU(cuMemImportFromShareableHandle(
			&h, (void *)(uintptr_t)fds[k],
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
		theirs[k] = map(h, size);
		RT(cudaMalloc(&mine[k], size));
		fill<<<1024, 256>>>(mine[k], n, (float)k);
	}
	RT(cudaDeviceSynchronize());
	printf("ok imported and mapped %d buffers of %zu MiB in %.2f ms\n",
	       sets, size >> 20, now_ms() - t0);
	RT(cudaMalloc(&bad, sizeof(*bad)));
	for (int rep = 0; rep < 4; rep++) {
		RT(cudaMemset(bad, 0, sizeof(*bad)));
		RT(cudaDeviceSynchronize());
		t0 = now_ms();
		for (int k = 0; k < sets; k++)
			compare<<<1056, 512>>>((const float *)theirs[k], mine[k], n,
					      1e-5f, 1e-5f, bad);
		RT(cudaMemcpy(&nbad, bad, sizeof(nbad), cudaMemcpyDeviceToHost));
		printf("compare on the device: %d x %zu MiB in %.3f ms, %llu "
		       "elements differ (want 0)\n",
		       sets, size >> 20, now_ms() - t0, nbad);
	}
	void *host;
	RT(cudaMallocHost(&host, size * sets));
	for (int rep = 0; rep < 3; rep++) {
		t0 = now_ms();
		for (int k = 0; k < sets; k++)
			RT(cudaMemcpy((char *)host + size * k, (void *)theirs[k],
				      size, cudaMemcpyDeviceToHost));
		printf("copy to pinned host memory: %d x %zu MiB in %.3f ms "
		       "(%.1f GB/s)\n",
		       sets, size >> 20, now_ms() - t0,
		       size * sets / 1e6 / (now_ms() - t0));
	}
	float v = ((float *)host)[size / sizeof(float) * (sets - 1) + 5];
	printf("%s the last set's element 5 reads %.1f (want %.1f)\n",
	       v == (float)(sets - 1) + 5 ? "ok" : "FAIL", v,
	       (float)(sets - 1) + 5);
	return nbad == 0 ? 0 : 1;
}

/* find_bwrap: the first bwrap on $PATH (the GPU machine's staged one lies
 * under /tmp/arena-deps, not in /usr/bin). */
static bool find_bwrap(char *out, size_t cap)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (n > 0 && (size_t)snprintf(out, cap, "%.*s/bwrap", (int)n, path) < cap &&
		    access(out, X_OK) == 0)
			return true;
		path = end ? end + 1 : NULL;
	}
	return false;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child(3, (size_t)atol(argv[2]) << 20, atoi(argv[3]));
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 128;
	int sets = argc > 2 ? atoi(argv[2]) : 6;
	if (sets < 1 || sets > MAX_SETS)
		return 2;
	CU(cuInit(0));
	RT(cudaSetDevice(0));
	RT(cudaFree(0));
	CUmemAllocationProp p = prop();
	size_t gran = 0, size = mib << 20;
	CU(cuMemGetAllocationGranularity(&gran, &p,
					 CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	size = (size + gran - 1) / gran * gran;
	int fds[MAX_SETS];
	for (int k = 0; k < sets; k++) {
		CUmemGenericAllocationHandle h;
		CU(cuMemCreate(&h, size, &p, 0));
		CUdeviceptr d = map(h, size);
		fill<<<1024, 256>>>((float *)d, size / sizeof(float), (float)k);
		CU(cuMemExportToShareableHandle(
			&fds[k], h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	}
	RT(cudaDeviceSynchronize());
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	char self[4096], a2[32], a3[32];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	snprintf(a2, sizeof(a2), "%zu", size >> 20);
	snprintf(a3, sizeof(a3), "%d", sets);
	char bwrap[4096];
	const char *runner_like = getenv("PROBE_CONFINE");
	bool bw = !runner_like && find_bwrap(bwrap, sizeof(bwrap));
	if (runner_like)
		printf("child confined as a GPU runner is: %s\n", runner_like);
	else
		printf("child %s bwrap --unshare-pid --unshare-ipc%s%s\n",
		       bw ? "under" : "without (not on PATH)", bw ? ": " : "",
		       bw ? bwrap : "");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(sv[1], 3);
		if (runner_like)
			execl(runner_like, runner_like, self, "child", a2, a3,
			      (char *)NULL);
		else if (bw)
			execl(bwrap, "bwrap", "--dev-bind", "/", "/",
			      "--unshare-pid", "--unshare-ipc", "--die-with-parent",
			      "--", self, "child", a2, a3, (char *)NULL);
		else
			execl(self, self, "child", a2, a3, (char *)NULL);
		_exit(127);
	}
	send_fds(sv[0], fds, sets);
	int st = 0;
	waitpid(pid, &st, 0);
	printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
