# arena - one non-recursive Makefile.  `make help` lists the targets.
#
# Layout of the build (everything under $(B)):
#   $(B)/libarena.a        the engine (engine/src/<room>/, docs/architecture.md)
#   $(B)/arena             the CLI: cli/ + agents/ + fs/ + libarena.a
#   $(B)/arena-runner      the runner: engine/runner only (links nothing of
#                          the controller, by design)
#   $(B)/tests/test_*      cmocka unit tests (tests/unit)
#   $(B)/tests/fuzz_*      fuzz targets built as corpus replayers
#
# `make asan` builds the same into build-asan/ with ASan and UBSan.

B        ?= build
PREFIX   ?= /usr/local
CC       ?= cc
WERROR   ?= $(if $(CI),-Werror,)

PKGS     := yaml-0.1 libcjson sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null)
# libmicrohttpd: `arena serve` listens only where it is installed (elsewhere
# the command says so); serve/ alone compiles against it.
HAVE_MHD := $(shell pkg-config --exists libmicrohttpd 2>/dev/null && echo y)
MHD_CFLAGS := $(if $(HAVE_MHD),$(shell pkg-config --cflags libmicrohttpd) -DARENA_HAVE_MHD,)
MHD_LIBS   := $(if $(HAVE_MHD),$(shell pkg-config --libs libmicrohttpd),)

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wcast-align -Wwrite-strings \
	-Wundef -Wvla -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) $(WERROR) \
	-Iengine/include $(PKG_CFLAGS) $(FUSE_CFLAGS) $(CFLAGS) \
	$(SANITIZE) -MMD -MP
LDLIBS_ALL := $(PKG_LIBS) $(FUSE_LIBS) $(MHD_LIBS) -lpthread -ldl -lm

# Include paths are narrowed per area, so that the compiler refuses a reach
# into another room's private header (docs/architecture.md):
#   engine/src/<room>/  engine/include only (a room's own headers sit
#                       beside its sources and are found by "name.h")
#   engine/runner/      engine/include only (it includes kernel.h, fp16.h
#                       and runner_proto.h of it; tests/e2e/rooms.sh checks)
#   agents/             engine/include and agents/ ("cli/cli_agent.h")
#   fs/                 engine/include
#   serve/              engine/include (`arena serve`, docs/serve.md)
#   cli/                engine/include, agents/, fs/ and serve/ (the front
#                       end registers the agents, mounts the filesystem,
#                       starts the service)
# Unit tests are white-box and see every room's private headers.
ENGINE_SRCS := $(sort $(wildcard engine/src/*/*.c))
ENGINE_ROOMS := $(sort $(dir $(ENGINE_SRCS)))
RUNNER_SRCS := $(sort $(wildcard engine/runner/*.c))
CLI_SRCS    := $(sort $(wildcard cli/*.c) $(wildcard agents/*.c) \
	$(wildcard agents/*/*.c) $(wildcard fs/*.c) $(wildcard serve/*.c))
UNIT_SRCS   := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRCS   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
# Stand-alone test programs that e2e scripts drive (tests/helpers: e.g.
# fsx_lite, the fsx-style model checker of tests/e2e/fs_fsx.sh).
HELPER_SRCS := $(sort $(wildcard tests/helpers/*.c))

ENGINE_OBJS := $(ENGINE_SRCS:%.c=$(B)/%.o)
RUNNER_OBJS := $(RUNNER_SRCS:%.c=$(B)/%.o)
CLI_OBJS    := $(CLI_SRCS:%.c=$(B)/%.o)
# Everything but main() and the subcommands, so unit tests can link the
# agents and the filesystem.
CLI_LIB_OBJS := $(filter-out $(B)/cli/%,$(CLI_OBJS))
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
FUZZ_BINS   := $(FUZZ_SRCS:tests/fuzz/%.c=$(B)/tests/%)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(B)/tests/helpers/%)

.PHONY: all test test-run test-unit test-e2e test-fuzz asan fuzz deps install \
	uninstall man install-agents quickstart clean help fmt fmt-check lint

all: $(B)/arena $(B)/arena-runner

AREA_INC :=
$(B)/agents/%.o: AREA_INC := -Iagents
$(B)/serve/%.o: AREA_INC := $(MHD_CFLAGS)
$(B)/cli/%.o: AREA_INC := -Iagents -Ifs -Iserve
TEST_INC := $(addprefix -I,$(ENGINE_ROOMS)) -Iagents -Ifs -Iserve

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(AREA_INC) -c $< -o $@

$(B)/libarena.a: $(ENGINE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/arena: $(CLI_OBJS) $(B)/libarena.a
	$(CC) $(SANITIZE) -rdynamic -o $@ $(CLI_OBJS) $(B)/libarena.a $(LDLIBS_ALL)

# The runner links libc, libdl and libm only.
$(B)/arena-runner: $(RUNNER_OBJS)
	$(CC) $(SANITIZE) -o $@ $(RUNNER_OBJS) -ldl -lm -lpthread

$(B)/tests/test_%: tests/unit/test_%.c $(CLI_LIB_OBJS) $(B)/libarena.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_INC) -o $@ $< $(CLI_LIB_OBJS) $(B)/libarena.a \
		$(LDLIBS_ALL) -lcmocka

# Fuzz targets: LLVMFuzzerTestOneInput + a replay main (tests/fuzz/replay.c)
# for `make test`; `make fuzz` builds real libFuzzer binaries with clang.
# They see private headers as unit tests do, and link the agents too (the
# MCP server's harness).
$(B)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(CLI_LIB_OBJS) \
		$(B)/libarena.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_INC) -o $@ $< tests/fuzz/replay.c \
		$(CLI_LIB_OBJS) $(B)/libarena.a $(LDLIBS_ALL)

# Helpers link nothing of arena: they check it from outside.
$(B)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

# A program confined as a GPU runner is (tests/gpu/probe_ipc.sh): the engine's
# confinement, so it links the engine.
$(B)/tests/helpers/confine_run: tests/helpers/confine_run.c $(B)/libarena.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANITIZE) -o $@ $< $(B)/libarena.a $(LDLIBS_ALL)

# Unit tests include cmocka.h: where cmocka is not installed they are not
# built, and tests/run.sh reports each one as skipped with this reason
# (a part scripts/deps.sh could not install never becomes a compile error).
ifeq ($(shell pkg-config --exists cmocka 2>/dev/null && echo y),)
UNIT_BINS :=
UNIT_SKIP := cmocka is not installed (libcmocka-dev; scripts/deps.sh installs it)
endif

# `make test` first installs what the tests need (scripts/deps.sh: Debian
# packages and the agent CLIs, nothing when all are there), then builds and
# runs them in a sub-make, which re-reads this Makefile so that pkg-config
# and the compiler look-ups above see what was just installed.  The build
# uses every core (CI's plain `make test` would otherwise build serially);
# the tests themselves run $TEST_JOBS at a time (tests/run.sh), without
# the build's MAKEFLAGS (a test that runs make, cli_convention's install,
# starts a make of its own).
test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory -j$$(nproc) test-run

test-run: all $(UNIT_BINS) $(FUZZ_BINS) $(HELPER_BINS)
	@B=$(B) MAKEFLAGS= MFLAGS= ARENA_UNIT_SKIP='$(UNIT_SKIP)' tests/run.sh

test-unit: all $(UNIT_BINS)
	@B=$(B) ARENA_UNIT_SKIP='$(UNIT_SKIP)' tests/run.sh unit

test-e2e: all $(HELPER_BINS)
	@B=$(B) tests/run.sh e2e

test-fuzz: $(FUZZ_BINS)
	@B=$(B) tests/run.sh fuzz

asan:
	$(MAKE) B=build-asan SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer" \
		CFLAGS="-O1 -g" test

fuzz:
	@mkdir -p $(B)/fuzz
	for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
		clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
		-Iengine/include $(TEST_INC) $(PKG_CFLAGS) $(FUSE_CFLAGS) $$f \
		$(ENGINE_SRCS) $(filter-out cli/%,$(CLI_SRCS)) \
		-o $(B)/fuzz/$$n $(LDLIBS_ALL) || exit 1; done
	@echo "libFuzzer binaries in $(B)/fuzz; run e.g. $(B)/fuzz/fuzz_task tests/fuzz/corpus/task"

deps:
	@scripts/deps.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/arena/include/arena
	install -m 755 $(B)/arena $(B)/arena-runner $(DESTDIR)$(PREFIX)/bin/
	install -m 644 engine/include/arena/kernel.h $(DESTDIR)$(PREFIX)/share/arena/include/arena/
	rm -rf $(DESTDIR)$(PREFIX)/share/arena/tasks
	cp -R tasks $(DESTDIR)$(PREFIX)/share/arena/tasks
	cp -R example_configs $(DESTDIR)$(PREFIX)/share/arena/
	install -d $(DESTDIR)$(PREFIX)/share/arena/agents
	for d in agents/*/; do [ -f $$d/agent_config.yaml ] && \
		install -D -m 644 $$d/agent_config.yaml \
		$(DESTDIR)$(PREFIX)/share/arena/$$d/agent_config.yaml; done; true
	[ ! -d agents/prompts ] || cp -R agents/prompts $(DESTDIR)$(PREFIX)/share/arena/agents/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# The man pages are rendered from the command table (cli/commands.c) by
# `arena help --man`; `make man` rewrites docs/man/ from it, and
# tests/e2e/cli_convention.sh fails when the checked-in pages differ.
man: $(B)/arena
	@mkdir -p docs/man
	$(B)/arena help --man > docs/man/arena.1
	for c in $$($(B)/arena help --commands); do \
		$(B)/arena help --man $$c > docs/man/arena-$$c.1 || exit 1; done

# What `make install` puts under PREFIX, so that `make uninstall` removes
# exactly that (and nothing else: PREFIX/share/arena and
# PREFIX/lib/arena-python, the Python runner's files, are arena's own).
INSTALLED_BINS = arena arena-runner arena-runner-cuda arena-runner-hip

uninstall:
	for f in $(INSTALLED_BINS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$f; done
	rm -rf $(DESTDIR)$(PREFIX)/share/arena
	rm -rf $(DESTDIR)$(PREFIX)/lib/arena-python
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/arena.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/arena-*.1

install-agents:
	@scripts/install-agents.sh

quickstart:
	@scripts/quickstart.sh

# clang-format cannot reproduce the hand-written KNF of this tree (string
# literals broken after the format, tab-aligned trailing comments): run on
# whole files it would change about 7% of the lines.  So `make fmt` formats
# only the lines changed since FMT_BASE (default HEAD: what you are about
# to commit), and `make fmt-check` fails when those lines are not formatted.
FMT_BASE ?= HEAD
fmt:
	git clang-format --force --style=file --extensions c,h $(FMT_BASE)

fmt-check:
	@out=$$(git clang-format --style=file --extensions c,h --diff \
		$(FMT_BASE) 2>&1); case "$$out" in \
	*"no modified files"*|*"did not modify"*|"") echo "fmt-check: clean";; \
	*) echo "$$out"; echo "fmt-check: run make fmt"; exit 1;; esac

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--std=c11 -Iengine/include -Iagents -Ifs -Iserve -I/usr/include/cjson \
		-I/usr/include/fuse3 engine cli agents fs serve

clean:
	rm -rf build build-asan

help:
	@echo "make              build build/arena and build/arena-runner"
	@echo "make test         installs what is missing (make deps), then unit, fuzz-corpus,"
	@echo "                  end-to-end and adversarial tests"
	@echo "make test-unit    cmocka unit tests only"
	@echo "make test-e2e     end-to-end and adversarial tests only"
	@echo "make asan         the whole test suite under ASan + UBSan (build-asan/)"
	@echo "make fuzz         libFuzzer binaries for the parsers (clang)"
	@echo "make deps         install missing Debian packages (apt-get) and agent CLIs (npm)"
	@echo "make quickstart   deps, build, run example_configs/quickstart_host.yaml"
	@echo "make install      install to PREFIX (default /usr/local), man pages included"
	@echo "make uninstall    remove what make install put under PREFIX"
	@echo "make man          rewrite docs/man/ from the command table (arena help --man)"
	@echo "make install-agents  the agent CLIs (claude, codex, gemini) at pinned versions"
	@echo "make fmt          clang-format the lines changed since FMT_BASE (HEAD)"
	@echo "make fmt-check    fail when those lines are not formatted"
	@echo "make lint         cppcheck over engine, agents, fs and cli"

-include $(ENGINE_OBJS:.o=.d) $(RUNNER_OBJS:.o=.d) $(CLI_OBJS:.o=.d)

# --- GPU runners (begin) ---
# One runner source, engine/runner/gpu/arena_runner_gpu.cpp, compiled per
# GPU runtime through engine/runner/gpu/gpu_rt.h (docs/gpu.md):
#   $(B)/arena-runner-cuda   nvcc, CUDA runtime (static), when nvcc exists
#   $(B)/arena-runner-hip    hipcc, HIP runtime, when hipcc exists
#   $(B)/tests/arena-runner-fakegpu   c++, a host emulation of the runtime,
#                            so that the GPU path is tested without a GPU
# All link the host runner's line I/O and sandbox objects.  hipcc runs
# with TMPDIR=$(B)/tmp: it leaves an empty directory in $TMPDIR per compile.  The real GPU
# runners are not built in sanitizer builds (the fake one is).  `make test-gpu` runs tests/gpu/run.sh (needs a GPU).
comma      := ,
NVCC       ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
HIPCC      ?= $(or $(shell command -v hipcc 2>/dev/null),$(wildcard /opt/rocm/bin/hipcc))
CXX        ?= c++
CUDA_ARCHS ?= 80 90
HIP_ARCHS  ?= gfx90a
GPU_SRC    := engine/runner/gpu/arena_runner_gpu.cpp
GPU_DEPS   := $(GPU_SRC) engine/runner/gpu/gpu_rt.h engine/runner/gpu/gpu_rt_fake.h \
	engine/runner/gpu/gpu_gate.h engine/runner/gpu/gpu_gen.h engine/runner/gpu/gpu_diag.h \
	engine/runner/gpu/gpu_cmp.h \
	engine/runner/runner_io.h engine/include/arena/runner_proto.h \
	engine/runner/runner_sandbox.h engine/include/arena/kernel.h \
	engine/include/arena/fp16.h
GPU_LINK   := $(B)/engine/runner/runner_io.o $(B)/engine/runner/runner_sandbox.o
GPU_INC    := -Iengine/include -Iengine/runner
HIP_TMP    := TMPDIR=$(abspath $(B))/tmp
GPU_HOSTW  := -Wall,-Wextra,-Wno-unused-parameter$(if $(CI),$(comma)-Werror,)
NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(CUDA_ARCHS))$(comma)code=compute_$(lastword $(CUDA_ARCHS))

GPU_RUNNERS :=
ifeq ($(SANITIZE),)
ifneq ($(NVCC),)
GPU_RUNNERS += $(B)/arena-runner-cuda
endif
ifneq ($(HIPCC),)
GPU_RUNNERS += $(B)/arena-runner-hip
endif
endif
GPU_RUNNERS += $(B)/tests/arena-runner-fakegpu $(B)/tests/test_gpu_gen $(B)/tests/test_gpu_cmp

.PHONY: gpu-runners test-gpu install-gpu
all: $(GPU_RUNNERS)
gpu-runners: $(GPU_RUNNERS)
test-run test-unit: $(filter $(B)/tests/%,$(GPU_RUNNERS))

$(B)/arena-runner-cuda: $(GPU_DEPS) $(GPU_LINK)
	@mkdir -p $(B)/engine/runner/gpu
	$(NVCC) -x cu -std=c++17 -O2 $(NVCC_GENCODE) $(GPU_INC) \
		-Xcompiler $(GPU_HOSTW) $(if $(CI),-Werror all-warnings,) \
		-c $(GPU_SRC) -o $(B)/engine/runner/gpu/runner_cuda.o
	$(NVCC) $(NVCC_GENCODE) -o $@ $(B)/engine/runner/gpu/runner_cuda.o \
		$(GPU_LINK) -ldl

$(B)/arena-runner-hip: $(GPU_DEPS) $(GPU_LINK)
	@mkdir -p $(B)/engine/runner/gpu
	@mkdir -p $(B)/tmp
	$(HIP_TMP) $(HIPCC) -x hip -std=c++17 -O2 $(addprefix --offload-arch=,$(HIP_ARCHS)) \
		-DARENA_GPU_HIP $(GPU_INC) -Wall -Wextra -Wno-unused-parameter \
		$(if $(CI),-Werror,) -c $(GPU_SRC) -o $(B)/engine/runner/gpu/runner_hip.o
	$(HIP_TMP) $(HIPCC) $(addprefix --offload-arch=,$(HIP_ARCHS)) -o $@ \
		$(B)/engine/runner/gpu/runner_hip.o $(GPU_LINK) -ldl

$(B)/tests/arena-runner-fakegpu: $(GPU_DEPS) $(GPU_LINK)
	@mkdir -p $(B)/tests
	$(CXX) -x c++ -std=c++17 -O2 -DARENA_GPU_FAKE $(GPU_INC) -Wall -Wextra \
		-Wno-unused-parameter $(WERROR) $(SANITIZE) -rdynamic -o $@ $(GPU_SRC) \
		-x none $(GPU_LINK) -ldl

# The device-side input generator (gpu_gen.h), on the host emulation.
$(B)/tests/test_gpu_gen: tests/unit/test_gpu_gen.cpp tests/unit/plain_check.h $(GPU_DEPS)
	@mkdir -p $(B)/tests
	$(CXX) -std=c++17 -O2 -DARENA_GPU_FAKE $(GPU_INC) -Wall -Wextra \
		$(WERROR) $(SANITIZE) -o $@ $<

# The keeper's comparison of lent sets (gpu_cmp.h), on the host emulation.
$(B)/tests/test_gpu_cmp: tests/unit/test_gpu_cmp.cpp tests/unit/plain_check.h $(GPU_DEPS)
	@mkdir -p $(B)/tests
	$(CXX) -std=c++17 -O2 -DARENA_GPU_FAKE $(GPU_INC) -Wall -Wextra \
		$(WERROR) $(SANITIZE) -o $@ $<

# The GPU runners and the HIP-on-NVIDIA headers that HIP builds need.
install: install-gpu
install-gpu: $(filter-out $(B)/tests/%,$(GPU_RUNNERS))
	install -d $(DESTDIR)$(PREFIX)/bin
	$(if $^,install -m 755 $^ $(DESTDIR)$(PREFIX)/bin/,)
	for d in hip c10/hip ATen/hip; do \
		install -d $(DESTDIR)$(PREFIX)/share/arena/include/arena/hip_nvidia/$$d && \
		install -m 644 engine/include/arena/hip_nvidia/$$d/*.h \
			$(DESTDIR)$(PREFIX)/share/arena/include/arena/hip_nvidia/$$d/ || exit 1; \
	done

test-gpu: all
	@B=$(B) tests/gpu/run.sh
# --- GPU runners (end) ---

# --- Python runner (begin) ---
# The Python runner (engine/runner/python/, docs/python.md) is a Python
# program that embeds the C runners, built as libraries (runner_embed.h),
# so that Python kernels are served by the same protocol and sandbox code:
#   $(B)/arena-python/                     the runner's Python files
#   $(B)/arena-python/libarena-pyrunner-host.so   arena_runner.c
#   $(B)/arena-python/libarena-pyrunner-cuda.so   arena_runner_gpu.cpp (nvcc)
#   $(B)/tests/libarena-pyrunner-fakegpu.so       the same on the emulation
PY_DIR     := $(B)/arena-python
PY_SRCS    := $(wildcard engine/runner/python/*.py)
PY_FILES   := $(PY_SRCS:engine/runner/python/%=$(PY_DIR)/%)
PY_PIC     := $(B)/engine/runner/pic/runner_io.o $(B)/engine/runner/pic/runner_sandbox.o
PY_LIBS    := $(PY_DIR)/libarena-pyrunner-host.so $(B)/tests/libarena-pyrunner-fakegpu.so
ifeq ($(SANITIZE),)
ifneq ($(NVCC),)
PY_LIBS    += $(PY_DIR)/libarena-pyrunner-cuda.so
endif
endif

.PHONY: python-runner
all: $(PY_FILES) $(PY_LIBS)
python-runner: $(PY_FILES) $(PY_LIBS)

$(PY_DIR)/%.py: engine/runner/python/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# Linked only into the Python runner libraries below: no sanitizer either.
$(B)/engine/runner/pic/%.o: engine/runner/%.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(SANITIZE),$(ALL_CFLAGS)) -fPIC -c $< -o $@

# No sanitizer in the libraries: they are loaded into a python3 that was
# not built with one.
$(PY_DIR)/libarena-pyrunner-host.so: engine/runner/arena_runner.c $(PY_PIC) \
		engine/runner/runner_embed.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(SANITIZE) -MMD -MP,$(ALL_CFLAGS)) -fPIC \
		-DARENA_RUNNER_EMBED -shared -o $@ engine/runner/arena_runner.c \
		$(PY_PIC) -ldl

$(B)/tests/libarena-pyrunner-fakegpu.so: $(GPU_DEPS) $(PY_PIC) engine/runner/runner_embed.h
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++17 -O2 -DARENA_GPU_FAKE -DARENA_RUNNER_EMBED -fPIC \
		$(GPU_INC) -Wall -Wextra -Wno-unused-parameter $(WERROR) -shared \
		-o $@ $(GPU_SRC) -x none $(PY_PIC) -ldl

$(PY_DIR)/libarena-pyrunner-cuda.so: $(GPU_DEPS) $(PY_PIC) engine/runner/runner_embed.h
	@mkdir -p $(B)/engine/runner/gpu $(dir $@)
	$(NVCC) -x cu -std=c++17 -O2 $(NVCC_GENCODE) $(GPU_INC) -DARENA_RUNNER_EMBED \
		-Xcompiler -fPIC,$(GPU_HOSTW) -c $(GPU_SRC) \
		-o $(B)/engine/runner/gpu/pyrunner_cuda.o
	$(NVCC) $(NVCC_GENCODE) -shared -o $@ $(B)/engine/runner/gpu/pyrunner_cuda.o \
		$(PY_PIC) -ldl

-include $(PY_PIC:.o=.d)

install: install-python
install-python: $(PY_FILES) $(filter-out $(B)/tests/%,$(PY_LIBS))
	install -d $(DESTDIR)$(PREFIX)/lib/arena-python
	install -m 644 $^ $(DESTDIR)$(PREFIX)/lib/arena-python/
# --- Python runner (end) ---
