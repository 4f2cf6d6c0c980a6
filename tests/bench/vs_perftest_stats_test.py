#!/usr/bin/python3
"""Unit tests of bench/vs-perftest's statistics: the confidence interval of the median ratio and
the verdict built on it, and the pooling of several sessions (--pool) (no device, no testbed). Run by ctest as vs_perftest_stats (label unit)."""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import random
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("vs_perftest", os.path.join(ROOT, "bench", "vs-perftest"))
_spec = importlib.util.spec_from_loader("vs_perftest", _loader)
vsp = importlib.util.module_from_spec(_spec)
_loader.exec_module(vsp)


def block(ratios, tolerance_diff=None):
    """A ratio block as ratio_block builds it, from per-pair ratios (perftest = 1 each pair)."""
    pairs = [{"rdmabench": {"x": r}, "perftest": {"x": 1.0}} for r in ratios]
    return vsp.ratio_block(pairs, "x")


class MedianCi(unittest.TestCase):
    def test_five_values_give_min_max_at_their_own_coverage(self):
        lo, hi, cov = vsp.median_ci([3, 1, 5, 2, 4])
        self.assertEqual((lo, hi), (1, 5))
        self.assertAlmostEqual(cov, 1 - 2 / 32)  # both ends: P(Bin(5,1/2) = 0) each

    def test_ten_values_drop_one_from_each_end(self):
        lo, hi, cov = vsp.median_ci(list(range(1, 11)))
        self.assertEqual((lo, hi), (2, 9))
        self.assertAlmostEqual(cov, 1 - 2 * 11 / 1024)
        self.assertGreaterEqual(cov, 0.95)

    def test_coverage_is_the_exact_binomial_one(self):
        # For every n the interval's coverage is at least 95 % once that is reachable (n >= 6),
        # and the next narrower interval's would not be.
        for n in range(6, 60):
            lo, hi, cov = vsp.median_ci(list(range(n)))
            k = lo + 1
            self.assertEqual(hi, n - k)
            self.assertGreaterEqual(cov, 0.95, n)
            narrower = 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
            self.assertLess(narrower, 0.95, n)

    def test_covers_the_true_median_as_often_as_it_says(self):
        # Simulation: uniform samples around a known median; the interval holds it in >= 95 %
        # of 4000 draws (expected 97.9 % for n = 10).
        rng = random.Random(7)
        hits = sum(lo <= 0.5 <= hi for lo, hi, _ in
                   (vsp.median_ci([rng.random() for _ in range(10)]) for _ in range(4000)))
        self.assertGreaterEqual(hits / 4000, 0.95)

    def test_single_value(self):
        self.assertEqual(vsp.median_ci([2.5])[:2], (2.5, 2.5))


class Verdict(unittest.TestCase):
    def test_latency_slower_at_the_median_but_inside_the_noise(self):
        b = block([0.9, 0.95, 1.2, 1.25, 1.3])  # median 1.2, interval 0.9..1.3 includes 1
        self.assertEqual(vsp.verdict(b, False, 0.05), "slower~ DIFF~ +20.0%")

    def test_latency_slower_in_every_pair_is_called_slower(self):
        b = block([1.1, 1.15, 1.2, 1.25, 1.3])
        self.assertEqual(vsp.verdict(b, False, 0.05), "SLOWER DIFF +20.0%")

    def test_throughput_higher_is_better(self):
        self.assertEqual(vsp.verdict(block([1.0, 1.01, 1.02, 1.03, 1.04]), True, 0.05), "ok")
        self.assertEqual(vsp.verdict(block([0.7, 0.75, 0.8, 0.85, 0.9]), True, 0.05),
                         "SLOWER DIFF -20.0%")

    def test_a_difference_outside_the_tolerance_band_has_no_tilde(self):
        b = block([0.5, 0.55, 0.6, 0.62, 0.7])  # faster latency, far outside +-5 %
        self.assertEqual(vsp.verdict(b, False, 0.05), "ok DIFF -40.0%")

    def test_summary_counts_points_whose_interval_excludes_one(self):
        rows = [{"p50_us": block([1.1, 1.2, 1.3, 1.4, 1.5])},
                {"p50_us": block([0.8, 0.9, 1.0, 1.1, 1.2])},
                {"p50_us": block([0.5, 0.6, 0.7, 0.8, 0.9])}]
        s = vsp.ratio_summary(rows)["p50_us"]
        self.assertEqual((s["significantly_worse"], s["significantly_better"]), (1, 1))
        self.assertEqual((s["worse"], s["better"]), (1, 1))


def session_doc(ratios_by_point, compared_with="perftest", mtu=1024):
    """A vs-perftest document: {(case, size): [per-pair ratio]} with perftest at 10 us."""
    rows = []
    for (case, size), ratios in ratios_by_point.items():
        pairs = [{"rdmabench": {"p50_us": 10.0 * r, "p99_us": 20.0 * r},
                  "perftest": {"p50_us": 10.0, "p99_us": 20.0}} for r in ratios]
        rows.append({"case": case, "size": size, "mode": "lat", "pairs": pairs})
    return {"format": vsp.FORMAT, "format_version": vsp.FORMAT_VERSION, "date": "2026-11-23",
            "compared_with": compared_with, "settings": {"mtu": mtu}, "argv": [], "rows": rows}


def dies(fn, *a):
    """Runs fn expecting vs-perftest's die(); returns its message."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), unittest.TestCase().assertRaises(SystemExit) as cm:
        fn(*a)
    assert cm.exception.code == 2, cm.exception.code
    return err.getvalue()


class IntraclassCorrelation(unittest.TestCase):
    def test_hand_computed_example(self):
        # means 2 and 5, grand 3.5: MSB 13.5, MSW 1, n0 3 -> (13.5 - 1) / (13.5 + 2 * 1)
        self.assertAlmostEqual(vsp.intraclass_correlation([[1, 2, 3], [4, 5, 6]]), 12.5 / 15.5)

    def test_no_difference_between_groups_is_zero_and_clamped(self):
        self.assertEqual(vsp.intraclass_correlation([[1, 2, 3], [1, 2, 3], [3, 2, 1]]), 0.0)

    def test_identical_values_within_groups_is_one(self):
        self.assertEqual(vsp.intraclass_correlation([[1, 1], [2, 2], [5, 5, 5]]), 1.0)

    def test_undefined_without_two_groups_or_within_spread(self):
        self.assertIsNone(vsp.intraclass_correlation([[1, 2, 3]]))
        self.assertIsNone(vsp.intraclass_correlation([[1], [2]]))


class Pool(unittest.TestCase):
    def test_one_value_per_session(self):
        docs = [session_doc({("send_lat_rc", 8): [1.0, 1.1, 1.2]}),
                session_doc({("send_lat_rc", 8): [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]}),
                session_doc({("send_lat_rc", 8): [0.9]})]
        for i, d in enumerate(docs):
            d["_path"] = f"s{i}"
        rows, sessions = vsp.pool_sessions(docs)
        self.assertEqual(len(sessions), 3)
        b = rows[0]["p50_us"]
        self.assertEqual((b["sessions"], b["pairs"]), (3, 11))
        self.assertEqual(b["session_medians"], [1.1, 2.0, 0.9])
        self.assertAlmostEqual(b["ratio"]["median"], 1.1)  # not 2.0, the pairs' median
        self.assertAlmostEqual(b["pairs_as_independent"]["median"], 2.0)
        self.assertTrue(vsp.pool_verdict(b, False, 0.05).startswith("n/a: 3 session(s)"))

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
            b = vsp.pool_sessions(docs)[0][0]["p50_us"]
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
        b = vsp.pool_sessions(docs)[0][0]["p50_us"]
        icc = b["icc_log_ratio"]
        self.assertGreater(icc, 0.5)
        self.assertAlmostEqual(b["effective_pairs"], 8 / (1 + 3 * icc))

    def test_refuses_to_mix_comparisons_and_mtus(self):
        a = session_doc({("w", 8): [1.0]})
        b = session_doc({("w", 8): [1.0]}, compared_with="rdmabench /tmp/other")
        c = session_doc({("w", 8): [1.0]}, mtu=4096)
        for i, d in enumerate((a, b, c)):
            d["_path"] = f"s{i}"
        self.assertIn("pool one comparison at a time", dies(vsp.pool_sessions, [a, b]))
        self.assertIn("MTU 4096", dies(vsp.pool_sessions, [a, c]))

    def test_bad_files_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "nope.json")
            self.assertIn(missing, dies(vsp.load_session, missing))
            junk = os.path.join(tmp, "junk.json")
            with open(junk, "w") as f:
                f.write("{not json")
            self.assertIn("is not JSON", dies(vsp.load_session, junk))
            other = os.path.join(tmp, "other.json")
            with open(other, "w") as f:
                json.dump({"format": "rdmabench-result"}, f)
            self.assertIn("got 'rdmabench-result'", dies(vsp.load_session, other))
            old = os.path.join(tmp, "old.json")
            with open(old, "w") as f:
                json.dump(dict(session_doc({}), format_version=99), f)
            self.assertIn("format_version 99", dies(vsp.load_session, old))

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
            args = vsp_args(["--pool"] + paths + ["--pool-out", out])
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                self.assertEqual(vsp.run_pool(args), 0)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["format"], vsp.FORMAT + "-pool")
            b = doc["rows"][0]["p50_us"]
            self.assertEqual(b["sessions"], 5)
            self.assertAlmostEqual(b["ratio"]["median"], 1.05)
            self.assertEqual((b["ratio"]["ci_low"], b["ratio"]["ci_high"]), (0.95, 1.2))
            self.assertIn("slower~", text.getvalue())
            self.assertIn("p50_us: geometric mean of the points' median ratios 1.050 over 1 points",
                          text.getvalue())
            self.assertEqual(doc["summary"]["p50_us"]["significantly_worse"], 0)
            self.assertFalse(os.path.exists(out + ".tmp"))


def vsp_args(argv):
    ns = type("Args", (), {})()
    ns.pool = [a for a in argv[1:argv.index("--pool-out")]] if "--pool-out" in argv else argv[1:]
    ns.pool_out = argv[argv.index("--pool-out") + 1] if "--pool-out" in argv else None
    ns.tolerance = 0.05
    return ns


if __name__ == "__main__":
    unittest.main()
