/*
 * targetDP_config.h -- installed next to targetDP.h by `make install`.
 * targetDP.h includes it (when present) before its own defaults, so a
 * program built with nothing but -I$PREFIX/include gets the layout, VVL,
 * SAL and threads per block that the installed library of its backend was
 * built with. A -D on the command line still wins; targetInit() then
 * refuses the mismatch with both configurations in the message.
 */
#ifndef TARGETDP_CONFIG_H
#define TARGETDP_CONFIG_H
#ifdef __CUDACC__
#include "targetDP/config_cuda.h" /* missing: no CUDA backend installed here */
#else
#include "targetDP/config_c.h"    /* missing: no C backend installed here */
#endif
#endif
