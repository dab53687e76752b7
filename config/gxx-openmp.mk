# g++ + OpenMP, programs in C++17: the library is built in C by gcc, every
# program source (tests, examples, apps) is compiled as C++ by g++ and
# linked by it -- how a C++ code uses the C backend (CI: tests/run_tests.sh).
# The C side is gcc-openmp's, and so are the library's C objects: the build
# takes them from gcc-openmp's folder of the same configuration
# (LIB_C_CONFIG, the Makefile's LAYER_C_BUILD) instead of compiling them again.
include config/gcc-openmp.mk
LIB_C_CONFIG = gcc-openmp
PROG_LANG = c++
CXX      = g++
CXXFLAGS = -std=c++17 -O3 -march=native -fopenmp -Wall -Wextra
