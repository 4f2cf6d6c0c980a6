#include "orchestrator/fabric/fabric_judging.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "model/campaign_index.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_point.h"

namespace rdmabench {

namespace {
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
}  // namespace

void MeasuredFlows::keep(const Point& p, const ResultBrief& b, bool counters_shared) {
  for (const SizeBrief& s : b.sizes)
    if (s.error.empty()) {
      Kept& k = kept_.emplace_back();
      k.point = static_cast<uint32_t>(p.index);
      k.size = s.size;
      k.gbps = s.gbps.value_or(kNone);
      k.p50_ns = s.p50_ns.value_or(kNone);
      k.port_gbps = static_cast<float>(b.port_gbps.value_or(-1));
      k.loss_ppm = static_cast<float>(b.loss_at(s.size).value_or(-1));
      k.counters_shared = counters_shared;
    }
  sorted_ = false;
}

std::optional<ResultBrief> MeasuredFlows::brief(const Point& p) {
  const auto by_point = [](const Kept& a, const Kept& b) { return a.point < b.point; };
  if (!sorted_) {
    // By point, then size (a brief's sizes are looked up by size): std::sort works in place,
    // where std::stable_sort would take a buffer as large as the figures.
    std::sort(kept_.begin(), kept_.end(), [](const Kept& a, const Kept& b) {
      return a.point != b.point ? a.point < b.point : a.size < b.size;
    });
    sorted_ = true;
  }
  Kept key;
  key.point = static_cast<uint32_t>(p.index);
  auto [lo, hi] = std::equal_range(kept_.begin(), kept_.end(), key, by_point);
  if (lo == hi) return std::nullopt;
  ResultBrief b;
  b.document = true;
  for (auto it = lo; it != hi; ++it) {
    SizeBrief& s = b.sizes.emplace_back();
    s.size = it->size;
    if (!std::isnan(it->gbps)) s.gbps = it->gbps;
    if (!std::isnan(it->p50_ns)) s.p50_ns = it->p50_ns;
    if (it->loss_ppm >= 0) s.loss_ppm = it->loss_ppm;
  }
  if (lo->port_gbps >= 0) b.port_gbps = double{lo->port_gbps};
  if (lo->loss_ppm >= 0) b.loss_ppm = lo->loss_ppm;
  b.loss_shared = lo->counters_shared;
  return b;
}

std::vector<LinkVerdict> judge_fabric(const Campaign& c, const Expansion& x, const std::string& dir,
                                      MeasuredFlows& measured, size_t& ok_links) {
  const std::vector<Point>& points = x.points;
  // Each point by a 32-bit hash of its id (collisions are told apart by the id itself): 8 bytes
  // a point, sorted (a hash map of the ids took 64).
  const auto hash = [](std::string_view id) {
    return static_cast<uint32_t>(std::hash<std::string_view>{}(id));
  };
  std::vector<std::pair<uint32_t, uint32_t>> by_id;
  by_id.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i)
    by_id.emplace_back(hash(points[i].id), static_cast<uint32_t>(i));
  std::sort(by_id.begin(), by_id.end());
  const auto find = [&](std::string_view id) -> std::optional<size_t> {
    const uint32_t h = hash(id);
    for (auto it =
             std::lower_bound(by_id.begin(), by_id.end(), std::pair<uint32_t, uint32_t>{h, 0});
         it != by_id.end() && it->first == h; ++it)
      if (points[it->second].id == id) return it->second;
    return std::nullopt;
  };
  enum : uint8_t { kNotRun, kOk, kFailed };
  std::vector<uint8_t> status(points.size(), kNotRun);
  std::unordered_map<size_t, std::string> errors;  // the failed ones' first line
  std::ifstream in(dir + "/index.jsonl");
  for_each_index_point(in, [&](IndexEntry&& e) {
    const std::optional<size_t> i = find(e.point_id);
    if (!i) return;
    status[*i] = e.status == "ok" ? kOk : kFailed;
    if (e.status == "ok")
      errors.erase(*i);
    else
      errors[*i] = e.error.substr(0, e.error.find('\n'));
  });
  by_id = {};
  LinkJudge judge([&c](size_t pair) { return c.pair_name(pair); }, fabric_of(c)->links().size());
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (p.skipped() || FabricPoint(p).probe()) continue;  // probes: probe_verdicts.h
    LinkRun r{p.pair, "", &p.values(), p.id, std::nullopt, ""};
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
  return judge.finish(fabric_spec(c)->verdicts, false, &ok_links);
}

void add_earlier_probes(const Expansion& x, const std::string& dir, ProbeJudge& judge) {
  const std::set<uint32_t> seen = judge.points();
  std::map<std::string_view, size_t> probes;  // the probes no round of this sweep measured
  for (const Point& p : x.points)
    if (FabricPoint(p).probe() && !p.skipped() && seen.count(static_cast<uint32_t>(p.index)) == 0)
      probes.emplace(p.id, p.index);
  if (probes.empty()) return;
  std::map<size_t, std::string> last;  // point -> its last status line's error ("" = ok)
  std::ifstream in(dir + "/index.jsonl");
  for_each_index_point(in, [&](IndexEntry&& e) {
    const auto it = probes.find(e.point_id);
    if (it == probes.end()) return;
    last[it->second] = e.status == "ok" ? "" : e.error.empty() ? "failed" : e.error;
  });
  for (const auto& [index, error] : last) {
    const Point& p = x.points.at(index);
    if (!error.empty()) {
      judge.add_failed(p, error);
      continue;
    }
    std::ifstream doc(dir + "/" + p.id + ".json");
    const ResultBrief b = brief_of(nlohmann::json::parse(doc, nullptr, false));
    if (b.document) {
      judge.add(p, b);
    } else {
      judge.add_failed(p, "its result document cannot be read");
    }
  }
}

}  // namespace rdmabench
