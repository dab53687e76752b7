#!/usr/bin/env python3
"""The medians of port / CUDA native per tree, shape and implementation
from variants.csv (each row one round of bench_corpus, its `tree` column
the layer variant that built it; README.md says what each tree is).

    python3 table.py [variants.csv]
"""
import csv
import statistics
import sys
from collections import OrderedDict

path = sys.argv[1] if len(sys.argv) > 1 else "variants.csv"
cells = OrderedDict()
for r in csv.DictReader(open(path, newline="")):
    if r["impl"] in ("serial", "cuda", "cuda-march", "port-row", "port-occ"):
        continue
    cells.setdefault((r["tree"], r["shape"], r["impl"]), []).append(float(r["ratio_native"]))
print("| tree | shape | implementation | rounds | port / native, median (min - max) |")
print("|---|---|---|---|---|")
for (tree, shape, impl), v in cells.items():
    print(f"| {tree} | {shape} | {impl} | {len(v)} | {statistics.median(v):.3f} ({min(v):.3f} - {max(v):.3f}) |")
