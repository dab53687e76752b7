# The corpus of legacy kernel shapes (issue 28; benchmarks/corpus/corpus.h):
# one driver, bench_corpus, with every shape's serial original, its port by
# docs/porting.md, the prototype layer form and the best native code.
#   make corpus-build      build bench_corpus for this configuration
#   make corpus-bench      the host timing run (run_bench.sh: interleaved rounds
#                          of gcc and clang builds at 1 and all threads, CSV and plot)
# Included by benchmarks/build.mk (the Makefile includes one level of */build.mk).
.PHONY: corpus-build corpus-bench

CORPUS_SHAPES := jacobi2d heat3d stencil27 d2q9 d3q19 masked gather su3mv norm
CORPUS_OBJS := $(patsubst %,$(BUILD)/obj/benchmarks/corpus/%.o,corpus $(CORPUS_SHAPES))

$(BUILD)/bench_corpus: $(CORPUS_OBJS) $(BENCH_OBJS) $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)

corpus-build: $(BUILD)/bench_corpus

corpus-bench:
	bash benchmarks/corpus/run_bench.sh $(CORPUS_BENCH_ARGS)
