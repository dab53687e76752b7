# gcc without OpenMP: one thread, still vectorised where the compiler can.
CONFIG_TARGET = c
CC       = gcc
CFLAGS   = -std=c99 -O3 -march=native -Wall -Wextra -Wno-unknown-pragmas
LDFLAGS  =
LAYOUT  ?= AOSOA
VVL     ?= 4
