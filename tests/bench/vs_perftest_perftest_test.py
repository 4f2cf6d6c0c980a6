#!/usr/bin/python3
"""Unit tests of bench/vsperf/perftest.py: perftest's client output (banner, result line, -H
samples) parsed, and a perftest result converted into an rdmabench result document (no device,
no perftest). Run by ctest as vs_perftest_perftest (label unit)."""
import os
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


if __name__ == "__main__":
    unittest.main()
