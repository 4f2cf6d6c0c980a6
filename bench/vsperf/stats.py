"""The statistics of vs-perftest: medians with distribution-free (order-statistics) confidence
intervals, the blocks of per-pair ratios rdmabench / perftest, the verdict on a point, the
intraclass correlation of pooled sessions, and the summaries over points. Pure functions."""
import math
import statistics

# The compared metrics and whether higher is better: message rate for bandwidth, typical (median)
# and p99 latency.
RATIO_METRICS = (("mmsg_per_s", True), ("p50_us", False), ("p99_us", False))


def median(xs):
    return statistics.median(xs) if xs else None


def nearest_rank(values, p):
    """The p-th percentile, nearest rank (the smallest value with at least p % at or below)."""
    v = sorted(values)
    k = max(1, -(-len(v) * p // 100))  # ceil
    return v[int(k) - 1]


def median_ci(values, level=0.95):
    """A distribution-free confidence interval for the median of `values`: the order statistics
    x(k) and x(n+1-k) with the largest k whose binomial tail P(Bin(n, 1/2) < k) is at most
    (1 - level) / 2. Returns (low, high, coverage); with too few values for `level` it is
    (min, max) and its own, lower coverage (5 values: 93.8 %)."""
    xs = sorted(values)
    n = len(xs)
    k = 1
    while k < n and binom_below(n, k + 1) <= (1 - level) / 2:
        k += 1
    if k > (n + 1) // 2:
        k = (n + 1) // 2
    return xs[k - 1], xs[n - k], 1 - 2 * binom_below(n, k)


def binom_below(n, k):
    """P(Bin(n, 1/2) < k)."""
    return sum(math.comb(n, i) for i in range(k)) / 2 ** n


def spread(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    lo, hi, cov = median_ci(vals)
    return {"median": median(vals), "min": min(vals), "max": max(vals), "n": len(vals),
            "ci_low": lo, "ci_high": hi, "ci_coverage": cov}


def ratio_block(pairs, key, perftest_key=None):
    pk = perftest_key or key
    pairs = [p for p in pairs if p["perftest"].get(pk) is not None]
    rs = [p["rdmabench"][key] / p["perftest"][pk] for p in pairs if p["perftest"][pk]]
    r_vals = [p["rdmabench"][key] for p in pairs]
    p_vals = [p["perftest"][pk] for p in pairs]
    block = {"ratio": spread(rs), "rdmabench": spread(r_vals), "perftest": spread(p_vals)}
    if block["rdmabench"] and block["perftest"] and block["perftest"]["median"]:
        block["median_difference"] = block["rdmabench"]["median"] / block["perftest"]["median"] - 1
    else:
        block["median_difference"] = None
    return block


def verdict(block, higher_is_better, tolerance):
    """"ok" when the median ratio meets the target; else "slower~" when the confidence interval
    of the median ratio still includes 1 (not told apart from the run-to-run noise), "SLOWER"
    when it does not. DIFF: the medians differ by more than the tolerance (with "~" when the
    interval reaches back into the tolerance band)."""
    r = block["ratio"]
    if r is None:
        return "no data"
    ok_speed = r["median"] >= 1.0 if higher_is_better else r["median"] <= 1.0
    if ok_speed:
        speed = "ok"
    else:
        significant = r["ci_high"] < 1.0 if higher_is_better else r["ci_low"] > 1.0
        speed = "SLOWER" if significant else "slower~"
    diff = block["median_difference"]
    agree = diff is not None and abs(diff) <= tolerance
    if agree:
        return speed
    inside = r["ci_low"] <= 1 + tolerance and r["ci_high"] >= 1 - tolerance
    return speed + f" DIFF{'~' if inside else ''} {diff * 100:+.1f}%"


def intraclass_correlation(groups):
    """ICC(1) of values in groups (one-way ANOVA estimate, groups of unequal size), clamped to
    [0, 1]; None with fewer than 2 groups or no within-group spread to compare with. With ICC
    rho and m values per group, the pooled values count as m / (1 + (m - 1) rho) independent
    ones each group (the design effect)."""
    groups = [g for g in groups if g]
    k = len(groups)
    n = sum(len(g) for g in groups)
    if k < 2 or n <= k:
        return None
    grand = sum(sum(g) for g in groups) / n
    means = [sum(g) / len(g) for g in groups]
    ssb = sum(len(g) * (m - grand) ** 2 for g, m in zip(groups, means))
    ssw = sum((x - m) ** 2 for g, m in zip(groups, means) for x in g)
    msb = ssb / (k - 1)
    msw = ssw / (n - k)
    n0 = (n - sum(len(g) ** 2 for g in groups) / n) / (k - 1)
    denom = msb + (n0 - 1) * msw
    if denom <= 0:
        return None
    return min(1.0, max(0.0, (msb - msw) / denom))


def ratio_summary(rows):
    """Per metric: geometric mean of the points' median ratios, and how many points lean which
    way (a sign test against the noise: with no real difference half lean each way)."""
    out = {}
    for metric, higher_better in RATIO_METRICS:
        blocks = [row[metric]["ratio"] for row in rows if row.get(metric) and row[metric]["ratio"]]
        if not blocks:
            continue
        logs = [math.log(b["median"]) for b in blocks]

        def better(x):
            return x > 1 if higher_better else x < 1
        out[metric] = {"points": len(blocks),
                       "geomean": math.exp(sum(logs) / len(logs)),
                       "better": sum(better(b["median"]) for b in blocks),
                       "worse": sum(better(1 / b["median"]) for b in blocks),
                       "all_pairs_better": sum(better(b["min"]) and better(b["max"]) for b in blocks),
                       "all_pairs_worse": sum(better(1 / b["min"]) and better(1 / b["max"])
                                              for b in blocks),
                       "significantly_better": sum(better(b["ci_low"]) and better(b["ci_high"])
                                                   for b in blocks),
                       "significantly_worse": sum(better(1 / b["ci_low"]) and
                                                  better(1 / b["ci_high"]) for b in blocks)}
    return out


def usage_summary(rows):
    """Median peak RSS and context switches of each tool's client processes."""
    out = {}
    for tool in ("rdmabench", "perftest"):
        per = {}
        for row in rows:
            for p in row["pairs"]:
                for k in ("maxrss_kib", "voluntary_switches", "involuntary_switches"):
                    if p[tool] and p[tool].get(k) is not None:
                        per.setdefault(k, []).append(p[tool][k])
        if per:
            out[tool] = {k: median(v) for k, v in per.items()}
    return out
