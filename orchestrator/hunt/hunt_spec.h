#pragma once
// A campaign's `hunt` block (instead of `matrix` or `search`): an adaptive search of a space of
// workload fields for anomalies, each explained by the smallest set of settings that triggers it
// (docs/hunting.md).
//
//   "hunt": {"budget": 120, "seed": 7, "duration_s": 1, "time_s": 600,
//            "space": {"mtu": [1024, 4096], "tos": [0, 104], "sizes": {"min": 64, "max": "64K",
//                      "scale": "log2"}},
//            "baseline": {"mtu": 1024},
//            "fixed": {"iterations": 0},
//            "score": {"loss_ppm": 100, "bw_below": 0.5, "same": ["op", "qp", "mode", "sizes"]}}
//
// `space` is written as a search block's (lists and ranges of workload fields); without it, the
// default space (default_hunt_space()). `baseline`: the value each factor falls back to when its
// effect is tested (by default the workload's default). `budget`: evaluations, `seed`: the
// generator's, `duration_s`: seconds each evaluation measures, `time_s`: no new search step after
// that many seconds (0: none). `score`: each term's limit (anomaly_score.h), 0 turning it off.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/hunt/anomaly_score.h"
#include "orchestrator/search/search.h"

namespace rdmabench {

inline constexpr uint64_t kMaxHuntBudget = 100000;

struct HuntSpec {
  std::vector<SearchDimension> space;                  // in key order
  nlohmann::json fixed = nlohmann::json::object();     // canonical, in every evaluation
  nlohmann::json baseline = nlohmann::json::object();  // dimension key -> canonical value
  uint64_t budget = 200;
  uint64_t seed = 1;
  double duration_s = 1;
  double time_s = 0;
  ScoreSpec score;

  // Every dimension at its baseline, with the fixed values.
  nlohmann::json baseline_values() const;
  // Combinations of the space (saturating at UINT64_MAX).
  uint64_t combinations() const;
};

// The documented default space: op, QP type, mode, message size, queue depth, signal interval,
// SGEs per WR, WRs per post, QPs, threads, inline size, MTU and traffic class.
nlohmann::json default_hunt_space();

// "" when the client accepts the values as a workload, else why it refuses them (the Hunter's
// check: a refused point is never asked).
std::string client_refusal(const nlohmann::json& values);

// `j`: the "hunt" object; errors name paths under `path` ("/hunt/space/mtu/1").
HuntSpec parse_hunt(const nlohmann::json& j, const std::string& path);

}  // namespace rdmabench
