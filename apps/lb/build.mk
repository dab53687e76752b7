# apps/lb: the D3Q19 lattice Boltzmann app (docs/lb.md).
#   make lb     build $(BUILD)/lb and the checkpoint comparer $(BUILD)/lbcmp
#   make run    install dependencies, build, and run the Poiseuille demo on
#               2 MPI ranks; it ends with a PASS/FAIL line (README's main job)
#   make lb CUDA_AWARE_MPI=1   (TARGET=cuda) hand device pointers to MPI
.PHONY: lb run lb-run lb-build-dir

LB_SRCS := $(filter-out apps/lb/lbcmp.c,$(wildcard apps/lb/*.c)) \
           common/decomp.c common/cli.c common/timer.c
LB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LB_SRCS))
LBCMP_OBJS := $(BUILD)/obj/apps/lb/lbcmp.o $(BUILD)/obj/apps/lb/chkformat.o

# MPI through the wrapper's own flags, so any MPI install works with either
# compiler: under TARGET=cuda nvcc compiles and links, and wants linker and
# host-compiler options spelled its way. The C++ bindings are skipped: the
# sources are C, compiled as C++ only by nvcc.
LB_MPI_COMPILE := $(shell mpicc --showme:compile 2>/dev/null)
LB_MPI_LINK := $(shell mpicc --showme:link 2>/dev/null)
ifeq ($(TARGET),cuda)
  lb_nvcc_flags = $(patsubst -Wl$(lb_comma)%,-Xlinker %,$(patsubst -pthread,-Xcompiler -pthread,$(1)))
  lb_comma := ,
  LB_MPI_COMPILE := $(call lb_nvcc_flags,$(LB_MPI_COMPILE))
  LB_MPI_LINK := $(call lb_nvcc_flags,$(LB_MPI_LINK))
endif
# LB_FLAGS: extra preprocessor/compiler flags for the app only, e.g. the
# kernel switches of kernels.c (LB_FLAGS=-DLB_NT=0); use its own BUILD.
LB_CPPFLAGS := $(LB_MPI_COMPILE) -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX \
               $(if $(filter 1,$(CUDA_AWARE_MPI)),-DLB_CUDA_AWARE_MPI) $(LB_FLAGS)

$(BUILD)/obj/apps/lb/%.o: PROG_CPPFLAGS += $(LB_CPPFLAGS)
$(BUILD)/obj/common/decomp.o: PROG_CPPFLAGS += $(LB_CPPFLAGS)
$(LB_OBJS) $(LBCMP_OBJS): $(wildcard apps/lb/*.h) $(wildcard common/*.h)

$(BUILD)/lb: $(LB_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(LB_MPI_LINK)
$(BUILD)/lbcmp: $(LBCMP_OBJS)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)

lb: $(BUILD)/lb $(BUILD)/lbcmp
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
