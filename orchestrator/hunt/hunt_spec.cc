#include "orchestrator/hunt/hunt_spec.h"

#include <limits>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/json_util.h"
#include "model/workload.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

bool whole(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

double number_in(const nlohmann::json& j, const char* key, const std::string& path, double def,
                 double lo, double hi, const std::string& allowed) {
  auto it = j.find(key);
  if (it == j.end()) return def;
  if (!it->is_number() || it->get<double>() < lo || it->get<double>() > hi)
    throw ConfigError(path + "/" + key, brief_json(*it), allowed);
  return it->get<double>();
}

// "score": the terms' limits and the fields of a class.
ScoreSpec parse_score(const nlohmann::json& j, const std::string& p) {
  ScoreSpec s;
  if (!j.is_object()) throw ConfigError(p, brief_json(j), "an object of the score's terms");
  check_keys(j, p,
             {"failed", "loss_ppm", "congestion_ppm", "bw_below", "p99_over_p50", "p50_over_best",
              "same"});
  if (auto it = j.find("failed"); it != j.end()) {
    if (!it->is_boolean()) throw ConfigError(p + "/failed", brief_json(*it), "true or false");
    s.failed = it->get<bool>();
  }
  s.loss_ppm = number_in(j, "loss_ppm", p, s.loss_ppm, 0, 1e6,
                         "loss events per million packets, from 0 (off) to 1000000");
  s.congestion_ppm = number_in(j, "congestion_ppm", p, s.congestion_ppm, 0, 1e6,
                               "congestion signals per million packets, from 0 (off) to 1000000");
  s.bw_below = number_in(j, "bw_below", p, s.bw_below, 0, 0.99,
                         "a fraction of the best bandwidth of the class, from 0 (off) to 0.99");
  s.p99_over_p50 = number_in(j, "p99_over_p50", p, s.p99_over_p50, 0, 1e6,
                             "a ratio of p99 to p50, 0 (off) or more than 1");
  if (s.p99_over_p50 != 0 && s.p99_over_p50 <= 1)
    throw ConfigError(p + "/p99_over_p50", brief_json(j["p99_over_p50"]),
                      "a ratio of p99 to p50, 0 (off) or more than 1");
  s.p50_over_best = number_in(j, "p50_over_best", p, s.p50_over_best, 0, 1e6,
                              "a multiple of the best p50 of the class, 0 (off) or more than 1");
  if (s.p50_over_best != 0 && s.p50_over_best <= 1)
    throw ConfigError(p + "/p50_over_best", brief_json(j["p50_over_best"]),
                      "a multiple of the best p50 of the class, 0 (off) or more than 1");
  if (auto it = j.find("same"); it != j.end()) {
    if (!it->is_array())
      throw ConfigError(p + "/same", brief_json(*it), "a list of workload fields");
    s.same.clear();
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& f = (*it)[i];
      if (!f.is_string() || !is_workload_field(f.get<std::string>()))
        throw ConfigError(p + "/same/" + std::to_string(i), brief_json(f), "a workload field");
      s.same.push_back(f.get<std::string>());
    }
  }
  return s;
}

// "baseline": per dimension, one value (default: the workload's default for the field).
nlohmann::json parse_baseline(const nlohmann::json* j, const std::string& p,
                              const std::vector<SearchDimension>& space) {
  nlohmann::json base = nlohmann::json::object();
  const Workload defaults;
  for (const SearchDimension& d : space) {
    const WorkloadField* f = find_workload_field(d.key);
    base[d.key] =
        canonical_field_value(d.key, f->get(defaults), p + "/" + d.key, FieldSource::kDocument);
  }
  if (j == nullptr) return base;
  if (!j->is_object())
    throw ConfigError(p, brief_json(*j), "an object: dimension of space -> one value");
  for (const auto& [key, v] : j->items()) {
    if (!base.contains(key))
      throw ConfigError(p + "/" + key, brief_json(v), "a dimension of the hunt's space");
    base[key] = canonical_field_value(key, v, p + "/" + key);
  }
  return base;
}

}  // namespace

std::string client_refusal(const nlohmann::json& values) {
  try {
    workload_from_values(values);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

nlohmann::json HuntSpec::baseline_values() const {
  nlohmann::json v = fixed;
  for (const auto& [k, x] : baseline.items()) v[k] = x;
  return v;
}

uint64_t HuntSpec::combinations() const {
  uint64_t n = 1;
  for (const auto& d : space) {
    const uint64_t s = d.size();
    n = s != 0 && n > std::numeric_limits<uint64_t>::max() / s
            ? std::numeric_limits<uint64_t>::max()
            : n * s;
  }
  return n;
}

nlohmann::json default_hunt_space() {
  return {{"op", {"write", "read", "send"}},
          {"qp", {"rc", "uc", "ud"}},
          {"mode", {"bw", "lat"}},
          {"sizes", {{"min", 64}, {"max", "1M"}, {"scale", "log2"}}},
          {"tx_depth", {{"min", 16}, {"max", 1024}, {"scale", "log2"}}},
          {"signal_every", {1, 4, 16, 64}},
          {"sge", {1, 2, 4}},
          {"post_list", {1, 4, 16}},
          {"qps_per_thread", {1, 4, 16}},
          {"threads", {1, 2}},
          {"inline_size", {0, 64}},
          {"mtu", {1024, 2048, 4096}},
          {"tos", {0, 40, 104, 184}}};
}

HuntSpec parse_hunt(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) throw ConfigError(path, brief_json(j), "a hunt object");
  check_keys(j, path,
             {"space", "baseline", "fixed", "budget", "seed", "duration_s", "time_s", "score"});
  HuntSpec h;
  auto space = j.find("space");
  h.space = parse_search_space(space == j.end() ? default_hunt_space() : *space, path + "/space");
  if (auto it = j.find("fixed"); it != j.end())
    h.fixed = parse_fixed_values(*it, path + "/fixed", h.space);
  auto base = j.find("baseline");
  h.baseline = parse_baseline(base == j.end() ? nullptr : &*base, path + "/baseline", h.space);
  if (auto it = j.find("budget"); it != j.end()) {
    if (!whole(*it) || it->get<uint64_t>() < 1 || it->get<uint64_t>() > kMaxHuntBudget)
      throw ConfigError(
          path + "/budget", brief_json(*it),
          "a whole number of evaluations from 1 to " + std::to_string(kMaxHuntBudget));
    h.budget = it->get<uint64_t>();
  }
  if (auto it = j.find("seed"); it != j.end()) {
    if (!whole(*it))
      throw ConfigError(path + "/seed", brief_json(*it), "a non-negative whole number");
    h.seed = it->get<uint64_t>();
  }
  h.duration_s = number_in(j, "duration_s", path, h.duration_s, 0.01, 3600,
                           "seconds each evaluation measures, from 0.01 to 3600");
  h.time_s = number_in(j, "time_s", path, h.time_s, 0, 30 * 86400,
                       "seconds after which the hunt starts no new search step, 0 for none");
  if (auto it = j.find("score"); it != j.end()) h.score = parse_score(*it, path + "/score");
  // Each evaluation measures for duration_s (with a quarter of it as warm-up) unless fixed says
  // how long.
  if (!h.fixed.contains("iterations") && !h.fixed.contains("duration_s")) {
    h.fixed["duration_s"] = h.duration_s;
    if (!h.fixed.contains("warmup_s")) h.fixed["warmup_s"] = h.duration_s / 4;
  }
  try {
    workload_from_values(h.baseline_values());
  } catch (const ConfigError& e) {
    throw ConfigError(
        path + "/baseline", h.baseline.dump(),
        std::string("values the client accepts with the fixed ones (") + e.what() + ")");
  }
  return h;
}

}  // namespace rdmabench
