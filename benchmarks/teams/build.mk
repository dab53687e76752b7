# Team benchmarks (issue 30): bench_contract (the nine Intrepid contractions:
# targetDP flat, team and helper beside native CUDA flat and tiled, cuBLAS,
# or OpenMP on the host) and bench_spmv (CSR SpMV: targetDP teams beside
# cuSPARSE, or an OpenMP loop). `make bench-teams-build` builds both for the
# current configuration; benchmarks/teams/run_device.sh runs them on the GPU
# machine; tests/suites/teams.sh validates them at small sizes.
.PHONY: bench-teams-build

TEAMS_BENCH_BINS := $(BUILD)/bench_contract $(BUILD)/bench_spmv
TEAMS_BENCH_COMMON := $(BUILD)/obj/benchmarks/teams/tbench.o $(BUILD)/obj/common/timer.o \
                      $(BUILD)/obj/common/cli.o $(BUILD)/obj/common/fileio.o

# The host side (set-up, serial references, validation) threaded with OpenMP
# in the CUDA build too; cuSPARSE for the SpMV baseline.
ifeq ($(TARGET),cuda)
  TEAMS_HOST_OMP := -Xcompiler -fopenmp
  TEAMS_SPMV_LIBS := -lcusparse
endif
$(BUILD)/obj/benchmarks/teams/%.o: PROG_CPPFLAGS += $(TEAMS_HOST_OMP)

$(BUILD)/bench_contract: $(BUILD)/obj/benchmarks/teams/contract.o $(TEAMS_BENCH_COMMON) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(TEAMS_HOST_OMP) $(LDLIBS)
$(BUILD)/bench_spmv: $(BUILD)/obj/benchmarks/teams/spmv.o $(TEAMS_BENCH_COMMON) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(TEAMS_HOST_OMP) $(LDLIBS) $(TEAMS_SPMV_LIBS)

bench-teams-build: $(TEAMS_BENCH_BINS)
