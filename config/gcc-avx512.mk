# gcc + OpenMP for AVX-512 CPUs (Skylake-SP and later): VVL 8 = 512-bit doubles.
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=x86-64-v4 -mprefer-vector-width=512 -fopenmp -Wall -Wextra
LDFLAGS  = -fopenmp
LAYOUT  ?= SOA
VVL     ?= 8
