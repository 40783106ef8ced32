/*
 * runner_proto.h - the line protocol between the controller (arena, trusted)
 * and a runner (arena-runner, untrusted once it has loaded candidate code).
 *
 * Included by both sides, so it is self-contained: libc headers only, no
 * controller types.  docs/evaluator.md explains why each rule exists.
 *
 * The controller starts `arena-runner <so-path> <entry> [threads=<n>]`
 * (host; threads=<n>, n > 1, only for a trusted C reference whose task
 * declares reference.split: the runner may then start threads of its own
 * and lowers its priority) or
 * `arena-runner-cuda|arena-runner-hip <so-path> <entry> <device-index>`
 * (GPU) in a new process group with:
 *     fd 0  /dev/null            fd 1, 2  a log file (never parsed)
 *     fd 3  a SOCK_STREAM socketpair end: the control channel
 *     fd 4  a sealed memfd (size fixed by the controller: it can neither
 *           grow nor shrink): the shared argument memory
 *     fd 5  a sealed, read-only memfd holding the shared object itself;
 *           <so-path> is then "/proc/self/fd/5", so the code loaded is
 *           exactly the artifact the controller hashed, whatever happens
 *           to the file in the cache meanwhile
 *
 * Every message is one line of printable ASCII ending in '\n', at most
 * RP_MAX_LINE bytes.  Each request carries a sequence number that the
 * reply must echo; exactly one reply line answers each request, and the
 * controller treats any other byte on the channel as a protocol violation.
 *
 * Start-up (runner → controller, no request):
 *     hello <pid> <sandbox>     before the shared object is loaded, so it is
 *                               written by trusted code; <sandbox> is
 *                               "<seccomp|->,<landlock|->"
 *     nodevice <pid> <message>  (GPU, instead of hello) the device could
 *                               not be opened; also trusted code
 *     ready                     after dlopen + dlsym of <entry>
 *     error <message>           instead of ready (dlopen or dlsym failed)
 *   A GPU runner started with <so-path> "-" sends hello and nothing more:
 *   it opens its device while the kernel is still being compiled, and the
 *   kernel comes with the first request:
 *     load <seq>  + the sealed kernel memfd as SCM_RIGHTS  → ok <seq>
 *                 (dup2'ed onto fd 5, then dlopen + dlsym of <entry>)
 *
 * Requests (controller → runner) and replies.  The host runner
 * (arena-runner) and the GPU runners share the framing but not every verb.
 *
 * Host runner (arena-runner, host kernels and C references of GPU tasks):
 *     layout <seq> <shm_size> <nargs> <nparams> <param>...
 *            then per argument: <offset> <dtype> <rank> <dim>...
 *                               → ok <seq>     (mmaps fd 4, builds arena_arg)
 *     time <seq>                → ok <seq> <rc> <ns>
 *                                  one call of the kernel on the arguments
 *                                  in shared memory; <ns> is the runner's
 *                                  own CLOCK_MONOTONIC around the call
 *     split <seq> <param> <threads> <args hex>  → ok <seq>
 *                                  (a runner started with threads=<n>
 *                                  only) later `time` calls cut param
 *                                  <param>'s range into up to <threads>
 *                                  (at most n) row ranges, one call each
 *                                  in its own thread: every argument in
 *                                  the <args> bit mask, whose first
 *                                  dimension is that param, offset to the
 *                                  range's first row, the param set to the
 *                                  range's length; threads 1: whole calls
 *                                  again.  <rc> is the first nonzero of
 *                                  the calls', <ns> the whole request's
 *     ping <seq>                → pong <seq>
 *     quit                      (no reply; the runner exits 0)
 *     any request may instead get: error <seq> <message>
 *   `time` is the only request that runs the kernel: correctness trials,
 *   warm-up calls, timed calls and reference checks are one request with
 *   one set of preconditions, so a kernel cannot tell them apart by what
 *   it is asked.  There is no `call` and no `flush` (both answer
 *   "error <seq> unknown request"): the controller flushes the caches
 *   itself, while every runner is stopped, before each `time` (clflush of
 *   every line of the argument memory and a sweep of twice the last-level
 *   cache), so no flush buffer exists in a runner's address space.
 *   <ns> is a claim.  What a timed call costs is the runner's CPU time as
 *   the kernel accounts it (clock_getcpuclockid), read by the controller
 *   while the runner is stopped, before it is resumed for the request and
 *   after it is stopped again: everything the process did in between
 *   (signal handlers, hooked reads, the call, the reply) is counted.
 *   Inputs are written only while the runner is stopped, from draws it
 *   cannot predict.  A host runner has no device: an `error <seq> device
 *   ...` reply from it is a protocol violation.
 *
 * GPU runners (arena-runner-cuda, arena-runner-hip; docs/gpu.md):
 *     layout <seq> ...          → ok <seq> <lo> <hi>   (as above; also
 *                                  allocates one device buffer per
 *                                  argument; <lo> and <hi> bound the
 *                                  device addresses of those buffers,
 *                                  recorded in blocks.tsv only)
 *     call <seq>                → ok <seq> <rc>
 *                                  copies every argument of set 0 to
 *                                  the device, calls, waits for the whole
 *                                  device, copies every argument back
 *     call <seq> <hold_us>      → ok <seq> <rc> <order> <late>   (the
 *                                  same under the ordering check of
 *                                  gpu/gpu_gate.h: the stream held for
 *                                  hold_us after the call returns; order 0,
 *                                  -1 inconclusive, or a + 1 for an argument
 *                                  changed meanwhile; late 0 or a + 1 for an
 *                                  argument changed after the stream's own
 *                                  work was done)
 *     gen <seq> [p:<hex>] [<spec>...]
 *                               → ok <seq>     (the sets placed by the
 *                                  seed p:, where given, else by the
 *                                  first drawn argument's seed; then per
 *                                  argument of every
 *                                  set, by its spec: "u" copy it to the
 *                                  device, "<width>:<hex>" fill it with
 *                                  that poison,
 *                                  "g:<dist>:<a>:<b>:<lo>:<hi>:<seed>" draw
 *                                  it on the device (gpu/gpu_gen.h); no
 *                                  spec: copy all; then a wait for the
 *                                  stream.  The first request of a sample:
 *                                  the controller's clock runs from here
 *                                  to the keeper's probe after the fetch)
 *     time <seq> <n> [hold]     → ok <seq> <rc> <ns> <drain_ns>   (n
 *                                  back-to-back calls on sets 0..n-1
 *                                  between two events on the runner's
 *                                  stream; <ns> is the total; drain_ns is
 *                                  how long a whole-device synchronisation
 *                                  took after the end event had completed:
 *                                  work left on another stream.  "hold":
 *                                  the stream is held by the ordering
 *                                  gate's kernel (gpu/gpu_gate.h) until
 *                                  every call is enqueued, so the events
 *                                  time the kernels back to back, not
 *                                  the host's launches between them)
 *     capture <seq> <n> <place> → ok <seq> 1  |  ok <seq> 0 <why>
 *                                 (sets 0..n-1 placed by the seed
 *                                  <place>, hex, or "-" for every
 *                                  argument at the start of its window;
 *                                  their n calls recorded on the stream,
 *                                  not run, as one graph for the next
 *                                  `time <n> ... graph`, before the
 *                                  sample's `gen`: 1 captured, 0 not,
 *                                  with the reason (a call that failed,
 *                                  raised or did what a capture refuses);
 *                                  docs/gpu.md section 6)
 *     time <seq> <n> [hold | gate <token>] graph
 *                               → as below, the batch run by one launch
 *                                  of the graph captured for it at the
 *                                  sets' present placement (else an
 *                                  error), no call of the kernel's own
 *                                  code in between
 *     time <seq> <n> gate <token>
 *                               → armed <seq>, then the reply of `time`
 *                                  (the same, except that the controller
 *                                  opens the gate: once every call is
 *                                  enqueued the runner answers "armed",
 *                                  and the controller writes <token> (1
 *                                  to 2^32-1) into the first word of its
 *                                  gate page; its clock from that write
 *                                  to the reply, less <ns>, is the gate's
 *                                  reaction, which binds the claim.  An
 *                                  error may come instead of "armed".
 *                                  Only after `gate`)
 *     gate <seq>  + a descriptor (SCM_RIGHTS)
 *                               → ok <seq>     (a page of the
 *                                  controller's, mapped into the device's
 *                                  address space for `time ... gate`;
 *                                  "error <seq> gate page refused: ..."
 *                                  where it cannot be: a trusted
 *                                  runner's refusal turns the controller's
 *                                  gate off for the evaluation, a
 *                                  candidate's fails it)
 *     sets <seq> <n> <stride>   → ok <seq> <lo> <hi>   (n device copies
 *                                  of the layout; set k lives in shared
 *                                  memory at k * stride; <lo> <hi> as for
 *                                  layout)
 *     sets <seq> <n> <stride> <bytes> [pinned]  + a descriptor
 *                                  (SCM_RIGHTS)
 *                               → ok <seq> <lo> <hi>   (the same sets in
 *                                  memory the keeper lent: <bytes> of the
 *                                  allocation the descriptor stands for,
 *                                  mapped, set k's argument a where the
 *                                  keeper's `lend` put it; with "pinned"
 *                                  the n sets of shared memory are
 *                                  page-locked, as own sets always are,
 *                                  for a baseline's fetches of inputs)
 *     fetch <seq> [<mask> [<set>...]]   → ok <seq>     (copies every
 *                                  argument in <mask> (all without one)
 *                                  of the sets listed (every set without
 *                                  a list) back to shared memory)
 *     ping <seq>                → pong <seq>
 *     quit
 *     any request may instead get: error <seq> <message>
 *     device errors:  error <seq> device <sticky|soft> <name> <message>
 *                     (after a sticky one the runner runs nothing
 *                     again and answers every request the same way)
 *   A candidate's calls are samples (gen, the keeper's flush, time,
 *   fetch, the keeper's probe: below) in every phase - correctness
 *   trials, warm-up, timed calls - with the same batch, so a kernel
 *   cannot tell a checked call from a timed one by what it is asked.
 *   `call` runs a GPU reference, and a candidate once per case under the
 *   ordering check (a contract check, which it can tell apart).  There is
 *   no `flush` in a runner that can hold a kernel: the keeper flushes.
 *   A device error is a claim: the keeper probes the device right after.
 *
 * The GPU keeper: `arena-runner-cuda|arena-runner-hip - - <device-index>`
 * (no shared object, no entry) never loads a kernel, so everything it
 * says is trusted.  It serves, besides ping and quit:
 *     flush <seq> <bytes>       → ok <seq> <ns>   a ~1 ms busy kernel (the
 *                                  device's clocks up), a write of <bytes>
 *                                  of its own memory (>= 2x L2), persisting
 *                                  L2 lines reset, a wait for the whole
 *                                  device; <ns>: its events' time
 *     probe <seq>               → ok <seq> <ns>   a 1 MiB write and a wait
 *                                  for the whole device; <ns>: the
 *                                  keeper's own clock, launch to idle.
 *                                  Does the device work, and is another
 *                                  context's work still running (the
 *                                  write waits for its turn)?
 *     lend <seq> <slot> <n> <stride> <layout...>  + the runner's shared
 *                               memory (SCM_RIGHTS)
 *                               → ok <seq> <bytes>  + the descriptor of
 *                                  a new allocation of <bytes> holding n
 *                                  sets of the layout (the arguments of
 *                                  `layout`), exportable, replacing slot
 *                                  <slot>'s (0 .. RP_LEND_SLOTS - 1);
 *                                  `error <seq> lend unsupported` where
 *                                  the device cannot export memory (HIP
 *                                  today): the controller then fetches
 *     unlend <seq> <slot>       → ok <seq>
 *     compare <seq> <bslot> <cslot> <place> <rule>...
 *                               → ok <seq> <bad> <set> <arg> <index>
 *                                  every set of cslot against bslot's,
 *                                  per argument by its rule ("-" skip,
 *                                  "=" bit for bit, "t:<atol>:<rtol>"
 *                                  within tolerance), each argument at
 *                                  the placement of seed <place> (hex,
 *                                  or "-"); how many elements failed and
 *                                  the first (-1 -1 -1 when none)
 *     take <seq> <slot> <place> <mask> <set>  → ok <seq>   the arguments
 *                                  in <mask> of that set into the slot's
 *                                  runner's shared memory at
 *                                  <set> * <stride>, as its fetch would;
 *                                  with a descriptor (SCM_RIGHTS: a
 *                                  reference check's memory), into that
 *                                  memory as set 0 lies in a layout
 *                                  (or: error <seq> take destination
 *                                  refused ...)
 *   The controller lends only the runner's own sets to each runner, so
 *   no runner can write another's; the keeper reads them only while both
 *   runners of the pair are stopped (docs/gpu.md section 6, "the
 *   keeper's compare").
 *   A GPU sample of runner R is: gen to R, flush to the keeper, time and
 *   fetch to R, then probes to the keeper until one finds the device
 *   idle, with every other process stopped; the controller's clock over
 *   all of it is charged to R (docs/gpu.md).
 *
 * Offsets are multiples of RP_ALIGN; the controller checks every reply's
 * numbers itself and reads outputs only while the runner is stopped.
 *
 * Diagnostics (no control channel; the GPU runners only, trusted code, no
 * kernel loaded):  --query   prints one JSON object describing the
 * runtime and every visible device;  --peaks <index>  measures that
 * device's memory bandwidth, FP32 FMA rate and (CUDA, compute capability
 * 8.0 and later) dense bf16 tensor-core rate and prints them as JSON;
 * --selftest <index>  checks the sandbox against the driver.
 */
#ifndef ARENA_RUNNER_PROTO_H
#define ARENA_RUNNER_PROTO_H

#define RP_FD_CONTROL 3
#define RP_FD_SHM 4
#define RP_FD_KERNEL 5
#define RP_KERNEL_PATH "/proc/self/fd/5"
#define RP_MAX_LINE 65536
#define RP_ALIGN 64
#define RP_MAX_ARGS 16
/* Threads a trusted reference runner may cut one call into. */
#define RP_MAX_REF_THREADS 64
#define RP_MAX_PARAMS 16
#define RP_MAX_FLUSH_BYTES (1024LL * 1024 * 1024) /* GPU flush */
#define RP_MAX_SETS 256
/* Runners whose sets one keeper lends at once (`lend`). */
#define RP_LEND_SLOTS 80
/* How long a held batch's gate kernel waits at most (`time <n> hold`,
 * `time <n> gate`): a launch that waits for its own stream waits this
 * out, slower but never stuck.  A batch that ran before the controller
 * opened its gate is honest only in a request this long. */
#define RP_GATE_LIMIT_NS (50LL * 1000 * 1000)
/* The controller's gate page (`gate`): its size in bytes. */
#define RP_GATE_PAGE_BYTES 4096
/* Exit status when the control channel breaks (the controller is gone or
 * the kernel closed fd 3). */
#define RP_EXIT_CHANNEL 125

#endif /* ARENA_RUNNER_PROTO_H */
