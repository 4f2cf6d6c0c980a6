#include "orchestrator/fabric/fabric_judging.h"

#include <algorithm>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "model/campaign_index.h"

namespace rdmabench {

void MeasuredFlows::keep(const Point& p, const ResultBrief& b, bool counters_shared) {
  for (const SizeBrief& s : b.sizes)
    if (s.error.empty()) {
      Kept& k = kept_.emplace_back();
      k.point = p.index;
      k.size = s.size;
      k.gbps = s.gbps;
      k.p50_ns = s.p50_ns;
      k.port_gbps = b.port_gbps.value_or(-1);
      k.loss_ppm = static_cast<float>(b.loss_at(s.size).value_or(-1));
      k.counters_shared = counters_shared;
    }
  sorted_ = false;
}

std::optional<ResultBrief> MeasuredFlows::brief(const Point& p) {
  const auto by_point = [](const Kept& a, const Kept& b) { return a.point < b.point; };
  if (!sorted_) {
    std::stable_sort(kept_.begin(), kept_.end(), by_point);
    sorted_ = true;
  }
  Kept key;
  key.point = p.index;
  auto [lo, hi] = std::equal_range(kept_.begin(), kept_.end(), key, by_point);
  if (lo == hi) return std::nullopt;
  ResultBrief b;
  b.document = true;
  for (auto it = lo; it != hi; ++it) {
    SizeBrief& s = b.sizes.emplace_back();
    s.size = it->size;
    s.gbps = it->gbps;
    s.p50_ns = it->p50_ns;
    if (it->loss_ppm >= 0) s.loss_ppm = it->loss_ppm;
  }
  if (lo->port_gbps >= 0) b.port_gbps = lo->port_gbps;
  if (lo->loss_ppm >= 0) b.loss_ppm = lo->loss_ppm;
  b.loss_shared = lo->counters_shared;
  return b;
}

std::vector<LinkVerdict> judge_fabric(const Campaign& c, const Expansion& x, const std::string& dir,
                                      MeasuredFlows& measured, size_t& ok_links) {
  const std::vector<Point>& points = x.points;
  std::unordered_map<std::string_view, size_t> by_id;
  by_id.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) by_id.emplace(points[i].id, i);
  enum : uint8_t { kNotRun, kOk, kFailed };
  std::vector<uint8_t> status(points.size(), kNotRun);
  std::unordered_map<size_t, std::string> errors;  // the failed ones' first line
  std::ifstream in(dir + "/index.jsonl");
  for_each_index_point(in, [&](IndexEntry&& e) {
    const auto it = by_id.find(e.point_id);
    if (it == by_id.end()) return;
    status[it->second] = e.status == "ok" ? kOk : kFailed;
    if (e.status == "ok")
      errors.erase(it->second);
    else
      errors[it->second] = e.error.substr(0, e.error.find('\n'));
  });
  LinkJudge judge;
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (p.skipped()) continue;
    LinkRun r{p.pair, c.pair_name(p.pair), &p.values(), p.id, std::nullopt, ""};
    if (status[i] == kNotRun) {
      r.error = "not run";
    } else if (status[i] == kFailed) {
      r.error = errors[i];
    } else if (!(r.brief = measured.brief(p))) {
      std::ifstream doc(dir + "/" + p.id + ".json");
      r.brief = brief_of(nlohmann::json::parse(doc, nullptr, false));
      if (!r.brief->document) {
        r.brief.reset();
        r.error = "its result document cannot be read";
      }
    }
    judge.add(r);
  }
  return judge.finish(c.fabric->verdicts, false, &ok_links);
}

}  // namespace rdmabench
