#include "orchestrator/fabric/fabric_verdicts.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "base/error.h"
#include "base/number_text.h"
#include "model/workload.h"
#include "orchestrator/campaign/config_keys.h"

namespace rdmabench {
namespace {

double fraction(const nlohmann::json& j, const std::string& path, double lo, double hi,
                const std::string& what) {
  if (!j.is_number() || j.get<double>() <= lo || j.get<double>() > hi)
    throw ConfigError(path, brief_json(j), what);
  return j.get<double>();
}

std::string with_unit(double v, const std::string& metric) {
  return metric == "gbps" ? three_digits(v) + " Gb/s" : three_digits(v / 1000) + " us";
}

}  // namespace

VerdictCriteria parse_verdict_criteria(const nlohmann::json& j, const std::string& path) {
  VerdictCriteria c;
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "an object {\"bw_fraction\", \"lat_factor\", \"port_fraction\", \"retest\"}");
  check_keys(j, path, {"bw_fraction", "lat_factor", "port_fraction", "retest"});
  if (j.contains("bw_fraction"))
    c.bw_fraction = fraction(j["bw_fraction"], path + "/bw_fraction", 0, 1,
                             "a share of the best link's Gb/s, above 0 and at most 1 (0.93)");
  if (j.contains("lat_factor"))
    c.lat_factor = fraction(j["lat_factor"], path + "/lat_factor", 1, 1000,
                            "a multiple of the best link's p50, above 1 (2.1)");
  if (j.contains("port_fraction") && !j["port_fraction"].is_null())
    c.port_fraction =
        fraction(j["port_fraction"], path + "/port_fraction", 0, 1,
                 "null (no absolute verdict) or a share of the port speed, above 0, at most 1");
  if (j.contains("retest")) {
    if (!j["retest"].is_boolean())
      throw ConfigError(path + "/retest", brief_json(j["retest"]), "true or false");
    c.retest = j["retest"].get<bool>();
  }
  return c;
}

nlohmann::ordered_json to_json(const VerdictCriteria& c) {
  return {{"bw_fraction", c.bw_fraction},
          {"lat_factor", c.lat_factor},
          {"port_fraction", c.port_fraction ? nlohmann::json(*c.port_fraction) : nullptr},
          {"retest", c.retest}};
}

bool passes(const LinkVerdict& v, double value, const VerdictCriteria& c) {
  if (v.metric == "p50_ns") return value <= c.lat_factor * v.best;
  if (value < c.bw_fraction * v.best) return false;
  return !(c.port_fraction && v.port_gbps && value < *c.port_fraction * *v.port_gbps);
}

void LinkJudge::add(const LinkRun& r) {
  const std::string mode = r.values->value("mode", std::string("bw"));
  const std::string metric = mode == "lat" ? "p50_ns" : "gbps";
  std::vector<uint64_t> sizes;
  if (r.values->contains("sizes"))
    for (const auto& s : (*r.values)["sizes"]) sizes.push_back(s.get<uint64_t>());
  if (r.brief)
    for (const SizeBrief& res : r.brief->sizes)
      if (std::find(sizes.begin(), sizes.end(), res.size) == sizes.end()) sizes.push_back(res.size);
  if (sizes.empty()) sizes.push_back(0);  // a failed flow of the default sizes: "all"
  if (link_names_.size() <= r.pair) link_names_.resize(r.pair + 1);
  if (link_names_[r.pair].empty()) link_names_[r.pair] = r.link;
  for (const uint64_t size : sizes) {
    Group& g = groups_[{r.values, size}];
    g.metric = metric;
    if (g.links.size() <= r.pair) g.links.resize(r.pair + 1);
    Candidate& v = g.links[r.pair];
    if (!v.seen) {
      v.seen = true;
      v.point_id = r.point_id;
      if (!r.error.empty()) {
        v.why = static_cast<uint32_t>(why_.size());
        why_.push_back(r.error);
      }
    }
    const std::optional<double> f = r.brief ? r.brief->figure(size, metric) : std::nullopt;
    if (!f) continue;
    const bool better = !v.value || (metric == "gbps" ? *f > *v.value : *f < *v.value);
    if (better) {
      v.value = f;
      v.point_id = r.point_id;
      v.port_gbps = r.brief->port_gbps;
    }
  }
}

std::vector<LinkVerdict> judge_links(const std::vector<LinkRun>& runs, const VerdictCriteria& c) {
  LinkJudge judge;
  for (const LinkRun& r : runs) judge.add(r);
  return judge.finish(c);
}

namespace {

// A link's verdict at its group's best figure.
void judge(LinkVerdict& v, const VerdictCriteria& c) {
  if (!v.value) {
    v.verdict = "failed";
  } else if (passes(v, *v.value, c)) {
    v.verdict = "ok";
    v.why.clear();
  } else {
    v.verdict = "suspect";
    v.why =
        with_unit(*v.value, v.metric) + " against the best link's " + with_unit(v.best, v.metric);
    if (v.metric == "gbps" && *v.value >= c.bw_fraction * v.best && v.port_gbps)
      v.why = with_unit(*v.value, v.metric) + ", below " + three_digits(*c.port_fraction * 100) +
              " % of the port speed (" + three_digits(*v.port_gbps) + " Gb/s)";
  }
}

}  // namespace

std::vector<LinkVerdict> LinkJudge::finish(const VerdictCriteria& c, bool keep_ok, size_t* ok) {
  // The groups in the order of their combinations' text (and size), whatever their addresses.
  std::vector<std::pair<std::pair<std::string, uint64_t>, const decltype(groups_)::value_type*>>
      ordered;
  for (const auto& e : groups_) ordered.push_back({{e.first.first->dump(), e.first.second}, &e});
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LinkVerdict> out;
  if (ok != nullptr) *ok = 0;
  for (const auto& [order, entry] : ordered) {
    const auto& [key, g] = *entry;
    std::optional<double> best;
    for (const Candidate& l : g.links)
      if (l.value && (!best || (g.metric == "gbps" ? *l.value > *best : *l.value < *best)))
        best = l.value;
    for (size_t pair = 0; pair < g.links.size(); ++pair) {
      const Candidate& l = g.links[pair];
      if (!l.seen) continue;
      LinkVerdict v;
      v.pair = pair;
      v.values = key.first;
      v.size = key.second;
      v.metric = g.metric;
      v.value = l.value;
      v.best = best.value_or(0);
      v.port_gbps = l.port_gbps;
      if (!l.value) v.why = why_[l.why];
      if (l.value && passes(v, *l.value, c)) {
        if (ok != nullptr) ++*ok;
        if (!keep_ok) continue;
      }
      v.link = link_names_[pair];
      v.point_id = std::string(l.point_id);
      judge(v, c);
      out.push_back(std::move(v));
    }
  }
  groups_.clear();
  return out;
}

void settle(LinkVerdict& v, std::optional<double> alone, const std::string& error,
            const VerdictCriteria& c) {
  if (v.verdict != "suspect") return;
  if (!c.retest) {
    v.verdict = "bad";
    v.why += " (not retested: retest is off)";
    return;
  }
  v.alone = alone;
  if (!alone) {
    v.verdict = "bad";
    v.why += "; its retest alone failed: " + error;
  } else if (passes(v, *alone, c)) {
    v.verdict = "congested";
    v.why += "; alone " + with_unit(*alone, v.metric) + ": slow only under the round's load";
  } else {
    v.verdict = "bad";
    v.why += "; alone still " + with_unit(*alone, v.metric);
  }
}

nlohmann::ordered_json verdict_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                      const std::string& time, size_t ok_not_listed) {
  nlohmann::ordered_json counts = {
      {"ok", ok_not_listed}, {"congested", 0}, {"bad", 0}, {"failed", 0}, {"suspect", 0}};
  nlohmann::ordered_json not_ok = nlohmann::ordered_json::array();
  for (const LinkVerdict& l : v) {
    counts[l.verdict] = counts[l.verdict].get<size_t>() + 1;
    if (l.verdict == "ok") continue;
    not_ok.push_back({{"link", l.link},
                      {"matrix", l.values != nullptr ? *l.values : nlohmann::json()},
                      {"size", l.size},
                      {"metric", l.metric},
                      {"value", l.value ? nlohmann::json(*l.value) : nullptr},
                      {"best", l.best},
                      {"alone", l.alone ? nlohmann::json(*l.alone) : nullptr},
                      {"verdict", l.verdict},
                      {"why", l.why},
                      {"point_id", l.point_id}});
  }
  return {{"record", "verdicts"}, {"criteria", to_json(c)}, {"judged", v.size() + ok_not_listed},
          {"counts", counts},     {"not_ok", not_ok},       {"time", time}};
}

std::vector<std::string> verdict_lines(const std::vector<LinkVerdict>& v, size_t ok_not_listed) {
  std::map<std::string, size_t> n;
  n["ok"] = ok_not_listed;
  for (const LinkVerdict& l : v) ++n[l.verdict];
  std::vector<std::string> lines = {"verdicts: " + std::to_string(v.size() + ok_not_listed) +
                                    " link measurement(s): " + std::to_string(n["ok"]) + " ok, " +
                                    std::to_string(n["congested"]) + " congested, " +
                                    std::to_string(n["bad"]) + " bad, " +
                                    std::to_string(n["failed"]) + " failed"};
  for (const LinkVerdict& l : v)
    if (l.verdict != "ok")
      lines.push_back("  " + l.verdict + ": " + l.link + " at " + format_size(l.size) + ": " +
                      l.why);
  return lines;
}

}  // namespace rdmabench
