# gcc without OpenMP: one thread, still vectorised where the compiler can.
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=native -fopenmp-simd -DTDP_OPENMP_SIMD -Wall -Wextra
LDFLAGS  =
LAYOUT  ?= SOA
VVL     ?= 8
