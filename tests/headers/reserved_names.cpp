/* Issue 9 item 8: with the 2014 names off, targetDP.h must not break system
 * headers included after it. Defining __target__ broke clang's
 * __attribute__((__target__("..."))) in <immintrin.h> and <random>. */
#define TDP_NO_LEGACY_NAMES
#include "targetDP.h"
#include <immintrin.h>
#include <random>

TDP_KERNEL void twice(double *a, long n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) { a[base + v] *= 2.0; }
  }
}

int main() {
  std::mt19937 gen(42);
  return (int) (gen() % 1);
}
