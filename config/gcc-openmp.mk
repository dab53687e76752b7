# gcc + OpenMP for the machine you build on (-march=native); VVL 4 = AVX2 doubles.
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=native -fopenmp -Wall -Wextra
LDFLAGS  = -fopenmp
LAYOUT  ?= AOSOA
VVL     ?= 4
