# apps/lb: the D3Q19 lattice Boltzmann app (docs/lb.md).
#   make lb     build $(BUILD)/lb and the checkpoint comparer $(BUILD)/lbcmp
#   make run    install dependencies, build, and run the Poiseuille demo on
#               2 MPI ranks; it ends with a PASS/FAIL line (README's main job)
#   The halo exchange is targetDP_halo's: it picks device pointers to MPI
#   (CUDA-aware MPI), CUDA IPC or host staging at run time (docs/halo.md).
.PHONY: lb run lb-run lb-build-dir

LB_SRCS := $(filter-out apps/lb/lbcmp.c apps/lb/halobench.c,$(wildcard apps/lb/*.c)) \
           common/decomp.c common/cli.c common/timer.c common/fileio.c common/triad.c \
           common/pario.c
LB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LB_SRCS))
LBCMP_OBJS := $(BUILD)/obj/apps/lb/lbcmp.o $(BUILD)/obj/apps/lb/chkformat.o $(BUILD)/obj/common/fileio.o

# LB_FLAGS: extra preprocessor/compiler flags for the app only, e.g. the
# kernel switches of kernels.c (LB_FLAGS=-DLB_NT=0); use its own BUILD.
LB_CPPFLAGS := $(MPI_CPPFLAGS) $(LB_FLAGS)

$(BUILD)/obj/apps/lb/%.o: PROG_CPPFLAGS += $(LB_CPPFLAGS)
$(BUILD)/obj/common/decomp.o $(BUILD)/obj/common/pario.o: PROG_CPPFLAGS += $(LB_CPPFLAGS)

$(BUILD)/lb: $(LB_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MPI_LDLIBS)
# lbhalo: the exchange alone, and each face kernel's throughput (halobench.c)
LBHALO_OBJS := $(filter-out $(BUILD)/obj/apps/lb/main.o,$(LB_OBJS)) $(BUILD)/obj/apps/lb/halobench.o
$(BUILD)/lbhalo: $(LBHALO_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MPI_LDLIBS)
$(BUILD)/lbcmp: $(LBCMP_OBJS)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)

lb: $(BUILD)/lb $(BUILD)/lbcmp $(BUILD)/lbhalo
# Where this configuration's binaries go (for scripts).
lb-build-dir:
	@echo $(BUILD)

# Dependencies first, then a fresh make: the MPI flags above are read when
# make starts, so they must see the freshly installed mpicc.
run:
	@if [ -f scripts/install_deps.sh ]; then bash scripts/install_deps.sh; fi
	+@$(MAKE) --no-print-directory lb-run

lb-run: lb
	bash apps/lb/run.sh $(BUILD)
