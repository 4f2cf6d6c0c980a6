"""rdmabench against perftest on one RDMA device: the same workloads, interleaved.

Runs inside a testbed guest (or any host with an RDMA device) where the variables
RDMABENCH_TEST_DEVICE, RDMABENCH_TEST_ADDR and RDMABENCH_TEST_GID_INDEX name the device; without
them it boots the Soft-RoCE testbed itself (testbed/softroce run) and runs there. For every
workload and message size it runs rdmabench, then perftest, with identical settings, --pairs
times (A B A B ...), and prints the ratio rdmabench/perftest per pair: its median and a
distribution-free confidence interval of that median (order statistics; with 5 pairs it is
min..max), so that a difference is called only when it stands out of the run-to-run noise.
--long makes the latency runs longer, with a warm-up, and pins with taskset. The table also goes
to OUT/vs-perftest.json, every run's raw output to OUT/logs/, and per case a
folder OUT/docs/CASE/ of result documents (perftest's converted) for
`rdmabench plot OUT/docs/CASE --group-by tool`. See bench/README.md.
"""
import argparse
import datetime
import os
import platform
import re
import shlex
import shutil
import sys

from .cases import CASES, build_plan
from .common import KIB, MIB, die, log
from .pinning import TASKSET
from .pool import run_pool
from .report import print_session
from .runner import Runner
from .session import run_session

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "vs-perftest")  # the command, re-run inside the testbed


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KkMm]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"invalid size '{text}': a number with optional K or M")
    return int(m.group(1)) * {"": 1, "k": KIB, "m": MIB}[m.group(2).lower()]


def parse_pin(text):
    if text == "none":
        return None
    try:
        cpus = [int(x) for x in text.split(",")]
    except ValueError:
        cpus = []
    if len(cpus) != 2 or min(cpus) < 0:
        raise argparse.ArgumentTypeError(f"invalid pin '{text}': CLIENT_CPU,SERVER_CPU or none")
    return cpus


def parser():
    """The command line of bench/vs-perftest (the module docstring is its epilog)."""
    ap = argparse.ArgumentParser(
        description="rdmabench vs perftest, interleaved, same device and settings.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--quick", action="store_true",
                    help="a small subset (write/send/read bw at 64 B or 64 KiB, send/write "
                         "latency at 8 B) with 3 pairs, unless --pairs")
    ap.add_argument("--all", action="store_true",
                    help="every size of every case (8 B .. 1 MiB bw, 8 B .. 4 KiB latency, read "
                         "latency to 64 KiB; atomics 8 B only), not the default run's subset")
    ap.add_argument("--long", action="store_true",
                    help="long latency runs: 5000 iterations (times --iters-scale) after a "
                         "warm-up of a tenth of that (rdmabench --warmup; perftest runs it too "
                         "and its first samples, printed in order with -U, are dropped); every "
                         "client and server pinned with taskset -c to --pin's CPUs, both tools "
                         "alike. Bandwidth runs as without it")
    ap.add_argument("--cases", help="comma-separated cases: " + ", ".join(c.name for c in CASES))
    ap.add_argument("--sizes", type=lambda t: [parse_size(x) for x in t.split(",")],
                    help="message sizes instead of the cases' own (8,64,1K,...); atomic cases "
                         "run at 8 only")
    ap.add_argument("--pairs", type=int, help="rdmabench/perftest pairs per point (default 5)")
    ap.add_argument("--iters-scale", type=float, default=1.0,
                    help="multiply the iteration counts (default 1)")
    ap.add_argument("--mtu", type=int, default=1024, help="path MTU for both tools (default 1024)")
    ap.add_argument("--order", choices=["abba", "ab"], default="abba",
                    help="abba: rdmabench first in even pairs, perftest first in odd ones "
                         "(default); ab: rdmabench always first")
    ap.add_argument("--retries", type=int, default=5,
                    help="reruns of a failed run (perftest's CPU-frequency fit, stalls; default 5)")
    ap.add_argument("--threads", action="store_true",
                    help="also measure 2-thread scaling (write bw message rate)")
    ap.add_argument("--threads-size", type=parse_size, default=8)
    ap.add_argument("--memory", action="store_true",
                    help="also measure peak RSS of 1- and 8-thread runs of two durations")
    ap.add_argument("--memory-durations", type=lambda t: [int(x) for x in t.split(",")],
                    default=[2, 8])
    ap.add_argument("--no-cases", action="store_true", help="skip the perftest comparison")
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="agreement target for the medians (default 0.05)")
    ap.add_argument("--rdmabench", default=os.environ.get("RDMABENCH_BIN"),
                    help="rdmabench binary (default $RDMABENCH_BIN or build/cli/rdmabench)")
    ap.add_argument("--pin", type=parse_pin, default=[0, 1],
                    metavar="CLIENT_CPU,SERVER_CPU",
                    help="run every client on one CPU and every server on another, both tools "
                         "alike (default 0,1; 'none' lets the scheduler place them)")
    ap.add_argument("--baseline", help="compare against this other rdmabench binary instead of "
                    "perftest (A/B of two builds, same interleaving and table)")
    ap.add_argument("--fresh-server", action="store_true",
                    help="start a new rdmabench server for every rdmabench run, as perftest's "
                         "server is (default: one server for the whole session)")
    ap.add_argument("--perftest-port", type=int, default=19100)
    ap.add_argument("--out", help="output folder (default out/vs-perftest-DATE)")
    ap.add_argument("--kernel-args", default="tsc=reliable",
                    help="guest kernel arguments when this script starts the testbed (default "
                         "tsc=reliable: the TSC clocksource, so clock_gettime needs no system "
                         "call, as on real hardware; '' keeps the emulated CPU's HPET)")
    ap.add_argument("--testbed-timeout", type=int, default=3600,
                    help="seconds for the whole testbed run when this script starts it")
    ap.add_argument("--pool", nargs="+", metavar="RESULT",
                    help="run nothing: pool earlier sessions (their vs-perftest.json or its "
                         "folder), one value per session and point, and print the table")
    ap.add_argument("--pool-out", metavar="FILE", help="with --pool: also write the table as JSON")
    return ap


def in_testbed(argv, timeout, kernel_args):
    """Re-run this script inside `testbed/softroce run`."""
    host = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            host = f"{m.group(1) if m else '?'}, {os.cpu_count()} CPUs, {platform.node()}"
    except OSError:
        pass
    env = dict(os.environ, RDMABENCH_VSPERF_HOST=host)
    if kernel_args:
        env["RDMABENCH_KERNEL_ARGS"] = (env.get("RDMABENCH_KERNEL_ARGS", "") + " " +
                                        kernel_args).strip()
    cmd = [os.path.join(ROOT, "testbed", "softroce"), "run", "--timeout", str(timeout), "--",
           SCRIPT] + argv
    log("vs-perftest: no RDMABENCH_TEST_DEVICE: running in the testbed: " + shlex.join(cmd))
    os.execve(cmd[0], cmd, env)


def main():
    args = parser().parse_args()
    if args.pool_out is not None and not args.pool:
        die("--pool-out needs --pool")
    if args.pool:
        return run_pool(args)
    if args.long and args.pin is None:
        die("--long pins both tools with taskset: give --pin CLIENT_CPU,SERVER_CPU, not 'none'")
    if args.long and not shutil.which(TASKSET):
        die(f"--long needs {TASKSET} (Debian package util-linux)")
    if not os.environ.get("RDMABENCH_TEST_DEVICE"):
        in_testbed(sys.argv[1:], args.testbed_timeout, args.kernel_args)
    for v in ("RDMABENCH_TEST_ADDR", "RDMABENCH_TEST_GID_INDEX"):
        if not os.environ.get(v):
            die(f"{v} is not set (run inside testbed/softroce run, which sets it)")
    if args.pairs is None:
        args.pairs = 3 if args.quick else 5
    if args.pairs < 1 or args.retries < 0 or args.iters_scale <= 0:
        die("--pairs must be >= 1, --retries >= 0, --iters-scale > 0")
    if args.rdmabench is None:
        for cand in (os.path.join(ROOT, "build", "cli", "rdmabench"),):
            if os.access(cand, os.X_OK):
                args.rdmabench = cand
    if not args.rdmabench or not os.access(args.rdmabench, os.X_OK):
        die("no rdmabench binary: pass --rdmabench or set RDMABENCH_BIN")
    now = datetime.datetime.now(datetime.timezone.utc)
    if args.out is None:
        args.out = os.path.join(ROOT, "out", "vs-perftest-" + now.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(args.out, exist_ok=True)
    plan = [] if args.no_cases else build_plan(args)

    runner = Runner(args)
    json_path = os.path.join(args.out, "vs-perftest.json")
    doc = run_session(args, runner, plan, now, json_path, sys.argv[1:])
    print_session(doc, json_path, args.out)
    missing = sum(1 for row in doc["rows"] if row["pairs_ok"] == 0)
    return 1 if missing else 0
