# Unit tests (cmocka): `make tests-build` builds tests/test_*.c for the
# current configuration into $(BUILD)/tests/; `make test` runs the whole
# suite (every configuration, sanitizers, CUDA compile, extra suites)
# through tests/run_tests.sh. See tests/README.md.
.PHONY: tests-build tests-print-build test

TEST_SRCS := $(sort $(wildcard tests/test_*.c))
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_OBJS := $(patsubst tests/%.c,$(BUILD)/obj/tests/%.o,$(TEST_SRCS))

tests-build: $(TEST_BINS)

# Objects come from the generic rule; they also depend on the helpers.
$(TEST_OBJS): tests/test_util.h

$(TEST_BINS): $(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) -lcmocka

# The build folder of this configuration (used by run_tests.sh).
tests-print-build:
	@echo $(BUILD)

test:
	bash tests/run_tests.sh
