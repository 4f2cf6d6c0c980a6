"""Run modes of the latency points, over pooled sessions.

On the emulated testbed a latency run's p50 sits in one of two modes, a fast one and a slow one
about 20 us above it (read and atomics), for perftest as for rdmabench, and a run stays in its
mode from start to end. A session's median of a few pairs then mostly tells which tool drew the
slow mode more often. This counts each tool's runs in the slow mode (a run is slow above
SLOW_FACTOR times the fastest run of either tool at that point) and compares the tools within
the fast mode, where a difference of the tools themselves shows."""
from .common import size_text
from .stats import median

SLOW_FACTOR = 1.3
TOOLS = ("rdmabench", "perftest")  # "perftest": the other binary with --baseline too


def run_modes(docs):
    """The latency points of `docs` (vs-perftest documents): per point, each tool's runs, runs
    in the slow mode and median p50 of its fast-mode runs, and the fast-mode ratio."""
    points = {}
    for d in docs:
        for row in d["rows"]:
            if row.get("mode") != "lat":
                continue
            pt = points.setdefault((row.get("case"), row.get("size")), {t: [] for t in TOOLS})
            for p in row.get("pairs", []):
                for t in TOOLS:
                    v = (p.get(t) or {}).get("p50_us")
                    if v:
                        pt[t].append(v)
    out = []
    for (case, size), runs in sorted(points.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if not all(runs[t] for t in TOOLS):
            continue
        threshold = SLOW_FACTOR * min(min(runs[t]) for t in TOOLS)
        row = {"case": case, "size": size, "slow_above_us": threshold, "runs": {}, "slow": {},
               "fast_median_us": {}}
        for t in TOOLS:
            fast = [v for v in runs[t] if v < threshold]
            row["runs"][t] = len(runs[t])
            row["slow"][t] = len(runs[t]) - len(fast)
            row["fast_median_us"][t] = median(fast) if fast else None
        a, b = (row["fast_median_us"][t] for t in TOOLS)
        row["fast_ratio"] = a / b if a and b else None
        out.append(row)
    return out


def print_modes(rows, file=None):
    if not rows:
        return
    print(f"\nRun modes of the latency points: a run is slow above {SLOW_FACTOR}x the fastest "
          "run of either tool there (p50); fast-mode medians and their ratio rdmabench / other",
          file=file)
    print(f"{'case':<18}{'size':>5} {'runs':>9} {'slow runs':>11}   {'fast p50 us':>17} "
          f"{'ratio':>7}", file=file)
    for r in rows:
        fm = r["fast_median_us"]
        fast = "/".join("-" if fm[t] is None else f"{fm[t]:.1f}" for t in TOOLS)
        ratio = "-" if r["fast_ratio"] is None else f"{r['fast_ratio']:.3f}"
        print(f"{r['case']:<18}{size_text(r['size']):>5} "
              f"{r['runs']['rdmabench']:>4}/{r['runs']['perftest']:<4} "
              f"{r['slow']['rdmabench']:>5}/{r['slow']['perftest']:<5}   {fast:>17} {ratio:>7}",
              file=file)
