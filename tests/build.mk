# Unit tests (cmocka): `make tests-build` builds tests/test_*.c for the
# current configuration into $(BUILD)/tests/; `make test` runs the whole
# suite (every configuration, sanitizers, CUDA compile, extra suites)
# through tests/run_tests.sh; `make check` the quick tier of it (the unit
# tests in the default configuration and one CUDA compile, a few minutes on
# 2 cores). See tests/README.md.
.PHONY: tests-build tests-print-build test check

TEST_SRCS := $(sort $(wildcard tests/test_*.c))
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_OBJS := $(patsubst tests/%.c,$(BUILD)/obj/tests/%.o,$(TEST_SRCS))

tests-build: $(TEST_BINS)

$(TEST_BINS): $(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) -lcmocka

# The build folder of this configuration (used by run_tests.sh).
tests-print-build:
	@echo $(BUILD)

test:
	bash tests/run_tests.sh

check:
	TDP_QUICK=1 bash tests/run_tests.sh

# tests/mpi/: MPI programs for the reliability suite (an error in one rank
# must end the whole job). `make tests-mpi` builds them; MPI flags from the
# Makefile (MPI_CPPFLAGS, MPI_LDLIBS: spelled nvcc's way under TARGET=cuda).
.PHONY: tests-mpi
TESTS_MPI_BINS := $(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(wildcard tests/mpi/*.c))

$(BUILD)/obj/tests/mpi/%.o: PROG_CPPFLAGS += $(MPI_CPPFLAGS)
$(TESTS_MPI_BINS): $(BUILD)/tests/mpi/%: $(BUILD)/obj/tests/mpi/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MPI_LDLIBS)
tests-mpi: $(TESTS_MPI_BINS)

# libFuzzer targets (tests/fuzz/, clang with its runtime: Debian clang and
# libclang-rt-14-dev): `make fuzz-build`; tests/suites/fuzz.sh runs them
# for a bounded time. They do not depend on the configuration.
.PHONY: fuzz-build
FUZZ_CC ?= clang
FUZZ_FLAGS ?= -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz-build: build/fuzz/fuzz_params
build/fuzz/fuzz_params: tests/fuzz/fuzz_params.c apps/lb/params.c common/cli.c common/fileio.c \
                        apps/lb/params.h common/cli.h common/fileio.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=c99 -Wall -Wextra -I$(CURDIR) $(filter %.c,$^) -o $@
