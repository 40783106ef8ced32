/*
 * runner_proto.h - the line protocol between the controller (arena, trusted)
 * and a runner (arena-runner, untrusted once it has loaded candidate code).
 *
 * Included by both sides, so it is self-contained: libc headers only, no
 * controller types.  docs/evaluator.md explains why each rule exists.
 *
 * The controller starts `arena-runner <so-path> <entry>` in a new process
 * group with:
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
 *     ready                     after dlopen + dlsym of <entry>
 *     error <message>           instead of ready (dlopen or dlsym failed)
 *
 * Requests (controller → runner) and replies:
 *     layout <seq> <shm_size> <nargs> <nparams> <param>...
 *            then per argument: <offset> <dtype> <rank> <dim>...
 *                               → ok <seq>     (mmaps fd 4, builds arena_arg)
 *     call <seq>                → ok <seq> <rc>
 *     flush <seq> <bytes>       → ok <seq>     (writes every cache line of a
 *                                               buffer of <bytes>)
 *     time <seq>                → ok <seq> <rc> <ns>   (one call, timed with
 *                                               CLOCK_MONOTONIC)
 *     ping <seq>                → pong <seq>
 *     quit                      (no reply; the runner exits 0)
 *     any request may instead get: error <seq> <message>
 *
 * Offsets are multiples of RP_ALIGN; the controller checks every reply's
 * numbers itself and reads outputs only while the runner is stopped.
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
#define RP_MAX_PARAMS 16
#define RP_MAX_FLUSH_BYTES (1024LL * 1024 * 1024)

#endif /* ARENA_RUNNER_PROTO_H */
