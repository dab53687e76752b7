# targetDP -- GNU make (other makes are not supported).
#
#   make [TARGET=c|cuda] [CONFIG=name] [LAYOUT=AOS|SOA|AOSOA] [VVL=n] [SAL=n] [TPB=n] [SAN=1]
#        [CHECK=1] [PROFILE=1] [ILP=ivdep|simd]
#   make install PREFIX=dir | make uninstall PREFIX=dir     (pkg/build.mk)
#   make app APP_DIR=/path/to/code                          (a code outside the repository)
#
# TARGET picks the backend; CONFIG a preset in config/ (default gcc-openmp
# for c, nvcc-sm90 for cuda). The preset must belong to the TARGET, so a
# CUDA build cannot silently become a CPU build. Everything is built into
# $(BUILD), one folder per configuration.

TARGET ?= c
PROG_LANG ?= c
ifeq ($(TARGET),cuda)
  CONFIG ?= nvcc-sm90
else ifeq ($(TARGET),c)
  CONFIG ?= gcc-openmp
else ifeq ($(TARGET),hip)
  # Not written yet: docs/hip.md maps every CUDA construct of the layer to
  # HIP and lists what would differ.
  ifeq ($(shell command -v hipcc 2>/dev/null),)
    $(error TARGET=hip: no HIP compiler (hipcc) here, and no HIP backend yet; see docs/hip.md for the port)
  else
    $(error TARGET=hip: hipcc is present but the HIP backend is not written yet; docs/hip.md is the plan)
  endif
else
  $(error TARGET must be c or cuda (hip: see docs/hip.md), not '$(TARGET)')
endif
ifeq ($(wildcard config/$(CONFIG).mk),)
  $(error no preset config/$(CONFIG).mk; presets: $(notdir $(basename $(wildcard config/*.mk))))
endif
include config/$(CONFIG).mk
ifneq ($(CONFIG_TARGET),$(TARGET))
  $(error config/$(CONFIG).mk is a TARGET=$(CONFIG_TARGET) preset, not TARGET=$(TARGET))
endif
ifeq ($(filter $(LAYOUT),AOS SOA AOSOA),)
  $(error LAYOUT must be AOS, SOA or AOSOA, not '$(LAYOUT)')
endif

SAL ?= $(VVL)
TPB ?= 128
# ARCH: the CPU the host code is compiled for. Unset: the preset's choice
# (-march=native in gcc-openmp, clang-openmp, ...: the benchmarks and apps
# built here want this machine's vectors). `make install` defaults to
# ARCH=portable, the compiler's default target with no -march: a library
# built on a login node must not die with an illegal instruction on a
# compute node of an older CPU (issue 25). ARCH=native, or any -march value
# (ARCH=x86-64-v3), asks for that instead. Its own build folder, unless it
# leaves the compilers' flags as the preset has them: ARCH=native with
# gcc-openmp's -march=native, ARCH=portable under CUDA (its host flags name
# no CPU). Those share the preset's folder: the same objects, not compiled
# twice (make test installed the CUDA library from a second build of it).
ifneq ($(filter install,$(MAKECMDGOALS)),)
  ARCH ?= portable
endif
ifneq ($(ARCH),)
  tdp_march := $(if $(filter portable,$(ARCH)),,-march=$(ARCH))
  # the flags this configuration compiles with (CXXFLAGS: C++ programs only)
  tdp_used_flags = $(sort $(CFLAGS)) | $(if $(filter c++,$(PROG_LANG)),$(sort $(CXXFLAGS))) | \
                   $(if $(filter cuda,$(TARGET)),$(sort $(NVCCFLAGS)))
  tdp_preset_flags := $(tdp_used_flags)
  CFLAGS := $(filter-out -march=% -mtune=%,$(CFLAGS)) $(tdp_march)
  CXXFLAGS := $(filter-out -march=% -mtune=%,$(CXXFLAGS)) $(tdp_march)
  NVCCFLAGS += $(if $(tdp_march),-Xcompiler $(tdp_march))
  ifneq ($(tdp_preset_flags),$(tdp_used_flags))
    tdp_arch_dir := -$(ARCH)
  endif
endif
# -I targetDP: the layer's modules, so that a program's #include "targetDP_halo.h"
# (the MPI module) finds its header, as it does in an installed targetDP.
CPPFLAGS += -I$(CURDIR) -I$(CURDIR)/targetDP -DTARGETDP_$(LAYOUT) -DVVL=$(VVL) -DSAL=$(SAL) -DTARGET_TPB=$(TPB)
ifeq ($(SAN),1)
  SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  CFLAGS  += $(SANFLAGS) -g
  LDFLAGS += $(SANFLAGS)
endif
ifeq ($(CHECK),1)
  CPPFLAGS += -DTARGETDP_CHECK
endif
# The pragma that vectorises TDP_ILP on gcc (targetDP.h): "GCC ivdep" by
# default (ILP=ivdep), ILP=simd for "omp simd" (benchmarks/run_d2q9_probe.sh).
ILP ?= ivdep
ifeq ($(ILP),simd)
  CPPFLAGS += -DTDP_ILP_SIMD
else ifneq ($(ILP),ivdep)
  $(error ILP must be ivdep or simd, not '$(ILP)')
endif
# Per-kernel timer table at targetFinalize, NVTX ranges on CUDA; each
# launch is synchronised to time it, so only in this build.
ifeq ($(PROFILE),1)
  CPPFLAGS += -DTARGETDP_PROFILE
endif
LDLIBS += -lm
# cuBLAS: the vendor path of targetContract (targetDP_contract.c) on CUDA
ifeq ($(TARGET),cuda)
  LDLIBS += -lcublas
endif

# cmocka for the tests: the system's, or an unpacked Debian package in
# .deps/root (how the tests reach a machine that cannot install packages).
ifeq ($(wildcard /usr/include/cmocka.h),)
  ifneq ($(wildcard $(CURDIR)/.deps/root/usr/include/cmocka.h),)
    CMOCKA_DIR ?= $(CURDIR)/.deps/root/usr
  endif
endif
ifneq ($(CMOCKA_DIR),)
  # wherever the package put the library (lib/, lib/<multiarch>/)
  CMOCKA_LIBDIR := $(patsubst %/,%,$(dir $(firstword $(wildcard $(CMOCKA_DIR)/lib/libcmocka.so \
                     $(CMOCKA_DIR)/lib/*/libcmocka.so))))
  CPPFLAGS += -I$(CMOCKA_DIR)/include
  LDFLAGS  += -L$(CMOCKA_LIBDIR) -Xlinker -rpath=$(CMOCKA_LIBDIR)
endif

BUILD ?= build/$(CONFIG)-$(LAYOUT)-vvl$(VVL)-sal$(SAL)-tpb$(TPB)$(if $(filter 1,$(SAN)),-san)$(if $(filter 1,$(CHECK)),-check)$(if $(filter 1,$(PROFILE)),-profile)$(if $(filter simd,$(ILP)),-simd)$(tdp_arch_dir)$(if $(filter cuda,$(TARGET)),$(if $(filter 0,$(NCCL)),-nonccl))
LIB = $(BUILD)/libtargetDP.a

ifeq ($(TARGET),cuda)
  BACKEND_SRC = targetDP_CUDA.cu
  COMPILE_PROG = $(NVCC) -x cu $(NVCCFLAGS) $(CPPFLAGS)
  LINK = $(NVCC) $(NVCCFLAGS)
else ifeq ($(PROG_LANG),c++)
  # C++ programs on the C backend (presets gxx-openmp, clangxx-openmp): the
  # library stays C, every program source is compiled as C++ by $(CXX).
  BACKEND_SRC = targetDP_C.c
  COMPILE_PROG = $(CXX) -x c++ $(CXXFLAGS) $(CPPFLAGS)
  LINK = $(CXX) $(CXXFLAGS)
else
  BACKEND_SRC = targetDP_C.c
  COMPILE_PROG = $(CC) $(CFLAGS) $(CPPFLAGS)
  LINK = $(CC) $(CFLAGS)
endif
ifeq ($(filter $(PROG_LANG),c c++),)
  $(error PROG_LANG must be c or c++, not '$(PROG_LANG)')
endif
# The layer: the backend's source at the top, the modules in targetDP/.
# targetDP_compat.c (the 2014 API) is C, or CUDA under TARGET=cuda (where
# it needs the runtime's symbol calls), whatever the programs' language.
BACKEND_PART = $(if $(filter cuda,$(TARGET)),CUDA,C)
# The objects compiled by $(CC) $(CFLAGS) (C whatever the programs' language)
# are in $(LAYER_C_BUILD): a C++ preset that takes CC and CFLAGS from a C
# preset (LIB_C_CONFIG; config/gxx-openmp.mk includes gcc-openmp.mk) shares
# that preset's objects of the same configuration rather than compiling them
# again (make test built them twice: g++ AoSoA VVL 4, the corpus's g++ and
# clang++ builds). Elsewhere it is $(BUILD).
LAYER_C_BUILD := $(if $(and $(filter c++,$(PROG_LANG)),$(LIB_C_CONFIG)),$(patsubst \
                   build/$(CONFIG)-%,build/$(LIB_C_CONFIG)-%,$(BUILD)),$(BUILD))
LAYER_OBJ = $(LAYER_C_BUILD)/obj/targetDP/targetDP_error.o $(LAYER_C_BUILD)/obj/targetDP/targetDP_common.o \
            $(if $(filter cuda,$(TARGET)),$(BUILD),$(LAYER_C_BUILD))/obj/$(basename $(BACKEND_SRC)).o \
            $(addprefix $(LAYER_C_BUILD)/obj/targetDP/targetDP_, \
              compat.o box.o profile.o scan_$(BACKEND_PART).o async.o \
              exact.o exact_$(BACKEND_PART).o team.o team_$(BACKEND_PART).o) \
            $(addprefix $(BUILD)/obj/targetDP/targetDP_, pack.o contract.o)

# Header dependencies come from the compilers (-MMD -MP: a .d file beside
# each object, a phony target per header so a deleted header is no error).
DEPFLAGS = -MMD -MP

# MPI for programs that use it, through the wrapper's own flags so any MPI
# install works with either compiler. Under TARGET=cuda nvcc compiles and
# links, and wants host-compiler and linker options spelled its way. The
# C++ bindings are skipped: the sources are C, compiled as C++ only by nvcc.
#   $(BUILD)/obj/apps/x/%.o: PROG_CPPFLAGS += $(MPI_CPPFLAGS)
#   $(BUILD)/x: ...; $(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(MPI_LDLIBS)
MPI_CC ?= mpicc
MPI_CPPFLAGS := $(shell $(MPI_CC) --showme:compile 2>/dev/null)
MPI_LDLIBS := $(shell $(MPI_CC) --showme:link 2>/dev/null)
ifeq ($(TARGET),cuda)
  mpi_comma := ,
  mpi_for_nvcc = $(patsubst -Wl$(mpi_comma)%,-Xlinker %,$(patsubst -pthread,-Xcompiler -pthread,$(1)))
  MPI_CPPFLAGS := $(call mpi_for_nvcc,$(MPI_CPPFLAGS))
  MPI_LDLIBS := $(call mpi_for_nvcc,$(MPI_LDLIBS))
endif
MPI_CPPFLAGS += -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX

# NCCL for the device communicator (targetDP_devcomm.c: sums and halo faces
# queued on streams, docs/devcomm.md), CUDA builds only, found here at build
# time: NCCL=0 builds without it (the MPI path, what the C backend always
# uses), NCCL=1 fails the build when it is not found, NCCL=auto (default)
# uses it where nccl.h and libnccl.so(.2) are found: NCCL_HOME, the CUDA
# toolkit, /usr, /usr/local, or the nvidia-nccl Python wheel. Programs that
# use MPI link it (MPI_LDLIBS, with an rpath to its folder).
NCCL ?= auto
NCCL_INC :=
NCCL_LIBDIR :=
ifeq ($(TARGET),cuda)
ifneq ($(NCCL),0)
  nccl_cuda := $(patsubst %/bin/nvcc,%,$(NVCC))
  nccl_roots := $(NCCL_HOME) $(CUDA_HOME) $(nccl_cuda) /usr/local/cuda /usr /usr/local
  NCCL_INC := $(patsubst %/nccl.h,%,$(firstword $(wildcard $(addsuffix /include/nccl.h,$(nccl_roots)))))
  NCCL_LIBDIR := $(patsubst %/,%,$(dir $(firstword $(wildcard $(foreach r,$(nccl_roots),\
                   $(r)/lib/libnccl.so $(r)/lib64/libnccl.so $(r)/lib/x86_64-linux-gnu/libnccl.so \
                   $(r)/lib/libnccl.so.2 $(r)/lib64/libnccl.so.2 $(r)/lib/x86_64-linux-gnu/libnccl.so.2)))))
  ifeq ($(NCCL_INC)$(NCCL_LIBDIR),)
    # the wheel (pip install nvidia-nccl-cu13) keeps both in one folder
    nccl_wheel := $(shell python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
    ifneq ($(nccl_wheel),)
      NCCL_INC := $(patsubst %/nccl.h,%,$(wildcard $(nccl_wheel)/include/nccl.h))
      NCCL_LIBDIR := $(patsubst %/,%,$(dir $(firstword $(wildcard $(nccl_wheel)/lib/libnccl.so.2))))
    endif
  endif
  ifeq ($(NCCL_INC),)
    NCCL_LIBDIR :=
  endif
  ifeq ($(NCCL_LIBDIR),)
    NCCL_INC :=
  endif
  ifeq ($(NCCL)$(NCCL_INC),1)
    $(error NCCL=1: no nccl.h and libnccl.so found (NCCL_HOME=$(NCCL_HOME), CUDA at $(nccl_cuda)); give NCCL_HOME=dir, or NCCL=0)
  endif
endif
endif
ifneq ($(NCCL_INC),)
  NCCL_CPPFLAGS := -DTDP_HAVE_NCCL -I$(NCCL_INC)
  NCCL_LDLIBS := -L$(NCCL_LIBDIR) -Xlinker -rpath=$(NCCL_LIBDIR) \
                 $(if $(wildcard $(NCCL_LIBDIR)/libnccl.so),-lnccl,-l:libnccl.so.2)
endif
# Where NCCL was found for this build ("none": the MPI path), for scripts.
.PHONY: nccl-where
nccl-where:
	@echo "$(if $(NCCL_INC),include $(NCCL_INC) lib $(NCCL_LIBDIR),none$(if $(filter cuda,$(TARGET)),$(if $(filter 0,$(NCCL)), (NCCL=0), (not found)), (C backend)))"

# The halo-exchange module (targetDP_halo.c) and the device communicator
# (targetDP_devcomm.c) need MPI: they join the library when mpicc is found
# (a program that does not call them does not link them, so does not need
# MPI).
ifneq ($(MPI_LDLIBS),)
  LAYER_OBJ += $(BUILD)/obj/targetDP/targetDP_halo.o $(BUILD)/obj/targetDP/targetDP_devcomm.o \
               $(BUILD)/obj/targetDP/targetDP_exact_mpi.o
  MPI_LDLIBS += $(NCCL_LDLIBS)
endif

.PHONY: all lib clean
all: lib
lib: $(LIB)

$(LIB): $(LAYER_OBJ)
	ar rcs $@ $^
	@echo "built $@ ($(TARGET) backend, $(LAYOUT), VVL=$(VVL), SAL=$(SAL), TPB=$(TPB))"

# The layer: its .c files with the host C compiler, its .cu files with nvcc
# (targetDP_compat.c below is the exception).
$(LAYER_C_BUILD)/obj/targetDP_C.o: targetDP_C.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
$(LAYER_C_BUILD)/obj/targetDP/%.o: targetDP/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
# targetDP kernels of the layer: compiled like a program (C, or CUDA by nvcc -x cu).
$(BUILD)/obj/targetDP/targetDP_pack.o: targetDP/targetDP_pack.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP/targetDP_contract.o: targetDP/targetDP_contract.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP/targetDP_halo.o: targetDP/targetDP_halo.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(MPI_CPPFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP/targetDP_devcomm.o: targetDP/targetDP_devcomm.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(MPI_CPPFLAGS) $(NCCL_CPPFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP/targetDP_exact_mpi.o: targetDP/targetDP_exact_mpi.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(MPI_CPPFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP_CUDA.o: targetDP_CUDA.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP/%.o: targetDP/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
ifeq ($(TARGET),cuda)
$(BUILD)/obj/targetDP/targetDP_compat.o: targetDP/targetDP_compat.c
	@mkdir -p $(dir $@)
	$(NVCC) -x cu $(NVCCFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
else
$(LAYER_C_BUILD)/obj/targetDP/targetDP_compat.o: targetDP/targetDP_compat.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@
endif

# Programs: every .c outside the layer is compiled as the backend's
# language (C, or CUDA through nvcc -x cu) into $(BUILD)/obj/<path>.o.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(PROG_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
ifneq ($(LAYER_C_BUILD),$(BUILD))
-include $(wildcard $(LAYER_C_BUILD)/obj/targetDP_C.d $(LAYER_C_BUILD)/obj/targetDP/*.d)
endif

# A program from its sources with the layer's rules, for fragments:
#   $(eval $(call tdp_program,NAME,SOURCES[,mpi]))
# builds $(BUILD)/NAME (and a phony target NAME); with mpi, the MPI flags.
define tdp_program
$(1)_OBJS := $$(patsubst %.c,$$(BUILD)/obj/%.o,$(2))
$$(BUILD)/$(1): $$($(1)_OBJS) $$(LIB)
	$$(LINK) $$^ -o $$@ $$(LDFLAGS) $$(LDLIBS) $(if $(3),$$(MPI_LDLIBS))
$(if $(3),$$($(1)_OBJS): PROG_CPPFLAGS += $$(MPI_CPPFLAGS))
.PHONY: $(1)
$(1): $$(BUILD)/$(1)
endef

# A code outside the repository built with the same rules and configuration:
#   make app APP_DIR=/path/to/code [APP_NAME=name] [APP_MPI=1]
# compiles every APP_DIR/*.c as the backend's language (-I APP_DIR) and
# links $(BUILD)/NAME (NAME: the folder's name).
.PHONY: app
ifneq ($(APP_DIR),)
APP_NAME ?= $(notdir $(abspath $(APP_DIR)))
APP_SRCS := $(wildcard $(APP_DIR)/*.c)
ifeq ($(APP_SRCS),)
  $(error APP_DIR=$(APP_DIR) has no .c files)
endif
# objects in a folder named after the code's full path: its .d files name
# that path, so another folder of the same name must not reuse them
APP_OBJDIR := $(BUILD)/obj/app/$(subst /,_,$(abspath $(APP_DIR)))
APP_OBJS := $(patsubst $(APP_DIR)/%.c,$(APP_OBJDIR)/%.o,$(APP_SRCS))
$(APP_OBJDIR)/%.o: $(APP_DIR)/%.c
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) -I$(APP_DIR) $(if $(filter 1,$(APP_MPI)),$(MPI_CPPFLAGS)) $(DEPFLAGS) -c $< -o $@
$(BUILD)/$(APP_NAME): $(APP_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS) $(if $(filter 1,$(APP_MPI)),$(MPI_LDLIBS))
app: $(BUILD)/$(APP_NAME)
	@echo "built $<"
else
app:
	@echo "make app APP_DIR=/path/to/code [APP_NAME=name] [APP_MPI=1]" >&2; exit 1
endif

# Fragments add programs and their targets (tests, examples, benchmarks, apps).
-include $(wildcard */build.mk) $(wildcard apps/*/build.mk)

clean:
	rm -rf build
