# Install: `make install PREFIX=/opt/targetDP` installs the headers, the
# library of the current configuration (TARGET, CONFIG, LAYOUT, VVL, SAL,
# TPB, CHECK) as libtargetDP_<backend>.a with a generated header that holds
# that configuration (so a plain `-I$PREFIX/include` build gets defaults
# that match the library), a pkg-config file targetDP-<backend>.pc, a CMake
# package (find_package(targetDP COMPONENTS c cuda) -> targetDP::c,
# targetDP::cuda) and $PREFIX/bin/targetDP-config. Run it once per backend
# to install both side by side; installing a backend again replaces its
# configuration. `make uninstall PREFIX=...` removes everything installed
# there (both backends). DESTDIR is honoured (staged installs).
# The library's host code is portable by default (ARCH=portable, set in the
# Makefile: no -march, the compiler's default target); `make install
# ARCH=native` builds it for this machine's CPU; the installed header and
# `targetDP-config --arch` say which.
.PHONY: install uninstall

PREFIX ?= /usr/local
ifneq ($(filter install,$(MAKECMDGOALS)),)
  ifeq ($(SAN),1)
    $(error SAN=1 builds are for the tests, not for installing: programs would need the sanitizer runtimes)
  endif
endif
TDP_VERSION := 0.2.0

# What a program built against the library needs besides the -D's: the
# OpenMP switches of the preset (kernels are compiled in the user's files).
ifeq ($(TARGET),cuda)
  INSTALL_CFLAGS :=
  # cuBLAS: the vendor path of targetContract (targetDP_contract.c); NCCL
  # where the build found it: the halo module's device communicator (no
  # rpath: the words are sorted, and -Xlinker must precede its value)
  INSTALL_LIBS := -lm -lcublas $(if $(NCCL_LIBDIR),-L$(NCCL_LIBDIR) $(lastword $(NCCL_LDLIBS)))
  INSTALL_CUDA_LIBDIR := $(realpath $(dir $(realpath $(NVCC)))../lib64)
else
  INSTALL_CFLAGS := $(filter -fopenmp -fopenmp-simd -DTDP_OPENMP_SIMD,$(CFLAGS))
  INSTALL_LIBS := $(filter -fopenmp,$(LDFLAGS) $(CFLAGS)) -lm
  INSTALL_CUDA_LIBDIR :=
endif

install: $(LIB)
	@TDP_BACKEND=$(TARGET) TDP_LIB=$(LIB) TDP_LAYOUT=$(LAYOUT) TDP_VVL=$(VVL) TDP_SAL=$(SAL) \
	  TDP_TPB=$(TPB) TDP_CHECK=$(if $(filter 1,$(CHECK)),1,0) TDP_VERSION=$(TDP_VERSION) \
	  TDP_USER_CFLAGS="$(INSTALL_CFLAGS)" TDP_USER_LIBS="$(sort $(INSTALL_LIBS))" \
	  TDP_CUDA_LIBDIR="$(INSTALL_CUDA_LIBDIR)" TDP_PRESET=$(CONFIG) TDP_ARCH=$(ARCH) \
	  TDP_HOST_FLAGS="$(strip $(filter -march=% -mtune=%,$(CFLAGS)))" \
	  bash pkg/install.sh install "$(DESTDIR)" "$(PREFIX)"

uninstall:
	@bash pkg/install.sh uninstall "$(DESTDIR)" "$(PREFIX)"
