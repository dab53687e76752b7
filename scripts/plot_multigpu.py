#!/usr/bin/env python3
"""The issue-29 table from scripts/run_multigpu.sh's scaling.csv: per app
and point, the best and median time and efficiency on 1, 2 and 4 GPUs for
each decomposition, against the goals (lb weak >= 95%, strong >= 90% on 4
GPUs; milc 24^4 >= 90%, 32^4 >= 95%), and a plot (matplotlib, if present).

    python3 scripts/plot_multigpu.py scaling.csv [scaling.png]
    python3 scripts/plot_multigpu.py --markdown OUT   (the docs' tables of a run)
    python3 scripts/plot_multigpu.py --docs OUT       (written into docs/lb.md, docs/milc.md)

OUT: the folder of one run of scripts/run_multigpu.sh (scaling.csv,
lb_breakdown.csv, milc_breakdown.csv, models.txt).
"""
import csv
import os
import re
import sys

GOALS = {("lb", "weak"): 0.95, ("lb", "strong"): 0.90, ("milc", "weak24"): 0.90,
         ("milc", "weak32"): 0.95}


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    if argv[0] in ("--markdown", "--docs"):
        if len(argv) != 2 or not os.path.isfile(os.path.join(argv[1], "scaling.csv")):
            print(f"plot_multigpu.py {argv[0]} OUT: OUT must hold a run's scaling.csv", file=sys.stderr)
            return 2
        return markdown(argv[1]) if argv[0] == "--markdown" else write_docs(argv[1])
    rows = [r for r in csv.DictReader(open(argv[0])) if r.get("best") not in (None, "", "-")]
    main_rows = [r for r in rows if r["variant"] in ("auto", "ahead")]
    print(f"{'app':5} {'point':7} {'GPUs':>4} {'split':>8} {'best':>10} {'median':>10} {'unit':>13} "
          f"{'eff best':>8} {'eff med':>8}  goal")
    for r in rows:
        goal = GOALS.get((r["app"], r["point"]))
        e = r.get("eff_best") or ""
        verdict = ""
        if goal and e and r["gpus"] != "1" and r in main_rows:
            verdict = f"{goal:.2f} {'met' if float(e) >= goal else 'NOT met'}"
        print(f"{r['app']:5} {r['point']:7} {r['gpus']:>4} {r['decomp']:>8} {r['best']:>10} "
              f"{r['median']:>10} {r['unit']:>13} {e:>8} {r.get('eff_median') or '':>8}  {verdict}"
              f"{'' if r in main_rows else '  (' + r['variant'] + ')'}"
              f"{'' if r['valid'] == 'ok' else '  INVALID: ' + r['valid']}")
    if len(argv) < 2:
        return 0
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: table only")
        return 0
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, app in zip(axes, ("lb", "milc")):
        curves = {}
        for r in main_rows:
            if r["app"] != app or not r.get("eff_best"):
                continue
            split = r["decomp"] if r["gpus"] != "1" else "1"
            key = (r["point"], split if r["gpus"] != "1" else None)
            curves.setdefault(r["point"], {}).setdefault(split, (int(r["gpus"]), float(r["eff_best"])))
        for point, by in sorted(curves.items()):
            one = by.get("1")
            for split, (n, e) in sorted(by.items()):
                if split == "1":
                    continue
                pts = ([one] if one else []) + [(n, e)]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{point}, {split}")
        for (a, p), g in GOALS.items():
            if a == app:
                ax.axhline(g, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4])
        ax.set_xticklabels(["1", "2", "4"])
        ax.set_ylim(0.4, 1.05)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("efficiency (best of the runs)")
        ax.set_title(f"{app}: {rows[0]['device']} at {rows[0]['commit']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.savefig(argv[1], dpi=110, bbox_inches="tight")
    print("wrote", argv[1])
    return 0


# ---------------------------------------------------------------- the docs' tables
# --markdown OUT prints, and --docs OUT writes into docs/lb.md and
# docs/milc.md between <!-- multigpu:NAME --> and <!-- /multigpu:NAME -->,
# the tables of the issue-29 sections from one run's CSVs (scaling.csv,
# lb_breakdown.csv, milc_breakdown.csv, models.txt): no number in those
# sections is typed by hand.

def _rows(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def _median(xs):
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def _cell(r):
    if r is None or r.get("best") in (None, "", "-"):
        return "–"
    e = r.get("eff_best") or ""
    em = r.get("eff_median") or ""
    eff = f" ({100 * float(e):.1f}% / {100 * float(em):.1f}%)" if e and em and r["gpus"] != "1" else ""
    bad = "" if r["valid"] == "ok" else f" **invalid: {r['valid']}**"
    return f"{r['best']} / {r['median']}{eff}{bad}"


def _source(rows):
    if not rows:
        return "_no rows_"
    devs = sorted({r["device"] for r in rows})
    commits = sorted({r["commit"] for r in rows})
    cfgs = sorted({r.get("config", "") for r in rows if r.get("config")})
    reps = sorted({r["reps"] for r in rows})
    return (f"_{', '.join(devs)}, commit {', '.join(commits)}, builds {'; '.join(cfgs) or '?'}, "
            f"runs per point {'/'.join(reps)}; cells: best / median (efficiency best / median)_")


def _results(rows, app, points, goals):
    main = [r for r in rows if r["app"] == app and r["variant"] in ("auto", "ahead")]
    cols = sorted({(int(r["gpus"]), r["decomp"]) for r in main if r["gpus"] != "1"})
    head = "| run | 1 GPU | " + " | ".join(f"{n} GPUs ({d.replace('x', ',')})" for n, d in cols) + " | goal |"
    out = [head, "|" + "---|" * (len(cols) + 3)]
    for point, label in points:
        pr = [r for r in main if r["point"] == point]
        if not pr:
            continue
        # the label from the rows: the lattice actually run
        label = label.format(local=pr[0]["local"].replace("x", "×"), glob=pr[0]["global"].replace("x", "×"))
        one = next((r for r in pr if r["gpus"] == "1"), None)
        cells = [_cell(next((r for r in pr if (int(r["gpus"]), r["decomp"]) == c), None)) for c in cols]
        out.append(f"| {label} | {_cell(one)} | " + " | ".join(cells) + f" | {goals.get(point, '')} |")
    if app == "lb":
        hid = [(c, next((r for r in main if (int(r["gpus"]), r["decomp"]) == c and r.get("hidden_pct")), None))
               for c in cols]
        out.append("| halo hidden by the overlapped steps (`hidden_pct`, median) | – | " +
                   " | ".join(f"{r['hidden_pct']}%" if r else "–" for c, r in hid) + " | ≥ 80% |")
    return out


def _levers(rows, app):
    lev = [r for r in rows if r["app"] == app and r["variant"] not in ("auto", "ahead")]
    if not lev:
        return ["_no lever rows_"]
    main = {(r["point"], r["gpus"], r["decomp"]): r for r in rows
            if r["app"] == app and r["variant"] in ("auto", "ahead")}
    out = ["| lever | GPUs (split) | point | time best | the table's median (same point) | ratio |",
           "|---|---|---|---|---|---|"]
    for r in lev:
        base = main.get((r["point"], r["gpus"], r["decomp"]))
        ratio = ""
        if base and base["median"] not in ("", "-") and r["best"] not in ("", "-"):
            ratio = f"{float(r['best']) / float(base['median']):.3f}"
        bad = "" if r["valid"] == "ok" else f" **invalid: {r['valid']}**"
        out.append(f"| {r['variant']} ({r['transport'] or '–'}) | {r['gpus']} ({r['decomp'].replace('x', ',')}) | "
                   f"{r['point']} | {r['best']} {r['unit']}{bad} | {base['median'] if base else '–'} | {ratio} |")
    return out


def _lb_breakdown(rows):
    if not rows:
        return ["_no lb_breakdown.csv rows_"]
    cols = ["step_ms", "interior_ms", "lead_ms", "self_fill_ms", "exchange_ms", "pack_ms", "transfer_ms",
            "unpack_ms", "self_ms", "halo_idle_ms", "boundary_ms", "gap_ms", "host_queue_ms", "host_wait_ms",
            "seq_step_ms"]
    out = ["| GPUs (split) | lattice | " + " | ".join(c[:-3] for c in cols) + " |",
           "|" + "---|" * (len(cols) + 2)]
    for r in rows:
        # a step other than the default (lb --fill_pieces 1 --self_again 1 --one_boundary 0: as before
        # issue 29's changes to the step), named after the split
        old = [f"{k} {r[k]}" for k, d in (("fill_pieces", "2"), ("self_again", "0"), ("one_boundary", "1"))
               if r.get(k, d) not in ("", d)]
        out.append(f"| {r['ranks']} ({r['px']},{r['py']},{r['pz']}){' ' + ', '.join(old) if old else ''} | "
                   f"{r['nx']}×{r['ny']}×{r['nz']} | " +
                   " | ".join(r.get(c, "") for c in cols) + " |")
    return out


def _milc_breakdown(rows):
    if not rows:
        return ["_no milc_breakdown.csv rows_"]
    cols = ["us_per_iter", "dslash_us", "blas_us", "reduce_us", "gap_us", "exch_us", "halo_host_us",
            "wait_host_us"]
    groups = {}
    for r in rows:
        key = (int(r["ranks"]), f"{r['px']},{r['py']},{r['pz']},{r['pt']}", r["local"], r["cg"], r["sums"][:40],
               r["halo_path"])
        groups.setdefault(key, []).append(r)
    out = ["| GPUs (split) | lattice | cg | sums | halo | solves | " +
           " | ".join(c[:-3] if c.endswith("_us") else "iteration" for c in cols) + " |",
           "|" + "---|" * (len(cols) + 6)]
    for key in sorted(groups):
        g = groups[key]
        med = [_median([float(x[c]) for x in g if x.get(c) not in (None, "")]) for c in cols]
        out.append(f"| {key[0]} ({key[1]}) | {key[2]} | {key[3]} | {key[4]} | {key[5]} | {len(g)} | " +
                   " | ".join("–" if m is None else f"{m:.1f}" for m in med) + " |")
    out.append("")
    out.append("_µs per iteration, the median over the timed solves of each configuration (the slowest rank's)_")
    return out


def _models(path, app):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return ["_no models.txt_"]
    # models.txt is lb_model's output, then milc_model's (from '# milc CG')
    i = next((k for k, l in enumerate(lines) if l.startswith("# milc CG")), len(lines))
    part = lines[:i] if app == "lb" else lines[i:]
    keep = [l for l in part if l.startswith("#")]
    return ["```"] + (keep or ["(no model output)"]) + ["```"]


def tables(out_dir):
    rows = [r for r in _rows(os.path.join(out_dir, "scaling.csv"))]
    lbb = _rows(os.path.join(out_dir, "lb_breakdown.csv"))
    mib = _rows(os.path.join(out_dir, "milc_breakdown.csv"))
    mt = os.path.join(out_dir, "models.txt")
    lbr = [r for r in rows if r["app"] == "lb"]
    mir = [r for r in rows if r["app"] == "milc"]
    return {
        "lb-results": [_source(lbr), ""] + _results(rows, "lb", [
            ("weak", "weak, {local} per GPU, step ms"), ("strong", "strong, {glob}, step ms")],
            {"weak": "≥ 95%", "strong": "≥ 90% (4 GPUs)"}),
        "lb-breakdown": _lb_breakdown(lbb),
        "lb-levers": _levers(rows, "lb"),
        "lb-models": _models(mt, "lb"),
        "milc-results": [_source(mir), ""] + _results(rows, "milc", [
            (p, "{local} per GPU, CG µs/iteration") for p in
            sorted({r["point"] for r in mir}, key=lambda p: int(p[4:]) if p[4:].isdigit() else 0)],
            {"weak24": "≥ 90%", "weak32": "≥ 95%"}),
        "milc-breakdown": _milc_breakdown(mib),
        "milc-levers": _levers(rows, "milc"),
        "milc-models": _models(mt, "milc"),
    }


def markdown(out_dir):
    for name, lines in tables(out_dir).items():
        print(f"<!-- multigpu:{name} -->")
        print("\n".join(lines))
        print(f"<!-- /multigpu:{name} -->\n")
    return 0


def write_docs(out_dir, docs=("docs/lb.md", "docs/milc.md")):
    """Replace each marked block of the docs by its table; a marker not
    found is an error (a block silently not filled is a stale number)."""
    t = tables(out_dir)
    filled = set()
    for doc in docs:
        text = open(doc).read()
        for name, lines in t.items():
            pat = re.compile(rf"(<!-- multigpu:{re.escape(name)} -->\n).*?(<!-- /multigpu:{re.escape(name)} -->)",
                             re.S)
            if pat.search(text):
                text = pat.sub(lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(2), text)
                filled.add(name)
        with open(doc, "w") as f:
            f.write(text)
    missing = sorted(set(t) - filled)
    if missing:
        print("plot_multigpu.py: no marked block for " + ", ".join(missing) + " in " + ", ".join(docs),
              file=sys.stderr)
        return 1
    print(f"filled {len(filled)} tables in {', '.join(docs)} from {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
