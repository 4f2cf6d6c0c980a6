#!/usr/bin/python3
"""Unit tests of bench/vsperf/runner.py and pinning.py: the commands the runner starts for both
tools, clients and servers — pinned from outside with `taskset -c` under --long, by the child's
CPU affinity otherwise — the command it records, and --long's warm-up reaching perftest's
parsing; the command refusing --long unpinned (no device: the processes are fakes). Run by ctest
as vs_perftest_runner (label unit)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import cases, command, pinning, runner  # noqa: E402 (after the path is set)

ADDR = "198.18.0.1"
ENV = {"RDMABENCH_TEST_DEVICE": "rxe0", "RDMABENCH_TEST_ADDR": ADDR,
       "RDMABENCH_TEST_GID_INDEX": "1"}
LINE = "-" * 87
LAT_HEADER = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
              "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ")
# ib_atomic_lat -n 11 -U (the banner left out): 10 samples in order, perftest's line over all.
PERFTEST_OUT = "\n".join(
    [LINE, LAT_HEADER, "#, usec"]
    + [f"{i + 1}, {v}" for i, v in enumerate([180.2, 95.4, 61.3, 60.1, 59.8, 62, 60.4, 59.9, 75.2,
                                              60.7])]
    + [LINE, LAT_HEADER, " 8       11          59.80          95.40        60.55    \t       "
       "62.42       \t4.50   \t\t95.40   \t\t95.40  ", LINE, ""])


class FakeProc:
    """runner.Proc without a process: records what it was asked to start; rdmabench servers say
    they are ready, rdmabench clients write a result document, perftest clients print
    PERFTEST_OUT."""

    started = []

    def __init__(self, cmd, log_prefix, cpus=None):
        self.cmd = cmd
        self.cpus = cpus
        FakeProc.started.append(self)
        if "--json" in cmd:
            with open(cmd[cmd.index("--json") + 1], "w") as f:
                json.dump({"error": None, "results": [{"error": None}]}, f)

    def poll(self):
        return 0

    def wait(self, timeout):
        return 0

    def kill(self):
        pass

    def usage(self):
        return {"maxrss_kib": 1, "voluntary_switches": 1, "involuntary_switches": 0}

    def output(self):
        if "server" in self.cmd:
            return 'RDMABENCH_SERVER_READY {"port": 4711}\n', ""
        if self.cmd[-1] == ADDR and any(a.startswith("ib_") for a in self.cmd):
            return PERFTEST_OUT, ""
        return "", ""


def run_both(argv, cpus="pin"):
    """One rdmabench and one perftest run of fetch_add_lat_rc 8 B through a Runner with fake
    processes; --long's latency runs shortened to 8 iterations after a warm-up of 2 (perftest
    -n 11, which PERFTEST_OUT is). Returns (the processes started, rdmabench's
    recorded command, perftest's result and recorded command)."""
    FakeProc.started = []
    with tempfile.TemporaryDirectory() as out, mock.patch.dict(os.environ, ENV), \
            mock.patch.object(runner, "Proc", FakeProc), \
            mock.patch.object(runner, "tcp_listening", lambda port: True), \
            mock.patch.object(cases, "LONG_LAT_ITERS", 8), \
            mock.patch.object(cases, "LONG_WARMUP_SHARE", 0.25), \
            contextlib.redirect_stderr(io.StringIO()):
        args = command.parser().parse_args(argv + ["--rdmabench", "/opt/rb", "--out", out])
        r = runner.Runner(args)
        s = cases.Settings(args, next(c for c in cases.CASES if c.name == "fetch_add_lat_rc"), 8)
        _, _, _, rb_cmd = r.rdmabench("t", s.rdmabench_args(), cpus=cpus)
        res, _, _, _, pt_cmd = r.perftest("t", lambda port: s.perftest_args(r.dev, r.gid, port),
                                          "lat", warmup=s.warmup)
    return FakeProc.started, rb_cmd, res, pt_cmd


class Pinning(unittest.TestCase):
    def test_pinned(self):
        self.assertEqual(pinning.pinned(["ib_read_lat", "-s", "8"], {3}, True),
                         (["taskset", "-c", "3", "ib_read_lat", "-s", "8"], None))
        self.assertEqual(pinning.pinned(["x"], {2, 0}, True), (["taskset", "-c", "0,2", "x"], None))
        self.assertEqual(pinning.pinned(["x"], {3}, False), (["x"], {3}))
        self.assertEqual(pinning.pinned(["x"], None, True), (["x"], None))

    def test_long_pins_both_tools_with_taskset(self):
        started, rb_cmd, _, pt_cmd = run_both(["--long"])
        rb_server, rb_client, pt_server, pt_client = started
        self.assertEqual(rb_server.cmd[:5], ["taskset", "-c", "1", "/opt/rb", "server"])
        self.assertEqual(rb_client.cmd[:5], ["taskset", "-c", "0", "/opt/rb", "client"])
        self.assertEqual(pt_server.cmd[:4], ["taskset", "-c", "1", "ib_atomic_lat"])
        self.assertEqual(pt_client.cmd[:4], ["taskset", "-c", "0", "ib_atomic_lat"])
        self.assertEqual(pt_client.cmd[4:-1], pt_server.cmd[4:])  # the same flags, then the host
        self.assertEqual(pt_client.cmd[-1], ADDR)
        self.assertEqual([p.cpus for p in started], [None] * 4)  # no affinity set besides
        # the recorded commands re-run with their pinning
        self.assertEqual((rb_cmd, pt_cmd), (rb_client.cmd, pt_client.cmd))
        self.assertEqual(rb_cmd[rb_cmd.index("--warmup") + 1], "2")
        self.assertNotIn("--cpus", rb_cmd)

    def test_long_warm_up_reaches_perftest_parsing(self):
        _, _, res, pt_cmd = run_both(["--long"])
        self.assertEqual(pt_cmd[pt_cmd.index("-n") + 1], "11")  # 8 + 2 + 1
        self.assertIn("-U", pt_cmd)
        self.assertEqual((res["iters"], res["warmup"]), (8, 2))
        self.assertEqual(res["samples_us"][0], 61.3)  # 180.2 and 95.4 were the warm-up

    def test_long_with_other_cpus(self):
        started, _, _, _ = run_both(["--long", "--pin", "2,3"])
        self.assertEqual([p.cmd[:3] for p in started],
                         [["taskset", "-c", "3"], ["taskset", "-c", "2"]] * 2)

    def test_unpinned_runs_stay_unpinned_under_long(self):
        # run_memory's and run_threads' clients (cpus=None) may use every CPU
        started, rb_cmd, _, _ = run_both(["--long"], cpus=None)
        self.assertEqual(rb_cmd[:2], ["/opt/rb", "client"])
        self.assertIsNone(started[1].cpus)

    def test_default_pins_by_affinity(self):
        started, rb_cmd, res, pt_cmd = run_both([])
        self.assertEqual([p.cmd[0] for p in started], ["/opt/rb", "/opt/rb", "ib_atomic_lat",
                                                       "ib_atomic_lat"])
        self.assertEqual([p.cpus for p in started], [{1}, {0}, {1}, {0}])
        self.assertEqual(pt_cmd[0], "ib_atomic_lat")
        self.assertEqual(res["iters"], 11)  # no warm-up: perftest's own line

    def test_pin_none(self):
        started, _, _, _ = run_both(["--pin", "none"])
        self.assertEqual([p.cpus for p in started], [None] * 4)


class Command(unittest.TestCase):
    def test_long_refuses_unpinned_runs(self):
        err = io.StringIO()
        with mock.patch.object(sys, "argv", ["vs-perftest", "--long", "--pin", "none"]), \
                contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            command.main()
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("--long pins both tools with taskset", err.getvalue())


if __name__ == "__main__":
    unittest.main()
