/*
 * targetDP_profile.h -- profiling (targetDP_profile.c). In a build with
 * PROFILE=1 (-DTARGETDP_PROFILE) every launch and library call is timed
 * (CUDA: events, and an NVTX range named after it) and targetFinalize
 * prints one line per name: calls, total time, declared bytes, GB/s.
 * targetProfileBytes declares the bytes that each later call of `name`
 * moves. Without PROFILE=1 these do nothing, and the launches'
 * TDP_PROFILE_START_/STOP_ are nothing at all. Included by targetDP.h
 * inside its extern "C" block; not a header to include on its own.
 */
#ifndef TARGETDP_H
#error "targetDP_profile.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_PROFILE_H
#define TARGETDP_PROFILE_H

#ifdef TARGETDP_PROFILE
#define TDP_PROFILE_START_(name) tdpProfileStart_(name, 0.0)
#define TDP_PROFILE_STOP_(name) tdpProfileStop_(name, 0)
#else
#define TDP_PROFILE_START_(name) ((void) 0)
#define TDP_PROFILE_STOP_(name) ((void) 0)
#endif

void targetProfileBytes(const char *name, double bytes);
void targetProfilePrint(FILE *file); /* the table so far */
void tdpProfileStart_(const char *name, double bytes);
int tdpProfileStop_(const char *name, int rc);

#endif /* TARGETDP_PROFILE_H */
