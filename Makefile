# tvds — build, test and run. Plain GNU make; everything is built under $(BUILD)/.
# `make help` lists the targets.

BUILD   ?= build
V       ?= 0
CC      ?= cc
MPI     ?= 0

# Debian packages tvds needs (installed by `make deps` when missing).
DEB_PKGS := libsuitesparse-dev check liblapacke-dev libopenblas-dev libarpack2-dev \
            libfftw3-dev libinih-dev pkg-config gnuplot-nox

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN    += -Werror
endif
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
INCS    := -Iinclude -Isrc -I/usr/include/suitesparse $(shell pkg-config --cflags lapacke arpack fftw3 inih 2>/dev/null)
ALL_CFLAGS = $(STD) $(CFLAGS) $(WARN) $(INCS) -fvisibility=hidden -fopenmp -MMD -MP $(SAN_FLAGS) $(EXTRA_CFLAGS)
LIBS    := -lcholmod -lsuitesparseconfig $(shell pkg-config --libs lapacke arpack fftw3 inih 2>/dev/null) \
           -llapack -lopenblas -lm
ALL_LDFLAGS = -fopenmp $(SAN_FLAGS) $(LDFLAGS)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC  := $(sort $(wildcard src/*.c) $(wildcard reduce/*.c))
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

.PHONY: all deps test run bench asan ubsan valgrind format clean help validate

all: $(LIB) $(BIN)

help:
	@echo "tvds make targets:"
	@echo "  make run       install missing packages, build, run the main job (beam-on-beam study)"
	@echo "  make test      install missing packages, build, run every Check suite and 'tvds validate'"
	@echo "  make deps      install the missing Debian packages (apt-get, through sudo when not root)"
	@echo "  make all       build $(LIB) and $(BIN)"
	@echo "  make bench     run the benchmarks, print and record the table (bench/results/)"
	@echo "  make asan      the test suite under AddressSanitizer + UndefinedBehaviorSanitizer"
	@echo "  make ubsan     the test suite under UndefinedBehaviorSanitizer alone"
	@echo "  make valgrind  the test suite under valgrind memcheck (no fork, leaks are errors)"
	@echo "  make format    clang-format every C source and header"
	@echo "  make clean     remove build/"
	@echo "Variables: V=1 verbose, WERROR=1 warnings as errors, BUILD=dir, SAN=address,undefined"

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

# The runner's suite list comes from the suites' own definitions.
$(SUITES_H): $(TEST_SRC)
	@mkdir -p $(dir $@)
	$(Q)grep -ho '^Suite \*[a-z0-9_]*_suite(void)' $(TEST_SRC) | \
	  sed 's/^Suite \*\([a-z0-9_]*\)_suite(void)/TVDS_SUITE(\1)/' | sort > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/tests/check_main.o: $(SUITES_H)
$(BUILD)/obj/tests/check_main.o: EXTRA_CFLAGS += -I$(BUILD)/tests

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@[ "$(V)" = 1 ] || echo "  LD  $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(CHECK_LIBS) $(LIBS)

test: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	$(TEST_ENV) $(TEST_BIN)
	@# tvds validate joins here once the validation cases land (issue 4)

validate: all
	@# tvds validate joins here once the validation cases land (issue 4)

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) study models/beam_on_beam/beam_on_beam.ini -o out/beam_on_beam

bench: deps
	@$(MAKE) --no-print-directory all
	$(BIN) bench -o bench/results

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
	$(TEST_ENV) CK_FORK=no CK_TIMEOUT_MULTIPLIER=50 valgrind -q --error-exitcode=1 \
	  --leak-check=full --errors-for-leak-kinds=definite,indirect $(TEST_BIN)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
