# Benchmarks: `make bench` builds and runs STREAM (targetDP beside native)
# and the layout kernels for the current configuration and prints the
# tables, then the legacy-kernel corpus (make corpus-bench, its own
# fragment benchmarks/corpus/build.mk); BENCH_ARGS / LAYOUT_ARGS /
# BLOCKS_ARGS pass options. bench_blocks: scans, compaction and box
# launches beside a copy. The layout x VVL sweep
# (one build per configuration) is benchmarks/sweep_layout.sh; the device
# run is benchmarks/run_device.sh. See docs/performance.md.
.PHONY: bench bench-build

BENCH_BINS := $(BUILD)/bench_stream $(BUILD)/bench_layout $(BUILD)/bench_su3 $(BUILD)/bench_blocks \
  $(BUILD)/bench_d2q9 $(BUILD)/bench_exact
BENCH_OBJS := $(BUILD)/obj/benchmarks/bench.o $(BUILD)/obj/common/timer.o $(BUILD)/obj/common/cli.o \
              $(BUILD)/obj/common/fileio.o

bench-build: $(BENCH_BINS)

# The preset's name goes into the results; the benchmarks use the TDP_
# names only (and include <immintrin.h> after targetDP.h).
$(BUILD)/obj/benchmarks/%.o: PROG_CPPFLAGS += -DBENCH_CONFIG='"$(CONFIG)"' -DTDP_NO_LEGACY_NAMES

$(BENCH_BINS): $(BUILD)/bench_%: $(BUILD)/obj/benchmarks/%.o $(BENCH_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)

bench: $(BENCH_BINS)
	$(BUILD)/bench_stream $(BENCH_ARGS)
	$(BUILD)/bench_layout $(LAYOUT_ARGS)
	$(BUILD)/bench_blocks $(BLOCKS_ARGS)
	$(MAKE) corpus-bench

# For scripts: the build folder of this configuration.
.PHONY: bench-where
bench-where:
	@echo $(BUILD)

# The legacy-kernel corpus (issue 28): its own fragment.
include benchmarks/corpus/build.mk

# bench_reduce (C backend only, not part of bench-build): in-kernel and
# library reductions beside the OpenMP loops they replace; run by
# benchmarks/run_reduce.sh against this tree and an older commit.
$(BUILD)/bench_reduce: $(BUILD)/obj/benchmarks/reduce.o $(BUILD)/obj/common/timer.o $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# The team benchmarks (teams and team scratch, issue 30).
-include benchmarks/teams/build.mk
