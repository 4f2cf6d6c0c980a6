"""perftest's output (ib_*_bw / ib_*_lat clients): its banner settings, result line and samples
parsed, its latency summary recomputed after a warm-up (--long); and a perftest result converted
into an rdmabench result document (for rdmabench plot)."""
import collections
import json
import math
import re

from .stats import nearest_rank

# perftest refusing to report on an emulated CPU: its cycles-per-us fit against gettimeofday failed.
CPU_MHZ_FAILURE = re.compile(r"Correlation coefficient r\^2|Can't produce a report")
# perftest's latency summary leaves out the largest samples (print_report_lat)
LAT_MEASURE_TAIL = 2


def perftest_header(out):
    """The settings perftest printed in its banner (TX depth, CQ Moderation, Mtu, ...)."""
    h = {}
    for key, name in (("TX depth", "tx_depth"), ("RX depth", "rx_depth"),
                      ("CQ Moderation", "cq_mod"), ("Mtu", "mtu"),
                      ("Max inline data", "inline"), ("Outstand reads", "outs")):
        m = re.search(rf"^\s*{key}\s*:\s*(\d+)", out, re.M)
        if m:
            h[name] = int(m.group(1))
    m = re.search(r"^\s*Connection type\s*:\s*(\w+)", out, re.M)
    if m:
        h["qp"] = m.group(1).lower()
    m = re.search(r"^\s*Atomic (\w+) (?:BW|Latency) Test", out, re.M)  # ib_atomic_*'s -A
    if m:
        h["atomic"] = m.group(1)
    return h


def perftest_samples(out):
    """The samples perftest -H (sorted) or -U (in the order measured) prints ("#, usec" then
    "i, value" lines), in usec; the first such list."""
    samples = []
    lines = iter(out.splitlines())
    for line in lines:
        if line.strip().startswith("#, usec"):
            for row in lines:
                m = re.fullmatch(r"\s*\d+,\s*([-+\d.eE]+)\s*", row)
                if not m:
                    break
                samples.append(float(m.group(1)))
            break
    return samples


def perftest_lat_summary(samples):
    """perftest's latency summary line computed as print_report_lat does, over `samples` (usec,
    any order): sorted, the LAT_MEASURE_TAIL largest left out, n left; t_typical their median
    (the mean of the middle two when n is even), mean over them, 99 % and 99.9 % the sorted
    elements at ceil(n * p), t_max the element just past the n (what it prints). The stdev is the
    plain one (perftest's rounds each deviation to an integer first)."""
    d = sorted(samples)
    n = len(d) - LAT_MEASURE_TAIL
    if n < 2:
        raise ValueError(f"{len(d)} latency samples: too few for perftest's summary")
    kept = d[:n]
    mean = sum(kept) / n
    return {"min_us": d[0], "max_us": d[n],
            "p50_us": (d[n // 2] + d[n // 2 - 1]) / 2 if n % 2 == 0 else d[n // 2],
            "mean_us": mean, "stdev_us": math.sqrt(sum((x - mean) ** 2 for x in kept) / n),
            "p99_us": d[math.ceil(n * 0.99)], "p99_9_us": d[math.ceil(n * 0.999)]}


def parse_perftest(out, mode, warmup=0):
    """The result line of a perftest client: bw -> Gb/s, Mmsg/s; lat -> usec columns (and the
    samples when it printed them). With a `warmup` (--long; latency, samples printed in order
    with -U) the first `warmup` samples are dropped and the summary is perftest's recomputed
    over the rest (perftest_lat_summary); "iters" is then the samples kept."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("#bytes"):
            header = line
            for row in lines[i + 1:]:
                nums = row.split()
                if len(nums) >= 5 and all(re.fullmatch(r"[\d.]+", x) for x in nums[:5]):
                    v = [float(x) for x in nums]
                    if mode == "bw":
                        if "Gb/sec" not in header:
                            raise ValueError("perftest did not report Gb/s (--report_gbits)")
                        return {"size": int(v[0]), "iters": int(v[1]), "gbps_peak": v[2],
                                "gbps": v[3], "mmsg_per_s": v[4]}
                    if len(v) < 9:
                        raise ValueError("perftest latency line has fewer than 9 columns")
                    res = {"size": int(v[0]), "iters": int(v[1]), "min_us": v[2],
                           "max_us": v[3], "p50_us": v[4], "mean_us": v[5], "stdev_us": v[6],
                           "p99_us": v[7], "p99_9_us": v[8]}
                    samples = perftest_samples(out)
                    if warmup:
                        if len(samples) != res["iters"] - 1:
                            raise ValueError(f"perftest printed {len(samples)} samples in order "
                                             f"for -n {res['iters']} (-U expected)")
                        samples = samples[warmup:]
                        res.update(perftest_lat_summary(samples), iters=len(samples),
                                   warmup=warmup)
                    if samples:
                        # perftest's samples under rdmabench's definitions (all samples,
                        # nearest rank), to tell definitions from measurements apart.
                        res["samples_us"] = samples
                        res["p50_us_rank"] = nearest_rank(samples, 50)
                        res["p99_us_rank"] = nearest_rank(samples, 99)
                    return res
    raise ValueError("no result line in perftest's output")


def perftest_document(rb_doc, settings, res, version, cpu_mhz):
    """A result document for one perftest run, modelled on rdmabench's of the same workload."""
    doc = json.loads(json.dumps(rb_doc))
    doc["tool"] = {"name": "perftest", "version": version}
    doc["clock"] = {"source": "tsc", "tsc_hz": (cpu_mhz or 0) * 1e6, "fallback_reason": ""}
    doc["counters"] = {}
    r = doc["results"][0]
    n = res["iters"]
    r.update({"iterations": n, "ops": n, "bytes": n * settings.size, "threads": [],
              "cpu": {"user_s": 0, "sys_s": 0, "utilization": 0}, "sent_messages": n,
              "received_messages": 0, "received_bytes": 0, "lost_messages": 0,
              "reverse": None, "verified": False, "error": None})
    if settings.case.mode == "bw":
        r["gbps"] = res["gbps"]
        r["mmsg_per_s"] = res["mmsg_per_s"]
        r["seconds"] = n / (res["mmsg_per_s"] * 1e6) if res["mmsg_per_s"] else 0
        r["latency"] = None
    else:
        us = 1000.0
        lat = r["latency"]
        xs = res.get("samples_us") or []
        # perftest's own summary; p90 and p99.99, which it does not print, from its samples
        # (-H), which also give exact one-value buckets.
        lat.update({"count": len(xs) or n, "overflow": 0, "min": res["min_us"] * us,
                    "max": res["max_us"] * us, "mean": res["mean_us"] * us,
                    "stdev": res["stdev_us"] * us, "p50": res["p50_us"] * us,
                    "p90": (nearest_rank(xs, 90) if xs else res["p50_us"]) * us,
                    "p99": res["p99_us"] * us, "p99_9": res["p99_9_us"] * us,
                    "p99_99": (nearest_rank(xs, 99.99) if xs else res["max_us"]) * us,
                    "max_relative_error": 0,
                    "buckets": [[x * us, x * us, c] for x, c in
                                sorted(collections.Counter(xs).items())]})
        # read and atomics: the round trip, as reported; send/write: halved (twice that)
        r["seconds"] = n * res["mean_us"] * 1e-6 * (1 if settings.case.fetch else 2)
        r["gbps"] = 0
        r["mmsg_per_s"] = n / r["seconds"] / 1e6 if r["seconds"] else 0
    return doc
