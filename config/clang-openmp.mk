# clang + OpenMP (libomp) for the machine you build on; SoA VVL 8 as gcc-openmp.
# Debian: clang and libomp-14-dev (scripts/install_deps.sh).
# CLANG_OMP_LIB: a folder holding libomp.so off the linker's and loader's
# paths (a clang unpacked by scripts/clang_carry.sh sets it in its env.sh):
# linked with -L and an rpath to it.
# -Wno-pass-failed: clang 14 vectorises no OpenMP simd reduction over
# doubles (strict FP order: "value that could not be identified as
# reduction"), native loops included, and says so for the TDP_TLP_SUM loop;
# Dot through the layer runs at the native loop's speed all the same.
CONFIG_TARGET = c
CC       = clang
CFLAGS   = -std=c99 -O3 -march=native -fopenmp -Wall -Wextra -Wno-pass-failed
LDFLAGS  = -fopenmp $(if $(CLANG_OMP_LIB),-L$(CLANG_OMP_LIB) -Xlinker -rpath=$(CLANG_OMP_LIB))
LAYOUT  ?= SOA
VVL     ?= 8
