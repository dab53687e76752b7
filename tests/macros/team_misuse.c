/* Team constructs where they are not allowed must not compile
 * (tests/suites/teams.sh builds this file once per CASE; CASE 0 is the
 * same kernel used rightly, which must compile warning-free). A barrier,
 * a thread loop, a team reduction or a scratch allocation needs every
 * thread of the team: inside a thread, vector or each loop only some
 * threads would reach it (a hang or undefined behaviour on a GPU). */
#include "targetDP.h"

#ifndef CASE
#define CASE 0
#endif

TDP_TEAM_KERNEL(256) void kMisuse(double *t_out, long nteams, int n) {
#if CASE == 1
  TDP_TEAM_BARRIER(); /* outside a team body */
#endif
  TDP_TEAMS(team, nteams) {
    TDP_TEAM_SCRATCH(double, s, n);
    TDP_TEAM_RANGE(i, n) { TDP_SCR(s, i) = (double) i; }
    TDP_TEAM_BARRIER();
    double tot = 0.0;
    TDP_TEAM_THREADS_SUM(i, n, tot) { tot += TDP_SCR(s, i); }
    TDP_TEAM_THREADS(i, n) {
#if CASE == 2
      TDP_TEAM_BARRIER(); /* inside a thread loop */
#endif
#if CASE == 3
      TDP_TEAM_THREADS(j, n) { t_out[j] = 0.0; } /* a thread loop in a thread loop */
#endif
#if CASE == 4
      TDP_TEAM_SCRATCH(double, u, 4); /* scratch in a thread loop */
      u[0] = 1.0;
#endif
#if CASE == 5
      double x = 0.0;
      TDP_TEAM_THREADS_SUM(j, n, x) { x += 1.0; } /* a team reduction in a thread loop */
      t_out[i] = x;
#endif
      TDP_TEAM_VECTOR(j, 4) {
#if CASE == 6
        TDP_TEAM_BARRIER(); /* inside a vector loop */
#endif
        TDP_TEAM_ONE_LANE { t_out[team * n + i] = tot + j; }
      }
    }
    TDP_TEAM_EACH(t) {
#if CASE == 7
      TDP_TEAM_BARRIER(); /* inside an each loop */
#endif
#if CASE == 8
      TDP_TEAM_RANGE(i, n) { t_out[i] = t; } /* a team range in an each loop */
#endif
      (void) t;
    }
#if CASE == 9
    (void) TDP_SCR2(s, 0, 0); /* a 2-D access to a 1-D scratch array */
#endif
    TDP_TEAM_ONE_THREAD {
#if CASE == 10
      TDP_TEAM_BARRIER(); /* inside a one-thread block */
#endif
      t_out[team] = tot;
    }
  }
}
