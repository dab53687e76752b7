#!/usr/bin/env python3
"""Charts and tables of the team benchmarks (issue 30) from their CSVs.

    plot_teams.py --csv gpu_contract.csv host_contract.csv spmv.csv ... \
                  [--outdir DIR] [--markdown FILE]

Writes speedup_vs_P.png (like the Kokkos Intrepid case study's chart: the
speed-up of each implementation over the serial loop against P, for
FieldFieldTensor L = R = 16, D = 4 x 4) when matplotlib is there, and
markdown tables (always): every case and size with GB/s and GFLOP/s per
implementation, and the issue's targets with their ratios (--summary: the
short form docs/performance.md holds: the main size per case, the ratios
beside it, each target met or missed with its worst case):
  team / cuda-tiled >= 1.0; memory-bound cases (DataData*, FFS L = 8):
  team and helper >= 0.85 of the copy; helper >= 1.0 x max(cublas,
  cuda-tiled); host helper >= 0.95 x max(omp-plain, omp-blocked); SpMV team
  >= 0.9 x the better cuSPARSE algorithm; host team >= 0.95 x omp.
Medians of the interleaved rounds are used throughout.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict


def read(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                for k in ("median_s", "min_s", "max_s", "gbs", "gflops", "mbytes"):
                    r[k] = float(r[k]) if r.get(k) not in (None, "") else 0.0
                rows.append(r)
    return rows


def key(r):
    return (r["bench"], r["device"], r["case"], round(r["mbytes"], 1), r["mode"])


def group(rows):
    """The first row of each (case, size, mode, impl): a later run of the
    same key is an extra (older bench_spmv named its explicit --lanes rows
    tdp-team too, and they came after the automatic choice's)."""
    g = defaultdict(dict)
    for r in rows:
        g[key(r)].setdefault(r["impl"], r)
    return g


def memory_bound(case):
    return case.startswith("DD") or case.startswith("FFS_L8")


def tables(g):
    out = []
    targets = []
    impl_order = ["serial", "omp-plain", "omp-blocked", "tdp-flat", "tdp-team", "tdp-helper",
                  "cuda-flat", "cuda-tiled", "cublas", "cusparse-alg1", "cusparse-alg2", "omp",
                  "copy"]
    by_bench = defaultdict(list)
    for k in sorted(g):
        by_bench[(k[0], k[1])].append(k)
    for (bench, device), keys in sorted(by_bench.items()):
        out.append(f"\n### {bench} on {device}\n")
        impls = [i for i in impl_order if any(i in g[k] for k in keys)]
        impls += sorted({i for k in keys for i in g[k]} - set(impls))
        metric = "GB/s" if bench == "spmv" else "GB/s | GFLOP/s"
        out.append("| case | MiB | mode | " + " | ".join(impls) + " |")
        out.append("|---|---|---|" + "---|" * len(impls))
        for k in keys:
            cells = []
            for i in impls:
                r = g[k].get(i)
                if r is None:
                    cells.append("")
                elif bench == "spmv" or i == "copy":
                    cells.append(f"{r['gbs']:.0f}")
                else:
                    cells.append(f"{r['gbs']:.0f} / {r['gflops']:.0f}")
            out.append(f"| {k[2]} | {k[3]:g} | {k[4]} | " + " | ".join(cells) + " |")
        out.append(f"\n(each cell: {metric}, median of the rounds)\n")
        for k in keys:
            d = g[k]
            t = lambda i: d[i]["median_s"] if i in d else None
            case = f"{k[2]} {k[3]:g} MiB {k[4]}"
            if bench == "contract":
                if t("tdp-team") and t("cuda-tiled"):
                    targets.append((device, case, "team / cuda-tiled", t("cuda-tiled") / t("tdp-team"), 1.0))
                if memory_bound(k[2]) and t("copy"):
                    for i in ("tdp-team", "tdp-helper"):
                        if t(i):
                            targets.append((device, case, f"{i} / copy", t("copy") / t(i), 0.85))
                gpu_best = [t(i) for i in ("cublas", "cuda-tiled") if t(i)]
                if t("tdp-helper") and gpu_best:
                    targets.append((device, case, "helper / best(cublas, cuda-tiled)",
                                    min(gpu_best) / t("tdp-helper"), 1.0))
                host_best = [t(i) for i in ("omp-plain", "omp-blocked") if t(i)]
                if t("tdp-helper") and host_best:
                    targets.append((device, case, "helper / best(omp-plain, omp-blocked)",
                                    min(host_best) / t("tdp-helper"), 0.95))
            elif bench == "spmv":
                cusp = [t(i) for i in ("cusparse-alg1", "cusparse-alg2") if t(i)]
                if t("tdp-team") and cusp:
                    targets.append((device, case, "team / best cuSPARSE", min(cusp) / t("tdp-team"), 0.9))
                if t("tdp-team") and t("omp"):
                    targets.append((device, case, "team / omp", t("omp") / t("tdp-team"), 0.95))
    if targets:
        out.append("\n### Targets (speed ratio; met when >= the target)\n")
        out.append("| device | case | ratio | value | target | met |")
        out.append("|---|---|---|---|---|---|")
        for dev, case, what, v, want in targets:
            out.append(f"| {dev} | {case} | {what} | {v:.3f} | {want} | {'yes' if v >= want else 'NO'} |")
    return "\n".join(out) + "\n"


def ratios(d, bench):
    """(name, value, target) of every target ratio that applies to one key."""
    t = lambda i: d[i]["median_s"] if i in d else None
    out = []
    if bench == "contract":
        if t("tdp-team") and t("cuda-tiled"):
            out.append(("team / cuda-tiled", t("cuda-tiled") / t("tdp-team"), 1.0))
        gpu_best = [t(i) for i in ("cublas", "cuda-tiled") if t(i)]
        if t("tdp-helper") and gpu_best:
            out.append(("helper / best(cublas, cuda-tiled)", min(gpu_best) / t("tdp-helper"), 1.0))
        host_best = [t(i) for i in ("omp-plain", "omp-blocked") if t(i)]
        if t("tdp-helper") and host_best:
            out.append(("helper / best(omp-plain, omp-blocked)", min(host_best) / t("tdp-helper"), 0.95))
    else:
        cusp = [t(i) for i in ("cusparse-alg1", "cusparse-alg2") if t(i)]
        if t("tdp-team") and cusp:
            out.append(("team / best cuSPARSE", min(cusp) / t("tdp-team"), 0.9))
        if t("tdp-team") and t("omp"):
            out.append(("team / omp", t("omp") / t("tdp-team"), 0.95))
    return out


def summary(g, source):
    """The short tables of docs/performance.md: per device the main size
    (the largest in set mode up to 256 MiB) of every case, each cell GB/s
    for memory-bound cases and SpMV, GFLOP/s otherwise; the ratios; then
    every target over every size and mode: met count and the worst."""
    out = [f"<!-- generated by benchmarks/teams/plot_teams.py --summary from {source}; "
           "do not edit -->"]
    order = ["serial", "omp-plain", "omp-blocked", "tdp-flat", "tdp-team", "tdp-helper",
             "cuda-flat", "cuda-tiled", "cublas", "cusparse-alg1", "cusparse-alg2", "omp", "copy"]
    benches = sorted({(k[0], k[1]) for k in g})
    for bench, device in benches:
        keys = [k for k in g if k[0] == bench and k[1] == device and k[4] == "set"]
        main = {}
        for k in keys:
            if (k[3] <= 256.5 or bench == "spmv") and (k[2] not in main or k[3] > main[k[2]][3]):
                main[k[2]] = k
        if not main:
            continue
        impls = [i for i in order if any(i in g[k] for k in main.values())]
        impls += sorted({i for k in main.values() for i in g[k]} - set(impls))
        if impls == ["serial", "copy"] or impls == ["serial"]:
            continue
        rnames = []
        for k in main.values():
            for n, _, _ in ratios(g[k], bench):
                if n not in rnames:
                    rnames.append(n)
        unit = "GB/s" if bench == "spmv" else "GFLOP/s (GB/s for DD*, FFS_L8, copy)"
        out.append(f"\n**{bench} on {device}**, {unit}, medians:\n")
        out.append("| case | MiB | " + " | ".join(impls + rnames) + " |")
        out.append("|---|---|" + "---|" * (len(impls) + len(rnames)))
        for case in sorted(main, key=lambda c: (c[:3], len(c), c)):
            k = main[case]
            d = g[k]
            cells = []
            for i in impls:
                r = d.get(i)
                if r is None:
                    cells.append("")
                elif bench == "spmv" or i == "copy" or memory_bound(case):
                    cells.append(f"{r['gbs']:.0f}")
                else:
                    cells.append(f"{r['gflops']:.0f}")
            rv = {n: v for n, v, _ in ratios(d, bench)}
            cells += [f"{rv[n]:.2f}" if n in rv else "" for n in rnames]
            out.append(f"| {case} | {k[3]:g} | " + " | ".join(cells) + " |")
    # targets over every size and mode
    tally = {}
    for k, d in g.items():
        rs = ratios(d, k[0])
        if k[0] == "contract" and memory_bound(k[2]) and "copy" in d:
            for i in ("tdp-team", "tdp-helper"):
                if i in d:
                    rs.append((f"{i} / copy (memory-bound)", d["copy"]["median_s"] / d[i]["median_s"], 0.85))
        for n, v, want in rs:
            e = tally.setdefault((k[1], n, want), [0, 0, None, 0])
            e[1] += 1
            e[0] += v >= want
            e[3] += v >= 0.98 * want
            if e[2] is None or v < e[2][0]:
                e[2] = (v, f"{k[2]} {k[3]:g} MiB {k[4]}")
    out.append("\n**Targets** (every size and mode measured):\n")
    out.append("| device | ratio | target | met | within 2% | worst |")
    out.append("|---|---|---|---|---|---|")
    for (dev, n, want), (met, tot, worst, near) in sorted(tally.items()):
        out.append(f"| {dev} | {n} | {want} | {met} of {tot} | {near} of {tot} | "
                   f"{worst[0]:.2f} ({worst[1]}) |")
    return "\n".join(out) + "\n"


def chart(g, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_teams.py: no matplotlib: tables only", file=sys.stderr)
        return None
    # serial GFLOP/s per case from any host run (the largest size)
    serial = {}
    for k, d in g.items():
        if k[0] == "contract" and "serial" in d and k[4] == "set":
            if k[2] not in serial or k[3] > serial[k[2]][0]:
                serial[k[2]] = (k[3], d["serial"]["gflops"])
    fft = sorted({k for k in g if k[0] == "contract" and k[2].startswith("FFT_L16") and k[4] == "set"},
                 key=lambda k: (k[1], k[3]))
    if not fft:
        return None
    # per device, the largest size
    best = {}
    for k in fft:
        best[(k[1], k[2])] = max(best.get((k[1], k[2]), 0), k[3])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    devices = sorted({k[1] for k in fft})
    styles = {"tdp-flat": "o--", "tdp-team": "s-", "tdp-helper": "D-", "cuda-flat": "o:",
              "cuda-tiled": "s:", "cublas": "^:", "omp-plain": "v--", "omp-blocked": "v-"}
    base_label = "serial (host, one thread)"
    for dev in devices:
        for impl, st in styles.items():
            xs, ys = [], []
            for k in fft:
                if k[1] != dev or k[3] != best[(dev, k[2])] or impl not in g[k]:
                    continue
                P = int(g[k][impl]["P"])
                base = serial.get(k[2], (0, 0))[1]
                if base <= 0:
                    continue
                xs.append(P)
                ys.append(g[k][impl]["gflops"] / base)
            if xs:
                order = sorted(range(len(xs)), key=lambda i: xs[i])
                ax.plot([xs[i] for i in order], [ys[i] for i in order], st,
                        label=f"{impl} ({dev})")
    if not ax.lines:
        plt.close(fig)
        return None
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("P (points); FieldFieldTensor L = R = 16, D = 4 x 4")
    ax.set_ylabel(f"speed-up over {base_label}")
    ax.set_title("Intrepid ContractFieldFieldTensor: speed-up against P")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(outdir, "speedup_vs_P.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", nargs="+", required=True)
    ap.add_argument("--outdir", default=".")
    ap.add_argument("--markdown", default=None)
    ap.add_argument("--summary", default=None, help="write the short tables (docs) to this file")
    a = ap.parse_args()
    rows = read([p for p in a.csv if os.path.exists(p)])
    if not rows:
        print("plot_teams.py: no rows in " + " ".join(a.csv), file=sys.stderr)
        return 1
    os.makedirs(a.outdir, exist_ok=True)
    g = group([r for r in rows if not r["case"].startswith("XO_")])
    md = tables(g)
    if a.summary:
        src = ", ".join(os.path.relpath(p) for p in a.csv if os.path.exists(p))
        with open(a.summary, "w") as f:
            f.write(summary(g, src))
    path = chart(g, a.outdir)
    if path:
        md = f"![speed-up against P]({os.path.basename(path)})\n" + md
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md)
    else:
        sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
