"""What vs-perftest prints: the comparison table, the summary lines, and a session's report."""
import os
import sys

from .common import size_text
from .stats import verdict


def fmt(v, digits=4):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def fmt_ratio(block):
    r = block["ratio"]
    if r is None:
        return "-".ljust(22)
    return f"{r['median']:.3f} [{r['ci_low']:.2f}..{r['ci_high']:.2f}]".ljust(22)


def case_width(rows):
    """The case column's width: the longest case name (fetch_add_lat_rc ...) and a space."""
    return max([13] + [len(r["case"]) + 1 for r in rows])


def print_table(rows, tolerance, file=None, b="pt"):
    file = file or sys.stdout
    cw = case_width(rows)
    bw = [r for r in rows if r["mode"] == "bw"]
    lat = [r for r in rows if r["mode"] == "lat"]
    if bw:
        print("\nThroughput (ratio = rdmabench / perftest per pair: median [~95% CI]; Gb/s and "
              "Mmsg/s medians)", file=file)
        print(f"{'case':<{cw}}{'size':>5} {'pairs':>5}  {'rb Gb/s':>9} {b + ' Gb/s':>9} "
              f"{'rb Mmsg/s':>10} {b + ' Mmsg/s':>10}  {'ratio':<22} {'verdict'}", file=file)
        for r in bw:
            g, m = r["gbps"], r["mmsg_per_s"]
            print(f"{r['case']:<{cw}}{size_text(r['size']):>5} {r['pairs_ok']:>5}  "
                  f"{fmt((g['rdmabench'] or {}).get('median')):>9} "
                  f"{fmt((g['perftest'] or {}).get('median')):>9} "
                  f"{fmt((m['rdmabench'] or {}).get('median')):>10} "
                  f"{fmt((m['perftest'] or {}).get('median')):>10}  {fmt_ratio(m)} "
                  f"{verdict(m, True, tolerance)}", file=file)
    if lat:
        print("\nLatency in us (typical = median, p99; ratio = rdmabench / perftest per pair: "
              "median [~95% CI])", file=file)
        print(f"{'case':<{cw}}{'size':>5} {'pairs':>5}  {'rb p50':>8} {b + ' p50':>8} "
              f"{'p50 ratio':<22} {'rb p99':>8} {b + ' p99':>8} {'p99 ratio':<22} verdict (p50; p99)",
              file=file)
        for r in lat:
            a, b = r["p50_us"], r["p99_us"]
            print(f"{r['case']:<{cw}}{size_text(r['size']):>5} {r['pairs_ok']:>5}  "
                  f"{fmt((a['rdmabench'] or {}).get('median')):>8} "
                  f"{fmt((a['perftest'] or {}).get('median')):>8} {fmt_ratio(a)} "
                  f"{fmt((b['rdmabench'] or {}).get('median')):>8} "
                  f"{fmt((b['perftest'] or {}).get('median')):>8} {fmt_ratio(b)} "
                  f"{verdict(a, False, tolerance)}; {verdict(b, False, tolerance)}", file=file)
    if rows:
        print("verdict: ok = meets the target; SLOWER = the whole interval is on the slow side; "
              "slower~ = slower at the median but the interval includes 1 (not told apart from "
              "the run-to-run noise); DIFF = medians differ by more than the tolerance (DIFF~: "
              "the interval reaches into it)", file=file)


def print_summary(summary, unit, file=None):
    """One line per metric of ratio_summary(); `unit`: what the min/max run over (pairs or
    session medians)."""
    for metric, v in summary.items():
        print(f"{metric}: geometric mean of the points' median ratios {v['geomean']:.3f} over "
              f"{v['points']} points; median ratio better than perftest at {v['better']}, worse "
              f"at {v['worse']}; all {unit} better at {v['all_pairs_better']}, all worse at "
              f"{v['all_pairs_worse']}; interval wholly better at {v['significantly_better']}, "
              f"wholly worse at {v['significantly_worse']}", file=file or sys.stdout)


def print_session(doc, json_path, out_dir, file=None):
    """The report of one finished session (its document as run_session wrote it)."""
    file = file or sys.stdout
    settings = doc["settings"]
    m = doc["machine"]
    print(f"rdmabench vs {doc['compared_with']} ({doc['perftest_version']}), {doc['date']}, {m.get('hostname')} "
          f"({m.get('cpu')}, {m.get('cpus')} CPUs, kernel {m.get('kernel')}, {m.get('device')}, "
          f"clocksource {m.get('clocksource')}); host: {m.get('host') or '-'}", file=file)
    long_runs = ("; --long: latency after a warm-up, taskset-pinned" if settings.get("long")
                 else "")
    print(f"{settings['pairs']} pairs per point, MTU {settings['mtu']}{long_runs}; "
          f"{doc['seconds']:.0f} s", file=file)
    print_table(doc["rows"], settings["tolerance"], file=file,
                b="pt" if doc["compared_with"] == "perftest" else "B")
    if "threads" in doc:
        t = doc["threads"]
        print(f"\nMessage rate, write bw {size_text(t['size'])} (Mmsg/s median [min..max])",
              file=file)
        for k, v in t["mmsg_per_s"].items():
            print(f"  {k:<16} " + (f"{v['median']:.5f} [{v['min']:.5f}..{v['max']:.5f}] n={v['n']}"
                                  if v else "-"), file=file)
        for k, v in t["scaling"].items():
            print(f"  {k:<34} {fmt(v)}", file=file)
    if "memory" in doc:
        print("\nPeak RSS of the rdmabench client (KiB)", file=file)
        for m in doc["memory"]:
            print(f"  {m['mode']:<4} {m['op']:<6} {size_text(m['size']):>4} threads={m['threads']} "
                  f"-D {m['duration_s']:<3} {m['maxrss_kib']} KiB ({m['ops']} ops)", file=file)
        print(f"  rdmabench server VmHWM over the whole session: "
              f"{doc['rdmabench_server_vm_hwm_kib']} KiB", file=file)
    usage = doc["client_usage"]
    if usage:
        print("\nClient processes, median over the comparison's runs: " + "; ".join(
            f"{tool} peak RSS {u['maxrss_kib']} KiB, {u['voluntary_switches']} voluntary / "
            f"{u['involuntary_switches']} involuntary context switches"
            for tool, u in usage.items()), file=file)
    print_summary(doc["summary"], "pairs", file=file)
    r = doc["retries"]
    print(f"\nretries: perftest CPU-frequency fit {r['perftest_cpu_mhz']}, perftest other "
          f"{r['perftest_other']}, rdmabench {r['rdmabench']}; failed runs listed in {json_path}",
          file=file)
    print(f"JSON: {json_path}; plots: rdmabench plot {os.path.join(out_dir, 'docs', 'CASE')} "
          f"--group-by tool", file=file)
