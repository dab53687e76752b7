# clang++ + OpenMP (libomp), programs in C++17: the library in C by clang,
# program sources compiled and linked as C++ by clang++. The C side is
# clang-openmp's (CLANG_OMP_LIB included), and so are the library's C
# objects: taken from clang-openmp's folder of the same configuration
# (LIB_C_CONFIG, the Makefile's LAYER_C_BUILD), not compiled again.
# -Wno-pass-failed: clang reports an `omp simd` loop that its vectoriser
# declines (the short tail stride, a loop around a function call) as a
# warning; it is an optimisation remark about a correct loop, and the
# runner fails on any warning.
include config/clang-openmp.mk
LIB_C_CONFIG = clang-openmp
PROG_LANG = c++
CXX      = clang++
CXXFLAGS = -std=c++17 -O3 -march=native -fopenmp -Wall -Wextra -Wno-pass-failed
