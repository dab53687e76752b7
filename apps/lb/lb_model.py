#!/usr/bin/env python3
"""A calibrated model of the lb step time, from the summary CSV rows that
run_device.sh writes (apps/lb/results/*.csv), and its prediction to 1024
nodes x 4 GPUs (weak and strong scaling). docs/lb.md ("Step-time model")
states the assumptions.

    python3 apps/lb/lb_model.py lb_perf.csv [more.csv ...] [--plot DIR]

Model, per rank (one GPU, or one core at 1 thread per rank):
  update   t_u = sites * 304 B / B_u              B_u fitted: bytes / update_ms
  halo     t_h = t_self + a * k + bytes / b       k split axes, bytes sent per
                                                  exchange (halo_mb); a, b fitted
                                                  per device kind and transport
  step     sequential   T = t_u + t_h
           overlapped   T = max(f t_u, t_h) + c (1 - f) t_u
                        f: interior share of the sites, c: the boundary
                        kernel's cost per site relative to the sweep (fitted)
Prints each measured point against the model (error %), the fitted
constants, and writes lb_model_weak_strong.svg (no plotting library needed)
into DIR. Rows without the halo_mb column (older CSVs) are skipped."""
import csv
import math
import sys

BYTES_PER_SITE = 2 * 19 * 8
NCROSS = 5
# Assumptions for what was not measured (docs/lb.md): the network between
# nodes, per GPU; and the per-axis cost when only one point gives a fit.
NET_BW = 25e9  # bytes/s per GPU: one 200 Gb/s NDR InfiniBand port per GPU
NET_LAT = 5e-6  # s per axis: MPI latency between nodes, both directions overlapped
DEFAULT_AXIS_LAT = {"cuda": 20e-6, "c": 5e-6}
GPUS_PER_NODE = 4


def num(r, k, default=None):
    try:
        return float(r[k])
    except (KeyError, TypeError, ValueError):
        return default


def load(paths):
    rows = []
    for p in paths:
        with open(p) as fp:
            for r in csv.DictReader(fp):
                if num(r, "halo_mb") is None or r.get("kernel") != "fused":
                    continue
                if r["backend"] == "c" and r.get("threads") != "1":
                    r["kind"] = "c-threads"
                else:
                    r["kind"] = r["backend"]
                rows.append(r)
    return rows


def overlapped(r):
    """A row whose step time is the overlapped one (hidden_pct measured)."""
    seq = num(r, "seq_step_ms", 0)
    return seq > 0 and abs(num(r, "step_ms") - seq) > 1e-12


def local_sites(r):
    n = int(r["ranks"])
    return int(r["nx"]) * int(r["ny"]) * int(r["nz"]) / n


def split_axes(r):
    """Axes split over ranks, from the lattice and rank count as the
    module would choose them (least surface)."""
    dims = choose_dims(int(r["ranks"]), (int(r["nx"]), int(r["ny"]), int(r["nz"])))
    return sum(1 for d in dims if d > 1), dims


def choose_dims(n, g):
    best, cost = None, None
    for a in range(1, n + 1):
        if n % a:
            continue
        for b in range(1, n // a + 1):
            if (n // a) % b:
                continue
            c = n // a // b
            dims = (a, b, c)
            if any(g[i] % dims[i] for i in range(3)):
                continue
            loc = [g[i] / dims[i] for i in range(3)]
            s = sum(2 * loc[(i + 1) % 3] * loc[(i + 2) % 3] for i in range(3) if dims[i] > 1)
            if cost is None or s < cost:
                best, cost = dims, s
    return best or (n, 1, 1)


def interior_share(loc):
    """Sites the interior kernel covers whose stencil stays off the halo."""
    nx, ny, nz = loc
    if min(loc) < 3:
        return 0.0
    return (nx - 2) * (ny - 2) * (nz - 2) / (nx * ny * nz)


def lstsq2(xs, ys):
    """y = p0 * x0 + p1 * x1, least squares (2x2 normal equations)."""
    a = sum(x[0] * x[0] for x in xs)
    b = sum(x[0] * x[1] for x in xs)
    d = sum(x[1] * x[1] for x in xs)
    e = sum(x[0] * y for x, y in zip(xs, ys))
    f = sum(x[1] * y for x, y in zip(xs, ys))
    det = a * d - b * b
    if abs(det) < 1e-30 * max(a * d, 1e-300):
        return None
    return ((e * d - b * f) / det, (a * f - b * e) / det)


class Model:
    def __init__(self, rows):
        self.bw, self.self_ms, self.halo, self.cb = {}, {}, {}, {}
        kinds = sorted({r["kind"] for r in rows})
        for kind in kinds:
            kr = [r for r in rows if r["kind"] == kind]
            # update bandwidth per rank: the median of the rows
            bws = sorted(local_sites(r) * BYTES_PER_SITE / (num(r, "update_ms") * 1e-3)
                         for r in kr if num(r, "update_ms", 0) > 0)
            if bws:
                self.bw[kind] = bws[len(bws) // 2]
            # the halo of a single rank: copies to itself, per site of a face
            one = [r for r in kr if r["ranks"] == "1" and num(r, "halo_ms", 0) > 0]
            if one:
                self.self_ms[kind] = sorted(num(r, "halo_ms") / local_sites(r) ** (2 / 3)
                                            for r in one)[len(one) // 2]
            for path in sorted({r["halo_path"] for r in kr if r["ranks"] != "1"}):
                pr = [r for r in kr if r["halo_path"] == path and r["ranks"] != "1"]
                xs, ys = [], []
                for r in pr:
                    k, dims = split_axes(r)
                    y = num(r, "halo_ms") * 1e-3 - self.t_self(kind, r, dims)
                    xs.append((k, num(r, "halo_mb") * 1e6))
                    ys.append(max(y, 0.0))
                fit = lstsq2(xs, ys) if len({x for x in xs}) >= 2 else None
                if fit is None or fit[0] < 0 or fit[1] <= 0:
                    lat = DEFAULT_AXIS_LAT.get(kind, 5e-6)
                    inv = [(y - lat * x[0]) / x[1] for x, y in zip(xs, ys) if x[1] > 0]
                    inv = max(sum(inv) / len(inv), 1e-13) if inv else 1e-13
                    fit = (lat, inv)
                self.halo[(kind, path)] = (fit[0], 1.0 / fit[1])
            # boundary cost factor: least squares of the relative error of
            # the overlapped rows, T = A + c B with A = max(f t_u, t_h), B = (1 - f) t_u
            num_, den_ = 0.0, 0.0
            for r in kr:
                if not overlapped(r):
                    continue
                tu = num(r, "update_ms") * 1e-3
                th = num(r, "halo_ms") * 1e-3
                _, dims = split_axes(r)
                f = interior_share(self.local(r, dims))
                m = num(r, "step_ms") * 1e-3
                A, B = max(f * tu, th), (1 - f) * tu
                num_ += B * (m - A) / (m * m)
                den_ += B * B / (m * m)
            self.cb[kind] = min(max(num_ / den_, 1.0), 50.0) if den_ > 0 else 1.0

    @staticmethod
    def local(r, dims):
        return (int(r["nx"]) // dims[0], int(r["ny"]) // dims[1], int(r["nz"]) // dims[2])

    def t_self(self, kind, r, dims):
        """Copies for the unsplit periodic axes, scaled by face area."""
        loc = self.local(r, dims)
        unsplit = sum(1 for d in dims if d == 1)
        per = self.self_ms.get(kind, 0.0) * 1e-3 * (loc[0] * loc[1] * loc[2]) ** (2 / 3)
        return per * unsplit / 3.0

    def step(self, kind, path, loc, dims, overlapped, links=None):
        """Seconds per step for a rank holding loc sites, ranks dims."""
        sites = loc[0] * loc[1] * loc[2]
        tu = sites * BYTES_PER_SITE / self.bw[kind]
        th = self.t_self(kind, {"nx": loc[0] * dims[0], "ny": loc[1] * dims[1],
                                "nz": loc[2] * dims[2]}, dims)
        a, b = self.halo.get((kind, path), (DEFAULT_AXIS_LAT.get(kind, 5e-6), NET_BW))
        for d in range(3):
            if dims[d] == 1:
                continue
            face = (loc[(d + 1) % 3] + 2) * (loc[(d + 2) % 3] + 2)
            nbytes = 2 * NCROSS * face * 8  # both faces of the axis
            if links and links[d] == "net":
                th += NET_LAT + a + nbytes / NET_BW
            else:
                th += a + nbytes / b
        if not overlapped:
            return tu + th, tu, th
        f = interior_share(loc)
        return max(f * tu, th) + self.cb[kind] * (1 - f) * tu, tu, th


def check(model, rows):
    print("# measured against the model (ms per step)")
    print(f"{'kind':6} {'path':7} {'ranks':>5} {'lattice':>13} {'measured':>9} {'model':>9} {'err%':>6}")
    worst = 0.0
    for r in rows:
        kind = r["kind"]
        if kind not in model.bw:
            continue
        _, dims = split_axes(r)
        loc = model.local(r, dims)
        t, _, _ = model.step(kind, r["halo_path"], loc, dims, overlapped(r))
        meas = num(r, "step_ms") * 1e-3
        err = 100.0 * (t - meas) / meas
        worst = max(worst, abs(err))
        lat = f"{r['nx']}x{r['ny']}x{r['nz']}"
        print(f"{kind:6} {r['halo_path']:7} {r['ranks']:>5} {lat:>13} {1e3 * meas:9.4f} "
              f"{1e3 * t:9.4f} {err:6.1f}")
    print(f"# worst error {worst:.1f}%")
    return worst


def node_links(dims):
    """Is each axis's ring inside a node? Ranks row-major (z fastest),
    GPUS_PER_NODE consecutive ranks per node."""
    stride = (dims[1] * dims[2], dims[2], 1)
    return ["node" if stride[d] * dims[d] <= GPUS_PER_NODE and GPUS_PER_NODE % (stride[d] * dims[d]) == 0
            else "net" for d in range(3)]


def predict(model, kind, path):
    ns = [2 ** i for i in range(0, 13)]  # 1 .. 4096 GPUs = 1024 nodes x 4
    weak, strong = [], {}
    t1 = None
    for n in ns:
        # weak: 256^3 per GPU, the global lattice grows with the split
        dims = cube_dims(n)
        t, _, _ = model.step(kind, path, (256, 256, 256), dims, True, node_links(dims))
        t1 = t1 or t
        weak.append((n, t1 / t, t))
    for name, glob, first in (("512x256x256", (512, 256, 256), 1), ("1024^3", (1024,) * 3, 4)):
        pts, tref = [], None
        for n in ns:
            if n < first:
                continue
            dims = choose_dims(n, glob)
            if any(glob[d] % dims[d] for d in range(3)):
                continue
            loc = tuple(glob[d] // dims[d] for d in range(3))
            if min(loc) < 1:
                continue
            t, _, _ = model.step(kind, path, loc, dims, True, node_links(dims))
            if tref is None:
                tref, nref = t, n
            pts.append((n, tref * nref / (t * n), t))
        strong[name] = pts
    return weak, strong


def cube_dims(n):
    """Ranks along x, y, z for n (a power of two), as even as possible."""
    dims = [1, 1, 1]
    d = 0
    while n > 1:
        dims[d] *= 2
        n //= 2
        d = (d + 1) % 3
    return tuple(dims)


def svg(path, title, series, measured):
    """A line plot, log2 x (GPUs) and linear y (efficiency), by hand."""
    w, h, l, r, t, b = 640, 400, 60, 20, 40, 50
    xmax = 4096
    X = lambda n: l + (w - l - r) * math.log2(n) / math.log2(xmax)
    Y = lambda e: t + (h - t - b) * (1.0 - min(max(e, 0.0), 1.1) / 1.1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for e in (0.0, 0.25, 0.5, 0.75, 0.9, 1.0):
        out.append(f'<line x1="{l}" y1="{Y(e):.1f}" x2="{w - r}" y2="{Y(e):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{l - 5}" y="{Y(e) + 4:.1f}" text-anchor="end">{e:.2f}</text>')
    for i in range(0, 13, 2):
        n = 2 ** i
        out.append(f'<text x="{X(n):.1f}" y="{h - b + 18}" text-anchor="middle">{n}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 10}" text-anchor="middle">GPUs (4 per node; 4096 = 1024 nodes)</text>')
    out.append(f'<text x="15" y="{h / 2}" transform="rotate(-90 15 {h / 2})" text-anchor="middle">parallel efficiency</text>')
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for i, (name, pts) in enumerate(series):
        if not pts:
            continue
        c = colours[i % len(colours)]
        d = " ".join(f"{X(n):.1f},{Y(e):.1f}" for n, e, _ in pts)
        out.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{w - r - 5}" y="{t + 15 + 15 * i}" text-anchor="end" fill="{c}">{name}</text>')
    for n, e in measured:
        out.append(f'<circle cx="{X(n):.1f}" cy="{Y(e):.1f}" r="4" fill="black"/>')
    if measured:
        out.append(f'<text x="{l + 10}" y="{h - b - 10}">dots: measured</text>')
    out.append("</svg>")
    with open(path, "w") as fp:
        fp.write("\n".join(out) + "\n")


def main(argv):
    plot = None
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--plot" and i + 1 < len(argv):
            plot = argv[i + 1]
            i += 2
            continue
        files.append(argv[i])
        i += 1
    if not files:
        print(__doc__)
        return 2
    rows = load(files)
    if not rows:
        print("lb_model: no rows with the halo columns (halo_mb) in " + ", ".join(files),
              file=sys.stderr)
        return 1
    model = Model(rows)
    print("# fitted: update bandwidth per rank (GB/s): " +
          ", ".join(f"{k} {v / 1e9:.1f}" for k, v in model.bw.items()))
    for (kind, path), (a, b) in model.halo.items():
        print(f"# fitted: halo {kind} {path}: {1e6 * a:.1f} us per axis + bytes / {b / 1e9:.1f} GB/s")
    print("# fitted: boundary cost factor " + ", ".join(f"{k} {v:.2f}" for k, v in model.cb.items()))
    worst = check(model, rows)
    if "cuda" in model.bw:
        paths = [p for (k, p) in model.halo if k == "cuda"]
        path = "ipc" if "ipc" in paths else (paths[0] if paths else "ipc")
        weak, strong = predict(model, "cuda", path)
        print(f"# prediction, cuda, halo {path} within a node, network beyond "
              f"({NET_BW / 1e9:.0f} GB/s, {1e6 * NET_LAT:.0f} us per GPU, assumed)")
        print("# GPUs  weak-eff  weak-ms  " + "  ".join(f"{k}-eff" for k in strong))
        for j, (n, e, t) in enumerate(weak):
            cols = []
            for k in strong:
                m = [p for p in strong[k] if p[0] == n]
                cols.append(f"{m[0][1]:.3f}" if m else "-")
            print(f"{n:6d}  {e:8.3f}  {1e3 * t:7.3f}  " + "  ".join(f"{c:>10}" for c in cols))
        if plot:
            meas = {}
            for r in rows:
                if r["kind"] == "cuda" and int(r["nx"]) == 256 * int(r["ranks"]) and \
                   r["ny"] == "256" and r["nz"] == "256" and r["halo_path"] in (path, "direct"):
                    meas[int(r["ranks"])] = num(r, "step_ms")
            mw = [(n, meas[1] / meas[n]) for n in sorted(meas) if 1 in meas]
            out = plot.rstrip("/") + "/lb_model_weak_strong.svg"
            svg(out, "lb D3Q19, H200: model prediction (docs/lb.md)",
                [("weak, 256^3 per GPU", weak)] +
                [(f"strong, {k}", v) for k, v in strong.items()], mw)
            print(f"# plot: {out}")
    if worst > 10.0:
        print(f"# NOTE: the model misses a measured point by {worst:.0f}% (> 10%): see the table")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
