#include "orchestrator/fabric/fabric_verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/number_text.h"
#include "model/workload.h"

namespace rdmabench {
namespace {

double fraction(const nlohmann::json& j, const std::string& path, double lo, double hi,
                const std::string& what) {
  if (!j.is_number() || j.get<double>() <= lo || j.get<double>() > hi)
    throw ConfigError(path, brief_json(j), what);
  return j.get<double>();
}

// null (the rule off) or fraction()'s number.
std::optional<double> nullable_fraction(const nlohmann::json& j, const std::string& path, double lo,
                                        double hi, const std::string& what) {
  if (j.is_null()) return std::nullopt;
  return fraction(j, path, lo, hi, what);
}

std::string with_unit(double v, const std::string& metric) {
  return metric == "gbps" ? three_digits(v) + " Gb/s" : three_digits(v / 1000) + " us";
}

}  // namespace

VerdictCriteria parse_verdict_criteria(const nlohmann::json& j, const std::string& path) {
  VerdictCriteria c;
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      "an object {\"bw_fraction\", \"lat_factor\", \"port_fraction\", \"retest\", "
                      "\"loss_k\", \"loss_floor_ppm\", \"slow_k\", \"slow_floor\"}");
  check_keys(j, path,
             {"bw_fraction", "lat_factor", "port_fraction", "retest", "loss_k", "loss_floor_ppm",
              "slow_k", "slow_floor"});
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
  if (j.contains("loss_k"))
    c.loss_k = fraction(j["loss_k"], path + "/loss_k", 0, 1000,
                        "how many MADs above the links' median loss figure, above 0 (5)");
  if (j.contains("loss_floor_ppm"))
    c.loss_floor_ppm = nullable_fraction(j["loss_floor_ppm"], path + "/loss_floor_ppm", 0, 1e6,
                                         "null (no loss verdict) or gaps (lost packets) per "
                                         "million packets below which no link is lossy, above 0, "
                                         "at most 1e6 (1000)");
  if (j.contains("slow_k"))
    c.slow_k = fraction(j["slow_k"], path + "/slow_k", 0, 1000,
                        "how many MADs above the probes' median load/idle p99 ratio, above 0 (5)");
  if (j.contains("slow_floor"))
    c.slow_floor = nullable_fraction(j["slow_floor"], path + "/slow_floor", 1, 1e6,
                                     "null (no slow-under-load verdict) or the load/idle p99 "
                                     "ratio below which no probe is slow, above 1 (3)");
  return c;
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
  if (!name_) {
    if (link_names_.size() <= r.pair) link_names_.resize(r.pair + 1);
    if (link_names_[r.pair].empty()) link_names_[r.pair] = r.link;
  }
  for (const uint64_t size : sizes) {
    Group& g = groups_[{r.values, size}];
    g.metric = metric;
    if (g.links.size() <= r.pair) g.links.resize(std::max(r.pair + 1, links_));
    Candidate& v = g.links[r.pair];
    if (!v.seen) {
      v.seen = true;
      v.point_id = r.point_id;
      if (!r.error.empty()) {
        v.why = static_cast<uint32_t>(why_.size());
        why_.push_back(r.error);
      }
    }
    if (const auto loss = r.brief ? r.brief->loss_at(size) : std::nullopt) {
      if (r.brief->loss_shared)
        v.loss_shared = true;
      else if (v.loss_ppm < 0 || *loss < v.loss_ppm)
        v.loss_ppm = static_cast<float>(*loss);
    }
    const std::optional<double> f = r.brief ? r.brief->figure(size, metric) : std::nullopt;
    if (!f) continue;
    const bool better = std::isnan(v.value) || (metric == "gbps" ? *f > v.value : *f < v.value);
    if (better) {
      v.value = *f;
      v.point_id = r.point_id;
      v.port_gbps = static_cast<float>(r.brief->port_gbps.value_or(-1));
    }
  }
}

std::vector<LinkVerdict> judge_links(const std::vector<LinkRun>& runs, const VerdictCriteria& c) {
  LinkJudge judge;
  for (const LinkRun& r : runs) judge.add(r);
  return judge.finish(c);
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double outlier_threshold(std::vector<double> x, double k, double floor) {
  if (x.empty()) return floor;
  const double m = median(x);
  for (double& v : x) v = std::abs(v - m);
  return std::max(floor, m + k * median(std::move(x)));
}

namespace {

// The loss threshold of a group's links: max(floor, median + k x MAD) of their own loss figures
// (0 with no floor: no verdict).
double loss_threshold(const std::vector<double>& own, const VerdictCriteria& c) {
  if (!c.loss_floor_ppm) return 0;
  return outlier_threshold(own, c.loss_k, *c.loss_floor_ppm);
}

// A count per million: whole above 100 ("11574"), else three digits ("0.52").
std::string ppm(double v) {
  if (v < 100) return three_digits(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string loss_text(const LinkVerdict& v, const VerdictCriteria& c) {
  return ppm(*v.loss_ppm) + " gaps (lost packets) per million packets, over " +
         ppm(v.loss_threshold_ppm) + " (the larger of loss_floor_ppm " + ppm(*c.loss_floor_ppm) +
         " and the links' median + " + three_digits(c.loss_k) + " MAD)";
}

// The rule a figure that does not pass broke.
std::string broken_rule(const LinkVerdict& v, double value, const VerdictCriteria& c) {
  if (v.metric == "p50_ns") return "lat_factor";
  return value < c.bw_fraction * v.best ? "bw_fraction" : "port_fraction";
}

// A link's verdict at its group's best figure, and its loss figure against the threshold.
void judge(LinkVerdict& v, const VerdictCriteria& c) {
  if (!v.value) {
    v.verdict = "failed";
    v.rules = {"failed"};
  } else if (passes(v, *v.value, c)) {
    v.verdict = "ok";
    v.why.clear();
  } else {
    v.verdict = "suspect";
    v.rules = {broken_rule(v, *v.value, c)};
    v.why =
        with_unit(*v.value, v.metric) + " against the best link's " + with_unit(v.best, v.metric);
    if (v.metric == "gbps" && *v.value >= c.bw_fraction * v.best && v.port_gbps)
      v.why = with_unit(*v.value, v.metric) + ", below " + three_digits(*c.port_fraction * 100) +
              " % of the port speed (" + three_digits(*v.port_gbps) + " Gb/s)";
  }
  if (!v.lossy) return;
  v.rules.push_back("lossy");
  if (v.verdict == "ok") {
    v.verdict = "lossy";
    v.why = loss_text(v, c) + "; its figure passes: " + with_unit(*v.value, v.metric) +
            " against the best link's " + with_unit(v.best, v.metric);
  } else {
    v.why += "; lossy too: " + loss_text(v, c);
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
    std::vector<double> own_loss;
    for (const Candidate& l : g.links) {
      if (!std::isnan(l.value) &&
          (!best || (g.metric == "gbps" ? l.value > *best : l.value < *best)))
        best = l.value;
      if (l.seen && l.loss_ppm >= 0) own_loss.push_back(l.loss_ppm);
    }
    const double threshold = loss_threshold(own_loss, c);
    for (size_t pair = 0; pair < g.links.size(); ++pair) {
      const Candidate& l = g.links[pair];
      if (!l.seen) continue;
      LinkVerdict v;
      v.pair = pair;
      v.values = key.first;
      v.size = key.second;
      v.metric = g.metric;
      if (!std::isnan(l.value)) v.value = l.value;
      v.best = best.value_or(0);
      if (l.port_gbps >= 0) v.port_gbps = double{l.port_gbps};
      if (l.loss_ppm >= 0) v.loss_ppm = l.loss_ppm;
      v.loss_shared = l.loss_shared && l.loss_ppm < 0;
      v.loss_threshold_ppm = threshold;
      v.lossy = c.loss_floor_ppm && v.loss_ppm && *v.loss_ppm > threshold;
      if (!v.value) v.why = why_[l.why];
      if (v.value && passes(v, *v.value, c) && !v.lossy) {
        if (ok != nullptr) ++*ok;
        if (!keep_ok) continue;
      }
      v.link = name_ ? name_(pair) : link_names_[pair];
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

VerdictsRecord make_verdicts_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                    const std::string& time, size_t ok_not_listed) {
  VerdictsRecord r;
  r.criteria = c;
  r.judged = v.size() + ok_not_listed;
  r.counts = {{"ok", ok_not_listed}, {"congested", 0}, {"bad", 0},
              {"lossy", 0},          {"failed", 0},    {"suspect", 0}};
  for (const LinkVerdict& l : v) {
    auto it = std::find_if(r.counts.begin(), r.counts.end(),
                           [&l](const auto& count) { return count.first == l.verdict; });
    if (it == r.counts.end()) it = r.counts.insert(r.counts.end(), {l.verdict, 0});
    ++it->second;
    if (l.verdict == "ok") continue;
    LinkNotOk n;
    n.link = l.link;
    n.matrix = l.values != nullptr ? *l.values : nlohmann::json();
    n.size = l.size;
    n.metric = l.metric;
    n.value = l.value;
    n.best = l.best;
    n.alone = l.alone;
    n.verdict = l.verdict;
    n.rules = l.rules;
    n.loss_ppm = l.loss_ppm;
    n.loss_shared = l.loss_shared;
    n.loss_threshold_ppm = l.loss_threshold_ppm;
    n.why = l.why;
    n.point_id = l.point_id;
    r.not_ok.push_back(std::move(n));
  }
  r.time = time;
  return r;
}

nlohmann::ordered_json verdict_record(const std::vector<LinkVerdict>& v, const VerdictCriteria& c,
                                      const std::string& time, size_t ok_not_listed) {
  return to_json(make_verdicts_record(v, c, time, ok_not_listed));
}

std::vector<std::string> verdict_lines(const std::vector<LinkVerdict>& v, size_t ok_not_listed) {
  std::map<std::string, size_t> n;
  n["ok"] = ok_not_listed;
  for (const LinkVerdict& l : v) ++n[l.verdict];
  std::vector<std::string> lines = {
      "verdicts: " + std::to_string(v.size() + ok_not_listed) +
      " link measurement(s): " + std::to_string(n["ok"]) + " ok, " +
      std::to_string(n["congested"]) + " congested, " + std::to_string(n["bad"]) + " bad, " +
      std::to_string(n["lossy"]) + " lossy, " + std::to_string(n["failed"]) + " failed"};
  for (const LinkVerdict& l : v)
    if (l.verdict != "ok") {
      std::string rules;
      for (const std::string& r : l.rules) rules += (rules.empty() ? "" : ", ") + r;
      lines.push_back("  " + l.verdict + ": " + l.link + " at " + format_size(l.size) + ": " +
                      l.why + " [rule" + (l.rules.size() > 1 ? "s " : " ") + rules + "]");
    }
  return lines;
}

}  // namespace rdmabench
