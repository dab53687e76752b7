#!/usr/bin/env python3
"""The corpus's chart and tables from bench_corpus CSV files (one or more,
any number of rounds): every implementation's speed beside its serial
original and the fastest native code of the same run.

    plot.py corpus.csv [more.csv ...] [--out corpus.png] [--markdown corpus.md] [--summary]

Rounds of the same configuration (device, compiler, preset, layout, VVL,
threads, shape, implementation) are combined: best = the best of the rounds'
best rates, and the medians of the rounds' median rates and of their paired
ratios (each run pairs every repetition of an implementation with the serial
original's and the native's of the same repetition), with the range of the
ratios over the rounds. The summary gives, per configuration, the worst and
the median over the shapes of port / native and proto / native (the best
proto of a shape) and of port / serial at one thread: the targets of
issue 28 are port >= 1.0x serial at one thread and >= 0.95x native.
"""
import argparse
import csv
import statistics
import sys
from collections import OrderedDict, defaultdict


def read(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                if r.get("bench") == "corpus":
                    rows.append(r)
    return rows


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def combine(rows):
    """{config: {shape: {impl: stats}}}, configs and shapes in first-seen order."""
    groups = OrderedDict()
    for r in rows:
        cfg = (r["device"], r["compiler"], r["config"], r["layout"], r["vvl"], r["threads"])
        groups.setdefault(cfg, OrderedDict()).setdefault(r["shape"], OrderedDict()).setdefault(
            r["impl"], []).append(r)
    out = OrderedDict()
    for cfg, shapes in groups.items():
        out[cfg] = OrderedDict()
        for shape, impls in shapes.items():
            out[cfg][shape] = OrderedDict()
            for impl, rs in impls.items():
                rs_ = [fnum(r["ratio_serial"]) for r in rs]
                rn = [fnum(r["ratio_native"]) for r in rs]
                out[cfg][shape][impl] = {
                    "kind": rs[0]["kind"],
                    "rounds": len(rs),
                    "dims": rs[0]["dims"],
                    "best_mlups": max(fnum(r["best_mlups"]) for r in rs),
                    "median_mlups": statistics.median(fnum(r["median_mlups"]) for r in rs),
                    "median_gbs": statistics.median(fnum(r["median_gbs"]) for r in rs),
                    "x_serial": statistics.median(rs_),
                    "x_serial_range": (min(rs_), max(rs_)),
                    "x_native": statistics.median(rn),
                    "x_native_range": (min(rn), max(rn)),
                    "native": rs[-1]["native"],
                }
    return out


def label(cfg):
    device, compiler, preset, layout, vvl, threads = cfg
    t = f", {threads} thr" if threads else ""
    return f"{compiler}, {preset} {layout} VVL {vvl}{t}"


def summary(shapes):
    """worst/median over the shapes of port/native, best proto/native, port/serial."""
    port_n, proto_n, port_s = [], [], []
    for shape, impls in shapes.items():
        port = [s for i, s in impls.items() if s["kind"] == "port"]
        protos = [s for i, s in impls.items() if s["kind"] == "proto"]
        if port:
            port_n.append((port[0]["x_native"], shape))
            port_s.append((port[0]["x_serial"], shape))
        if protos:
            best = max(protos, key=lambda s: s["x_native"])
            proto_n.append((best["x_native"], shape))
        elif port:  # a shape with no proto: its port is the form to lead with
            proto_n.append((port[0]["x_native"], shape))

    def wm(v):
        if not v:
            return "-"
        w = min(v)
        return f"worst {w[0]:.2f} ({w[1]}), median {statistics.median(x for x, _ in v):.2f}"

    return wm(port_n), wm(proto_n), wm(port_s)


def markdown(data, f):
    for cfg, shapes in data.items():
        f.write(f"### {label(cfg)}\n\n{cfg[0]}\n\n")
        pn, qn, ps = summary(shapes)
        f.write(f"- port / native: {pn}\n- best proto / native: {qn}\n- port / serial: {ps}\n\n")
        f.write("| shape | size | impl | kind | best MLUPS | median MLUPS | median GB/s "
                "| x serial | x native (range) | rounds |\n")
        f.write("|---|---|---|---|---:|---:|---:|---:|---:|---:|\n")
        for shape, impls in shapes.items():
            for impl, s in impls.items():
                lo, hi = s["x_native_range"]
                f.write(f"| {shape} | {s['dims']} | {impl} | {s['kind']} | {s['best_mlups']:.1f} "
                        f"| {s['median_mlups']:.1f} | {s['median_gbs']:.2f} "
                        f"| {s['x_serial']:.3f} | {s['x_native']:.3f} ({lo:.2f}-{hi:.2f}) "
                        f"| {s['rounds']} |\n")
        f.write("\n")


def compact(data, f):
    """One line per configuration and shape: port and best proto against the
    serial original and the fastest native (what the issue's targets read)."""
    f.write("config / shape: port x serial, x native | best proto x serial, x native | "
            "fastest native MLUPS\n")
    for cfg, shapes in data.items():
        pn, qn, ps = summary(shapes)
        f.write(f"== {label(cfg)}: port/native {pn}; proto/native {qn}; port/serial {ps}\n")
        for shape, impls in shapes.items():
            port = [s for s in impls.values() if s["kind"] == "port"]
            protos = [(i, s) for i, s in impls.items() if s["kind"] == "proto"]
            nats = [(i, s) for i, s in impls.items() if s["kind"] == "native"]
            line = f"  {shape:10s}"
            if port:
                line += f" port {port[0]['x_serial']:5.2f} {port[0]['x_native']:5.2f} |"
            if protos:
                i, q = max(protos, key=lambda p: p[1]["x_native"])
                line += f" {i:9s} {q['x_serial']:5.2f} {q['x_native']:5.2f} |"
            else:
                line += " " * 22 + "|"
            if nats:
                i, n = max(nats, key=lambda p: p[1]["median_mlups"])
                line += f" {i} {n['median_mlups']:.0f}"
            f.write(line + "\n")


def chart(data, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(data)
    fig, axes = plt.subplots(n, 1, figsize=(11, 3.2 * n), squeeze=False)
    colours = {"serial": "#999999", "port": "#d62728", "proto": "#2ca02c", "native": "#1f77b4"}
    for ax, (cfg, shapes) in zip(axes[:, 0], data.items()):
        names = list(shapes)
        kinds = ["serial", "port", "proto", "native"]
        width = 0.2
        for j, kind in enumerate(kinds):
            vals = []
            for shape in names:
                impls = [s for s in shapes[shape].values() if s["kind"] == kind]
                # the best of its kind (protos, natives); NaN when the shape has none
                vals.append(max((s["x_native"] for s in impls), default=float("nan")))
            xs = [i + (j - 1.5) * width for i in range(len(names))]
            ax.bar(xs, vals, width, label=kind, color=colours[kind])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.95, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names)
        ax.set_ylabel("speed / best native")
        ax.set_title(label(cfg), fontsize=10)
        ax.legend(fontsize=8, ncol=4, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", help="PNG chart")
    ap.add_argument("--markdown", help="markdown tables (default: stdout)")
    ap.add_argument("--summary", action="store_true",
                    help="print one compact line per configuration and shape")
    a = ap.parse_args()
    data = combine(read(a.csv))
    if not data:
        sys.exit("plot.py: no corpus rows in " + " ".join(a.csv))
    if a.markdown:
        with open(a.markdown, "w") as f:
            markdown(data, f)
    elif not a.summary:
        markdown(data, sys.stdout)
    if a.summary:
        compact(data, sys.stdout)
    if a.out:
        chart(data, a.out)


if __name__ == "__main__":
    main()
