#include "orchestrator/hunt/anomaly_score.h"

#include <algorithm>
#include <cmath>

namespace rdmabench {
namespace {

constexpr double kRatioCap = 3;  // one term's share of the climb

constexpr double kMaxRatio = 1000;  // a rate near 0 is "at least 1000 x": no 1e10 on a figure

void add(Score& s, const char* name, double ratio, double value, double limit) {
  if (!std::isfinite(ratio) || ratio > kMaxRatio) ratio = kMaxRatio;
  s.terms.push_back({name, ratio, value, limit});
  s.climb += std::min(ratio, kRatioCap);
}

}  // namespace

bool Score::anomalous() const { return worst() >= 1; }

double Score::worst() const {
  double w = 0;
  for (const auto& t : terms) w = std::max(w, t.ratio);
  return w;
}

std::vector<std::string> Score::fired() const {
  std::vector<std::string> names;
  for (const auto& t : terms)
    if (t.ratio >= 1) names.push_back(t.name);
  return names;
}

std::string Scorer::class_of(const nlohmann::json& values) const {
  nlohmann::json key = nlohmann::json::object();
  for (const auto& f : spec_.same)
    if (auto it = values.find(f); it != values.end()) key[f] = *it;
  return key.dump();
}

void Scorer::learn(const nlohmann::json& values, const Measurement& m) {
  if (!m.ok) return;
  const std::string k = class_of(values);
  if (m.gbps && *m.gbps > 0) {
    double& b = best_gbps_[k];
    b = std::max(b, *m.gbps);
  }
  if (m.p50_ns && *m.p50_ns > 0) {
    auto [it, fresh] = best_p50_.emplace(k, *m.p50_ns);
    if (!fresh) it->second = std::min(it->second, *m.p50_ns);
  }
}

Score Scorer::score(const nlohmann::json& values, const Measurement& m) const {
  Score s;
  if (!m.ok) {
    if (spec_.failed && !m.refused) add(s, "failed", 1, 1, 1);
    return s;
  }
  const std::string k = class_of(values);
  if (spec_.loss_ppm > 0 && m.loss_ppm)
    add(s, "loss", *m.loss_ppm / spec_.loss_ppm, *m.loss_ppm, spec_.loss_ppm);
  if (spec_.congestion_ppm > 0 && m.congestion_ppm)
    add(s, "congestion", *m.congestion_ppm / spec_.congestion_ppm, *m.congestion_ppm,
        spec_.congestion_ppm);
  if (spec_.bw_below > 0 && m.gbps) {
    auto it = best_gbps_.find(k);
    if (it != best_gbps_.end() && it->second > 0)
      add(s, "throughput", spec_.bw_below * it->second / std::max(*m.gbps, 1e-12), *m.gbps,
          it->second);
  }
  if (m.p50_ns && *m.p50_ns > 0) {
    if (spec_.p99_over_p50 > 0 && m.p99_ns) {
      const double r = *m.p99_ns / *m.p50_ns;
      add(s, "latency_tail", r / spec_.p99_over_p50, r, spec_.p99_over_p50);
    }
    auto it = best_p50_.find(k);
    if (spec_.p50_over_best > 0 && it != best_p50_.end())
      add(s, "latency_median", *m.p50_ns / it->second / spec_.p50_over_best, *m.p50_ns, it->second);
  }
  return s;
}

}  // namespace rdmabench
