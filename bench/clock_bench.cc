#include <benchmark/benchmark.h>

#include <cstdint>

#include "base/clock.h"

namespace rdmabench {
namespace {

void BM_ClockNow(benchmark::State& state) {
  const Clock clock = state.range(0) != 0 ? Clock::calibrate() : Clock::monotonic();
  for (auto _ : state) benchmark::DoNotOptimize(clock.now());
  state.SetLabel(clock.source());
}
// Argument: 1 = calibrated clock (TSC where possible), 0 = clock_gettime.
BENCHMARK(BM_ClockNow)->Arg(1)->Arg(0);

void BM_ClockNowToNs(benchmark::State& state) {
  const Clock clock = state.range(0) != 0 ? Clock::calibrate() : Clock::monotonic();
  uint64_t previous = clock.now();
  for (auto _ : state) {
    const uint64_t now = clock.now();
    benchmark::DoNotOptimize(clock.to_ns(now - previous));
    previous = now;
  }
  state.SetLabel(clock.source());
}
BENCHMARK(BM_ClockNowToNs)->Arg(1)->Arg(0);

}  // namespace
}  // namespace rdmabench
