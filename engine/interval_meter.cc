#include "engine/interval_meter.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/statistics.h"
#include "base/utc_time.h"

namespace rdmabench {

IntervalMeter::IntervalMeter(double interval_s, uint64_t size, const Clock& clock,
                             const WorkerControl& control, std::vector<const Histogram*> hists,
                             double latency_unit_ns,
                             std::function<void(const IntervalResult&)> on_interval,
                             size_t max_kept)
    : interval_s_(interval_s),
      size_(size),
      clock_(clock),
      control_(control),
      hists_(std::move(hists)),
      unit_ns_(latency_unit_ns),
      on_interval_(std::move(on_interval)),
      max_kept_(max_kept),
      interval_ticks_(std::max<uint64_t>(
          1, static_cast<uint64_t>(std::llround(interval_s * 1e9 / clock.ns_per_tick())))) {}

void IntervalMeter::read_counters_with(std::function<CounterSnapshot()> read) {
  read_counters_ = std::move(read);
}

bool IntervalMeter::started() {
  if (start_ != 0) return true;
  uint64_t first = UINT64_MAX;
  for (const WorkerProgress& p : control_.progress)
    if (const uint64_t s = p.start.load(std::memory_order_acquire); s != 0)
      first = std::min(first, s);
  if (first == UINT64_MAX) return false;
  start_ = first;
  const uint64_t now = clock_.now();
  last_ = {first, realtime_unix_s() - (now > first ? clock_.to_ns(now - first) / 1e9 : 0), 0};
  if (!hists_.empty()) last_counts_.assign(hists_.front()->counter_count(), 0);
  if (read_counters_) last_snapshot_ = read_counters_();
  return true;
}

std::chrono::milliseconds IntervalMeter::until_due() const {
  // Before the measurement: look again soon (the warm-up's end is not announced).
  if (start_ == 0) return std::chrono::milliseconds(50);
  const uint64_t due = start_ + next_ * interval_ticks_;
  const uint64_t now = clock_.now();
  if (now >= due) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(clock_.to_ns(due - now) / 1e6)));
}

uint64_t IntervalMeter::shown_ops(std::vector<uint64_t>* counts) {
  if (counts != nullptr) {  // latency: the histograms' counters, summed over the workers
    counts->assign(last_counts_.size(), 0);
    for (const Histogram* h : hists_) {
      h->snapshot_counts(scratch_);
      for (size_t i = 0; i < scratch_.size(); ++i) (*counts)[i] += scratch_[i];
    }
    uint64_t n = 0;
    for (const uint64_t c : *counts) n += c;
    return n;
  }
  uint64_t n = 0;
  for (const WorkerProgress& p : control_.progress)  // only what a started worker shows
    if (p.start.load(std::memory_order_acquire) != 0) n += p.ops.load(std::memory_order_relaxed);
  return n;
}

void IntervalMeter::tick() {
  if (!started()) return;
  const uint64_t now = clock_.now();
  if (now < start_ + next_ * interval_ticks_) return;
  next_ = (now - start_) / interval_ticks_ + 1;  // a late wake-up makes one longer interval
  std::vector<uint64_t> counts;
  const bool lat = !hists_.empty();
  const uint64_t ops = shown_ops(lat ? &counts : nullptr);
  close({now, realtime_unix_s(), ops}, lat ? &counts : nullptr);
}

void IntervalMeter::close(const Sample& end, const std::vector<uint64_t>* counts) {
  IntervalResult iv;
  iv.start_unix_s = last_.unix_s;
  iv.offset_s = clock_.to_ns(last_.tick - start_) / 1e9;
  iv.seconds = end.tick > last_.tick ? clock_.to_ns(end.tick - last_.tick) / 1e9 : 0;
  iv.ops = end.ops > last_.ops ? end.ops - last_.ops : 0;
  iv.bytes = iv.ops * size_;
  iv.gbps = gbps(iv.bytes, iv.seconds);
  iv.mmsg_per_s = mmsg_per_s(iv.ops, iv.seconds);
  if (counts != nullptr) {
    std::vector<uint64_t> diff(counts->size());
    bool any = false;
    for (size_t i = 0; i < diff.size(); ++i) {
      diff[i] = (*counts)[i] > last_counts_[i] ? (*counts)[i] - last_counts_[i] : 0;
      any |= diff[i] != 0;
    }
    if (any) {
      constexpr std::array<double, 2> kPs{50, 99};
      const std::vector<uint64_t> p = hists_.front()->percentiles_of_counts(diff, kPs);
      iv.p50_ns = double(p[0]) * unit_ns_;
      iv.p99_ns = double(p[1]) * unit_ns_;
    }
    last_counts_ = *counts;
  }
  if (read_counters_) {
    CounterSnapshot now = read_counters_();
    iv.counters = counters_moved(last_snapshot_, now);
    last_snapshot_ = std::move(now);
  }
  ++total_;
  auto widen = [](double& peak, double& low, double v) {
    peak = peak < 0 ? v : std::max(peak, v);
    low = low < 0 ? v : std::min(low, v);
  };
  widen(peak_any_, min_any_, iv.gbps);
  if (iv.seconds >= interval_s_ / 2) widen(peak_full_, min_full_, iv.gbps);
  kept_.push_back(iv);
  if (kept_.size() > max_kept_) kept_.pop_front();
  if (on_interval_) on_interval_(iv);
  last_ = end;
}

void IntervalMeter::finish(uint64_t total_ops, uint64_t t_end, SizeResult& r) {
  r.interval_s = interval_s_;
  if (started()) {
    // The last interval ends with the measurement (or, when a tick came after its end, adds
    // nothing); its operations are the totals' remainder.
    const uint64_t end = std::max(t_end, last_.tick);
    const uint64_t now = clock_.now();
    const double end_unix = realtime_unix_s() - (now > end ? clock_.to_ns(now - end) / 1e9 : 0);
    std::vector<uint64_t> counts;
    const bool lat = !hists_.empty();
    if (lat) (void)shown_ops(&counts);
    if (end > last_.tick || total_ops > last_.ops)
      close({end, end_unix, std::max(total_ops, last_.ops)}, lat ? &counts : nullptr);
  }
  r.intervals.assign(kept_.begin(), kept_.end());
  r.intervals_total = total_;
  // Intervals of at least half the asked length: the last, short one rates few completions.
  if (peak_full_ >= 0) {
    r.bw_peak_gbps = peak_full_;
    r.bw_min_gbps = min_full_;
  } else if (peak_any_ >= 0) {
    r.bw_peak_gbps = peak_any_;
    r.bw_min_gbps = min_any_;
  }
}

}  // namespace rdmabench
