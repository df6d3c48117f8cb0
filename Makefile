# tvds — build, test and run. Plain GNU make; everything is built under $(BUILD)/.
# `make help` lists the targets.

BUILD   ?= build
V       ?= 0
CC      ?= cc
MPI     ?= 0

# Debian packages tvds needs (installed by `make deps` when missing).
DEB_PKGS := libsuitesparse-dev check liblapacke-dev libopenblas-dev libarpack2-dev \
            libfftw3-dev libinih-dev pkg-config gnuplot-nox
# The import test runs a real FE code (CalculiX) on a small cantilever.
DEB_PKGS += calculix-ccx
# `make bench` compares `tvds reduce` with the same reduction in scipy.
BENCH_PKGS := python3-scipy

# MPI=1: build with mpicc and -DTVDS_MPI (`tvds sweep` then spreads runs over MPI ranks);
# the default build needs no MPI.
ifeq ($(MPI),1)
CC       := mpicc
MPI_DEF  := -DTVDS_MPI
DEB_PKGS += libopenmpi-dev openmpi-bin
endif

CFLAGS  ?= -O2 -g
# NATIVE=1: -march=native (measured in docs/performance.md: -21 % per step on the project
# machine; -O3 alone gains nothing). Off by default: the build stays portable and valgrind
# (CI) cannot decode AVX-512. Use its own build directory: make NATIVE=1 BUILD=build/native
NATIVE  ?= 0
ifeq ($(NATIVE),1)
CFLAGS  += -march=native
endif
# PGO=1: profile-guided optimisation, portable (no -march) and with results bit for bit those
# of the plain build (measured in docs/performance.md: -8 % per step on the beam-on-beam). The
# library and the CLI are first built instrumented under $(BUILD)/pgo-gen, bench/pgo-train.sh
# runs that build on short cases of models/, and the objects are then compiled with the
# profile it wrote. Off by default (the build takes twice as long and a training run). Use its
# own build directory: make PGO=1 BUILD=build/pgo
PGO     ?= 0
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN    += -Werror
endif
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
INCS    := -Iinclude -Isrc -I/usr/include/suitesparse $(shell pkg-config --cflags lapacke arpack fftw3 inih 2>/dev/null)
ALL_CFLAGS = $(STD) $(CFLAGS) $(WARN) $(INCS) -fvisibility=hidden -fopenmp -MMD -MP $(SAN_FLAGS) $(EXTRA_CFLAGS) $(MPI_DEF)
LIBS    := -lcholmod -lsuitesparseconfig $(shell pkg-config --libs lapacke arpack fftw3 inih 2>/dev/null) \
           -llapack -lopenblas -lm
ALL_LDFLAGS = -fopenmp $(SAN_FLAGS) $(LDFLAGS)
ifeq ($(PGO),1)
PGO_FLAGS := -fprofile-use -fprofile-partial-training -Wno-missing-profile
endif
ALL_CFLAGS += $(PGO_FLAGS)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The library's layers, bottom up (docs/architecture.md): a folder calls only into the folders
# before it. reduce/ (Craig-Bampton) sits beside src/fe/ above the I/O layer.
LIB_DIRS := src/core src/io reduce src/engine/contact src/engine src/fe src/analysis
LIB_SRC  := $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/check_*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)

LIB      := $(BUILD)/lib/libtvds.a
BIN      := $(BUILD)/bin/tvds
TEST_BIN := $(BUILD)/tests/check_tvds
SUITES_H := $(BUILD)/tests/suites.h

# Deterministic numerics: CHOLMOD and OpenBLAS otherwise start threads of their own.
TEST_ENV := OMP_THREAD_LIMIT=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

.PHONY: all deps test test-tour test-kernel format-check run bench bench-accuracy asan ubsan valgrind format clean help validate layers

all: $(LIB) $(BIN)

help:
	@echo "tvds make targets:"
	@echo "  make run       install missing packages, build, run the main job (beam-on-beam study)"
	@echo "  make test      install missing packages, build, run every Check suite and 'tvds validate'"
	@echo "  make deps      install the missing Debian packages (apt-get, through sudo when not root)"
	@echo "  make all       build $(LIB) and $(BIN)"
	@echo "  make test-kernel  the suite and 'tvds validate' again under a second OpenBLAS kernel"
	@echo "  make test-tour    README's tour, each long command shortened (part of make test)"
	@echo "  make install   binary, libtvds.so + .a, headers, tvds.pc (PREFIX=/usr/local DESTDIR=)"
	@echo "  make uninstall remove what make install installed (same PREFIX, DESTDIR)"
	@echo "  make install-python  the Python package (python/), offline; uninstall-python"
	@echo "  make test-install, test-python  the installed tree and the Python tests (make test)"
	@echo "  make layers    check that the library calls only down its layers (part of make test)"
	@echo "  make bench     run the benchmarks, print and record the table (bench/results/)"
	@echo "  make bench-accuracy  exact modal integrator vs converged central differences (1 min)"
	@echo "  make asan      the test suite under AddressSanitizer + UndefinedBehaviorSanitizer"
	@echo "  make ubsan     the test suite under UndefinedBehaviorSanitizer alone"
	@echo "  make valgrind  the test suite under valgrind memcheck (no fork, leaks are errors)"
	@echo "  make format    clang-format every C source and header (make format-check: CI's check)"
	@echo "  make clean     remove build/"
	@echo "Variables: V=1 verbose, WERROR=1 warnings as errors, BUILD=dir, SAN=address,undefined,"
	@echo "           NATIVE=1 -march=native (with its own BUILD=build/native)"
	@echo "           PGO=1 profile-guided optimisation (with its own BUILD=build/pgo)"

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC  $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  AR  $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  LD  $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

# PGO=1: the profile (the instrumented build's .gcda files, copied beside the objects they
# describe) comes before any object is compiled, and is made again when a source changes.
ifeq ($(PGO),1)
PGO_STAMP := $(BUILD)/obj/.pgo-profile
$(LIB_OBJ) $(CLI_OBJ): $(PGO_STAMP)
$(PGO_STAMP): $(LIB_SRC) $(CLI_SRC) $(wildcard src/*/*.h src/engine/contact/*.h include/tvds/*.h) bench/pgo-train.sh
	@$(MAKE) --no-print-directory PGO=0 BUILD=$(BUILD)/pgo-gen \
	  CFLAGS="$(CFLAGS) -fprofile-generate -fprofile-update=atomic" \
	  LDFLAGS="$(LDFLAGS) -fprofile-generate" $(BUILD)/pgo-gen/bin/tvds
	$(Q)find $(BUILD)/pgo-gen -name '*.gcda' -exec rm -f {} +
	@echo "  PGO training runs (bench/pgo-train.sh)"
	$(Q)sh bench/pgo-train.sh $(BUILD)/pgo-gen/bin/tvds
	$(Q)cd $(BUILD)/pgo-gen && find obj -name '*.gcda' | while read f; do \
	  mkdir -p "../$$(dirname "$$f")" && cp "$$f" "../$$f"; done
	$(Q)touch $@
endif

# cmd_sweep.c is the only source that depends on MPI: rebuild it (and relink) when MPI changes.
MPI_STAMP := $(BUILD)/obj/.mpi-$(MPI)
$(MPI_STAMP):
	@mkdir -p $(dir $@) && rm -f $(BUILD)/obj/.mpi-* && touch $@
$(BUILD)/obj/src/cli/cmd_sweep.o: $(MPI_STAMP)

# The runner's suite list comes from the suites' own definitions.
$(SUITES_H): $(TEST_SRC)
	@mkdir -p $(dir $@)
	$(Q)grep -ho '^Suite \*[a-z0-9_]*_suite(void)' $(TEST_SRC) | \
	  sed 's/^Suite \*\([a-z0-9_]*\)_suite(void)/TVDS_SUITE(\1)/' | sort > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/tests/check_main.o: $(SUITES_H)
$(BUILD)/obj/tests/check_main.o: EXTRA_CFLAGS += -I$(BUILD)/tests

# The cli suite runs the built `tvds` binary (tests link the library, never the CLI).
$(TEST_OBJ): EXTRA_CFLAGS += -DTVDS_BIN=\"$(BIN)\"
$(TEST_BIN): $(BIN)

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  LD  $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(CHECK_LIBS) $(LIBS)

test: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	@$(MAKE) --no-print-directory layers
	@$(MAKE) --no-print-directory test-install test-python
	$(TEST_ENV) $(TEST_BIN)
	$(TEST_ENV) $(BIN) validate
	@$(MAKE) --no-print-directory test-tour

# README's tour, each long command shortened (tests/tour.sh): a fresh directory, outputs only
# under out/, the repository left as it was.
test-tour: all
	$(TEST_ENV) sh tests/tour.sh $(BIN)

validate: all
	$(TEST_ENV) $(BIN) validate

# The suite and `tvds validate` again under a second OpenBLAS kernel, without a rebuild (after
# make test): with or without FMA, another blocking, every check must hold (docs/reliability.md).
# TEST_KERNEL=Name chooses it; by default tests/second_kernel.sh picks one this CPU can run.
test-kernel:
	@[ -x $(TEST_BIN) ] && [ -x $(BIN) ] || { echo "test-kernel: run make test first"; exit 2; }
	@k="$(TEST_KERNEL)"; [ -n "$$k" ] || k=$$(sh tests/second_kernel.sh $(TEST_BIN)) || exit 2; \
	  got=$$(OPENBLAS_CORETYPE=$$k $(TEST_BIN) --blas-kernel); \
	  [ "$$(echo $$got | tr A-Z a-z)" = "$$(echo $$k | tr A-Z a-z)" ] || { echo "test-kernel:" \
	    "OpenBLAS runs $$got, not $$k (built without DYNAMIC_ARCH?)"; exit 1; }; \
	  echo "test-kernel: OPENBLAS_CORETYPE=$$k"; \
	  $(TEST_ENV) OPENBLAS_CORETYPE=$$k $(TEST_BIN) && \
	  $(TEST_ENV) OPENBLAS_CORETYPE=$$k $(BIN) validate

# Calls go only down the layers (tests/layers.sh, docs/architecture.md): nm on the objects.
layers: $(LIB_OBJ) $(CLI_OBJ)
	@sh tests/layers.sh $(BUILD)/obj $(LIB_OBJ) $(CLI_OBJ)

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) study models/beam_on_beam/beam_on_beam.ini -o out/beam_on_beam

# BENCH_SIZES: DoF counts of the reduction rows (the 1e6 row takes minutes: add it on request).
BENCH_SIZES ?= 1e4,1e5
bench: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(BENCH_PKGS)"
	@$(MAKE) --no-print-directory all
	$(BIN) bench -o bench/results --reduce-sizes $(BENCH_SIZES)

# Accuracy of the exact modal integrator against converged central differences (opt-in, about
# a minute of CPU; docs/performance.md).
bench-accuracy: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench/accuracy
	$(TEST_ENV) bench/accuracy.sh $(BIN) $(BUILD)/bench/accuracy $(BUILD)/bench/accuracy_runs

$(BUILD)/bench/accuracy: bench/accuracy.c $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(STD) $(CFLAGS) $(WARN) $(INCS) -o $@ $< $(LIB) $(ALL_LDFLAGS) $(LIBS)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=address,undefined \
	  CFLAGS="-O1 -g" all build/asan/tests/check_tvds
	$(TEST_ENV) ASAN_OPTIONS=detect_leaks=1 CK_TIMEOUT_MULTIPLIER=10 build/asan/tests/check_tvds

ubsan: deps
	@$(MAKE) --no-print-directory BUILD=build/ubsan SAN=undefined CFLAGS="-O1 -g" \
	  all build/ubsan/tests/check_tvds
	$(TEST_ENV) CK_TIMEOUT_MULTIPLIER=5 build/ubsan/tests/check_tvds

valgrind: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	$(TEST_ENV) CK_FORK=no CK_EXCLUDE_TAGS=long CK_TIMEOUT_MULTIPLIER=50 valgrind -q --error-exitcode=1 \
	  --leak-check=full --errors-for-leak-kinds=definite,indirect $(TEST_BIN)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# CI: the tree as `make format` leaves it (.clang-format; clang-format 14 of Debian bookworm).
format-check:
	@$(MAKE) --no-print-directory deps DEB_PKGS=clang-format
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h') && \
	  echo "format-check: $$(git ls-files '*.c' '*.h' | wc -l) files as make format leaves them"

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

# ---- Reliability: libFuzzer targets (tests/fuzz/, docs/reliability.md) ----------------------
# `make fuzz FUZZ_SECONDS=60` builds every target into build/fuzz/ and runs each for that long;
# `make fuzz-smoke` runs each for FUZZ_SMOKE_SECONDS (CI). The library is compiled with clang
# and -fsanitize=fuzzer-no-link,address,undefined; reproducers in tests/fuzz/regress/<target>/
# are replayed before fuzzing; new corpus entries go to build/fuzz/corpus/<target>/ and crash
# inputs to build/fuzz/artifacts/<target>/. clang does not vectorise at -O1, so the engine's
# `omp simd` reductions would each warn that they were not vectorised: -Wno-pass-failed.
FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_BUILD         := build/fuzz
FUZZ_TARGETS       := mm dofs case set ccx abaqus nastran
FUZZ_BINS          := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIB           := $(FUZZ_BUILD)/lib/libtvds.a
FUZZ_FLAGS         := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                      -fno-omit-frame-pointer -fopenmp
FUZZ_RUN_OPTS      ?= -max_len=16384 -timeout=20 -rss_limit_mb=2048 -print_final_stats=0

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-run

fuzz-build: deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN=address,undefined \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link -Wno-pass-failed" $(FUZZ_LIB)
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_LIB)
	@[ "$(V)" = 1 ] || echo "  FUZZ $@"
	$(Q)$(FUZZ_CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $(INCS) $(FUZZ_FLAGS) $< \
	  $(FUZZ_LIB) $(LIBS) -o $@

fuzz-run:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts/$$t; \
	  if ls tests/fuzz/regress/$$t/* >/dev/null 2>&1; then \
	    echo "fuzz_$$t: replaying tests/fuzz/regress/$$t/"; \
	    $(TEST_ENV) $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_OPTS) tests/fuzz/regress/$$t/* \
	      >$(FUZZ_BUILD)/fuzz_$$t.log 2>&1 || \
	      { tail -n 60 $(FUZZ_BUILD)/fuzz_$$t.log; echo "fuzz_$$t: a reproducer fails"; exit 1; }; \
	  fi; \
	  echo "fuzz_$$t: fuzzing for $(FUZZ_TIME) s"; \
	  $(TEST_ENV) $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_OPTS) -max_total_time=$(FUZZ_TIME) \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t/ $(FUZZ_BUILD)/corpus/$$t \
	    tests/fuzz/corpus/$$t 2>$(FUZZ_BUILD)/fuzz_$$t.log || \
	    { tail -n 60 $(FUZZ_BUILD)/fuzz_$$t.log; echo "fuzz_$$t: FAILED (log $(FUZZ_BUILD)/fuzz_$$t.log)"; exit 1; }; \
	  grep -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_BUILD)/fuzz_$$t.log | tail -n 1; \
	done

fuzz: fuzz-build
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=$(FUZZ_SMOKE_SECONDS)

# ---- Reliability: valgrind on the fast suites (CI) ---------------------------------------------
# `make valgrind-fast` runs each suite of VALGRIND_SUITES alone under valgrind memcheck (no fork,
# leaks are errors), leaving out test cases tagged "long" (10^6-step runs, spawned processes).
VALGRIND_SUITES ?= core mmio substructure case reliability output friction_laws spectrum cea cea3d \
                   master_c1 reduce validate fe_input import face faces_fe
VALGRIND_OPTS   := -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect

.PHONY: valgrind-fast

valgrind-fast: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	@set -e; for s in $(VALGRIND_SUITES); do \
	  echo "valgrind: suite $$s"; \
	  $(TEST_ENV) CK_RUN_SUITE=$$s CK_EXCLUDE_TAGS=long CK_FORK=no CK_TIMEOUT_MULTIPLIER=50 \
	    valgrind $(VALGRIND_OPTS) $(TEST_BIN); \
	done

# ---- Shared library, install, Python (docs/library.md) ------------------------------------------
# `make all` also builds $(BUILD)/lib/libtvds.so.MAJOR.MINOR.PATCH from position-independent
# objects of their own ($(BUILD)/pic/: the static library and the CLI keep the faster non-PIC
# code), soname libtvds.so.MAJOR, exporting the TVDS_API functions only (-fvisibility=hidden).
# The version comes from include/tvds/tvds.h. Sanitizer builds (SAN=...) leave it out.
TVDS_MAJOR := $(shell sed -n 's/^\#define TVDS_VERSION_MAJOR *\([0-9]*\).*/\1/p' include/tvds/tvds.h)
TVDS_MINOR := $(shell sed -n 's/^\#define TVDS_VERSION_MINOR *\([0-9]*\).*/\1/p' include/tvds/tvds.h)
TVDS_PATCH := $(shell sed -n 's/^\#define TVDS_VERSION_PATCH *\([0-9]*\).*/\1/p' include/tvds/tvds.h)
TVDS_VER   := $(TVDS_MAJOR).$(TVDS_MINOR).$(TVDS_PATCH)
SO_NAME    := libtvds.so.$(TVDS_MAJOR)
SO_LIB     := $(BUILD)/lib/libtvds.so.$(TVDS_VER)
PIC_OBJ    := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
ifeq ($(SAN),)
SHARED_TARGETS := $(SO_LIB)
endif

# Install layout: make install PREFIX=/usr/local DESTDIR=   (DESTDIR: staging root)
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR)/pkgconfig
# The public headers include <cholmod.h>: its directory goes into tvds.pc's Cflags.
SUITESPARSE_INC := /usr/include/suitesparse
# Python (the tvds package in python/): Debian's interpreter, where make deps installs numpy
# (a python3 found first on PATH, e.g. pyenv's, may lack it).
PYTHON     ?= /usr/bin/python3
DEB_PKGS   += python3-numpy python3-pytest python3-matplotlib python3-setuptools python3-wheel \
              python3-pip

.PHONY: shared install uninstall test-install test-python install-python uninstall-python

all: $(SHARED_TARGETS)
shared: $(SHARED_TARGETS)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  CC  $< (PIC)"
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(SO_LIB): $(PIC_OBJ) libtvds.map
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  LD  $@"
	$(Q)$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--no-undefined -Wl,--version-script=libtvds.map -o $@ $(PIC_OBJ) $(ALL_LDFLAGS) $(LIBS)
	$(Q)ln -sf libtvds.so.$(TVDS_VER) $(BUILD)/lib/$(SO_NAME)
	$(Q)ln -sf $(SO_NAME) $(BUILD)/lib/libtvds.so

# The installed static library: the library's objects linked into one (ld -r), every hidden
# symbol made local (the internal case_*, sim_*, ...: they cannot collide with a program's own
# functions) and the OpenMP critical-section locks too, so that it defines tvds_ symbols only as
# libtvds.so does. build/lib/libtvds.a keeps them global: the test suites call internal
# functions.
DIST_LIB := $(BUILD)/lib/dist/libtvds.a
$(DIST_LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  AR  $@ (internal symbols local)"
	$(Q)ld -r -d -o $(@D)/libtvds.o $(LIB_OBJ)
	$(Q)objcopy --localize-hidden -w --localize-symbol='.gomp_critical_user_tvds_*' $(@D)/libtvds.o
	$(Q)rm -f $@ && ar rcs $@ $(@D)/libtvds.o && rm -f $(@D)/libtvds.o

# tvds.pc is written by make install for its PREFIX (a staged tree is read with
# pkg-config --define-variable=prefix=STAGE, as tests/install.sh does).
PC_SED = -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(LIBDIR))|' \
  -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))|' \
  -e 's|@VERSION@|$(TVDS_VER)|' -e 's|@SUITESPARSE_INC@|$(SUITESPARSE_INC)|'

install: all $(DIST_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PCDIR) $(DESTDIR)$(INCLUDEDIR)/tvds
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/tvds
	install -m 644 $(DIST_LIB) $(DESTDIR)$(LIBDIR)/libtvds.a
	install -m 755 $(SO_LIB) $(DESTDIR)$(LIBDIR)/libtvds.so.$(TVDS_VER)
	ln -sf libtvds.so.$(TVDS_VER) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libtvds.so
	install -m 644 include/tvds/*.h $(DESTDIR)$(INCLUDEDIR)/tvds/
	sed $(PC_SED) tvds.pc.in > $(DESTDIR)$(PCDIR)/tvds.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tvds $(DESTDIR)$(LIBDIR)/libtvds.a \
	  $(DESTDIR)$(LIBDIR)/libtvds.so.$(TVDS_VER) $(DESTDIR)$(LIBDIR)/$(SO_NAME) \
	  $(DESTDIR)$(LIBDIR)/libtvds.so $(DESTDIR)$(PCDIR)/tvds.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/tvds/,$(notdir $(wildcard include/tvds/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/tvds 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

# Exported symbols, then an external program built with pkg-config alone against a staged
# install, linked with the shared and with the static library (tests/install.sh).
test-install: all
	$(TEST_ENV) sh tests/install.sh $(BUILD) $(SO_LIB)

# The Python package's tests, over the shared library of this build tree.
test-python: all
	$(TEST_ENV) TVDS_LIBRARY=$(CURDIR)/$(SO_LIB) TVDS_BIN=$(CURDIR)/$(BIN) sh tests/python.sh $(PYTHON)

# Install the Python package (python/) for Debian's interpreter, offline: pip with Debian's
# setuptools, no build isolation, no index. The package finds the library through
# TVDS_LIBRARY, this build tree, or the installed soname (make install).
# Debian's interpreter is externally managed (PEP 668): outside a virtual environment pip
# needs --break-system-packages, and installs into /usr/local/lib/python3*/dist-packages,
# apart from Debian's own packages (nothing else is installed: --no-deps).
PIP_FLAGS  ?= $(if $(VIRTUAL_ENV),,--break-system-packages)
install-python:
	$(PYTHON) -m pip install --no-build-isolation --no-index --no-deps $(PIP_FLAGS) ./python
	rm -rf python/build python/tvds.egg-info

uninstall-python:
	$(PYTHON) -m pip uninstall -y $(PIP_FLAGS) tvds

-include $(PIC_OBJ:.o=.d)
