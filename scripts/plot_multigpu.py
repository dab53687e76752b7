#!/usr/bin/env python3
"""The issue-29 table from scripts/run_multigpu.sh's scaling.csv: per app
and point, the best and median time and efficiency on 1, 2 and 4 GPUs for
each decomposition, against the goals (lb weak >= 95%, strong >= 90% on 4
GPUs; milc 24^4 >= 90%, 32^4 >= 95%), and a plot (matplotlib, if present).

    python3 scripts/plot_multigpu.py scaling.csv [scaling.png]
"""
import csv
import sys

GOALS = {("lb", "weak"): 0.95, ("lb", "strong"): 0.90, ("milc", "weak24"): 0.90,
         ("milc", "weak32"): 0.95}


def main(argv):
    if not argv:
        print(__doc__)
        return 2
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
