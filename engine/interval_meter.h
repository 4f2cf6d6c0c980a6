#pragma once
// The client's view of one size's measurement while it runs (--interval, docs/single-pair.md
// "Watching a link"): the control thread closes an interval every interval_s seconds from what the
// workers show it — the operations each bandwidth worker has completed (WorkerProgress, relaxed
// atomics) or the counters of each latency worker's histogram (Histogram::snapshot_counts) —
// and, when the workers are done, the last one from the measurement's own totals, so the
// intervals add up to the totals exactly; with read_counters_with, each interval also carries the
// port counters that moved in it. Nothing here runs on a worker thread.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "base/clock.h"
#include "base/counters.h"
#include "base/histogram.h"
#include "engine/worker_context.h"
#include "model/result.h"

namespace rdmabench {

class IntervalMeter {
 public:
  // The intervals a size's result keeps, the most recent (the aggregates count them all): an
  // hour of 1 s intervals, so that a run of any length holds its memory flat.
  static constexpr size_t kMaxKept = 3600;

  // `hists`: the latency workers' histograms (empty in bandwidth mode); `latency_unit_ns`: ns
  // per histogram unit (half a tick for half round trips). `on_interval` is called with each
  // interval as it closes. `max_kept`: how many intervals the result keeps (kMaxKept).
  IntervalMeter(double interval_s, uint64_t size, const Clock& clock, const WorkerControl& control,
                std::vector<const Histogram*> hists, double latency_unit_ns,
                std::function<void(const IntervalResult&)> on_interval, size_t max_kept = kMaxKept);

  // The port counters, read at the measurement's start and as each interval closes: each
  // interval then carries the deltas of those that moved (IntervalResult::counters). Off until
  // set; a read that fails gives an empty snapshot.
  void read_counters_with(std::function<CounterSnapshot()> read);

  // How long the control thread may sleep before it should call tick(): until the next
  // interval ends, or a short look while the measurement has not started.
  [[nodiscard]] std::chrono::milliseconds until_due() const;
  // Closes the interval whose end has passed, if any (call whenever the control thread wakes).
  void tick();
  // The workers are done (joined): closes the last interval at `t_end` (ticks) with the
  // measurement's `total_ops`, and writes the intervals and their aggregates into `r`.
  void finish(uint64_t total_ops, uint64_t t_end, SizeResult& r);

 private:
  struct Sample {
    uint64_t tick = 0;
    double unix_s = 0;
    uint64_t ops = 0;  // cumulative
  };
  bool started();                                     // sets start_ once a worker started
  uint64_t shown_ops(std::vector<uint64_t>* counts);  // cumulative; counts: summed histograms
  void close(const Sample& end, const std::vector<uint64_t>* counts);

  double interval_s_;
  uint64_t size_;
  const Clock& clock_;
  const WorkerControl& control_;
  std::vector<const Histogram*> hists_;
  double unit_ns_;
  std::function<void(const IntervalResult&)> on_interval_;
  size_t max_kept_;
  uint64_t interval_ticks_;
  uint64_t start_ = 0;                 // ticks; 0: not started
  uint64_t next_ = 1;                  // the open interval ends at start_ + next_ * interval_ticks_
  Sample last_;                        // where the open interval began
  std::vector<uint64_t> last_counts_;  // latency: the summed counters at last_
  std::vector<uint64_t> scratch_;
  std::function<CounterSnapshot()> read_counters_;  // empty: counters not read
  CounterSnapshot last_snapshot_;                   // the counters at last_
  std::deque<IntervalResult> kept_;
  uint64_t total_ = 0;
  double peak_full_ = -1, min_full_ = -1, peak_any_ = -1, min_any_ = -1;
};

}  // namespace rdmabench
