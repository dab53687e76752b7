#!/usr/bin/python3
"""Charts and tables from the benchmark CSVs (bench_stream / bench_layout --csv).

    /usr/bin/python3 benchmarks/plot.py --stream stream.csv --layout layout.csv \\
        [--outdir docs/img [--prefix NAME-]] [--markdown tables.md]

Writes into --outdir, for each backend (c, cuda) found in the CSVs:
  stream_<backend>.png      % of STREAM Triad per kernel: the STREAM kernels
                            natively and through targetDP, and each layout
                            kernel in its best layout/VVL/TPB
  layout_<backend>-<preset>.png
                            heat maps layout x VVL of % of Triad, one panel
                            per layout kernel (GPU: at the most common TPB)
With --markdown, also the tables that docs/performance.md quotes.

"% of Triad" is always a kernel's best bandwidth over the best bandwidth of
the native Triad measured in the same run (the pct_triad column).
Runs headless (Agg); needs Debian's python3-matplotlib only for the PNGs.
"""
import argparse
import csv
import os
import sys
from collections import OrderedDict

STREAM_KERNELS = ["Copy", "Mul", "Add", "Triad", "Dot", "Nstream"]
LAYOUT_KERNELS = ["Scale3", "LBCollide", "SU3MatVec", "SU3MatVecOnce", "SU3MatVecPair"]
LAYOUTS = ["AOS", "SOA", "AOSOA"]


def read_rows(paths):
    rows = []
    for path in paths or []:
        if not os.path.exists(path):  # e.g. a device run whose sweeps were skipped
            print("plot.py: no %s, skipped" % path, file=sys.stderr)
            continue
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    for r in rows:
        for k in ("vvl", "sal", "tpb", "size", "reps"):
            r[k] = int(r[k])
        for k in ("best_GBs", "median_GBs", "pct_triad"):
            r[k] = float(r[k])
        r["ratio"] = float(r["ratio"]) if r["ratio"] else None
    return rows


def build_label(r):
    label = "%s %s VVL %d" % (r["config"], r["layout"], r["vvl"])
    return label + (" TPB %d" % r["tpb"] if r["backend"] == "cuda" else "")


def latest(rows, key):
    """The last row for each key (a re-run replaces an earlier one)."""
    out = OrderedDict()
    for r in rows:
        out[key(r)] = r
    return out


def best_layout_rows(layout_rows, backend):
    """kernel -> the targetDP row with the highest % of Triad for this backend, for the
    charted layout kernels (bench_layout's block-size and mapping variants are not charted)."""
    best = {}
    for r in layout_rows:
        if r["backend"] != backend or r["impl"] != "targetDP" or r["kernel"] not in LAYOUT_KERNELS:
            continue
        if r["kernel"] not in best or r["pct_triad"] > best[r["kernel"]]["pct_triad"]:
            best[r["kernel"]] = r
    return best


# ---------------------------------------------------------------------------
# Charts


def plot_stream(plt, stream_rows, layout_rows, backend, path):
    rows = [r for r in stream_rows if r["backend"] == backend and r["precision"] == "double"]
    rows = list(latest(rows, lambda r: (build_label(r), r["kernel"], r["impl"])).values())
    builds = list(OrderedDict.fromkeys(build_label(r) for r in rows))
    best = best_layout_rows(layout_rows, backend)
    kernels = STREAM_KERNELS + [k for k in LAYOUT_KERNELS if k in best]
    series = []  # (label, {kernel: pct}, hatch): the STREAM kernels, per build
    for b in builds:
        for impl, hatch in (("native", "//"), ("targetDP", None)):
            vals = {r["kernel"]: r["pct_triad"] for r in rows
                    if build_label(r) == b and r["impl"] == impl}
            if vals:
                series.append(("%s, %s" % (impl, b), vals, hatch))
    if not series and not best:
        return False
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(kernels) + 2), 4.8))
    width = 0.8 / max(1, len(series))
    for i, (label, vals, hatch) in enumerate(series):
        xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(STREAM_KERNELS))]
        ys = [vals.get(k, 0.0) for k in STREAM_KERNELS]
        ax.bar(xs, ys, width, label=label, hatch=hatch, edgecolor="black", linewidth=0.4)
    if best:  # one bar per layout kernel: its best configuration in the sweep
        xs = [kernels.index(k) for k in best]
        ax.bar(xs, [best[k]["pct_triad"] for k in best], 0.4, color="grey", edgecolor="black",
               linewidth=0.4, label="targetDP, best layout / VVL of the sweep")
    names = []
    for k in kernels:
        if k in best:
            b = best[k]
            names.append("%s\n%s VVL %d%s" % (k, b["layout"], b["vvl"],
                                             " TPB %d" % b["tpb"] if backend == "cuda" else ""))
        else:
            names.append(k)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(names, fontsize=8)
    ax.axhline(100, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylabel("% of native STREAM Triad (best)")
    device = (rows or list(best.values()))[0]["device"]
    ax.set_title("%s backend, %s: STREAM kernels and layout kernels (best layout)"
                 % (backend, device), fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_layout(plt, layout_rows, backend, config, path):
    rows = [r for r in layout_rows if r["backend"] == backend and r["config"] == config
            and r["impl"] == "targetDP"]
    if not rows:
        return False
    tpbs = [r["tpb"] for r in rows]
    tpb = max(set(tpbs), key=tpbs.count)
    rows = latest([r for r in rows if r["tpb"] == tpb], lambda r: (r["kernel"], r["layout"], r["vvl"]))
    vvls = sorted({k[2] for k in rows})
    kernels = [k for k in LAYOUT_KERNELS if any(key[0] == k for key in rows)]
    fig, axes = plt.subplots(1, len(kernels), figsize=(4.2 * len(kernels), 3.0), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        grid = [[rows[(kernel, l, v)]["pct_triad"] if (kernel, l, v) in rows else float("nan")
                 for v in vvls] for l in LAYOUTS]
        im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=max(100, max(
            x for row in grid for x in row if x == x)), aspect="auto")
        for i, row in enumerate(grid):
            for j, x in enumerate(row):
                if x == x:
                    ax.text(j, i, "%.0f" % x, ha="center", va="center", fontsize=8,
                            color="white" if x < 60 else "black")
        ax.set_xticks(range(len(vvls)))
        ax.set_xticklabels([str(v) for v in vvls])
        ax.set_yticks(range(len(LAYOUTS)))
        ax.set_yticklabels(LAYOUTS)
        ax.set_xlabel("VVL")
        ax.set_title(kernel, fontsize=10)
        fig.colorbar(im, ax=ax, label="% of Triad")
    extra = " TPB %d" % tpb if backend == "cuda" else ""
    fig.suptitle("%s backend (%s%s), %s: %% of Triad" % (backend, config, extra,
                                                        rows[next(iter(rows))]["device"]),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------
# Markdown tables


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def md_stream(stream_rows):
    """One table per build and precision. Several runs of one build (the
    interleaved rounds of run_device.sh) are combined: best = the best of
    all rounds, median = the median of the rounds' medians, targetDP/native
    = the median of the rounds' paired ratios (and their range), % of Triad
    = the best over the best native Triad of all rounds."""
    out = []
    groups = OrderedDict()
    for r in stream_rows:
        groups.setdefault((r["backend"], build_label(r), r["precision"], r["device"],
                           r["threads"], r["size"]), []).append(r)
    for (backend, label, prec, device, threads, size), rows in groups.items():
        kernels = list(OrderedDict.fromkeys(r["kernel"] for r in rows))
        by = OrderedDict()
        for r in rows:
            by.setdefault((r["kernel"], r["impl"]), []).append(r)
        rounds = max(len(v) for v in by.values())
        commits = sorted({r.get("commit") or "" for r in rows} - {""})
        who = device + (", %s threads" % threads if threads else "")
        out.append("**%s backend, %s, %s, %d elements per array** (%s; %d round%s%s)\n" % (
            backend, label, prec, size, who, rounds, "s" if rounds > 1 else "",
            ", commit " + " ".join(commits) if commits else ""))
        triad = max([r["best_GBs"] for r in by.get(("Triad", "native"), [])] or [float("nan")])
        out.append("| kernel | native best GB/s | native median | targetDP best GB/s "
                   "| targetDP median | targetDP/native (range) | % of Triad | native used |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---|")
        for k in kernels:
            n, t = by.get((k, "native"), []), by.get((k, "targetDP"), [])
            best = lambda rs: "%.1f" % max(r["best_GBs"] for r in rs) if rs else "–"
            med = lambda rs: "%.1f" % median([r["median_GBs"] for r in rs]) if rs else "–"
            ratios = [r["ratio"] for r in t if r["ratio"] is not None]
            ratio = "–"
            if ratios:
                ratio = "%.3f" % median(ratios)
                if len(ratios) > 1:
                    ratio += " (%.3f–%.3f)" % (min(ratios), max(ratios))
            pct = ("%.1f" % (100.0 * max(r["best_GBs"] for r in t) / triad)
                   if t and triad > 0 else "–")  # tiny test sizes round to 0 GB/s
            used = sorted({r.get("native_variant") or "" for r in n} - {""})
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, best(n), med(n), best(t), med(t), ratio, pct, "; ".join(used) or "–"))
        out.append("")
    return out


def md_layout(layout_rows):
    out = []
    for backend, config in OrderedDict.fromkeys((r["backend"], r["config"]) for r in layout_rows):
        rows = [r for r in layout_rows if r["backend"] == backend and r["config"] == config]
        triad = [r["best_GBs"] for r in rows if r["kernel"] == "Triad"]
        out.append("**%s backend, preset %s** (%s): best and worst configuration per kernel; "
                   "Triad %.0f–%.0f GB/s across the runs\n"
                   % (backend, config, rows[0]["device"], min(triad), max(triad)))
        out.append("| kernel | best configuration | GB/s | % of Triad | worst configuration "
                   "| % of Triad |")
        out.append("|---|---|---:|---:|---|---:|")
        for k in LAYOUT_KERNELS:
            kr = [r for r in rows if r["kernel"] == k]
            if not kr:
                continue
            b = max(kr, key=lambda r: r["pct_triad"])
            w = min(kr, key=lambda r: r["pct_triad"])
            name = lambda r: "%s VVL %d%s" % (r["layout"], r["vvl"],
                                             " TPB %d" % r["tpb"] if backend == "cuda" else "")
            out.append("| %s | %s | %.1f | %.1f | %s | %.1f |" % (
                k, name(b), b["best_GBs"], b["pct_triad"], name(w), w["pct_triad"]))
        out.append("")
        for tpb in sorted({r["tpb"] for r in rows}):
            sub = latest([r for r in rows if r["tpb"] == tpb and r["impl"] == "targetDP"],
                         lambda r: (r["kernel"], r["layout"], r["vvl"]))
            vvls = sorted({key[2] for key in sub})
            if backend == "cuda":
                out.append("TPB %d, %% of Triad:\n" % tpb)
            out.append("| kernel | layout | " + " | ".join("VVL %d" % v for v in vvls) + " |")
            out.append("|---|---|" + "---:|" * len(vvls))
            for k in LAYOUT_KERNELS:
                for l in LAYOUTS:
                    if not any((k, l, v) in sub for v in vvls):
                        continue
                    out.append("| %s | %s | " % (k, l) + " | ".join(
                        "%.0f" % sub[(k, l, v)]["pct_triad"] if (k, l, v) in sub else "–"
                        for v in vvls) + " |")
            out.append("")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stream", nargs="*", default=[], help="CSV files from bench_stream")
    ap.add_argument("--layout", nargs="*", default=[], help="CSV files from bench_layout")
    ap.add_argument("--outdir", default=None, help="write PNGs here (e.g. docs/img)")
    ap.add_argument("--prefix", default="", help="prefix of the PNG names (e.g. devbox-)")
    ap.add_argument("--markdown", default=None, help="write the tables here ('-': stdout)")
    args = ap.parse_args()
    stream_rows, layout_rows = read_rows(args.stream), read_rows(args.layout)
    if not stream_rows and not layout_rows:
        sys.exit("plot.py: no rows in the CSVs given")

    if args.outdir:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        os.makedirs(args.outdir, exist_ok=True)
        backends = OrderedDict.fromkeys(r["backend"] for r in stream_rows + layout_rows)
        for backend in backends:
            path = os.path.join(args.outdir, "%sstream_%s.png" % (args.prefix, backend))
            if plot_stream(plt, stream_rows, layout_rows, backend, path):
                print("wrote", path)
            for config in OrderedDict.fromkeys(r["config"] for r in layout_rows
                                               if r["backend"] == backend):
                path = os.path.join(args.outdir, "%slayout_%s-%s.png" % (args.prefix, backend,
                                                                       config))
                if plot_layout(plt, layout_rows, backend, config, path):
                    print("wrote", path)

    if args.markdown:
        text = "\n".join(md_stream(stream_rows) + md_layout(layout_rows)) + "\n"
        if args.markdown == "-":
            sys.stdout.write(text)
        else:
            with open(args.markdown, "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
