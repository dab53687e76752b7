// The scale example (scale.c) in C++: a Field owns its host copy and its
// target memory (RAII: freed in the destructor, never copied), and its
// member functions move the data and launch the kernel. The same source
// builds with g++/clang++ (C/OpenMP backend) and with nvcc (CUDA).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "targetDP.h"

TDP_CONST double t_a; // the scale factor, in constant memory on a GPU

// Kernels are free functions (a CUDA __global__ cannot be a member).
TDP_KERNEL void scaleKernel(double *field, int nsites, int ncomp) {
  TDP_TLP(baseIndex, nsites) {
    for (int c = 0; c < ncomp; c++) {
      TDP_ILP(vecIndex) { field[TDP_INDEX(nsites, ncomp, baseIndex + vecIndex, c)] *= t_a; }
    }
  }
}

// targetInit/targetFinalize around the program's lifetime.
struct Target {
  Target() { targetInit(); }
  ~Target() { targetFinalize(); }
  Target(const Target &) = delete;
  Target &operator=(const Target &) = delete;
};

class Field {
 public:
  Field(int nsites, int ncomp)
      : nsites_(nsites), ncomp_(ncomp), host_(TDP_FIELD_SIZE(nsites, ncomp)) {
    targetMalloc(&t_data_, bytes());
  }
  ~Field() { targetFree(t_data_); }
  Field(const Field &) = delete;            // one owner of the target memory
  Field &operator=(const Field &) = delete;

  double &operator()(int site, int comp) { return host_[TDP_INDEX(nsites_, ncomp_, site, comp)]; }
  int nsites() const { return nsites_; }
  int ncomp() const { return ncomp_; }

  void toTarget() { copyToTarget(t_data_, host_.data(), bytes()); }
  void fromTarget() { copyFromTarget(host_.data(), t_data_, bytes()); }
  void scale(double a) {
    copyConstToTarget(&t_a, &a, sizeof a);
    TDP_LAUNCH(scaleKernel, nsites_, t_data_, nsites_, ncomp_);
    targetSynchronize();
  }

 private:
  size_t bytes() const { return host_.size() * sizeof(double); }
  int nsites_, ncomp_;
  std::vector<double> host_;
  double *t_data_ = nullptr;
};

int main(int argc, char **argv) {
  const int nsites = argc > 1 ? std::atoi(argv[1]) : 1000003;
  const double a = 2.5;
  Target target;
  Field f(nsites, 3);
  for (int s = 0; s < f.nsites(); s++)
    for (int c = 0; c < f.ncomp(); c++) f(s, c) = s + 0.25 * c;
  f.toTarget();
  f.scale(a);
  f.fromTarget();
  int bad = 0;
  for (int s = 0; s < f.nsites(); s++)
    for (int c = 0; c < f.ncomp(); c++) bad += f(s, c) != a * (s + 0.25 * c);
  std::printf("scale (C++): %d sites, %s: %s\n", nsites, targetConfigString(),
              bad ? "WRONG" : "correct");
  return bad != 0;
}
