"""The sections of a session: the comparison (interleaved pairs per case and size), 2-thread
scaling of the message rate (--threads) and the rdmabench client's peak RSS (--memory)."""
import os
import sys
import time

from .cases import CASES, Settings, compare_settings
from .common import KIB, log, size_text, write_json
from .machine import machine_cpu_mhz, perftest_version
from .perftest import perftest_document
from .report import print_table
from .stats import ratio_block, spread


def run_cases(runner, args, plan, save=None):
    rows = []
    pt_version = perftest_version()
    for case, sizes in plan:
        docdir = os.path.join(args.out, "docs", case.name)
        os.makedirs(docdir, exist_ok=True)
        for size in sizes:
            s = Settings(args, case, size)
            tag = f"{case.name}-{size_text(size)}"
            pairs = []
            mismatch = set()
            rb_cmd = pt_cmd = None
            t_case = time.monotonic()
            for k in range(args.pairs):
                # A B, then B A, ... (unless --order ab): a drift, or an effect of which tool
                # ran just before, falls on both tools alike.
                b_first = args.order == "abba" and k % 2 == 1

                def run_a():
                    return runner.rdmabench(tag, s.rdmabench_args())

                def run_b():
                    if args.baseline:
                        b_doc, usage, secs, cmd = runner.rdmabench(tag, s.rdmabench_args(),
                                                                    binary=args.baseline)
                        return (values_of(b_doc, case.mode) if b_doc else None), None, usage, \
                            secs, cmd
                    return runner.perftest(
                        tag, lambda port: s.perftest_args(runner.dev, runner.gid, port), case.mode,
                        warmup=s.warmup)
                if b_first:
                    pt, header, pt_rss, pt_s, pt_cmd = run_b()
                    rb_doc, rb_rss, rb_s, rb_cmd = run_a()
                else:
                    rb_doc, rb_rss, rb_s, rb_cmd = run_a()
                    pt, header, pt_rss, pt_s, pt_cmd = run_b()
                pair = {"rdmabench": None, "perftest": None, "seconds": [rb_s, pt_s],
                        "order": "perftest first" if b_first else "rdmabench first"}
                if rb_doc is not None:
                    pair["rdmabench"] = values_of(rb_doc, case.mode)
                    pair["rdmabench"].update(rb_rss)
                    write_json(os.path.join(docdir, f"rdmabench-{size:08d}-{k}.json"), rb_doc)
                if pt is not None:
                    pair["perftest"] = {k: v for k, v in pt.items() if k != "samples_us"}
                    pair["perftest"].update(pt_rss)
                    mismatch |= compare_settings(s, header, rb_doc)
                    if rb_doc is not None and not args.baseline:
                        write_json(os.path.join(docdir, f"perftest-{size:08d}-{k}.json"),
                                   perftest_document(rb_doc, s, pt, pt_version,
                                                     machine_cpu_mhz()))
                pairs.append(pair)
            ok = [p for p in pairs if p["rdmabench"] and p["perftest"]]
            row = {"case": case.name, "op": case.op, "qp": case.qp, "mode": case.mode,
                   "size": size, "iterations": s.iters, "warmup": s.warmup, "pairs_ok": len(ok),
                   "settings_mismatch": sorted(mismatch), "pairs": pairs,
                   "commands": {"rdmabench": rb_cmd, "perftest": pt_cmd},
                   "seconds": time.monotonic() - t_case}
            if case.mode == "bw":
                row["gbps"] = ratio_block(ok, "gbps")
                row["mmsg_per_s"] = ratio_block(ok, "mmsg_per_s")
                row["perftest_gbps_peak"] = spread([p["perftest"]["gbps_peak"] for p in ok])
                row["perftest_peak_over_average"] = spread(
                    [p["perftest"]["gbps_peak"] / p["perftest"]["gbps"] for p in ok
                     if p["perftest"]["gbps_peak"] and p["perftest"]["gbps"]])
            else:
                row["p50_us"] = ratio_block(ok, "p50_us")
                row["p99_us"] = ratio_block(ok, "p99_us")
                # perftest's samples summarised as rdmabench does (every sample, nearest rank)
                row["p50_us_same_definition"] = ratio_block(ok, "p50_us", "p50_us_rank")
                row["p99_us_same_definition"] = ratio_block(ok, "p99_us", "p99_us_rank")
            rows.append(row)
            if save:
                save(rows)
            print_table([row], args.tolerance, file=sys.stderr, b="B" if args.baseline else "pt")
            if mismatch:
                log(f"vs-perftest: settings differ for {tag}: {', '.join(sorted(mismatch))}")
    return rows


def values_of(doc, mode):
    """The compared numbers of an rdmabench result document (its first size)."""
    r0 = doc["results"][0]
    if mode == "bw":
        v = {"gbps": r0["gbps"], "mmsg_per_s": r0["mmsg_per_s"], "bytes": r0["bytes"],
             "ops": r0["ops"], "gbps_peak": None}
    else:
        L = r0["latency"]
        v = {"p50_us": L["p50"] / 1e3, "p99_us": L["p99"] / 1e3, "min_us": L["min"] / 1e3,
             "mean_us": L["mean"] / 1e3}
    v["clock"] = doc["clock"]["source"]
    return v


def run_threads(runner, args):
    """Message rate of write bw: rdmabench with 1 and 2 threads (1 QP each) and 1 thread with
    2 QPs; perftest (one process) with 1 and 2 QPs. Interleaved, --pairs rounds."""
    size = args.threads_size
    case = next(c for c in CASES if c.name == "write_bw_rc")
    s = Settings(args, case, size)
    # Clients may use every CPU here (a second thread needs one).
    saved, runner.client_cpus = runner.client_cpus, None
    variants = [("rdmabench_t1", ["--threads", "1"]), ("rdmabench_t2", ["--threads", "2"]),
                ("rdmabench_t1_q2", ["-q", "2"]), ("perftest_q1", ["-q", "1"]),
                ("perftest_q2", ["-q", "2"])]
    samples = {name: [] for name, _ in variants}
    commands = {}
    for k in range(args.pairs):
        for name, extra in variants:
            tag = f"{name}-{size_text(size)}"
            if name.startswith("rdmabench"):
                doc, _, _, cmd = runner.rdmabench(tag, s.rdmabench_args() + extra)
                rate = doc["results"][0]["mmsg_per_s"] if doc else None
            else:
                res, _, _, _, cmd = runner.perftest(
                    tag, lambda port, extra=extra: s.perftest_args(runner.dev, runner.gid, port)
                    + extra, "bw")
                rate = res["mmsg_per_s"] if res else None
            commands[name] = cmd
            if rate is not None:
                samples[name].append(rate)
    runner.client_cpus = saved
    out = {"size": size, "iterations_per_qp": s.iters,
           "mmsg_per_s": {k: spread(v) for k, v in samples.items()}, "commands": commands}
    med = {k: (v or {}).get("median") for k, v in out["mmsg_per_s"].items()}

    def r(a, b):
        return med[a] / med[b] if med.get(a) and med.get(b) else None
    out["scaling"] = {"rdmabench_t2_over_t1": r("rdmabench_t2", "rdmabench_t1"),
                      "rdmabench_t2_over_perftest_q1": r("rdmabench_t2", "perftest_q1"),
                      "rdmabench_t1_q2_over_perftest_q2": r("rdmabench_t1_q2", "perftest_q2"),
                      "perftest_q2_over_q1": r("perftest_q2", "perftest_q1"),
                      "rdmabench_t1_q2_over_t1": r("rdmabench_t1_q2", "rdmabench_t1")}
    return out


def run_memory(runner, args):
    """Peak RSS of rdmabench clients: 1 and 8 threads, two durations, bw and lat."""
    out = []
    for mode, op, size in (("bw", "write", 64 * KIB), ("lat", "send", 8)):
        for threads in (1, 8):
            for dur in args.memory_durations:
                wargs = ["--op", op, "--mode", mode, "-s", str(size), "-D", str(dur),
                         "--warmup-time", "0", "--threads", str(threads)]
                doc, rss, took, cmd = runner.rdmabench(f"mem-{mode}-t{threads}-D{dur}", wargs,
                                                       cpus=None)
                out.append({"mode": mode, "op": op, "size": size, "threads": threads,
                            "duration_s": dur, "maxrss_kib": rss and rss["maxrss_kib"],
                            "voluntary_switches": rss and rss["voluntary_switches"],
                            "ops": doc["results"][0]["ops"] if doc else None,
                            "command": cmd})
                log(f"vs-perftest: memory {mode} threads={threads} -D {dur}: peak RSS "
                    f"{out[-1]['maxrss_kib']} KiB, {out[-1]['ops']} ops")
    return out
