#!/usr/bin/env python3
"""Weak-scaling efficiency of apps/lb from run_device.sh's lb_perf.csv.

    python3 apps/lb/plot_scaling.py lb_perf.csv [scaling.png]

Efficiency at N ranks = time per step on 1 rank / time per step on N ranks
(fixed work per rank). Host rows: backend c, 1 thread per rank; GPU rows:
backend cuda, one rank per GPU. Prints the table; draws it if matplotlib is
there."""
import csv
import sys


def series(rows, backend, path=None):
    pts = {}
    for r in rows:
        if r["backend"] != backend or (backend == "c" and r["threads"] != "1"):
            continue
        n = int(r["ranks"])
        if path and n > 1 and r["halo_path"] != path:
            continue  # (one rank: any transport, it only copies to itself)
        if backend == "cuda" and (int(r["nx"]) != 256 * n or r["ny"] != "256" or r["nz"] != "256"):
            continue  # only the 256^3-per-GPU weak-scaling rows
        t = float(r["step_ms"])
        pts[n] = min(pts.get(n, t), t)  # the best run of each rank count (overlapped or not)
    if 1 not in pts:
        return []
    return [(n, pts[1] / pts[n], pts[n]) for n in sorted(pts)]


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    curves = {"host, 1 thread/rank (64^3 per rank)": series(rows, "c")}
    for path in ("ipc", "staged", "direct", "host-staged", "target-pointers"):
        s = series(rows, "cuda", path)
        if len(s) > 1:
            curves["GPUs, %s halo (256^3 per GPU)" % path] = s
    for name, pts in curves.items():
        print(name)
        for n, eff, ms in pts:
            print("  %3d ranks  %8.3f ms/step  efficiency %5.1f%%" % (n, ms, 100 * eff))
    if len(sys.argv) > 2:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib: table only")
            return
        for name, pts in curves.items():
            if pts:
                plt.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-", label=name)
        plt.xscale("log", base=2)
        plt.ylim(0, 110)
        plt.xlabel("MPI ranks")
        plt.ylabel("weak-scaling efficiency (%)")
        plt.legend()
        plt.grid(alpha=0.3)
        plt.savefig(sys.argv[2], dpi=120, bbox_inches="tight")
        print("wrote", sys.argv[2])


if __name__ == "__main__":
    main()
