// The client's intervals (engine/interval_meter.h), driven by hand: a fake measurement whose
// workers show their operations (bandwidth) or record into histograms (latency). Each tick()
// after until_due() closes one interval; finish() closes the last from the totals.
#include "engine/interval_meter.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

namespace rdmabench {
namespace {

struct MeterRig {
  Clock clock = Clock::calibrate();
  WorkerControl control{2};
  std::vector<IntervalResult> seen;
  void start(size_t worker) {
    control.progress[worker].ops.store(0);
    control.progress[worker].start.store(clock.now());
  }
  static void wait_and_tick(IntervalMeter& m) {
    std::this_thread::sleep_for(m.until_due());
    m.tick();
  }
};

TEST(IntervalMeter, BandwidthIntervalsAddUpToTheTotalsAndKeepTheMostRecent) {
  MeterRig rig;
  IntervalMeter m(
      0.02, 4096, rig.clock, rig.control, {}, 1.0,
      [&](const IntervalResult& iv) { rig.seen.push_back(iv); }, 3);
  // Before any worker starts: nothing closes, and the control thread looks again soon.
  rig.control.progress[1].ops.store(999);  // a warm-up count: not the measurement's
  m.tick();
  EXPECT_TRUE(rig.seen.empty());
  EXPECT_EQ(m.until_due(), std::chrono::milliseconds(50));
  rig.start(0);
  uint64_t shown = 0;
  for (uint64_t k = 1; k <= 5; ++k) {
    shown += 100 * k;
    rig.control.progress[0].ops.store(shown);
    if (k == 3) rig.start(1);  // a worker that starts late counts from its start
    if (k >= 3) rig.control.progress[1].ops.store(10 * (k - 2));
    MeterRig::wait_and_tick(m);
  }
  ASSERT_EQ(rig.seen.size(), 5U);
  const std::vector<uint64_t> want{100, 200, 300 + 10, 400 + 10, 500 + 10};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(rig.seen[i].ops, want[i]) << i;
    EXPECT_EQ(rig.seen[i].bytes, want[i] * 4096) << i;
    EXPECT_GT(rig.seen[i].seconds, 0) << i;
    if (i > 0) {
      EXPECT_NEAR(rig.seen[i].offset_s, rig.seen[i - 1].offset_s + rig.seen[i - 1].seconds, 1e-9);
      EXPECT_GT(rig.seen[i].start_unix_s, rig.seen[i - 1].start_unix_s);
    }
    EXPECT_FALSE(rig.seen[i].p50_ns.has_value());
    EXPECT_FALSE(rig.seen[i].counters.has_value());  // not asked for (read_counters_with)
  }
  EXPECT_EQ(rig.seen[0].offset_s, 0);
  // The end: the totals' remainder makes the last interval.
  SizeResult r;
  m.finish(shown + 30 + 7, rig.clock.now(), r);
  ASSERT_EQ(rig.seen.size(), 6U);
  EXPECT_EQ(rig.seen.back().ops, 7U);
  uint64_t sum = 0;
  for (const auto& iv : rig.seen) sum += iv.ops;
  EXPECT_EQ(sum, shown + 30 + 7);
  EXPECT_EQ(r.interval_s, 0.02);
  EXPECT_EQ(r.intervals_total, 6U);
  ASSERT_EQ(r.intervals.size(), 3U);  // the most recent three
  EXPECT_EQ(r.intervals[0].ops, rig.seen[3].ops);
  EXPECT_EQ(r.intervals[2].ops, 7U);
  // Peak and lowest over the intervals at least half the asked length.
  double peak = 0, low = 1e300;
  for (const auto& iv : rig.seen)
    if (iv.seconds >= 0.01) {
      peak = std::max(peak, iv.gbps);
      low = std::min(low, iv.gbps);
    }
  ASSERT_TRUE(r.bw_peak_gbps && r.bw_min_gbps);
  EXPECT_EQ(*r.bw_peak_gbps, peak);
  EXPECT_EQ(*r.bw_min_gbps, low);
}

TEST(IntervalMeter, LatencyIntervalsTakeTheirPercentilesFromTheHistograms) {
  MeterRig rig;
  Histogram h0, h1;
  IntervalMeter m(0.02, 64, rig.clock, rig.control, {&h0, &h1}, 0.5,
                  [&](const IntervalResult& iv) { rig.seen.push_back(iv); });
  rig.start(0);
  rig.start(1);
  h0.record_n(1000, 100);
  h1.record_n(3000, 100);
  MeterRig::wait_and_tick(m);
  ASSERT_EQ(rig.seen.size(), 1U);
  EXPECT_EQ(rig.seen[0].ops, 200U);
  ASSERT_TRUE(rig.seen[0].p50_ns && rig.seen[0].p99_ns);
  EXPECT_NEAR(*rig.seen[0].p50_ns, 500, 500 * 0.01);  // 0.5 ns per unit: half round trips
  EXPECT_NEAR(*rig.seen[0].p99_ns, 1500, 1500 * 0.01);
  // The next interval holds only what came after the first.
  h0.record_n(7000, 10);
  SizeResult r;
  m.finish(210, rig.clock.now(), r);
  ASSERT_EQ(rig.seen.size(), 2U);
  EXPECT_EQ(rig.seen[1].ops, 10U);
  ASSERT_TRUE(rig.seen[1].p50_ns);
  EXPECT_NEAR(*rig.seen[1].p50_ns, 3500, 3500 * 0.01);
  EXPECT_EQ(r.intervals.size(), 2U);
}

// With the counters read: each interval carries the deltas of the counters that moved in it
// (the baseline is read when the measurement starts, not when the meter is made), and only
// those; a counter that went backwards or appeared later is left out.
TEST(IntervalMeter, EachIntervalCarriesTheCountersThatMovedInIt) {
  MeterRig rig;
  IntervalMeter m(0.02, 4096, rig.clock, rig.control, {}, 1.0,
                  [&](const IntervalResult& iv) { rig.seen.push_back(iv); });
  CounterSnapshot port{{"hw_counters/sent_pkts", 1000}, {"hw_counters/rcvd_seq_err", 5}};
  int reads = 0;
  m.read_counters_with([&] {
    ++reads;
    return port;
  });
  m.tick();  // not started: no read
  EXPECT_EQ(reads, 0);
  port["hw_counters/sent_pkts"] = 1200;  // the warm-up's packets: before the baseline
  rig.start(0);
  m.tick();  // the baseline is read as the measurement starts
  EXPECT_EQ(reads, 1);
  port["hw_counters/sent_pkts"] = 1300;
  rig.control.progress[0].ops.store(10);
  MeterRig::wait_and_tick(m);
  port["hw_counters/sent_pkts"] = 1350;
  port["hw_counters/rcvd_seq_err"] = 7;
  port["hw_counters/new_one"] = 3;  // not in the interval's first snapshot
  rig.control.progress[0].ops.store(20);
  MeterRig::wait_and_tick(m);
  port["hw_counters/sent_pkts"] = 1340;  // backwards (a reset): no delta
  SizeResult r;
  m.finish(25, rig.clock.now(), r);
  ASSERT_EQ(rig.seen.size(), 3U);
  using Counters = std::map<std::string, uint64_t>;
  ASSERT_TRUE(rig.seen[0].counters.has_value());
  EXPECT_EQ(*rig.seen[0].counters, (Counters{{"hw_counters/sent_pkts", 100}}));
  EXPECT_EQ(*rig.seen[1].counters,
            (Counters{{"hw_counters/sent_pkts", 50}, {"hw_counters/rcvd_seq_err", 2}}));
  ASSERT_TRUE(rig.seen[2].counters.has_value());
  EXPECT_TRUE(rig.seen[2].counters->empty());  // read, and nothing moved
}

}  // namespace
}  // namespace rdmabench
