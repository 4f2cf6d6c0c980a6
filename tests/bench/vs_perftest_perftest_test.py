#!/usr/bin/python3
"""Unit tests of bench/vsperf/perftest.py: perftest's client output (banner, result line, -H
and -U samples) parsed, ib_atomic_lat / ib_atomic_bw among them, perftest's latency summary
recomputed after a warm-up (--long), and a perftest result converted into an rdmabench result
document (no device, no perftest). Run by ctest as vs_perftest_perftest (label unit)."""
import os
import statistics
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from vsperf import perftest  # noqa: E402 (after the path is set)
from vsperf.cases import CASES, Settings  # noqa: E402

LINE = "-" * 87
BANNER = f"""{LINE}
                    RDMA_Write BW Test
 Dual-port       : OFF\t\tDevice         : rxe0
 Number of qps   : 1\t\tTransport type : IB
 Connection type : UC\t\tUsing SRQ      : OFF
 TX depth        : 128
 CQ Moderation   : 100
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Max inline data : 0[B]
 rdma_cm QPs\t : OFF
 Data ex. method : Ethernet
{LINE}
"""
BW_OUT = BANNER + f""" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      300              0.12               0.11\t\t   0.000210
{LINE}
"""
LAT_OUT = f"""{LINE}
#, usec
1, 50.5
2, 51
3, 51
4, 60.25
5, 200
{LINE}
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 8       5             50.50          200.00       51.00              82.55          58.90           200.00                 200.00  
{LINE}
"""

# ib_atomic_lat / ib_atomic_bw clients as perftest 4.5-0.17 prints them on rxe (ctx_print_test_info,
# ctx_print_pingpong_data, then the result header before the run and, with -H or -U, the samples,
# the header again and the result line: print_report_lat / print_full_bw_report).


def atomic_banner(title, tx_depth, cq_mod=None):
    cq = f" CQ Moderation   : {cq_mod}\n" if cq_mod else ""
    return f"""{LINE}
                    {title}
 Dual-port       : OFF\t\tDevice         : rxe0
 Number of qps   : 1\t\tTransport type : IB
 Connection type : RC\t\tUsing SRQ      : OFF
 PCIe relax order: ON
 ibv_wr* API     : OFF
 TX depth        : {tx_depth}
{cq} Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Outstand reads  : 16
 rdma_cm QPs\t : OFF
 Data ex. method : Ethernet
{LINE}
 local address: LID 0000 QPN 0x0011 PSN 0x3a2b41
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01
 remote address: LID 0000 QPN 0x0012 PSN 0x9c1d07
 GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01
"""


LAT_HEADER = (f"{LINE}\n #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
              "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n")
BW_HEADER = (f"{LINE}\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
             "MsgRate[Mpps]\n")


def samples_text(values):
    return "#, usec\n" + "".join(f"{i + 1}, {v}\n" for i, v in enumerate(values))


# ib_atomic_lat -A FETCH_AND_ADD -n 12 -H: 11 samples, the 2 largest (120.5, 250.3) left out.
ATOMIC_LAT_H_OUT = (
    atomic_banner("Atomic FETCH_AND_ADD Latency Test", 1) + LAT_HEADER
    + samples_text(["58.9", "58.95", "59.1", "59.4", "60", "60.2", "61.05", "62.7", "64.8"])
    + LAT_HEADER + " 8       12          58.90          120.50       60.00    \t       60.57       "
    "\t1.63   \t\t120.50  \t\t120.50 \n" + f"{LINE}\n")
# ib_atomic_lat -A CMP_AND_SWAP -n 11 -U: the 10 samples in the order measured; perftest's line
# summarises all of them.
ATOMIC_LAT_U_SAMPLES = [180.2, 95.4, 61.3, 60.1, 59.8, 62.0, 60.4, 59.9, 75.2, 60.7]
ATOMIC_LAT_U_OUT = (
    atomic_banner("Atomic CMP_AND_SWAP Latency Test", 1) + LAT_HEADER
    + samples_text(["180.2", "95.4", "61.3", "60.1", "59.8", "62", "60.4", "59.9", "75.2", "60.7"])
    + LAT_HEADER + " 8       11          59.80          95.40        60.55    \t       62.42       "
    "\t4.50   \t\t95.40   \t\t95.40  \n" + f"{LINE}\n")
# ib_atomic_bw -A FETCH_AND_ADD -n 5000 --report_gbits below 0.1 Gb/s: 6 decimals (REPORT_FMT_EXT)
ATOMIC_BW_OUT = (atomic_banner("Atomic FETCH_AND_ADD BW Test", 128, 100) + BW_HEADER
                 + " 8          5000           0.034713            0.021184            0.331000\n"
                 + f"{LINE}\n")
# ... and above it: 2 decimals (REPORT_FMT)
ATOMIC_BW_FAST_OUT = (atomic_banner("Atomic CMP_AND_SWAP BW Test", 128, 100) + BW_HEADER
                      + " 8          5000             0.21               0.12   \t\t   1.875000\n"
                      + f"{LINE}\n")


class Parse(unittest.TestCase):
    def test_banner_settings(self):
        self.assertEqual(perftest.perftest_header(BW_OUT),
                         {"tx_depth": 128, "cq_mod": 100, "mtu": 1024, "inline": 0, "qp": "uc"})

    def test_bandwidth_line(self):
        self.assertEqual(perftest.parse_perftest(BW_OUT, "bw"),
                         {"size": 65536, "iters": 300, "gbps_peak": 0.12, "gbps": 0.11,
                          "mmsg_per_s": 0.00021})

    def test_bandwidth_needs_gbits(self):
        with self.assertRaisesRegex(ValueError, "--report_gbits"):
            perftest.parse_perftest(BW_OUT.replace("Gb/sec", "MB/sec"), "bw")

    def test_latency_line_and_samples(self):
        r = perftest.parse_perftest(LAT_OUT, "lat")
        self.assertEqual((r["size"], r["iters"], r["min_us"], r["max_us"], r["p50_us"]),
                         (8, 5, 50.5, 200.0, 51.0))
        self.assertEqual((r["mean_us"], r["stdev_us"], r["p99_us"], r["p99_9_us"]),
                         (82.55, 58.9, 200.0, 200.0))
        self.assertEqual(r["samples_us"], [50.5, 51.0, 51.0, 60.25, 200.0])
        # rdmabench's definitions (nearest rank) over the samples
        self.assertEqual((r["p50_us_rank"], r["p99_us_rank"]), (51.0, 200.0))

    def test_latency_without_samples(self):
        r = perftest.parse_perftest(LAT_OUT.split("#, usec")[0] + LAT_OUT.split(LINE)[2], "lat")
        self.assertEqual(r["p50_us"], 51.0)
        self.assertNotIn("samples_us", r)

    def test_no_result_line(self):
        with self.assertRaisesRegex(ValueError, "no result line"):
            perftest.parse_perftest(BANNER, "bw")

    def test_the_cpu_frequency_failure_is_recognised(self):
        self.assertTrue(perftest.CPU_MHZ_FAILURE.search(
            "Conflicting CPU frequency values detected\nCorrelation coefficient r^2: 0.55 < 0.9"))
        self.assertIsNone(perftest.CPU_MHZ_FAILURE.search(BW_OUT))


class Atomics(unittest.TestCase):
    def test_atomic_banners(self):
        self.assertEqual(perftest.perftest_header(ATOMIC_LAT_H_OUT),
                         {"tx_depth": 1, "mtu": 1024, "outs": 16, "qp": "rc",
                          "atomic": "FETCH_AND_ADD"})
        self.assertEqual(perftest.perftest_header(ATOMIC_BW_OUT),
                         {"tx_depth": 128, "cq_mod": 100, "mtu": 1024, "outs": 16, "qp": "rc",
                          "atomic": "FETCH_AND_ADD"})
        self.assertEqual(perftest.perftest_header(ATOMIC_BW_FAST_OUT)["atomic"], "CMP_AND_SWAP")
        self.assertNotIn("atomic", perftest.perftest_header(BW_OUT))

    def test_atomic_bandwidth_lines(self):
        self.assertEqual(perftest.parse_perftest(ATOMIC_BW_OUT, "bw"),
                         {"size": 8, "iters": 5000, "gbps_peak": 0.034713, "gbps": 0.021184,
                          "mmsg_per_s": 0.331})
        self.assertEqual(perftest.parse_perftest(ATOMIC_BW_FAST_OUT, "bw"),
                         {"size": 8, "iters": 5000, "gbps_peak": 0.21, "gbps": 0.12,
                          "mmsg_per_s": 1.875})

    def test_atomic_latency_with_sorted_samples(self):
        # The header printed before the run and the sample lines are no result line.
        r = perftest.parse_perftest(ATOMIC_LAT_H_OUT, "lat")
        self.assertEqual((r["size"], r["iters"], r["min_us"], r["max_us"], r["p50_us"],
                          r["mean_us"], r["stdev_us"], r["p99_us"], r["p99_9_us"]),
                         (8, 12, 58.9, 120.5, 60.0, 60.57, 1.63, 120.5, 120.5))
        self.assertEqual(len(r["samples_us"]), 9)
        self.assertEqual((r["p50_us_rank"], r["p99_us_rank"]), (60.0, 64.8))
        self.assertNotIn("warmup", r)

    def test_summary_recomputed_as_perftest_prints_it(self):
        # Over all 10 samples of the -U run, perftest_lat_summary gives perftest's own line.
        mine = perftest.perftest_lat_summary(ATOMIC_LAT_U_SAMPLES)
        printed = perftest.parse_perftest(ATOMIC_LAT_U_OUT, "lat")
        for k in ("min_us", "max_us", "p50_us", "mean_us", "p99_us", "p99_9_us"):
            self.assertAlmostEqual(mine[k], printed[k], delta=0.005, msg=k)
        # the plain stdev: perftest's own rounds each deviation to an integer first (4.50 printed)
        self.assertAlmostEqual(mine["stdev_us"],
                               statistics.pstdev(sorted(ATOMIC_LAT_U_SAMPLES)[:8]))
        even = perftest.perftest_lat_summary([1, 2, 3, 4, 9, 10])  # n = 4: the middle two
        self.assertEqual((even["p50_us"], even["max_us"]), (2.5, 9))
        with self.assertRaisesRegex(ValueError, "too few"):
            perftest.perftest_lat_summary([1.0, 2.0, 3.0])

    def test_warm_up_samples_dropped(self):
        # --long: the first 2 samples (180.2, 95.4) are the warm-up; 8 are kept and summarised
        # by perftest's definitions (the 2 largest of them, 75.2 and 62.0, left out of 6).
        r = perftest.parse_perftest(ATOMIC_LAT_U_OUT, "lat", warmup=2)
        self.assertEqual((r["iters"], r["warmup"]), (8, 2))
        self.assertEqual(r["samples_us"], ATOMIC_LAT_U_SAMPLES[2:])
        self.assertEqual((r["min_us"], r["max_us"], r["p99_us"], r["p99_9_us"]),
                         (59.8, 62.0, 62.0, 62.0))
        self.assertAlmostEqual(r["p50_us"], (60.1 + 60.4) / 2)
        self.assertAlmostEqual(r["mean_us"], (59.8 + 59.9 + 60.1 + 60.4 + 60.7 + 61.3) / 6)
        # rdmabench's definitions over all 8 kept samples
        self.assertEqual((r["p50_us_rank"], r["p99_us_rank"]), (60.4, 75.2))

    def test_warm_up_needs_the_samples_in_order(self):
        # -H prints the sorted samples without the 2 largest: not one per iteration
        with self.assertRaisesRegex(ValueError, "-U expected"):
            perftest.parse_perftest(ATOMIC_LAT_H_OUT, "lat", warmup=2)


class Document(unittest.TestCase):
    def test_latency_result_converted_from_its_samples(self):
        case = next(c for c in CASES if c.name == "send_lat_rc")
        args = type("Args", (), {"mtu": 1024, "iters_scale": 1.0})()
        rb_doc = {"tool": {"name": "rdmabench"}, "clock": {"source": "tsc"}, "counters": {"x": 1},
                  "results": [{"latency": {"p50": 1.0}, "error": None}]}
        res = perftest.parse_perftest(LAT_OUT, "lat")
        doc = perftest.perftest_document(rb_doc, Settings(args, case, 8), res, "4.5", 2000.0)
        self.assertEqual(rb_doc["results"][0]["latency"], {"p50": 1.0})  # a copy was changed
        self.assertEqual(doc["tool"], {"name": "perftest", "version": "4.5"})
        self.assertEqual(doc["clock"]["tsc_hz"], 2e9)
        r = doc["results"][0]
        self.assertEqual((r["iterations"], r["bytes"]), (5, 40))
        lat = r["latency"]
        self.assertEqual((lat["count"], lat["p50"], lat["p90"], lat["p99_99"]),
                         (5, 51000.0, 200000.0, 200000.0))
        self.assertEqual(lat["buckets"][:2], [[50500.0, 50500.0, 1], [51000.0, 51000.0, 2]])
        self.assertAlmostEqual(r["seconds"], 5 * 82.55e-6 * 2)  # send: a round trip per sample

    def test_atomic_latency_is_a_whole_round_trip(self):
        case = next(c for c in CASES if c.name == "cmp_swap_lat_rc")
        args = type("Args", (), {"mtu": 1024, "iters_scale": 1.0, "long": True})()
        rb_doc = {"tool": {"name": "rdmabench"}, "clock": {"source": "tsc"}, "counters": {},
                  "results": [{"latency": {"kind": "round_trip"}, "error": None}]}
        res = perftest.parse_perftest(ATOMIC_LAT_U_OUT, "lat", warmup=2)
        doc = perftest.perftest_document(rb_doc, Settings(args, case, 8), res, "4.5", 2000.0)
        r = doc["results"][0]
        self.assertEqual((r["iterations"], r["bytes"]), (8, 64))
        self.assertEqual(r["latency"]["kind"], "round_trip")
        self.assertEqual(r["latency"]["count"], 8)
        self.assertAlmostEqual(r["seconds"], 8 * res["mean_us"] * 1e-6)  # not doubled


if __name__ == "__main__":
    unittest.main()
