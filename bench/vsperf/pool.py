"""--pool: earlier sessions pooled into one table.

Pairs of one session (one testbed boot, one run of this script) are not independent: on the
emulated testbed a whole session can sit at its own level for one tool. Pooling the pairs of
several sessions as if they were independent gives an interval far too narrow. --pool treats
the session as the unit: each session's median ratio is one value, and the interval is the
median's order-statistics interval over sessions (independent boots)."""
import json
import math
import os
import shlex
import sys

from .common import FORMAT, FORMAT_VERSION, die, size_text, write_json
from .modes import print_modes, run_modes
from .report import case_width, fmt_ratio, print_summary
from .stats import RATIO_METRICS, intraclass_correlation, median, ratio_summary, spread, verdict

POOL_MIN_SESSIONS = 5  # min..max of 5 sessions covers the median at 93.8 %; fewer, far less


def load_session(path):
    """A vs-perftest.json (or a folder holding one); dies with a message naming the file."""
    f = os.path.join(path, "vs-perftest.json") if os.path.isdir(path) else path
    try:
        with open(f) as fh:
            doc = json.load(fh)
    except OSError as e:
        die(f"--pool: cannot read {f}: {e.strerror}")
    except ValueError as e:
        die(f"--pool: {f} is not JSON: {e}")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        die(f"--pool: {f} is not a vs-perftest result (format '{FORMAT}' expected, got "
            f"{doc.get('format') if isinstance(doc, dict) else type(doc).__name__!r})")
    if doc.get("format_version") != FORMAT_VERSION:
        die(f"--pool: {f} has format_version {doc.get('format_version')}; this script reads "
            f"{FORMAT_VERSION}")
    if not isinstance(doc.get("rows"), list):
        die(f"--pool: {f} has no 'rows' list")
    doc["_path"] = f
    return doc


def pair_ratios(row, metric):
    """The per-pair ratios rdmabench / other of one point (pairs where both ran)."""
    out = []
    for p in row.get("pairs", []):
        a, b = p.get("rdmabench"), p.get("perftest")
        if a and b and a.get(metric) is not None and b.get(metric):
            out.append(a[metric] / b[metric])
    return out


def pool_point(per_session):
    """per_session: [(session label, [pair ratios])]; the session-level pooled block."""
    meds = [median(rs) for _, rs in per_session if rs]
    all_pairs = [r for _, rs in per_session for r in rs]
    icc = intraclass_correlation([[math.log(r) for r in rs] for _, rs in per_session if rs])
    block = {"ratio": spread(meds), "pairs_as_independent": spread(all_pairs),
             "sessions": len(meds), "pairs": len(all_pairs),
             "session_medians": meds, "icc_log_ratio": icc}
    block["median_difference"] = block["ratio"]["median"] - 1 if block["ratio"] else None
    if icc is not None and meds:
        m = len(all_pairs) / len(meds)
        block["effective_pairs"] = len(all_pairs) / (1 + (m - 1) * icc)
    else:
        block["effective_pairs"] = None
    return block


def pool_sessions(docs):
    """Pools vs-perftest documents; refuses to mix comparisons, MTUs, or --long with short runs.
    Returns (points, sessions)."""
    first = docs[0]
    for d in docs[1:]:
        for key, what in (("compared_with", "compared with"),):
            if d.get(key) != first.get(key):
                die(f"--pool: {d['_path']} compared rdmabench with {d.get(key)!r}, "
                    f"{first['_path']} with {first.get(key)!r}; pool one comparison at a time")
        mtu_a = (d.get("settings") or {}).get("mtu")
        mtu_b = (first.get("settings") or {}).get("mtu")
        if mtu_a != mtu_b:
            die(f"--pool: {d['_path']} ran at MTU {mtu_a}, {first['_path']} at MTU {mtu_b}; "
                "pool sessions of one MTU")
        long_a = bool((d.get("settings") or {}).get("long"))
        long_b = bool((first.get("settings") or {}).get("long"))
        if long_a != long_b:
            die(f"--pool: {d['_path'] if long_a else first['_path']} ran --long, "
                f"{first['_path'] if long_a else d['_path']} did not; pool sessions of one "
                "length (iterations, warm-up)")
    points = {}
    for i, d in enumerate(docs):
        for row in d["rows"]:
            key = (row.get("case"), row.get("size"))
            if None in key:
                die(f"--pool: {d['_path']}: a row without 'case' or 'size'")
            pt = points.setdefault(key, {"case": key[0], "size": key[1], "mode": row.get("mode"),
                                         "metrics": {}})
            for metric, _ in RATIO_METRICS:
                rs = pair_ratios(row, metric)
                if rs:
                    pt["metrics"].setdefault(metric, []).append((i, rs))
    out = []
    for key in sorted(points, key=lambda k: (k[0], k[1])):
        pt = points[key]
        row = {"case": pt["case"], "size": pt["size"], "mode": pt["mode"]}
        for metric, per in pt["metrics"].items():
            row[metric] = pool_point(per)
        out.append(row)
    sessions = [{"path": d["_path"], "date": d.get("date"), "partial": bool(d.get("partial")),
                 "settings": d.get("settings"), "argv": d.get("argv")} for d in docs]
    return out, sessions


def pool_verdict(block, higher_is_better, tolerance):
    if block["sessions"] < POOL_MIN_SESSIONS:
        return f"n/a: {block['sessions']} session(s), a verdict needs {POOL_MIN_SESSIONS}"
    return verdict(block, higher_is_better, tolerance)


def print_pool(rows, sessions, tolerance, file=None):
    file = file or sys.stdout
    print(f"{len(sessions)} sessions pooled, each one value per point (its median ratio):",
          file=file)
    for s in sessions:
        print(f"  {s['path']}  {s['date'] or '-'}{'  (partial)' if s['partial'] else ''}  "
              f"argv: {shlex.join(s['argv']) if s['argv'] else '-'}", file=file)
    print("\nratio = rdmabench / other; over sessions: median of the session medians [~95% CI over "
          "sessions] (coverage); pairs as independent: the same over every pair (too narrow when "
          "ICC > 0); ICC: share of the log-ratio variance between sessions", file=file)
    cw = case_width(rows)
    print(f"{'case':<{cw}}{'size':>5} {'metric':<11}{'sess':>5}{'pairs':>6}  "
          f"{'over sessions':<22}{'cov':>6}  {'pairs as independent':<22}{'ICC':>5}{'eff.n':>6}  "
          f"verdict (over sessions)", file=file)
    for r in rows:
        for metric, higher in RATIO_METRICS:
            b = r.get(metric)
            if not b:
                continue
            pi = b["pairs_as_independent"]
            pair_txt = f"{pi['median']:.3f} [{pi['ci_low']:.2f}..{pi['ci_high']:.2f}]"
            icc = "-" if b["icc_log_ratio"] is None else f"{b['icc_log_ratio']:.2f}"
            eff = "-" if b["effective_pairs"] is None else f"{b['effective_pairs']:.0f}"
            print(f"{r['case']:<{cw}}{size_text(r['size']):>5} {metric:<11}{b['sessions']:>5}"
                  f"{b['pairs']:>6}  {fmt_ratio(b)}{b['ratio']['ci_coverage'] * 100:>5.1f}%  "
                  f"{pair_txt:<22}{icc:>5}{eff:>6}  {pool_verdict(b, higher, tolerance)}",
                  file=file)


def run_pool(args):
    if args.pool_out is not None and not args.pool_out:
        die("--pool-out: empty file name")
    docs = [load_session(p) for p in args.pool]
    rows, sessions = pool_sessions(docs)
    if not rows:
        die("--pool: no point has pairs in any of the sessions")
    print_pool(rows, sessions, args.tolerance)
    summary = ratio_summary(rows)
    print_summary(summary, "session medians")
    modes = run_modes(docs)
    print_modes(modes)
    if args.pool_out:
        write_json(args.pool_out, {"format": FORMAT + "-pool", "format_version": FORMAT_VERSION,
                                   "sessions": sessions, "tolerance": args.tolerance,
                                   "rows": rows, "summary": summary, "modes": modes})
        print(f"\nJSON: {args.pool_out}")
    return 0
