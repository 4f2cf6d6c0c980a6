#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_plan.h"
#include "orchestrator/sweep/sweep.h"

namespace rdmabench {
namespace {

// Bytes a plan holds: the rounds, their flows and their labels (capacity, not size).
size_t plan_bytes(const std::vector<Round>& plan) {
  size_t bytes = plan.capacity() * sizeof(Round);
  for (const Round& r : plan) {
    bytes += r.flows.capacity() * sizeof(Flow);
    if (r.label.capacity() > 15) bytes += r.label.capacity() + 1;  // beyond the inline buffer
  }
  return bytes;
}

void report(benchmark::State& state, const std::vector<Round>& plan) {
  size_t flows = 0;
  for (const Round& r : plan) flows += r.flows.size();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * flows));
  state.counters["rounds"] = static_cast<double>(plan.size());
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["plan_MiB"] = static_cast<double>(plan_bytes(plan)) / (1 << 20);
}

// The target: a pairwise campaign over 1,000 hosts, both directions (2 x 999 rounds of
// 500 flows), in under 2 s and 200 MiB. Argument: hosts.
void BM_PlanPairwise(benchmark::State& state) {
  const FabricPattern pattern = parse_fabric_pattern({{"pattern", "pairwise"}}, "/fabric");
  std::vector<Round> plan;
  for (auto _ : state) {
    plan = plan_rounds(static_cast<size_t>(state.range(0)), pattern, 1);
    benchmark::DoNotOptimize(plan.data());
  }
  report(state, plan);
}
BENCHMARK(BM_PlanPairwise)->Arg(1000)->Unit(benchmark::kMillisecond);

// All-to-all over 1,000 hosts (999,000 flows) split by a cap of 2 flows per host into 999 parts.
void BM_PlanAllToAllCapped(benchmark::State& state) {
  const FabricPattern pattern = parse_fabric_pattern({{"pattern", "all-to-all"}}, "/fabric");
  std::vector<Round> plan;
  for (auto _ : state) {
    plan = plan_rounds(static_cast<size_t>(state.range(0)), pattern, 2);
    benchmark::DoNotOptimize(plan.data());
  }
  report(state, plan);
}
BENCHMARK(BM_PlanAllToAllCapped)->Arg(1000)->Unit(benchmark::kMillisecond);

// The whole campaign of the target, parsed and expanded into its points: 1,000 hosts
// pairwise (999,000 flows, so as many points), one workload combination. The points share
// their combination's workload; a link is two host indices. Argument: hosts.
void BM_ExpandPairwise(benchmark::State& state) {
  nlohmann::json hosts = nlohmann::json::array();
  for (int64_t i = 0; i < state.range(0); ++i) hosts.push_back("h" + std::to_string(i));
  const nlohmann::json j = {{"name", "big"},
                            {"fabric", {{"hosts", hosts}, {"pattern", {{"pattern", "pairwise"}}}}},
                            {"matrix", {{"op", "write"}, {"sizes", {{4096}}}}}};
  size_t points = 0;
  for (auto _ : state) {
    const Campaign c =
        parse_campaign(j, "/tmp", "/usr/bin/rdmabench", CampaignOptions{"", {}, campaign_kinds()});
    const Expansion x = expand(c);
    points = x.points.size();
    benchmark::DoNotOptimize(x.points.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * points));
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_ExpandPairwise)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace rdmabench
