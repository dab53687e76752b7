#!/usr/bin/env python3
"""Weak-scaling efficiency of apps/lb from run_device.sh's lb_perf.csv.

    python3 apps/lb/plot_scaling.py lb_perf.csv [scaling.png]

Efficiency at N ranks = time per step on 1 rank / time per step on N ranks
(fixed work per rank: one curve per block size per rank that the rows
hold, named by it). Host rows: backend c, 1 thread per rank; GPU rows:
backend cuda, one rank per GPU, one curve per halo transport. Prints the
table; draws it if matplotlib is there."""
import csv
import sys


def per_rank(r):
    """Sites per rank of a row (the weak-scaling block), and its name:
    "64^3" for a cube, else the count."""
    sites = int(r["nx"]) * int(r["ny"]) * int(r["nz"]) // int(r["ranks"])
    edge = round(sites ** (1.0 / 3.0))
    return sites, ("%d^3" % edge if edge ** 3 == sites else "%d sites" % sites)


def series(rows, backend, path=None):
    """Weak-scaling curves: for each block per rank the rows have, the
    best step time per rank count; only blocks measured on 1 rank and on
    more. Returns {block name: [(ranks, efficiency, ms)]}."""
    groups = {}
    for r in rows:
        if r["backend"] != backend or (backend == "c" and r["threads"] != "1"):
            continue
        n = int(r["ranks"])
        if path and n > 1 and r["halo_path"] != path:
            continue  # (one rank: any transport, it only copies to itself)
        sites, name = per_rank(r)
        pts = groups.setdefault((sites, name), {})
        t = float(r["step_ms"])
        pts[n] = min(pts.get(n, t), t)  # the best run of each rank count (overlapped or not)
    out = {}
    for (sites, name), pts in sorted(groups.items()):
        if 1 in pts and len(pts) > 1:
            out[name] = [(n, pts[1] / pts[n], pts[n]) for n in sorted(pts)]
    return out


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    curves = {}
    for block, pts in series(rows, "c").items():
        curves["host, 1 thread/rank (%s per rank)" % block] = pts
    for path in ("ipc", "staged", "direct", "host-staged", "target-pointers"):
        for block, pts in series(rows, "cuda", path).items():
            curves["GPUs, %s halo (%s per GPU)" % (path, block)] = pts
    if not curves:
        print("no weak-scaling rows: every block per rank needs a 1-rank row and a row on more ranks")
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
