# g++ + OpenMP, programs in C++17: the library is built in C by gcc, every
# program source (tests, examples, apps) is compiled as C++ by g++ and
# linked by it -- how a C++ code uses the C backend (CI: tests/run_tests.sh).
CONFIG_TARGET = c
PROG_LANG = c++
CC       = gcc
CXX      = g++
CFLAGS   = -std=c99 -O3 -march=native -fopenmp -Wall -Wextra
CXXFLAGS = -std=c++17 -O3 -march=native -fopenmp -Wall -Wextra
LDFLAGS  = -fopenmp
LAYOUT  ?= SOA
VVL     ?= 8
