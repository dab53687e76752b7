# gcc + OpenMP for the machine you build on (-march=native); VVL 8 = two AVX2
# or one AVX-512 vector of doubles, one AVX2 vector of floats.
# SoA VVL 8: the C default since 2026-11-24 (docs/performance.md, "The C
# default build"): the lb app's fused step 4.6x faster than AoSoA VVL 4 on
# the 16-core Xeon host, and neighbour reads TDP_INDEX(.., s +- shift, ..)
# are unit-stride vector loads only in SoA.
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=native -fopenmp -Wall -Wextra
LDFLAGS  = -fopenmp
LAYOUT  ?= SOA
VVL     ?= 8
