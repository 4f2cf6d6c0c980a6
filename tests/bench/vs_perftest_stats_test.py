#!/usr/bin/python3
"""Unit tests of bench/vs-perftest's statistics: the confidence interval of the median ratio and
the verdict built on it (no device, no testbed). Run by ctest as vs_perftest_stats (label unit)."""
import importlib.machinery
import importlib.util
import math
import os
import random
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


if __name__ == "__main__":
    unittest.main()
