# gcc + OpenMP for AVX-512 CPUs (Skylake-SP and later): VVL 8 = 512-bit doubles; box rows
# in VVL strides too (TDP_ROW_VVL_, targetDP_C.h: the default 4 is for 256-bit vectors).
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=x86-64-v4 -mprefer-vector-width=512 -DTDP_ROW_VVL_=VVL -fopenmp -Wall -Wextra
LDFLAGS  = -fopenmp
LAYOUT  ?= SOA
VVL     ?= 8
