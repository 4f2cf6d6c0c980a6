#!/usr/bin/python3
"""Unit tests of bench/vsperf/pool.py: several sessions pooled with the session as the unit
(--pool), the atomic and read latency cases among them, its refusals (comparisons, MTUs, --long
with short runs) and file errors, and the command writing the pooled table (no device, no
testbed). Run by ctest as vs_perftest_pool (label unit)."""
import contextlib
import io
import json
import math
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import common, modes, pool  # noqa: E402 (after the path is set)


def session_doc(ratios_by_point, compared_with="perftest", mtu=1024, long=None):
    """A vs-perftest document: {(case, size): [per-pair ratio]} with perftest at 10 us (or 1
    Mmsg/s for a bandwidth case, "_bw_" in its name)."""
    rows = []
    for (case, size), ratios in ratios_by_point.items():
        if "_bw_" in case:
            pairs = [{"rdmabench": {"mmsg_per_s": 1.0 * r, "gbps": 0.008 * r},
                      "perftest": {"mmsg_per_s": 1.0, "gbps": 0.008}} for r in ratios]
        else:
            pairs = [{"rdmabench": {"p50_us": 10.0 * r, "p99_us": 20.0 * r},
                      "perftest": {"p50_us": 10.0, "p99_us": 20.0}} for r in ratios]
        rows.append({"case": case, "size": size, "mode": "bw" if "_bw_" in case else "lat",
                     "pairs": pairs})
    settings = {"mtu": mtu}
    if long is not None:  # sessions from before --long have no "long"
        settings["long"] = long
    return {"format": common.FORMAT, "format_version": common.FORMAT_VERSION, "date": "2026-11-23",
            "compared_with": compared_with, "settings": settings, "argv": [], "rows": rows}


def dies(fn, *a):
    """Runs fn expecting common.die(); returns its message."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), unittest.TestCase().assertRaises(SystemExit) as cm:
        fn(*a)
    assert cm.exception.code == 2, cm.exception.code
    return err.getvalue()


class Modes(unittest.TestCase):
    def test_slow_mode_runs_are_counted_and_the_fast_mode_compared(self):
        # Both tools draw a fast mode (about 23 us) and a slow one (about 40 us); rdmabench the
        # slow one more often, and 2 % above perftest within the fast mode.
        def doc(pairs):
            return {"rows": [{"case": "cmp_swap_lat_rc", "size": 8, "mode": "lat", "pairs": [
                {"rdmabench": {"p50_us": a}, "perftest": {"p50_us": b}} for a, b in pairs]},
                {"case": "write_bw_rc", "size": 8, "mode": "bw", "pairs": []}]}
        rows = modes.run_modes([doc([(23.46, 23.0), (40.0, 23.0), (41.0, 40.5)]),
                                doc([(23.46, 23.0), (42.0, 23.0)])])
        self.assertEqual(len(rows), 1)
        r = rows[0]
        self.assertEqual((r["case"], r["size"]), ("cmp_swap_lat_rc", 8))
        self.assertEqual(r["runs"], {"rdmabench": 5, "perftest": 5})
        self.assertEqual(r["slow"], {"rdmabench": 3, "perftest": 1})
        self.assertAlmostEqual(r["slow_above_us"], 1.3 * 23.0)
        self.assertAlmostEqual(r["fast_ratio"], 1.02)
        out = io.StringIO()
        modes.print_modes(rows, file=out)
        self.assertIn("cmp_swap_lat_rc       8", out.getvalue())
        self.assertIn("1.020", out.getvalue())

    def test_a_point_one_tool_never_ran_is_left_out(self):
        d = {"rows": [{"case": "read_lat_rc", "size": 8, "mode": "lat",
                       "pairs": [{"rdmabench": {"p50_us": 40.0}, "perftest": None}]}]}
        self.assertEqual(modes.run_modes([d]), [])


class Pool(unittest.TestCase):
    def test_one_value_per_session(self):
        docs = [session_doc({("send_lat_rc", 8): [1.0, 1.1, 1.2]}),
                session_doc({("send_lat_rc", 8): [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]}),
                session_doc({("send_lat_rc", 8): [0.9]})]
        for i, d in enumerate(docs):
            d["_path"] = f"s{i}"
        rows, sessions = pool.pool_sessions(docs)
        self.assertEqual(len(sessions), 3)
        b = rows[0]["p50_us"]
        self.assertEqual((b["sessions"], b["pairs"]), (3, 11))
        self.assertEqual(b["session_medians"], [1.1, 2.0, 0.9])
        self.assertAlmostEqual(b["ratio"]["median"], 1.1)  # not 2.0, the pairs' median
        self.assertAlmostEqual(b["pairs_as_independent"]["median"], 2.0)
        self.assertTrue(pool.pool_verdict(b, False, 0.05).startswith("n/a: 3 session(s)"))

    def test_session_interval_covers_where_pairs_as_independent_do_not(self):
        # 8 sessions of 10 pairs, no real difference (ratio 1), but each session has its own
        # level (log sd 0.15) as well as per-pair noise (log sd 0.15): the interval over
        # sessions covers 1 at least as often as it says (99.2 % for 8); the pairs taken as
        # independent (80 values) give an interval that misses 1 far more often than 5 %.
        rng = random.Random(11)
        trials, hit_sessions, hit_pairs = 600, 0, 0
        for _ in range(trials):
            docs = []
            for i in range(8):
                level = rng.gauss(0, 0.15)
                d = session_doc({("send_lat_rc", 8):
                                 [math.exp(level + rng.gauss(0, 0.15)) for _ in range(10)]})
                d["_path"] = f"s{i}"
                docs.append(d)
            b = pool.pool_sessions(docs)[0][0]["p50_us"]
            hit_sessions += b["ratio"]["ci_low"] <= 1 <= b["ratio"]["ci_high"]
            pi = b["pairs_as_independent"]
            hit_pairs += pi["ci_low"] <= 1 <= pi["ci_high"]
            self.assertGreater(b["icc_log_ratio"] or 0, -1)
        self.assertGreaterEqual(hit_sessions / trials, 0.95)
        self.assertLess(hit_pairs / trials, 0.85)

    def test_effective_pairs_follow_the_design_effect(self):
        docs = [session_doc({("w", 8): [1.0, 1.2, 1.1, 0.9]}),
                session_doc({("w", 8): [1.5, 1.6, 1.4, 1.7]})]
        for i, d in enumerate(docs):
            d["_path"] = f"s{i}"
        b = pool.pool_sessions(docs)[0][0]["p50_us"]
        icc = b["icc_log_ratio"]
        self.assertGreater(icc, 0.5)
        self.assertAlmostEqual(b["effective_pairs"], 8 / (1 + 3 * icc))

    def test_refuses_to_mix_comparisons_and_mtus(self):
        a = session_doc({("w", 8): [1.0]})
        b = session_doc({("w", 8): [1.0]}, compared_with="rdmabench /tmp/other")
        c = session_doc({("w", 8): [1.0]}, mtu=4096)
        for i, d in enumerate((a, b, c)):
            d["_path"] = f"s{i}"
        self.assertIn("pool one comparison at a time", dies(pool.pool_sessions, [a, b]))
        self.assertIn("MTU 4096", dies(pool.pool_sessions, [a, c]))

    def test_refuses_to_mix_long_and_short_runs(self):
        old = session_doc({("w", 8): [1.0]})            # before --long: short
        short = session_doc({("w", 8): [1.0]}, long=False)
        long = session_doc({("w", 8): [1.0]}, long=True)
        for i, d in enumerate((old, short, long)):
            d["_path"] = f"s{i}"
        self.assertEqual(len(pool.pool_sessions([old, short])[0]), 1)
        msg = dies(pool.pool_sessions, [short, long])
        self.assertIn("s2 ran --long, s1 did not", msg)
        self.assertIn("s2 ran --long, s0 did not", dies(pool.pool_sessions, [long, old]))

    def test_atomic_and_read_latency_points_pool_and_print(self):
        points = {("fetch_add_bw_rc", 8): [1.1, 1.2, 1.0], ("cmp_swap_lat_rc", 8): [0.9, 1.0],
                  ("read_lat_rc", 64 * 1024): [1.0, 1.05]}
        docs = []
        for i, level in enumerate((1.0, 1.1, 0.9, 1.05, 0.95)):
            d = session_doc({k: [r * level for r in v] for k, v in points.items()}, long=True)
            d["_path"] = f"s{i}"
            docs.append(d)
        rows, sessions = pool.pool_sessions(docs)
        by_case = {(r["case"], r["size"]): r for r in rows}
        self.assertEqual(set(by_case), set(points))
        bw = by_case[("fetch_add_bw_rc", 8)]
        self.assertEqual((bw["mode"], set(bw) & {"mmsg_per_s", "p50_us"}), ("bw", {"mmsg_per_s"}))
        self.assertEqual(bw["mmsg_per_s"]["sessions"], 5)
        self.assertAlmostEqual(bw["mmsg_per_s"]["ratio"]["median"], 1.1 * 1.0)
        lat = by_case[("cmp_swap_lat_rc", 8)]
        self.assertEqual((lat["p50_us"]["sessions"], lat["p50_us"]["pairs"]), (5, 10))
        text = io.StringIO()
        pool.print_pool(rows, sessions, 0.05, file=text)
        lines = text.getvalue().splitlines()
        head = next(line for line in lines if line.startswith("case"))
        for case, size in (("fetch_add_bw_rc", " 8 "), ("cmp_swap_lat_rc", " 8 "),
                           ("read_lat_rc", " 64K ")):
            line = next(line for line in lines if line.startswith(case + " "))
            # the sizes line up under the header's, past the longest case name
            self.assertEqual(line.index(size) + len(size) - 2, head.index("size") + 3, line)
        summary = pool.ratio_summary(rows)
        self.assertEqual((summary["mmsg_per_s"]["points"], summary["p50_us"]["points"]), (1, 2))

    def test_bad_files_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "nope.json")
            self.assertIn(missing, dies(pool.load_session, missing))
            junk = os.path.join(tmp, "junk.json")
            with open(junk, "w") as f:
                f.write("{not json")
            self.assertIn("is not JSON", dies(pool.load_session, junk))
            other = os.path.join(tmp, "other.json")
            with open(other, "w") as f:
                json.dump({"format": "rdmabench-result"}, f)
            self.assertIn("got 'rdmabench-result'", dies(pool.load_session, other))
            old = os.path.join(tmp, "old.json")
            with open(old, "w") as f:
                json.dump(dict(session_doc({}), format_version=99), f)
            self.assertIn("format_version 99", dies(pool.load_session, old))

    def test_pool_command_reads_folders_and_writes_the_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, level in enumerate((1.0, 1.1, 0.95, 1.05, 1.2)):
                d = os.path.join(tmp, f"s{i}")
                os.makedirs(d)
                with open(os.path.join(d, "vs-perftest.json"), "w") as f:
                    json.dump(session_doc({("send_lat_rc", 8): [level] * 3}), f)
                paths.append(d)
            out = os.path.join(tmp, "pool.json")
            args = pool_args(["--pool"] + paths + ["--pool-out", out])
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                self.assertEqual(pool.run_pool(args), 0)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["format"], common.FORMAT + "-pool")
            b = doc["rows"][0]["p50_us"]
            self.assertEqual(b["sessions"], 5)
            self.assertAlmostEqual(b["ratio"]["median"], 1.05)
            self.assertEqual((b["ratio"]["ci_low"], b["ratio"]["ci_high"]), (0.95, 1.2))
            self.assertIn("slower~", text.getvalue())
            self.assertIn("p50_us: geometric mean of the points' median ratios 1.050 over 1 points",
                          text.getvalue())
            self.assertEqual(doc["summary"]["p50_us"]["significantly_worse"], 0)
            self.assertFalse(os.path.exists(out + ".tmp"))


def pool_args(argv):
    ns = type("Args", (), {})()
    ns.pool = [a for a in argv[1:argv.index("--pool-out")]] if "--pool-out" in argv else argv[1:]
    ns.pool_out = argv[argv.index("--pool-out") + 1] if "--pool-out" in argv else None
    ns.tolerance = 0.05
    return ns


if __name__ == "__main__":
    unittest.main()
