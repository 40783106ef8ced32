/*
 * commands.c - the table of `arena` subcommands and their help: the one
 * source of truth for `arena COMMAND --help`, the usage line a usage error
 * prints, `arena help`, and the man pages (`arena help --man`, from
 * which the pages in docs/man/ are generated; tests/e2e/cli_convention.sh
 * checks they agree).  A new subcommand adds one entry here and nothing
 * else to join the convention (cli/help.c): --help answered before the
 * command runs, usage errors exit 2.
 *
 * Text rules, so that one text renders as both terminal help and roff:
 * lines are at most 79 columns; options are "OPTION\tMEANING" lines, a
 * meaning continued on lines that start with a tab; examples are one
 * command a line (a line starting with '#' is a comment above the next).
 */
#include "cli.h"

#include <stddef.h>

/* The table is laid out by hand, one entry a block, its texts as they
 * read; clang-format would indent every entry a level. */
/* clang-format off */
const struct cli_command cli_commands[] = {
{
	.name = "check-tasks", .fn = cmd_check_tasks,
	.synopsis = "arena check-tasks [SELECTOR...] [--json] [--static] "
		    "[--device DEV]\n"
		    "           [--seeds N] [--seed N] [--aa-quick] "
		    "[--case-budget S] [--no-aa] [--record] [--progress]",
	.summary = "check that tasks are fit to measure agents with",
	.description =
		"Checks every selected task (default: all, and every suite): "
		"schema and files,\nthe baseline against the reference on "
		"every visible and held-out case over\nseveral seeds, output "
		"mutants each caught by the task's comparison, held-out\n"
		"coverage, an A/A (arena eval --aa) within its noise and above "
		"the timing floor,\nand the baseline's fraction of the "
		"roofline.  A report per task; exit 1 when\nany check failed "
		"(docs/tasks.md, \"Checking a task\").  An AgentKernelArena "
		"folder\n(aka:PATH) is checked by preparing it on the device: "
		"its harness must pass\nthe kernel as shipped and fail a "
		"corrupted one (docs/aka.md, \"Checking\").",
	.options =
		"SELECTOR\tall (default), a family, a directory, a task id, "
		"suite:NAME,\n\taka:PATH (an AgentKernelArena checkout or a "
		"folder below its tasks/)\n"
		"--json\tone JSON document\n"
		"--static\tonly the checks that need no device\n"
		"--device DEV\tthe device to check on (default: the task's)\n"
		"--seeds N\tbaseline-against-reference evaluations (default "
		"3)\n"
		"--seed N\tthe first seed\n"
		"--aa-quick\ta short A/A (CI)\n"
		"--case-budget S\tthe A/A's timing per case\n"
		"--no-aa\tno A/A, timing floor or difficulty\n"
		"--record\twrite each task's difficulty to its measured.yaml\n"
		"--progress\ta line on stderr per evaluation: its time and "
		"phases",
	.examples = "arena check-tasks c2c --aa-quick\n"
		    "arena check-tasks suite:smoke --json\n"
		    "arena check-tasks aka:/src/AgentKernelArena/tasks/triton2triton "
		    "--device cuda:0",
},
{
	.name = "tasks", .fn = cmd_tasks,
	.synopsis = "arena tasks [SELECTOR] [--suites]",
	.summary = "list tasks (family, language, cases)",
	.description =
		"Lists the tasks a selector matches (default: all): id, "
		"family, language,\nvisible (+held-out) cases, the baseline's "
		"fraction of the roofline that\nmeasured.yaml records, and the "
		"first line of the description.  A task\nthat does not load is "
		"listed as INVALID with the reason, and the exit status\n"
		"is then 1.  An AgentKernelArena folder (aka:PATH, docs/aka.md) "
		"is listed\nwith its harness style; one that cannot run here "
		"as SKIPPED with the reason.\n'arena check-tasks' checks "
		"them.",
	.options =
		"SELECTOR\tall (default), a family, a directory, a task id, "
		"suite:NAME,\n\taka:PATH (an AgentKernelArena checkout or a "
		"folder below its tasks/)\n"
		"--suites\tlist the suites, validating each",
	.examples = "arena tasks\narena tasks c2c\narena tasks c2c/saxpy\n"
		    "arena tasks --suites\n"
		    "arena tasks aka:/src/AgentKernelArena/tasks/triton2triton",
},
{
	.name = "eval", .fn = cmd_eval,
	.synopsis = "arena eval TASK --workspace DIR [--quick] [--held-out] "
		    "[--no-cache]\n           [--seed N] [-D NAME=VALUE]... "
		    "[--logs DIR] [--case-budget S]\n"
		    "arena eval TASK --aa [--timing-only] [--quick] [--held-out] "
		    "[--seed N]\n           [--logs DIR] [--case-budget S]",
	.summary = "evaluate a directory against a task; prints "
		   "task_result.yaml",
	.description =
		"Compiles DIR's editable files for TASK, checks them against "
		"the reference,\ntimes them against the task's baseline and "
		"prints task_result.yaml\n(docs/results.md).  Exits 0 whenever "
		"a verdict was reached, whatever it is.\nWith --aa the task's "
		"own baseline is the candidate (A/A, in the candidate's\n"
		"runner, never cached): its speedup_ci should contain 1.0 "
		"about 95% of the\ntime.",
	.options =
		"--workspace DIR\tthe directory holding the candidate "
		"(required)\n"
		"--quick\tone timing block: a rough number, fast\n"
		"--held-out\talso run the task's held-out cases\n"
		"--no-cache\tevaluate even if these sources were evaluated "
		"before\n"
		"--seed N\tthe seed of inputs and bootstrap (default: drawn)\n"
		"-D NAME=VALUE\tbuild with this define (a tunable); "
		"repeatable\n"
		"--logs DIR\tkeep the runner logs and timing.tsv in DIR\n"
		"--aa\ttime the task's baseline against itself (no "
		"--workspace)\n"
		"--timing-only\twith --aa: no correctness trials and no "
		"reference checks\n\t(interval coverage: they only cost "
		"time there)\n"
		"--case-budget S\tseconds of timing per case instead of the "
		"default;\n\tnever cached (wider intervals, not other "
		"verdicts)",
	.examples = "arena eval c2c/saxpy --workspace ./my_saxpy\n"
		    "arena eval c2c/gemm --workspace . --quick -D BLOCK=64\n"
		    "arena eval c2c/saxpy --aa --case-budget 0.5",
},
{
	.name = "run", .fn = cmd_run,
	.synopsis = "arena run CONFIG [--run-suffix NAME] [--gpus 0,1,...]",
	.summary = "create and execute a run",
	.description =
		"Validates the run config completely (docs/config.md), "
		"creates the run,\nprints its id and executes it: on a "
		"terminal a progress line (tasks done of\nall, elapsed time, "
		"ETA, what runs now), otherwise one line per event.\nEnds "
		"with report.txt and the paths of summary.csv, summary.json "
		"and\nreport.html.",
	.options =
		"--run-suffix NAME\tappended to the run id "
		"(run_20261201_090000_NAME)\n"
		"--gpus LIST\tone worker per listed device index, e.g. "
		"0,1,3\n\t(overrides the config's gpus:)",
	.examples = "arena run example_configs/quickstart_host.yaml\n"
		    "arena run ab.yaml --run-suffix mcp --gpus 0,1",
},
{
	.name = "resume", .fn = cmd_resume,
	.synopsis = "arena resume RUN|--latest [--gpus 0,1,...]",
	.summary = "finish an interrupted run",
	.description =
		"Finishes what is not done: interrupted agents are "
		"relaunched, agents\nthat ended get their final evaluation, "
		"finished attempts are left alone\n(finished is final, even "
		"when a workspace was edited since).  Refuses\n(exit 1) while "
		"another process executes the run.  Shows progress as\n`arena "
		"run` does.",
	.options = "--latest\tthe newest run of the store\n"
		   "--gpus LIST\tone worker per listed device index",
	.examples = "arena resume --latest\n"
		    "arena resume run_20261201_090000",
},
{
	.name = "status", .fn = cmd_status,
	.synopsis = "arena status [RUN|--latest]",
	.summary = "runs, or one run's progress",
	.description =
		"Without RUN: every run of the store with its status and "
		"progress (a bar on\na terminal).  With RUN: also each "
		"attempt's state.  Says when a run marked\nrunning has no "
		"live executor.",
	.options = "--latest\tthe newest run of the store",
	.examples = "arena status\narena status --latest",
},
{
	.name = "report", .fn = cmd_report,
	.synopsis = "arena report RUN|--latest\n"
		    "arena report --index [--html FILE]",
	.summary = "rewrite a run's reports, or a page across all runs",
	.description =
		"With RUN: rewrites summary.csv, summary.json, report.txt "
		"and report.html\nfrom the store and prints report.txt.  "
		"With --index: writes one HTML page\nacross every run of the "
		"store (status, pass rates, geomean speedup, wins\nbeyond "
		"noise, costs; a link to each run's report.html) to "
		"STORE/index.html\nor FILE, and prints its path.",
	.options = "--latest\tthe newest run of the store\n"
		   "--index\tthe page across all runs\n"
		   "--html FILE\twith --index: where to write it",
	.examples = "arena report --latest\n"
		    "arena report --index\n"
		    "arena report --index --html /tmp/runs.html",
},
{
	.name = "cancel", .fn = cmd_cancel,
	.synopsis = "arena cancel RUN|--latest",
	.summary = "stop a run after its current step",
	.description =
		"Asks the executor (and every worker) of RUN to stop after "
		"its current\nstep.  `arena resume` continues it later.",
	.options = "--latest\tthe newest run of the store",
	.examples = "arena cancel run_20261201_090000",
},
{
	.name = "worker", .fn = cmd_worker,
	.synopsis = "arena worker RUN [--index K] [--gpu N] "
		    "[--lease-seconds S]",
	.summary = "one more worker on a run (leases keep workers apart)",
	.description =
		"Runs every attempt of RUN that no live worker holds, each "
		"under a lease in\nthe store (docs/cli.md, \"Workers in other "
		"processes\").  The worker that\nfinds every attempt done "
		"marks the run done and writes its reports.",
	.options =
		"--index K\tonly attempt K in the run's order (a Slurm array "
		"index)\n"
		"--gpu N\tevaluate on device index N\n"
		"--lease-seconds S\tthe lease term (default 60)",
	.examples = "arena worker run_20261201_090000 --gpu 1",
},
{
	.name = "slurm", .fn = cmd_slurm,
	.synopsis = "arena slurm CONFIG|RUN [--run-suffix NAME] "
		    "[--partition P] [--time MIN]\n"
		    "            [--max-parallel N] [--sbatch PATH] "
		    "[--sbatch-arg ARG]... [--dry-run]",
	.summary = "run it as a Slurm job array, one attempt per element",
	.description =
		"Creates the run (or takes a created one) and submits it to "
		"Slurm: a job\narray of one element per attempt, then a job "
		"after it for what is left and\nthe reports (docs/cli.md, "
		"\"Slurm\").",
	.options =
		"--run-suffix NAME\tappended to the run id\n"
		"--partition P\tthe Slurm partition\n"
		"--time MIN\tminutes per job\n"
		"--max-parallel N\tarray elements running at once\n"
		"--sbatch PATH\tthe sbatch to call (default: from $PATH)\n"
		"--sbatch-arg ARG\tany other sbatch option; repeatable\n"
		"--dry-run\twrite the scripts, print the commands, submit "
		"nothing",
	.examples = "arena slurm big.yaml --partition gpu --time 120\n"
		    "arena slurm big.yaml --dry-run",
},
{
	.name = "compare", .fn = cmd_compare,
	.synopsis = "arena compare A B [--json] [--html FILE]\n"
		    "arena compare RUN [--json] [--html FILE]",
	.summary = "is B better than A? runs or RUN:CONFIG, with intervals",
	.description =
		"A and B are runs (run ids, as 'arena status' lists them) or "
		"agent\nconfigurations of a run with agents: (RUN:NAME).  With "
		"one RUN, its first\ntwo agent configurations are compared "
		"(A = the first).  Reports the effect\nof B on the geomean "
		"speedup, the pass rate, the score and the reward, each\nwith "
		"a 95% interval, a p-value and the smallest effect the "
		"comparison could\ndetect; per-task wins and losses at a 5% "
		"false discovery rate; what each\nside cost (turns, tokens, "
		"dollars, agent time); and whether the sides are\ncomparable "
		"(same tasks, device, evaluator).  docs/statistics.md "
		"explains.",
	.options = "--json\tthe report as JSON (docs/results.md)\n"
		   "--html FILE\talso write the comparison as a "
		   "self-contained HTML page",
	.examples = "arena compare run_20261201_090000_base "
		    "run_20261201_120000_mcp\n"
		    "arena compare run_20261201_090000:plain "
		    "run_20261201_090000:with_tool\n"
		    "arena compare run_20261201_090000 --html ab.html",
},
{
	.name = "plan", .fn = cmd_plan,
	.synopsis = "arena plan [SELECTOR...] [--config FILE] [--noise RUN] "
		    "[--past RUN]...\n"
		    "           [--effect RATIO] [--pass-effect POINTS] "
		    "[--repeats K,K,...]\n"
		    "           [--alpha A] [--power P] [--json] [component "
		    "overrides]",
	.summary = "tasks and repeats an A/B comparison needs",
	.description =
		"How many tasks and repeats an A/B comparison of two agent "
		"configurations\nneeds to detect an effect on the geomean "
		"speedup and on the pass rate with\nthe given power, and what "
		"the selected tasks can detect at each number of\nrepeats "
		"(docs/statistics.md §9).",
	.options =
		"SELECTOR\ttasks, as in a run config (all, c2c, c2c/saxpy, "
		"...);\n\tdefault: all\n"
		"--config FILE\tthe tasks (and repeats) of a run config\n"
		"--noise RUN\tan A/A run (agent noop) that measured the "
		"timing noise\n"
		"--past RUN\ta finished run of the agent (repeats measure its "
		"spread\n\tbetween attempts; two configurations the spread "
		"of effects);\n\tmay be given up to 16 times\n"
		"--effect RATIO\tgeomean speedup to detect (default 1.05, 5% "
		"faster)\n"
		"--pass-effect P\tpass-rate difference to detect, in points "
		"(default 10)\n"
		"--repeats LIST\trepeats per configuration to consider "
		"(default 1,2,3,5)\n"
		"--alpha A\ttwo-sided significance level (default 0.05)\n"
		"--power P\tpower to reach (default 0.8)\n"
		"--json\tthe plan as JSON\n"
		"--timing-sd X\tcomponent overrides (log-speedup standard "
		"deviations;\n\tthey replace measured or assumed values); "
		"also --agent-sd X,\n\t--effect-sd X, --pass-rate P, "
		"--pass-effect-sd P (a fraction)",
	.examples = "arena plan c2c hip2hip --noise run_20261201_080000_aa "
		    "--effect 1.05\n"
		    "arena plan --config ab.yaml --past run_20261130_120000 "
		    "--json",
},
{
	.name = "mount", .fn = cmd_mount,
	.synopsis = "arena mount MOUNTPOINT [--foreground] [--debug] "
		    "[--threads N] [--ws-timeout S]",
	.summary = "the store as a filesystem (fusermount3 -u to stop)",
	.description =
		"Presents the store as files (docs/fs-semantics.md): tasks, "
		"runs, their\nreports (report.html among them), workspaces, "
		"results that evaluate when\nread, and runs/new, where "
		"writing a run config launches a run.  Runs in\nthe "
		"background unless --foreground; unmount with 'fusermount3 "
		"-u\nMOUNTPOINT'.",
	.options = "--foreground\tstay in the foreground (also -f)\n"
		   "--debug\tlibfuse's debug output; implies --foreground "
		   "(also -d)\n"
		   "--threads N\tworker threads (default 16)\n"
		   "--ws-timeout S\tseconds the kernel may cache workspace "
		   "names and\n\tattributes; changes made behind the mount "
		   "are reported\n\tthrough inotify (default 3600; 0 = "
		   "never)",
	.examples = "arena mount /mnt/arena\n"
		    "cp exp.yaml /mnt/arena/runs/new\n"
		    "fusermount3 -u /mnt/arena",
},
{
	.name = "doctor", .fn = cmd_doctor,
	.synopsis = "arena doctor [--no-measure | --remeasure]",
	.summary = "devices, compilers, peaks, sandbox",
	.description =
		"Compilers, runners, GPU drivers and devices, measured peaks "
		"(cached in the\nstore), sandboxing, and what is missing with "
		"the command that installs it.\nExits 1 when something an "
		"evaluation on this machine needs is missing.",
	.options = "--no-measure\tdo not measure device peaks that are not "
		   "cached yet\n"
		   "--remeasure\tmeasure device peaks again",
	.examples = "arena doctor\narena doctor --no-measure",
},
{
	.name = "check-agents", .fn = cmd_check_agents,
	.synopsis = "arena check-agents [CONFIG | --agents a,b | --all] "
		    "[--json]",
	.summary = "agent CLIs: installed, version, authenticated",
	.description =
		"For each agent CLI: is it installed (where), which version "
		"(and the one its\nlauncher was tested with), is it "
		"authenticated, is its run configuration\nvalid, and is the "
		"agent sandbox available (docs/agents-cli.md).  Exit\nstatus "
		"0 when every agent asked about is ready, 1 otherwise.",
	.options = "CONFIG\tthe agent of a run config, with its settings\n"
		   "--agents LIST\tthese agents (comma-separated)\n"
		   "--all\tevery agent CLI arena knows (the default)\n"
		   "--json\tthe answer as JSON",
	.examples = "arena check-agents\n"
		    "arena check-agents --agents claude_code,codex --json",
},
{
	.name = "serve", .fn = cmd_serve,
	.synopsis = "arena serve [--listen ADDR:PORT | --socket PATH] "
		    "[--token-file F]\n"
		    "[--workers N | --gpus LIST [--per-gpu K]] [--max-queue N]\n"
		    "[--max-body-mb M] [--lease-seconds S]",
	.summary = "evaluation service over HTTP for trainers and agents",
	.description =
		"Serves the evaluator as a JSON API over HTTP (docs/serve.md):"
		" POST\n/v1/batches submits {task, sources} requests, GET "
		"/v1/batches/ID, /v1/results/ID\nand /v1/batches/ID/events "
		"(server-sent events) give the answers.  Each\nrequest is "
		"evaluated exactly as `arena eval` would (full evaluations are"
		"\ncached by content hash).  The queue lives in the store: "
		"SIGTERM drains\n(evaluations in hand finish, exit 0) and a "
		"restart answers what was left,\neach request exactly once.  "
		"Beyond loopback a bearer token is required.",
	.options =
		"--listen ADDR:PORT\tIPv4 address and port (default "
		"127.0.0.1:8080; port 0: any)\n"
		"--socket PATH\ta Unix socket (mode 0600) instead\n"
		"--token-file F\tclients must send 'Authorization: Bearer "
		"<token>' (the\n\tfile's first line, >= 16 characters, mode "
		"600); required beyond\n\tloopback\n"
		"--workers N\thost workers (default 1)\n"
		"--gpus LIST\tone worker per GPU index instead, as in "
		"--gpus 0,1\n"
		"--per-gpu K\tK evaluations in flight per GPU (default 1): "
		"while one holds\n\tthe device lock for its timing, the "
		"others build and check\n"
		"--max-queue N\trequests waiting before 429 (default 10000)\n"
		"--max-body-mb M\trequest body cap in MiB (default 64)\n"
		"--lease-seconds S\ta worker's claim on a request (default 60)",
	.examples = "arena serve --workers 2\n"
		    "arena serve --listen 0.0.0.0:8080 --token-file ~/.arena-token "
		    "--gpus 0,1",
},
{
	.name = "mcp", .fn = cmd_mcp,
	.synopsis = "arena mcp [--task ID] [--workspace DIR] [--run RUN "
		    "[--attempt N]]\n"
		    "arena mcp call evaluate|show_task|last_result [--quick] "
		    "[same options]\n"
		    "arena mcp tools",
	.summary = "stdio MCP server: the evaluator as a tool",
	.description =
		"Serves arena's evaluator as MCP tools on stdin/stdout "
		"(JSON-RPC, one\nmessage a line); `mcp call` makes one tool "
		"call from a shell; `mcp tools`\nlists the tools.  Inside an "
		"agent launched by arena ($ARENA_EVAL_SOCKET)\nit evaluates "
		"through the launcher (docs/agents-cli.md).",
	.options = "--task ID\tthe task (default $ARENA_TASK_ID)\n"
		   "--workspace DIR\tthe candidate (default $ARENA_WORKSPACE, "
		   "else .)\n"
		   "--run RUN\tlast_result shows this run's attempt\n"
		   "--attempt N\tthe attempt of --run\n"
		   "--quick\twith call evaluate: one timing block",
	.examples = "arena mcp tools\n"
		    "arena mcp call evaluate --task c2c/saxpy --workspace . "
		    "--quick",
},
{
	.name = "export", .fn = cmd_export,
	.synopsis = "arena export RUN|--latest [--format jsonl] [-o FILE]",
	.summary = "one episode per attempt, for RL and analysis",
	.description =
		"One JSON object a line per attempt: run, task, attempt, the "
		"agent (model,\ninstalled CLI version), its costs, the final "
		"verdict and reward, the prompt,\nthe steps of its trace, "
		"the final sources and their diff against the\nbaseline.  "
		"Paths are relative to the run directory.  docs/results.md\n"
		"(\"Episodes\") lists the fields.",
	.options = "--latest\tthe newest run of the store\n"
		   "--format jsonl\tthe format (the only one)\n"
		   "-o FILE\twrite to FILE instead of stdout",
	.examples = "arena export --latest -o episodes.jsonl",
},
{
	.name = "version", .fn = cmd_version,
	.synopsis = "arena version",
	.summary = "print the version",
	.description = "Prints arena's version and its evaluator's version "
		       "(results of different\nevaluator versions are not "
		       "compared).",
	.examples = "arena version",
},
{
	.name = "help", .fn = cmd_help,
	.synopsis = "arena help [COMMAND] [--man]",
	.summary = "this help, a command's, or a man page",
	.description = "Without COMMAND: the list of commands.  With COMMAND: "
		       "the same as\n`arena COMMAND --help`.  --man prints "
		       "the man page (roff) instead:\narena(1), or "
		       "arena-COMMAND(1).",
	.options = "--man\tthe man page, in roff\n"
		   "--commands\tthe command names, one a line",
	.examples = "arena help run\narena help --man mount | man -l -",
},
{ .name = NULL },
};
/* clang-format on */
