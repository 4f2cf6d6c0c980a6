#!/usr/bin/python3
"""Unit tests of bench/vsperf/stats.py: the confidence interval of the median ratio, the verdict
built on it, the summary over points, and the intraclass correlation used by --pool (no device,
no testbed). Run by ctest as vs_perftest_stats (label unit)."""
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import stats  # noqa: E402 (after the path is set)


def block(ratios, tolerance_diff=None):
    """A ratio block as ratio_block builds it, from per-pair ratios (perftest = 1 each pair)."""
    pairs = [{"rdmabench": {"x": r}, "perftest": {"x": 1.0}} for r in ratios]
    return stats.ratio_block(pairs, "x")


class MedianCi(unittest.TestCase):
    def test_five_values_give_min_max_at_their_own_coverage(self):
        lo, hi, cov = stats.median_ci([3, 1, 5, 2, 4])
        self.assertEqual((lo, hi), (1, 5))
        self.assertAlmostEqual(cov, 1 - 2 / 32)  # both ends: P(Bin(5,1/2) = 0) each

    def test_ten_values_drop_one_from_each_end(self):
        lo, hi, cov = stats.median_ci(list(range(1, 11)))
        self.assertEqual((lo, hi), (2, 9))
        self.assertAlmostEqual(cov, 1 - 2 * 11 / 1024)
        self.assertGreaterEqual(cov, 0.95)

    def test_coverage_is_the_exact_binomial_one(self):
        # For every n the interval's coverage is at least 95 % once that is reachable (n >= 6),
        # and the next narrower interval's would not be.
        for n in range(6, 60):
            lo, hi, cov = stats.median_ci(list(range(n)))
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
                   (stats.median_ci([rng.random() for _ in range(10)]) for _ in range(4000)))
        self.assertGreaterEqual(hits / 4000, 0.95)

    def test_single_value(self):
        self.assertEqual(stats.median_ci([2.5])[:2], (2.5, 2.5))


class Verdict(unittest.TestCase):
    def test_latency_slower_at_the_median_but_inside_the_noise(self):
        b = block([0.9, 0.95, 1.2, 1.25, 1.3])  # median 1.2, interval 0.9..1.3 includes 1
        self.assertEqual(stats.verdict(b, False, 0.05), "slower~ DIFF~ +20.0%")

    def test_latency_slower_in_every_pair_is_called_slower(self):
        b = block([1.1, 1.15, 1.2, 1.25, 1.3])
        self.assertEqual(stats.verdict(b, False, 0.05), "SLOWER DIFF +20.0%")

    def test_throughput_higher_is_better(self):
        self.assertEqual(stats.verdict(block([1.0, 1.01, 1.02, 1.03, 1.04]), True, 0.05), "ok")
        self.assertEqual(stats.verdict(block([0.7, 0.75, 0.8, 0.85, 0.9]), True, 0.05),
                         "SLOWER DIFF -20.0%")

    def test_a_difference_outside_the_tolerance_band_has_no_tilde(self):
        b = block([0.5, 0.55, 0.6, 0.62, 0.7])  # faster latency, far outside +-5 %
        self.assertEqual(stats.verdict(b, False, 0.05), "ok DIFF -40.0%")

    def test_summary_counts_points_whose_interval_excludes_one(self):
        rows = [{"p50_us": block([1.1, 1.2, 1.3, 1.4, 1.5])},
                {"p50_us": block([0.8, 0.9, 1.0, 1.1, 1.2])},
                {"p50_us": block([0.5, 0.6, 0.7, 0.8, 0.9])}]
        s = stats.ratio_summary(rows)["p50_us"]
        self.assertEqual((s["significantly_worse"], s["significantly_better"]), (1, 1))
        self.assertEqual((s["worse"], s["better"]), (1, 1))


class IntraclassCorrelation(unittest.TestCase):
    def test_hand_computed_example(self):
        # means 2 and 5, grand 3.5: MSB 13.5, MSW 1, n0 3 -> (13.5 - 1) / (13.5 + 2 * 1)
        self.assertAlmostEqual(stats.intraclass_correlation([[1, 2, 3], [4, 5, 6]]), 12.5 / 15.5)

    def test_no_difference_between_groups_is_zero_and_clamped(self):
        self.assertEqual(stats.intraclass_correlation([[1, 2, 3], [1, 2, 3], [3, 2, 1]]), 0.0)

    def test_identical_values_within_groups_is_one(self):
        self.assertEqual(stats.intraclass_correlation([[1, 1], [2, 2], [5, 5, 5]]), 1.0)

    def test_undefined_without_two_groups_or_within_spread(self):
        self.assertIsNone(stats.intraclass_correlation([[1, 2, 3]]))
        self.assertIsNone(stats.intraclass_correlation([[1], [2]]))


if __name__ == "__main__":
    unittest.main()
