#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/clock.h"
#include "base/histogram.h"
#include "base/statistics.h"

namespace rdmabench {
namespace {

// Pre-generated latencies: log-normal around ~3 us with a long tail into milliseconds.
const std::vector<uint64_t>& latency_values() {
  static const std::vector<uint64_t> values = [] {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(std::log(3000.0), 1.0);
    std::vector<uint64_t> v(1 << 16);
    for (auto& x : v) x = static_cast<uint64_t>(dist(rng));
    return v;
  }();
  return values;
}

void BM_HistogramRecord(benchmark::State& state) {
  const auto& values = latency_values();
  const size_t mask = values.size() - 1;
  Histogram h(3600ULL * 1000 * 1000 * 1000, 1.0 / static_cast<double>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.record(values[i++ & mask]));
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes"] = static_cast<double>(h.memory_bytes());
}
// Argument: 1 / max_relative_error.
BENCHMARK(BM_HistogramRecord)->Arg(100)->Arg(1000);

// The engine's latency histogram: every value also kept (exact percentiles), 2^16 at a time.
void BM_HistogramRecordKeepingSamples(benchmark::State& state) {
  const auto& values = latency_values();
  const size_t mask = values.size() - 1;
  Histogram h(3600ULL * 1000 * 1000 * 1000, 0.01, values.size());
  size_t i = 0;
  for (auto _ : state) {
    if ((i & mask) == 0) {
      state.PauseTiming();
      h.reset();
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(h.record(values[i++ & mask]));
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes"] = static_cast<double>(h.memory_bytes());
}
BENCHMARK(BM_HistogramRecordKeepingSamples);

// Percentiles of 2^16 kept samples (one sort) against the histogram's bucket walk.
void BM_SummarizeExact(benchmark::State& state) {
  Histogram h(3600ULL * 1000 * 1000 * 1000, 0.01, latency_values().size());
  for (const auto v : latency_values()) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(summarize(h));
}
BENCHMARK(BM_SummarizeExact);

// The per-operation bookkeeping of a latency loop: read the clock, record the tick
// difference since the previous read, bump an operation counter.
void BM_RecordWithBookkeeping(benchmark::State& state) {
  const Clock clock = state.range(0) != 0 ? Clock::calibrate() : Clock::monotonic();
  Histogram h;
  uint64_t ops = 0;
  uint64_t previous = clock.now();
  for (auto _ : state) {
    const uint64_t now = clock.now();
    h.record(now - previous);
    ++ops;
    previous = now;
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(ops);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(clock.source());
}
// Argument: 1 = calibrated clock (TSC where possible), 0 = clock_gettime.
BENCHMARK(BM_RecordWithBookkeeping)->Arg(1)->Arg(0);

void BM_ValueAtPercentile(benchmark::State& state) {
  Histogram h;
  for (const auto v : latency_values()) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.value_at_percentile(99.9));
}
BENCHMARK(BM_ValueAtPercentile);

void BM_Summarize(benchmark::State& state) {
  Histogram h;
  for (const auto v : latency_values()) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(summarize(h));
}
BENCHMARK(BM_Summarize);

void BM_Merge(benchmark::State& state) {
  Histogram a;
  Histogram b;
  for (const auto v : latency_values()) b.record(v);
  for (auto _ : state) {
    a.merge(b);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Merge);

}  // namespace
}  // namespace rdmabench
