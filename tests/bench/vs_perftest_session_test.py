#!/usr/bin/python3
"""Unit tests of bench/vsperf/session.py: a whole session run with a fake runner (no device, no
testbed), its vs-perftest.json written complete with the summary the command prints, a --long
session of the atomic cases, and saved partial when a session is cut short. Run by ctest as vs_perftest_session (label unit)."""
import contextlib
import datetime
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import command, report, session, stats  # noqa: E402 (after the path is set)
from vsperf.cases import build_plan  # noqa: E402

NOW = datetime.datetime(2026, 11, 24, 12, 0, tzinfo=datetime.timezone.utc)


class FakeRunner:
    """The Runner's interface without a device: perftest's latency is 10 us (p50) and 20 us
    (p99) in every run; rdmabench's is that times the next of `ratios`."""

    dev = "fake0"
    gid = "1"

    def __init__(self, ratios, interrupt_after=None):
        self.ratios = list(ratios)
        self.interrupt_after = interrupt_after  # rdmabench runs before a KeyboardInterrupt
        self.rdmabench_runs = 0
        self.perftest_commands = []
        self.perftest_warmups = []
        self.retries = {"perftest_cpu_mhz": 0, "perftest_other": 0, "rdmabench": 0}
        self.failures = []
        self.servers_stopped = 0

    def rdmabench(self, tag, wargs, timeout=600, binary=None, cpus="pin"):
        if self.rdmabench_runs == self.interrupt_after:
            raise KeyboardInterrupt
        r = self.ratios[self.rdmabench_runs]
        self.rdmabench_runs += 1
        us = 1e3  # rdmabench's documents are in ns
        doc = {"tool": {"name": "rdmabench"}, "clock": {"source": "tsc"},
               "workload": {"mtu": 1024, "tx_depth": 1, "signal_every": 1, "qp": "rc",
                            "inline_size": 0, "warmup": int(wargs[wargs.index("--warmup") + 1])},
               "devices": {"client": {"active_mtu": 1024}},
               "results": [{"latency": {"p50": 10 * r * us, "p99": 20 * r * us,
                                        "min": 9 * r * us, "mean": 11 * r * us},
                            "error": None}]}
        usage = {"maxrss_kib": 4000, "voluntary_switches": 3, "involuntary_switches": 1}
        return doc, usage, 0.1, ["rdmabench", "client"] + wargs

    def perftest(self, tag, settings_or_args, mode, timeout=600, extra_clients=0, warmup=0):
        cmd = settings_or_args(19100) + ["10.0.0.1"]
        self.perftest_commands.append(cmd)
        self.perftest_warmups.append(warmup)
        res = {"size": 8, "iters": 1000, "min_us": 9.0, "max_us": 30.0, "p50_us": 10.0,
               "mean_us": 11.0, "stdev_us": 1.0, "p99_us": 20.0, "p99_9_us": 25.0}
        usage = {"maxrss_kib": 3000, "voluntary_switches": 5, "involuntary_switches": 2}
        return res, {"mtu": 1024, "qp": "rc"}, usage, 0.1, cmd

    def stop_servers(self):
        self.servers_stopped += 1
        return 1234


def session_args(out, argv):
    args = command.parser().parse_args(argv)
    args.out = out
    return args


def run(runner, out, argv):
    """run_session as main runs it; returns (the document it returned, the one on disk, path)."""
    args = session_args(out, argv)
    json_path = os.path.join(out, "vs-perftest.json")
    with contextlib.redirect_stderr(io.StringIO()):  # the per-point tables
        doc = session.run_session(args, runner, build_plan(args), NOW, json_path, argv)
    with open(json_path) as f:
        return doc, json.load(f), json_path


class Session(unittest.TestCase):
    ARGV = ["--cases", "send_lat_rc,write_lat_rc", "--sizes", "8", "--pairs", "5"]
    # send_lat_rc's 5 pairs, then write_lat_rc's
    RATIOS = [1.1, 1.2, 1.3, 1.15, 1.25] + [0.8, 0.9, 0.85, 0.95, 0.7]

    def test_the_written_document_has_the_summary_it_prints(self):
        with tempfile.TemporaryDirectory() as out:
            runner = FakeRunner(self.RATIOS)
            doc, written, json_path = run(runner, out, self.ARGV)
            self.assertFalse(os.path.exists(json_path + ".tmp"))
            self.assertFalse(written["partial"])
            self.assertEqual(written, json.loads(json.dumps(doc)))
            self.assertEqual([r["case"] for r in written["rows"]], ["send_lat_rc", "write_lat_rc"])
            self.assertEqual([r["pairs_ok"] for r in written["rows"]], [5, 5])
            self.assertEqual(written["rows"][0]["settings_mismatch"], [])
            self.assertEqual(runner.servers_stopped, 1)
            self.assertEqual(len(runner.perftest_commands), 10)

            s = written["summary"]
            self.assertEqual(set(s), {"p50_us", "p99_us"})  # latency only: no message rate
            p50 = s["p50_us"]
            self.assertEqual(p50["points"], 2)
            self.assertAlmostEqual(p50["geomean"], (1.2 * 0.85) ** 0.5)
            # send: every pair slower; write: every pair faster
            self.assertEqual((p50["worse"], p50["better"]), (1, 1))
            self.assertEqual((p50["all_pairs_worse"], p50["all_pairs_better"]), (1, 1))
            self.assertEqual(s, json.loads(json.dumps(stats.ratio_summary(written["rows"]))))

            text = io.StringIO()
            report.print_session(written, json_path, out, file=text)
            printed = [line for line in text.getvalue().splitlines()
                       if "geometric mean of the points' median ratios" in line]
            expected = io.StringIO()
            report.print_summary(s, "pairs", file=expected)
            self.assertEqual(printed, expected.getvalue().splitlines())
            self.assertIn(f"p50_us: geometric mean of the points' median ratios "
                          f"{(1.2 * 0.85) ** 0.5:.3f} over 2 points", text.getvalue())
            self.assertIn("send_lat_rc", text.getvalue())
            self.assertIn(f"JSON: {json_path}", text.getvalue())

    def test_a_long_session_of_atomic_cases(self):
        argv = ["--long", "--cases", "fetch_add_lat_rc,cmp_swap_lat_rc", "--pairs", "5"]
        with tempfile.TemporaryDirectory() as out:
            runner = FakeRunner(self.RATIOS)
            _, written, json_path = run(runner, out, argv)
            self.assertTrue(written["settings"]["long"])
            rows = written["rows"]
            self.assertEqual([(r["case"], r["op"], r["size"], r["iterations"], r["warmup"])
                              for r in rows], [("fetch_add_lat_rc", "fetch_add", 8, 5000, 500),
                                               ("cmp_swap_lat_rc", "cmp_swap", 8, 5000, 500)])
            self.assertEqual([r["settings_mismatch"] for r in rows], [[], []])  # warm-up too
            self.assertEqual(runner.perftest_warmups, [500] * 10)
            self.assertEqual({c[0] for c in runner.perftest_commands}, {"ib_atomic_lat"})
            self.assertTrue(all("-U" in c for c in runner.perftest_commands))
            self.assertEqual(written["summary"]["p50_us"]["points"], 2)
            text = io.StringIO()
            report.print_session(written, json_path, out, file=text)
            self.assertIn("--long: latency after a warm-up, taskset-pinned", text.getvalue())
            # the case column fits the longer names: sizes line up under the header's
            lines = text.getvalue().splitlines()
            head = next(line for line in lines if line.startswith("case"))
            for name in ("fetch_add_lat_rc", "cmp_swap_lat_rc"):
                line = next(line for line in lines if line.startswith(name + " "))
                self.assertEqual(line.index(" 8 ") + 1, head.index("size") + 3, line)

    def test_an_interrupted_session_keeps_its_finished_points(self):
        with tempfile.TemporaryDirectory() as out:
            runner = FakeRunner(self.RATIOS, interrupt_after=7)  # in write_lat_rc's 3rd pair
            with self.assertRaises(KeyboardInterrupt):
                run(runner, out, self.ARGV)
            self.assertEqual(runner.servers_stopped, 1)
            with open(os.path.join(out, "vs-perftest.json")) as f:
                written = json.load(f)
            self.assertTrue(written["partial"])
            self.assertEqual([r["case"] for r in written["rows"]], ["send_lat_rc"])
            self.assertEqual(written["rows"][0]["pairs_ok"], 5)
            self.assertEqual(written["argv"], self.ARGV)


if __name__ == "__main__":
    unittest.main()
