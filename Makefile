# targetDP -- GNU make (other makes are not supported).
#
#   make [TARGET=c|cuda] [CONFIG=name] [LAYOUT=AOS|SOA|AOSOA] [VVL=n] [SAL=n] [TPB=n] [SAN=1]
#
# TARGET picks the backend; CONFIG a preset in config/ (default gcc-openmp
# for c, nvcc-sm90 for cuda). The preset must belong to the TARGET, so a
# CUDA build cannot silently become a CPU build. Everything is built into
# $(BUILD), one folder per configuration.

TARGET ?= c
ifeq ($(TARGET),cuda)
  CONFIG ?= nvcc-sm90
else ifeq ($(TARGET),c)
  CONFIG ?= gcc-openmp
else
  $(error TARGET must be c or cuda, not '$(TARGET)')
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
CPPFLAGS += -I$(CURDIR) -DTARGETDP_$(LAYOUT) -DVVL=$(VVL) -DSAL=$(SAL) -DTARGET_TPB=$(TPB)
ifeq ($(SAN),1)
  SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  CFLAGS  += $(SANFLAGS) -g
  LDFLAGS += $(SANFLAGS)
endif
ifeq ($(CHECK),1)
  CPPFLAGS += -DTARGETDP_CHECK
endif
LDLIBS += -lm

# cmocka for the tests: the system's, or an unpacked Debian package in
# .deps/root (how the tests reach a machine that cannot install packages).
ifeq ($(wildcard /usr/include/cmocka.h),)
  ifneq ($(wildcard $(CURDIR)/.deps/root/usr/include/cmocka.h),)
    CMOCKA_DIR ?= $(CURDIR)/.deps/root/usr
  endif
endif
ifneq ($(CMOCKA_DIR),)
  CPPFLAGS += -I$(CMOCKA_DIR)/include
  LDFLAGS  += -L$(CMOCKA_DIR)/lib/x86_64-linux-gnu -Xlinker -rpath=$(CMOCKA_DIR)/lib/x86_64-linux-gnu
endif

BUILD ?= build/$(CONFIG)-$(LAYOUT)-vvl$(VVL)-sal$(SAL)-tpb$(TPB)$(if $(filter 1,$(SAN)),-san)$(if $(filter 1,$(CHECK)),-check)
LIB = $(BUILD)/libtargetDP.a

ifeq ($(TARGET),cuda)
  BACKEND_SRC = targetDP_CUDA.cu
  COMPILE_PROG = $(NVCC) -x cu $(NVCCFLAGS) $(CPPFLAGS)
  LINK = $(NVCC) $(NVCCFLAGS)
else
  BACKEND_SRC = targetDP_C.c
  COMPILE_PROG = $(CC) $(CFLAGS) $(CPPFLAGS)
  LINK = $(CC) $(CFLAGS)
endif
LAYER_OBJ = $(BUILD)/obj/targetDP_common.o $(BUILD)/obj/targetDP_async.o \
            $(BUILD)/obj/targetDP_pack.o $(BUILD)/obj/$(basename $(BACKEND_SRC)).o

# The halo-exchange module (targetDP_halo.c) needs MPI: it joins the library
# when mpicc is found (a program that does not call it does not link it, so
# does not need MPI). MPI through the wrapper's flags, spelled nvcc's way
# under TARGET=cuda.
HALO_MPI_COMPILE := $(shell mpicc --showme:compile 2>/dev/null)
ifneq ($(HALO_MPI_COMPILE),)
  ifeq ($(TARGET),cuda)
    halo_comma := ,
    HALO_MPI_COMPILE := $(patsubst -Wl$(halo_comma)%,-Xlinker %,$(patsubst -pthread,-Xcompiler -pthread,$(HALO_MPI_COMPILE)))
  endif
  LAYER_OBJ += $(BUILD)/obj/targetDP_halo.o
endif

.PHONY: all lib clean
all: lib
lib: $(LIB)

$(LIB): $(LAYER_OBJ)
	ar rcs $@ $^
	@echo "built $@ ($(TARGET) backend, $(LAYOUT), VVL=$(VVL), SAL=$(SAL), TPB=$(TPB))"

$(BUILD)/obj/targetDP_common.o: targetDP_common.c targetDP.h targetDP_internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP_async.o: targetDP_async.c targetDP.h targetDP_internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@
# targetDP kernels of the layer: compiled like a program (C, or CUDA by nvcc -x cu).
$(BUILD)/obj/targetDP_pack.o: targetDP_pack.c targetDP.h targetDP_internal.h
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) -c $< -o $@
$(BUILD)/obj/targetDP_halo.o: targetDP_halo.c targetDP_halo.h targetDP.h
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(HALO_MPI_COMPILE) -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX -c $< -o $@
$(BUILD)/obj/targetDP_C.o: targetDP_C.c targetDP.h targetDP_internal.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -c $< -o $@
$(BUILD)/obj/targetDP_CUDA.o: targetDP_CUDA.cu targetDP.h targetDP_internal.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(CPPFLAGS) -c $< -o $@

# Programs: every .c outside the layer is compiled as the backend's
# language (C, or CUDA through nvcc -x cu) into $(BUILD)/obj/<path>.o.
$(BUILD)/obj/%.o: %.c targetDP.h $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(COMPILE_PROG) $(PROG_CPPFLAGS) -c $< -o $@

# Fragments add programs and their targets (tests, examples, benchmarks, apps).
-include $(wildcard */build.mk) $(wildcard apps/*/build.mk)

clean:
	rm -rf build
