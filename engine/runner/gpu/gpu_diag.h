/*
 * gpu_diag.h - the GPU runner's trusted diagnostics, which load no kernel
 * (docs/gpu.md): `--query` (the runtime and every visible device, as
 * JSON), `--peaks <index>` (measured memory bandwidth, FP32 FMA rate and,
 * on CUDA devices of compute capability 8.0 and later, the dense bf16
 * tensor-core rate by mma.sync) and `--selftest <index>` (the sandbox
 * against this driver).  Included once, by arena_runner_gpu.cpp, after
 * open_device(): it uses the runner's stream and events.
 */
#ifndef ARENA_GPU_DIAG_H
#define ARENA_GPU_DIAG_H

/* ---- diagnostics: --query and --peaks --------------------------------- */

/* Prints s as a JSON string (device names are plain ASCII in practice;
 * anything else is replaced). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			putchar('?');
		else
			putchar(c);
	}
	putchar('"');
}

/* "sm_90" on NVIDIA; "gfx90a" (the target id's features dropped) on AMD. */
static void arch_name(const gpu_prop *p, char *buf, size_t n)
{
#if defined(ARENA_GPU_HIP)
	snprintf(buf, n, "%s", p->gcnArchName);
	buf[strcspn(buf, ":")] = '\0';
	if (!buf[0])
		snprintf(buf, n, "gfx%d", p->gcnArch);
#else
	snprintf(buf, n, "sm_%d%d", p->major, p->minor);
#endif
}

static int query(void)
{
	int count = 0, drv = 0, rt = 0;
	gpu_err e;

	(void)GPU(DriverGetVersion)(&drv);
	(void)GPU(RuntimeGetVersion)(&rt);
	printf("{\"backend\": \"%s\", \"runtime_version\": %d, "
	       "\"driver_version\": %d",
	       GPU_BACKEND, rt, drv);
	e = GPU(GetDeviceCount)(&count);
	if (e != GPU(Success)) {
		char msg[300];
		snprintf(msg, sizeof(msg), "%s: %s", gpu_err_name(e),
			 gpu_err_string(e));
		printf(", \"error\": ");
		json_str(msg);
		printf(", \"devices\": []}\n");
		return 0;
	}
	printf(", \"devices\": [");
	for (int i = 0; i < count; i++) {
		gpu_prop p;
		char arch[64];
		int l2 = 0, sms = 0;
		memset(&p, 0, sizeof(p));
		if (GPU(GetDeviceProperties)(&p, i) != GPU(Success))
			continue;
		(void)GPU(DeviceGetAttribute)(&l2, GPU_ATTR_L2, i);
		(void)GPU(DeviceGetAttribute)(&sms, GPU_ATTR_SMS, i);
		arch_name(&p, arch, sizeof(arch));
		printf("%s{\"index\": %d, \"name\": ", i ? ", " : "", i);
		json_str(p.name);
		printf(", \"arch\": \"%s\", \"cc\": \"%d.%d\", "
		       "\"multiprocessors\": %d, \"l2_bytes\": %d, "
		       "\"memory_bytes\": %zu, \"pci\": \"%04x:%02x:%02x\"",
		       arch, p.major, p.minor, sms, l2, p.totalGlobalMem,
		       (unsigned)p.pciDomainID, (unsigned)p.pciBusID,
		       (unsigned)p.pciDeviceID);
#if GPU_HAS_PERSISTING_L2
		printf(", \"persisting_l2_max_bytes\": %d",
		       p.persistingL2CacheMaxSize);
#endif
		printf("}");
	}
	printf("]}\n");
	return 0;
}

#if defined(ARENA_GPU_FAKE)
/* The emulation has no peaks to measure: it reports what the test asks
 * for ($ARENA_FAKE_GPU_BW bytes/s, $ARENA_FAKE_GPU_FLOPS), so that tests
 * can put the roofline floor where they want it. */
static int peaks(int dev)
{
	const char *bw = getenv("ARENA_FAKE_GPU_BW");
	const char *fl = getenv("ARENA_FAKE_GPU_FLOPS");
	const char *tc = getenv("ARENA_FAKE_GPU_TC_FLOPS");
	double b = bw ? atof(bw) : 1e15, f = fl ? atof(fl) : 1e15;
	double t = tc ? atof(tc) : 1e16;

	printf("{\"backend\": \"%s\", \"index\": %d, \"buffer_bytes\": 0, "
	       "\"copy_bytes_per_s\": %.6g, \"read_bytes_per_s\": %.6g, "
	       "\"bandwidth_bytes_per_s\": %.6g, \"fp32_fma_flops\": %.6g, "
	       "\"bf16_tensor_flops\": %.6g, \"method\": \"emulated\"}\n",
	       GPU_BACKEND, dev, b, b, b, f, t);
	return 0;
}
#else
__global__ void peak_read_kernel(const float4 *p, size_t n4, float *sink)
{
	float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
	     i += stride) {
		float4 v = p[i];
		acc.x += v.x;
		acc.y += v.y;
		acc.z += v.z;
		acc.w += v.w;
	}
	/* Never true for the zero-filled buffer; keeps the loads alive. */
	if (acc.x + acc.y + acc.z + acc.w == 1.2345e-30f)
		sink[0] = acc.x;
}

#define FMA_CHAINS 8
__global__ void peak_fma_kernel(float *sink, int iters, float seed)
{
	float a[FMA_CHAINS];
	const float m = 0.9999999f, c = 1e-7f;
	for (int j = 0; j < FMA_CHAINS; j++)
		a[j] = seed + (float)(threadIdx.x + j);
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < FMA_CHAINS; j++)
			a[j] = fmaf(a[j], m, c);
	}
	float s = 0;
	for (int j = 0; j < FMA_CHAINS; j++)
		s += a[j];
	if (s == 1.2345e-30f)
		sink[blockIdx.x] = s;
}

/* Dense bf16 tensor-core rate by warp-level mma.sync (sm_80 and later):
 * m16n8k16 with float accumulators, MMA_CHAINS independent chains per
 * warp.  On Hopper the fastest kernels use wgmma, which mma.sync does not
 * reach; the evaluator's floor divides by a margin that covers it
 * (gpu_policy.c). */
#define MMA_CHAINS 4
__global__ void peak_mma_kernel(float *sink, int iters)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	/* Two bf16 values of 2^-7 per register: sums stay finite. */
	unsigned a = 0x3c003c00u, b = 0x3c003c00u ^ (threadIdx.x & 1u);
	float c[MMA_CHAINS][4];
	for (int j = 0; j < MMA_CHAINS; j++)
		c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0.f;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < MMA_CHAINS; j++)
			asm volatile(
				"mma.sync.aligned.m16n8k16.row.col.f32.bf16."
				"bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
				"{%8,%9}, {%0,%1,%2,%3};"
				: "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]),
				  "+f"(c[j][3])
				: "r"(a), "r"(a), "r"(a), "r"(a), "r"(b),
				  "r"(b));
	}
	float s = 0;
	for (int j = 0; j < MMA_CHAINS; j++)
		s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
	if (s == 1.2345e-30f)
		sink[blockIdx.x] = s;
#else
	(void)iters;
	if (threadIdx.x == 1234567)
		sink[0] = 0;
#endif
}

/* Best (shortest) of reps runs of what `run` enqueues, in seconds. */
template <typename F> static double best_time(int reps, F run)
{
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		float ms = 0;
		(void)GPU(EventRecord)(ev_start, stream);
		run();
		(void)GPU(EventRecord)(ev_end, stream);
		if (GPU(EventSynchronize)(ev_end) != GPU(Success))
			return -1;
		(void)GPU(EventElapsedTime)(&ms, ev_start, ev_end);
		if (ms > 0 && ms / 1e3 < best)
			best = ms / 1e3;
	}
	return best;
}

static int peaks(int dev)
{
	size_t freeb = 0, total = 0, bytes;
	void *a = NULL, *b = NULL;
	float *sink = NULL;
	int sms = 0;
	gpu_err e;

	if ((e = GPU(SetDevice)(dev)) != GPU(Success) ||
	    (e = GPU(StreamCreateWithFlags)(&stream, GPU(StreamNonBlocking))) !=
		    GPU(Success) ||
	    (e = GPU(EventCreate)(&ev_start)) != GPU(Success) ||
	    (e = GPU(EventCreate)(&ev_end)) != GPU(Success) ||
	    (e = GPU(MemGetInfo)(&freeb, &total)) != GPU(Success))
		goto fail;
	(void)GPU(DeviceGetAttribute)(&sms, GPU_ATTR_SMS, dev);
	bytes = (size_t)1 << 30;
	while (bytes > ((size_t)64 << 20) && bytes * 2 > freeb / 2)
		bytes /= 2;
	if ((e = GPU(Malloc)(&a, bytes)) != GPU(Success) ||
	    (e = GPU(Malloc)(&b, bytes)) != GPU(Success) ||
	    (e = GPU(Malloc)((void **)&sink, 1u << 20)) != GPU(Success) ||
	    (e = GPU(MemsetAsync)(a, 0, bytes, stream)) != GPU(Success) ||
	    (e = GPU(MemsetAsync)(b, 0, bytes, stream)) != GPU(Success) ||
	    (e = GPU(StreamSynchronize)(stream)) != GPU(Success))
		goto fail;
	{
		double t_copy = best_time(10, [&] {
			(void)GPU(MemcpyAsync)(
				b, a, bytes, GPU(MemcpyDeviceToDevice), stream);
		});
		unsigned blocks = (unsigned)(sms > 0 ? sms * 8 : 1024);
		double t_read = best_time(10, [&] {
			peak_read_kernel<<<blocks, 256, 0, stream>>>(
				(const float4 *)a, bytes / 16, sink);
		});
		const int iters = 16384;
		unsigned fblocks = (unsigned)(sms > 0 ? sms * 4 : 512);
		double t_fma = best_time(5, [&] {
			peak_fma_kernel<<<fblocks, 256, 0, stream>>>(
				sink, iters, 1.0f);
		});
		/* Tensor cores: CUDA on sm_80 and later only (0: not
		 * measured, and the floor falls back to the FMA rate with a
		 * margin wide enough for any tensor core). */
		double tc = 0;
#if !defined(ARENA_GPU_HIP)
		gpu_prop prop;
		const int mma_iters = 1024;
		if (GPU(GetDeviceProperties)(&prop, dev) == GPU(Success) &&
		    prop.major >= 8) {
			double t_mma = best_time(5, [&] {
				peak_mma_kernel<<<fblocks, 256, 0, stream>>>(
					sink, mma_iters);
			});
			if (t_mma > 0)
				tc = (double)fblocks * (256 / 32) * mma_iters *
				     MMA_CHAINS * (16.0 * 8 * 16 * 2) / t_mma;
		}
#endif
		if ((e = GPU(GetLastError)()) != GPU(Success) || t_copy <= 0 ||
		    t_read <= 0 || t_fma <= 0)
			goto fail;
		double copy_bps = 2.0 * (double)bytes / t_copy;
		double read_bps = (double)bytes / t_read;
		double flops = (double)fblocks * 256.0 * iters * FMA_CHAINS *
			       2.0 / t_fma;
		printf("{\"backend\": \"%s\", \"index\": %d, \"buffer_bytes\": "
		       "%zu, \"copy_bytes_per_s\": %.6g, \"read_bytes_per_s\": "
		       "%.6g, \"bandwidth_bytes_per_s\": %.6g, "
		       "\"fp32_fma_flops\": %.6g, \"bf16_tensor_flops\": %.6g, "
		       "\"method\": \"best of 10 device-to-device copies "
		       "(bytes read + written), best of 10 float4 read sweeps, "
		       "best of 5 runs of 8 independent FMA chains per thread, "
		       "best of 5 runs of 4 independent bf16 mma.sync chains "
		       "per warp (0: not measured)\"}\n",
		       GPU_BACKEND, dev, bytes, copy_bps, read_bps,
		       copy_bps > read_bps ? copy_bps : read_bps, flops, tc);
	}
	return 0;
fail : {
	char msg[300];
	if (e == GPU(Success))
		e = GPU(GetLastError)();
	snprintf(msg, sizeof(msg), "%s: %s", gpu_err_name(e),
		 gpu_err_string(e));
	printf("{\"backend\": \"%s\", \"index\": %d, \"error\": ", GPU_BACKEND,
	       dev);
	json_str(msg);
	printf("}\n");
}
	return 1;
}
#endif

/* ---- --selftest: the sandbox against the real driver ------------------ */

/*
 * Opens the device, installs the sandbox exactly as for a kernel (but with
 * forbidden calls trapped, so that the one at fault can be named), then
 * does everything a runner and a well-behaved kernel do after that point:
 * allocate, copy, memset, time with events, launch, create a stream,
 * start a thread.  Then tries what a kernel may not do (fork), which must
 * be refused.  `arena doctor` runs it and reports the last line.
 */
static const char *selftest_step = "start";
static bool selftest_expect_sigsys;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char buf[160];
	int n;

	(void)sig;
	(void)uc;
	if (selftest_expect_sigsys)
		n = snprintf(buf, sizeof(buf),
			     "selftest: ok (the sandbox "
			     "refused %s: system call %d)\n",
			     selftest_step, si->si_syscall);
	else
		n = snprintf(buf, sizeof(buf),
			     "selftest: FAILED: step '%s' "
			     "made system call %d, which the GPU sandbox "
			     "forbids\n",
			     selftest_step, si->si_syscall);
	if (n > 0)
		(void)!write(1, buf, (size_t)n);
	_exit(selftest_expect_sigsys ? 0 : 3);
}

static void *selftest_thread(void *arg)
{
	return arg;
}

#define STEP(name, call)                                                      \
	do {                                                                  \
		selftest_step = (name);                                       \
		gpu_err e_ = (call);                                          \
		if (e_ != GPU(Success)) {                                     \
			printf("selftest: FAILED: step '%s': %s (%s)\n",      \
			       (name), gpu_err_name(e_), gpu_err_string(e_)); \
			return 1;                                             \
		}                                                             \
		printf("step %s: ok\n", (name));                              \
		fflush(stdout);                                               \
	} while (0)

static int selftest(int dev)
{
	const char *during = "";
	struct sigaction sa;
	void *buf = NULL;
	size_t bytes = 64u << 20;
	unsigned char *host;
	gpu_stream s2;
	float ms = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	gpu_err e = open_device(dev, &during);
	if (e != GPU(Success)) {
		printf("selftest: FAILED: %s: %s (%s)\n", during,
		       gpu_err_name(e), gpu_err_string(e));
		return 1;
	}
	printf("step open the device: ok\n");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	int nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
	int landlock = nnp && sbx_landlock() == 0;
	int seccomp = nnp && sbx_seccomp(SBX_GPU | SBX_TRAP) == 0;
	printf("step sandbox: landlock %s, seccomp %s\n",
	       landlock ? "on" : "OFF", seccomp ? "on" : "OFF");
	host = (unsigned char *)calloc(1, bytes);
	if (!host)
		return 1;
	STEP("allocate 64 MiB", GPU(Malloc)(&buf, bytes));
	STEP("page-lock host memory",
	     GPU(HostRegister)(host, bytes, GPU(HostRegisterDefault)));
	STEP("copy to the device",
	     GPU(MemcpyAsync)(buf, host, bytes, GPU(MemcpyHostToDevice),
			      stream));
	STEP("memset", GPU(MemsetAsync)(buf, 7, bytes, stream));
	STEP("record an event", GPU(EventRecord)(ev_start, stream));
#if !defined(ARENA_GPU_FAKE)
	selftest_step = "launch a kernel";
	peak_fma_kernel<<<4, 64, 0, stream>>>((float *)buf, 16, 1.0f);
	STEP("launch a kernel", GPU(GetLastError)());
#endif
	STEP("record an event", GPU(EventRecord)(ev_end, stream));
	STEP("wait for an event", GPU(EventSynchronize)(ev_end));
	STEP("read the events", GPU(EventElapsedTime)(&ms, ev_start, ev_end));
	STEP("copy back", GPU(MemcpyAsync)(host, buf, bytes,
					   GPU(MemcpyDeviceToHost), stream));
	STEP("wait for the stream", GPU(StreamSynchronize)(stream));
	STEP("create a stream (as a kernel may)",
	     GPU(StreamCreateWithFlags)(&s2, GPU(StreamNonBlocking)));
	STEP("wait for the device", GPU(DeviceSynchronize)());
	int pools = 0;
	(void)GPU(DeviceGetAttribute)(&pools, GPU_ATTR_POOLS, dev);
	if (pools) {
		/* cudaMallocAsync, as a kernel's scratch may be (the pool was
		 * set up before the sandbox: warm_pool). */
		void *small = NULL, *big = NULL;
		STEP("stream-ordered allocation of 2 KiB",
		     GPU(MallocAsync)(&small, 2048, stream));
		STEP("stream-ordered allocation of 64 MiB",
		     GPU(MallocAsync)(&big, bytes, stream));
		STEP("memset of it", GPU(MemsetAsync)(big, 3, bytes, stream));
		STEP("stream-ordered free", GPU(FreeAsync)(small, stream));
		STEP("stream-ordered free", GPU(FreeAsync)(big, stream));
		STEP("wait for the stream", GPU(StreamSynchronize)(stream));
	} else {
		printf("step stream-ordered allocation: the device has no "
		       "memory pools\n");
	}
	STEP("unlock host memory", GPU(HostUnregister)(host));
	STEP("free", GPU(Free)(buf));
	selftest_step = "start a thread (driver threads must stay possible)";
	pthread_t t;
	if (pthread_create(&t, NULL, selftest_thread, NULL) != 0) {
		printf("selftest: FAILED: cannot start a thread\n");
		return 1;
	}
	pthread_join(t, NULL);
	printf("step start a thread: ok\n");
	if (!landlock || !seccomp) {
		printf("selftest: ok without a full sandbox (landlock %s, "
		       "seccomp %s)\n",
		       landlock ? "on" : "off", seccomp ? "on" : "off");
		return 0;
	}
	selftest_step = "fork";
	selftest_expect_sigsys = true;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	printf("selftest: FAILED: fork was not refused\n");
	return 1;
}

#endif /* ARENA_GPU_DIAG_H */
