# apps/milc: the MILC-like staggered CG solver (docs/milc.md).
#   make milc   build $(BUILD)/milc and the validation program $(BUILD)/milccheck
.PHONY: milc milc-build-dir

MILC_LIB_SRCS := apps/milc/lattice.c apps/milc/gauge.c apps/milc/kernels.c apps/milc/cg.c \
                 apps/milc/io.c common/cli.c common/timer.c common/fileio.c common/pario.c
MILC_LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(MILC_LIB_SRCS))
MILC_OBJS := $(BUILD)/obj/apps/milc/main.o $(BUILD)/obj/apps/milc/options.o \
             $(BUILD)/obj/common/triad.o $(BUILD)/obj/common/decomp.o $(MILC_LIB_OBJS)
MILCCHECK_OBJS := $(BUILD)/obj/apps/milc/check.o $(MILC_LIB_OBJS)

# MPI through the wrapper's own flags, spelled nvcc's way under TARGET=cuda
# (as apps/lb/build.mk).
MILC_MPI_COMPILE := $(shell mpicc --showme:compile 2>/dev/null)
MILC_MPI_LINK := $(shell mpicc --showme:link 2>/dev/null)
ifeq ($(TARGET),cuda)
  milc_comma := ,
  milc_nvcc = $(patsubst -Wl$(milc_comma)%,-Xlinker %,$(patsubst -pthread,-Xcompiler -pthread,$(1)))
  MILC_MPI_COMPILE := $(call milc_nvcc,$(MILC_MPI_COMPILE))
  MILC_MPI_LINK := $(call milc_nvcc,$(MILC_MPI_LINK))
endif
$(BUILD)/obj/apps/milc/%.o: PROG_CPPFLAGS += $(MILC_MPI_COMPILE) -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX
$(BUILD)/obj/common/decomp.o $(BUILD)/obj/common/pario.o: PROG_CPPFLAGS += $(MILC_MPI_COMPILE)
$(MILC_OBJS) $(BUILD)/obj/apps/milc/check.o: $(wildcard apps/milc/*.h)

# NCCL_LDLIBS (the Makefile: the device communicator's NCCL, where found)
$(BUILD)/milc: $(MILC_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MILC_MPI_LINK) $(NCCL_LDLIBS)
$(BUILD)/milccheck: $(MILCCHECK_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MILC_MPI_LINK) $(NCCL_LDLIBS)

milc: $(BUILD)/milc $(BUILD)/milccheck
milc-build-dir:
	@echo $(BUILD)

# make milc MILC_MINBLOCKS=n: the D kernels ask for at least n blocks per
# multiprocessor (TDP_KERNEL_OCC; registers capped at 64K / (n TPB)). The
# build folder does not say so: give it a BUILD=... of its own.
# MILC_RESTRICT=0|1, MILC_LINKS_ONCE=0|1 and MILC_CAPPED_REDUCE=0|1 likewise
# (kernels.h says what).
# make variable=macro: each given variable becomes -Dmacro=value
MILC_KNOBS = MILC_MINBLOCKS=MILC_DSLASH_MINBLOCKS MILC_RESTRICT=MILC_RESTRICT_ON \
             MILC_CAPPED_REDUCE=MILC_CAPPED_REDUCE_ON MILC_LINKS_ONCE=MILC_LINKS_ONCE_ON
$(BUILD)/obj/apps/milc/%.o: PROG_CPPFLAGS += $(foreach k,$(MILC_KNOBS),$(if \
  $($(word 1,$(subst =, ,$(k)))),-D$(word 2,$(subst =, ,$(k)))=$($(word 1,$(subst =, ,$(k))))))
