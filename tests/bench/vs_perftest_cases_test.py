#!/usr/bin/python3
"""Unit tests of bench/vsperf/cases.py: the arguments both tools get for a point (the atomic
cases, read latency, and --long's iterations and warm-up), the check of the settings they ran
with, and the plan (cases and sizes) by default, with --quick, --all, --sizes and --long (no
device, no testbed). Run by ctest as vs_perftest_cases (label unit)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import cases, command  # noqa: E402 (after the path is set)
from vsperf.common import KIB, MIB  # noqa: E402


def args_of(*argv):
    return command.parser().parse_args(list(argv))


def case(name):
    return next(c for c in cases.CASES if c.name == name)


def perftest_args(name, size, *argv):
    return cases.Settings(args_of(*argv), case(name), size).perftest_args("rxe0", "1", 19100)


def rdmabench_args(name, size, *argv):
    return cases.Settings(args_of(*argv), case(name), size).rdmabench_args()


def plan_of(*argv):
    return [(c.name, sizes) for c, sizes in cases.build_plan(args_of(*argv))]


CONNECT = ["-d", "rxe0", "-x", "1", "-p", "19100"]


class AtomicArguments(unittest.TestCase):
    def test_atomic_latency(self):
        self.assertEqual(perftest_args("fetch_add_lat_rc", 8),
                         ["ib_atomic_lat"] + CONNECT + ["-A", "FETCH_AND_ADD", "-n", "1000",
                                                        "-m", "1024", "-H", "-o", "16"])
        self.assertEqual(perftest_args("cmp_swap_lat_rc", 8)[:9],
                         ["ib_atomic_lat"] + CONNECT + ["-A", "CMP_AND_SWAP"])
        self.assertEqual(rdmabench_args("fetch_add_lat_rc", 8),
                         ["--op", "fetch_add", "-c", "rc", "--mode", "lat", "-s", "8", "-n",
                          "1000", "--warmup", "0", "-m", "1024", "-t", "1", "-Q", "1"])

    def test_atomic_bandwidth(self):
        self.assertEqual(perftest_args("cmp_swap_bw_rc", 8),
                         ["ib_atomic_bw"] + CONNECT + ["-A", "CMP_AND_SWAP", "-n", "5000", "-m",
                                                       "1024", "-t", "128", "-Q", "100",
                                                       "--report_gbits", "-o", "16"])
        self.assertEqual(rdmabench_args("fetch_add_bw_rc", 8),
                         ["--op", "fetch_add", "-c", "rc", "--mode", "bw", "-s", "8", "-n",
                          "5000", "--warmup", "0", "-m", "1024", "-t", "128", "-Q", "100"])

    def test_no_size_or_inline_where_perftest_refuses_them(self):
        # ib_atomic_* take no -s ("Message size cannot be changed for Atomic tests") and no -I
        # ("Inline feature not available on READ/Atomic verbs"); rdmabench's -I is left out too.
        for name in ("fetch_add_lat_rc", "cmp_swap_lat_rc", "fetch_add_bw_rc", "cmp_swap_bw_rc"):
            self.assertNotIn("-s", perftest_args(name, 8), name)
            self.assertNotIn("-I", perftest_args(name, 8), name)
            self.assertNotIn("-I", rdmabench_args(name, 8), name)
            self.assertTrue(case(name).fetch and case(name).atomic, name)

    def test_the_cases_of_before_are_unchanged(self):
        self.assertEqual(perftest_args("write_lat_rc", 8),
                         ["ib_write_lat"] + CONNECT + ["-s", "8", "-n", "1000", "-m", "1024", "-H"])
        self.assertEqual(rdmabench_args("write_lat_rc", 8)[-2:], ["-I", "0"])
        self.assertEqual(perftest_args("read_lat_rc", 64 * KIB),
                         ["ib_read_lat"] + CONNECT + ["-s", "65536", "-n", "1000", "-m", "1024",
                                                      "-H", "-o", "16"])
        self.assertIsNone(case("read_lat_rc").atomic)
        self.assertFalse(case("send_lat_rc").fetch)


class LongArguments(unittest.TestCase):
    def test_latency_runs_are_longer_with_a_warm_up_for_both_tools(self):
        # rdmabench: 5000 measured after 500 warm-up; perftest: 5501 iterations (5500 samples,
        # in order with -U), of which the script drops the first 500.
        self.assertEqual(perftest_args("fetch_add_lat_rc", 8, "--long"),
                         ["ib_atomic_lat"] + CONNECT + ["-A", "FETCH_AND_ADD", "-n", "5501",
                                                        "-m", "1024", "-U", "-o", "16"])
        self.assertEqual(rdmabench_args("fetch_add_lat_rc", 8, "--long")[6:12],
                         ["-s", "8", "-n", "5000", "--warmup", "500"])
        s = cases.Settings(args_of("--long"), case("read_lat_rc"), 16 * KIB)
        self.assertEqual((s.iters, s.warmup, s.perftest_iters), (5000, 500, 5501))
        self.assertIn("-U", s.perftest_args("rxe0", "1", 19100))
        self.assertNotIn("-H", s.perftest_args("rxe0", "1", 19100))

    def test_iters_scale_scales_long_runs_too(self):
        s = cases.Settings(args_of("--long", "--iters-scale", "2"), case("send_lat_rc"), 8)
        self.assertEqual((s.iters, s.warmup, s.perftest_iters), (10000, 1000, 11001))

    def test_bandwidth_runs_as_without_it(self):
        for name, size in (("cmp_swap_bw_rc", 8), ("write_bw_rc", MIB)):
            self.assertEqual(perftest_args(name, size, "--long"), perftest_args(name, size))
            self.assertEqual(rdmabench_args(name, size, "--long"), rdmabench_args(name, size))

    def test_no_pinning_in_the_tools_own_arguments(self):
        # Both tools are pinned from outside (taskset, see the runner test), never with
        # rdmabench's --cpus, which perftest has no counterpart of.
        for name in ("fetch_add_lat_rc", "read_lat_rc", "fetch_add_bw_rc"):
            self.assertNotIn("--cpus", rdmabench_args(name, 8, "--long"))
            self.assertNotIn("taskset", perftest_args(name, 8, "--long"))


class CompareSettings(unittest.TestCase):
    def rb_doc(self, warmup=0):
        return {"workload": {"mtu": 1024, "tx_depth": 1, "signal_every": 1, "qp": "rc",
                             "warmup": warmup}, "devices": {"client": {}}}

    def test_atomic_banner_checked(self):
        s = cases.Settings(args_of(), case("cmp_swap_lat_rc"), 8)
        header = {"tx_depth": 1, "mtu": 1024, "outs": 16, "qp": "rc", "atomic": "CMP_AND_SWAP"}
        self.assertEqual(cases.compare_settings(s, header, self.rb_doc()), set())
        self.assertEqual(cases.compare_settings(s, dict(header, atomic="FETCH_AND_ADD"),
                                                self.rb_doc()),
                         {"perftest atomic=FETCH_AND_ADD (asked CMP_AND_SWAP)"})
        self.assertEqual(cases.compare_settings(s, dict(header, outs=128), self.rb_doc()),
                         {"perftest outs=128 (asked 16)"})

    def test_warm_up_checked(self):
        s = cases.Settings(args_of("--long"), case("fetch_add_lat_rc"), 8)
        header = {"mtu": 1024, "outs": 16, "qp": "rc", "atomic": "FETCH_AND_ADD"}
        self.assertEqual(cases.compare_settings(s, header, self.rb_doc(500)), set())
        self.assertEqual(cases.compare_settings(s, header, self.rb_doc(50)),
                         {"rdmabench warmup=50 (asked 500)"})


class Plan(unittest.TestCase):
    READ_LAT = [8, 64, 256, KIB, 4 * KIB, 16 * KIB, 64 * KIB]

    def test_default_run(self):
        plan = dict(plan_of())
        self.assertEqual(list(plan), [c.name for c in cases.CASES])
        self.assertEqual(plan["read_lat_rc"], self.READ_LAT)
        for name in ("fetch_add_bw_rc", "cmp_swap_bw_rc", "fetch_add_lat_rc", "cmp_swap_lat_rc"):
            self.assertEqual(plan[name], [8], name)
        self.assertEqual(plan["write_bw_rc"], cases.BW_SIZES)
        self.assertEqual(sum(len(s) for s in plan.values()), 34)

    def test_quick_run_stays_small(self):
        plan = plan_of("--quick")
        self.assertEqual(plan, list(cases.QUICK_CASES.items()))
        self.assertEqual(sum(len(s) for _, s in plan), 6)
        names = [n for n, _ in plan]
        self.assertNotIn("read_lat_rc", names)
        self.assertFalse([n for n in names if case(n).atomic])

    def test_long_does_not_change_the_plan(self):
        self.assertEqual(plan_of("--long"), plan_of())
        self.assertEqual(plan_of("--quick", "--long"), plan_of("--quick"))

    def test_all_sizes(self):
        plan = dict(plan_of("--all"))
        self.assertEqual(plan["read_lat_rc"], self.READ_LAT)  # LAT_SIZES and its own
        self.assertEqual(plan["send_lat_rc"], cases.LAT_SIZES)
        self.assertEqual(plan["fetch_add_bw_rc"], [8])
        self.assertEqual(plan["cmp_swap_lat_rc"], [8])

    def test_sizes_given(self):
        self.assertEqual(plan_of("--cases", "fetch_add_lat_rc,read_lat_rc", "--sizes", "8,4K"),
                         [("fetch_add_lat_rc", [8]), ("read_lat_rc", [8, 4 * KIB])])
        # an atomic case with no 8 B size left is skipped (as UD above the MTU is)
        self.assertEqual(plan_of("--cases", "fetch_add_bw_rc,read_bw_rc", "--sizes", "64"),
                         [("read_bw_rc", [64])])

    def test_quick_with_named_atomic_cases(self):
        self.assertEqual(plan_of("--quick", "--cases", "cmp_swap_lat_rc,write_lat_rc"),
                         [("cmp_swap_lat_rc", [8]), ("write_lat_rc", [8])])


if __name__ == "__main__":
    unittest.main()
