"""Median over rounds of port / native and port / serial per build, shape and thread count.

python3 summary.py DIR: every DIR/*.csv (one per build, bench_corpus rows), printed as a
markdown table. A cell is the median over the rows (rounds) of the row's ratio, [min-max].
"""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

cells = defaultdict(list)
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    build = os.path.basename(path)[:-4]
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["kind"] in ("port", "proto"):
                key = (row["shape"], row["impl"], row["threads"], build)
                cells[key].append((float(row["ratio_native"]), float(row["ratio_serial"])))

print("| shape | impl | threads | build | port / native | port / serial | rounds |")
print("|---|---|---|---|---|---|---|")
for (shape, impl, threads, build), v in sorted(cells.items()):
    nat = [a for a, _ in v]
    ser = [b for _, b in v]
    print(f"| {shape} | {impl} | {threads} | {build} | {statistics.median(nat):.3f} "
          f"[{min(nat):.2f}-{max(nat):.2f}] | {statistics.median(ser):.3f} | {len(v)} |")
