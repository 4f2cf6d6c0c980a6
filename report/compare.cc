#include "report/compare.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "base/error.h"
#include "report/results_set.h"

namespace rdmabench {
namespace {

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) >= 1000 ? "%.0f" : "%.4g", v);
  return buf;
}

std::string pct(double v) {
  if (std::isinf(v)) return v > 0 ? "+inf%" : "-inf%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string side_text(const Spread& s) {
  std::string t = num(s.median);
  if (s.n > 1) t += " [" + num(s.min) + ".." + num(s.max) + "]";
  return t + " n=" + std::to_string(s.n);
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json side_json(const Spread& s, const Band& b, const std::vector<double>& values) {
  return {{"median", s.median},      {"min", s.min},    {"max", s.max}, {"n", s.n},
          {"band", {b.low, b.high}}, {"values", values}};
}

std::string rule_text(const ChangeRule& r) {
  return "a change is real when the bands of A and B (each side's min..max over its repetitions, "
         "widened to at least median +/-" +
         num(r.noise_floor_pct) +
         "%) do not overlap; a regression is a "
         "real change for the worse (lower Gb/s or Mmsg/s, higher latency) beyond " +
         num(r.threshold_pct) + "%";
}

std::vector<ResultFile> load_side(const std::string& path, const char* name, std::ostream& notes) {
  if (path.empty())
    throw ConfigError(std::string("compare ") + name, "", "a result folder or file");
  return load_results({path}, notes);
}

}  // namespace

double parse_percent(const std::string& option, const std::string& text, double lo, double hi) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
    throw ConfigError(option, text, "a percentage from " + num(lo) + " to " + num(hi));
  return v;
}

std::string comparison_text(const Comparison& c, const ChangeRule& rule) {
  std::vector<std::vector<std::string>> table = {{"workload", "size", "metric",
                                                  "A median [min..max] n", "B median [min..max] n",
                                                  "change", "verdict"}};
  for (const auto& r : c.rows) {
    std::string verdict(to_string(r.change.verdict));
    if (r.change.verdict == Verdict::kRegression) verdict = "REGRESSION";
    table.push_back({r.label, format_size(r.size), std::string(metric_info(r.metric).title),
                     side_text(r.change.a), side_text(r.change.b), pct(r.change.change_pct),
                     verdict});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  if (!c.unmatched.empty()) {
    out += "\nnot compared:\n";
    for (const auto& u : c.unmatched)
      out += "  " + u.label + " " + format_size(u.size) + ": " + u.why + "\n";
  }
  out += "\nrule: " + rule_text(rule) + "\n";
  out += std::to_string(c.rows.size()) + " comparisons of " + std::to_string(c.matched_points) +
         " workload sizes: " + std::to_string(c.regressions) + " regression(s), " +
         std::to_string(c.improvements) + " improvement(s), " + std::to_string(c.unmatched.size()) +
         " not compared\n";
  return out;
}

nlohmann::json comparison_json(const Comparison& c, const ChangeRule& rule) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    const MetricInfo& m = metric_info(r.metric);
    rows.push_back({{"workload", r.workload},
                    {"label", r.label},
                    {"size", r.size},
                    {"metric", m.name},
                    {"higher_is_better", m.higher_is_better},
                    {"a", side_json(r.change.a, r.change.band_a, r.a)},
                    {"b", side_json(r.change.b, r.change.band_b, r.b)},
                    {"change_pct", number_or_null(r.change.change_pct)},
                    {"real", r.change.real},
                    {"verdict", std::string(to_string(r.change.verdict))}});
  }
  nlohmann::json unmatched = nlohmann::json::array();
  for (const auto& u : c.unmatched)
    unmatched.push_back(
        {{"workload", u.workload}, {"label", u.label}, {"size", u.size}, {"why", u.why}});
  return {{"threshold_pct", rule.threshold_pct},
          {"noise_floor_pct", rule.noise_floor_pct},
          {"rule", rule_text(rule)},
          {"comparisons", rows},
          {"not_compared", unmatched},
          {"matched_points", c.matched_points},
          {"regressions", c.regressions},
          {"improvements", c.improvements}};
}

int run_compare(const CompareOptions& opt, std::ostream& out, std::ostream& notes) {
  ChangeRule rule;
  if (opt.threshold) rule.threshold_pct = parse_percent("--threshold", *opt.threshold, 0, 1000);
  if (opt.noise_floor)
    rule.noise_floor_pct = parse_percent("--noise-floor", *opt.noise_floor, 0, 100);
  const std::vector<Metric> metrics = parse_metrics(opt.metrics);
  const std::vector<ResultFile> a = load_side(opt.a, "A", notes);
  const std::vector<ResultFile> b = load_side(opt.b, "B", notes);
  const Comparison c = compare_results(a, b, metrics, rule);
  if (c.matched_points == 0 || c.rows.empty())
    throw ConfigError("compare", opt.a + " vs " + opt.b,
                      "result sets measuring the same workloads (every workload field but the "
                      "sizes, and the host pair, equal) at the same sizes with the chosen metrics; "
                      "none of the " +
                          std::to_string(c.unmatched.size()) + " workload sizes matches");
  if (opt.json)
    out << comparison_json(c, rule).dump(2) << "\n";
  else
    out << comparison_text(c, rule);
  out.flush();
  return c.regressions > 0 ? 1 : 0;
}

}  // namespace rdmabench
