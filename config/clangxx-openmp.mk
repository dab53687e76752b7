# clang++ + OpenMP (libomp), programs in C++17: the library in C by clang,
# program sources compiled and linked as C++ by clang++.
# -Wno-pass-failed: clang reports an `omp simd` loop that its vectoriser
# declines (the short tail stride, a loop around a function call) as a
# warning; it is an optimisation remark about a correct loop, and the
# runner fails on any warning.
CONFIG_TARGET = c
PROG_LANG = c++
CC       = clang
CXX      = clang++
CFLAGS   = -std=c99 -O3 -march=native -fopenmp -Wall -Wextra -Wno-pass-failed
CXXFLAGS = -std=c++17 -O3 -march=native -fopenmp -Wall -Wextra -Wno-pass-failed
LDFLAGS  = -fopenmp
LAYOUT  ?= SOA
VVL     ?= 8
