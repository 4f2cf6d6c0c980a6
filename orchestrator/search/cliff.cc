#include "orchestrator/search/cliff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

#include "model/workload.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// Observations merged by position on one line.
struct Merged {
  double x = 0;
  nlohmann::json value;
  double sum = 0;
  size_t n = 0;
  std::vector<std::string> ids;
  double mean() const { return sum / static_cast<double>(n); }
  CliffNeighbour neighbour() const { return {value, mean(), ids}; }
};

std::string value_text(const std::string& along, const nlohmann::json& v) {
  if (along == "sizes" && v.is_number_unsigned()) return format_size(v.get<uint64_t>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string metric_text(double m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", m);
  return buf;
}

}  // namespace

const char* cliff_metric_name(CliffMetric m) {
  return m == CliffMetric::kBwGbps ? "bw_gbps" : "msg_rate";
}

const char* cliff_metric_result_field(CliffMetric m) {
  return m == CliffMetric::kBwGbps ? "gbps" : "mmsg_per_s";
}

CliffScan find_cliffs(const std::vector<CliffObservation>& observations, double threshold) {
  // line -> position -> merged measurements (std::map keeps both sorted).
  std::map<std::string, std::pair<nlohmann::json, std::map<double, Merged>>> lines;
  for (const auto& o : observations) {
    if (!std::isfinite(o.metric) || o.metric < 0 || !std::isfinite(o.x)) continue;
    auto& [line_values, points] = lines[o.line];
    if (line_values.is_null()) line_values = o.line_values;
    Merged& m = points[o.x];
    if (m.n == 0) {
      m.x = o.x;
      m.value = o.value;
    }
    m.sum += o.metric;
    ++m.n;
    if (std::find(m.ids.begin(), m.ids.end(), o.point_id) == m.ids.end())
      m.ids.push_back(o.point_id);
  }
  CliffScan scan;
  for (const auto& [key, lp] : lines) {
    const auto& [line_values, points] = lp;
    if (points.size() < 2) continue;
    ++scan.lines;
    scan.values += points.size();
    std::vector<const Merged*> seq;
    for (const auto& [x, m] : points) seq.push_back(&m);
    for (size_t i = 1; i < seq.size(); ++i) {
      const double prev = seq[i - 1]->mean(), cur = seq[i]->mean();
      if (!(cur < (1 - threshold) * prev)) continue;
      Cliff c;
      c.line = line_values;
      c.at = seq[i]->neighbour();
      c.previous = seq[i - 1]->neighbour();
      c.drop = 1 - cur / prev;
      if (i + 1 < seq.size()) {
        c.next = seq[i + 1]->neighbour();
        c.shape = c.next->metric >= (1 - threshold) * prev ? "dip" : "step";
      } else {
        c.shape = "end";
      }
      scan.cliffs.push_back(std::move(c));
    }
  }
  return scan;
}

std::vector<CliffObservation> cliff_observations(const nlohmann::json& result_doc,
                                                 const nlohmann::json& values,
                                                 const std::string& host_pair,
                                                 const std::string& point_id, const CliffSpec& spec,
                                                 const std::vector<nlohmann::json>& along_order) {
  std::vector<CliffObservation> out;
  if (!result_doc.is_object() || !values.is_object()) return out;
  auto results = result_doc.find("results");
  if (results == result_doc.end() || !results->is_array()) return out;
  const bool along_sizes = spec.along == "sizes";
  if (!along_sizes && !values.contains(spec.along)) return out;
  const char* field = cliff_metric_result_field(spec.metric);

  auto position = [&](const nlohmann::json& v) -> std::optional<double> {
    if (!along_order.empty()) {
      auto it = std::find(along_order.begin(), along_order.end(), v);
      if (it == along_order.end()) return std::nullopt;
      return static_cast<double>(it - along_order.begin());
    }
    if (!v.is_number()) return std::nullopt;
    return v.get<double>();
  };

  for (const auto& r : *results) {
    if (!r.is_object()) continue;
    auto size = r.find("size");
    auto metric = r.find(field);
    auto error = r.find("error");
    if (size == r.end() || !size->is_number_unsigned() || metric == r.end() ||
        !metric->is_number() || (error != r.end() && !error->is_null()))
      continue;
    CliffObservation o;
    nlohmann::json line = values;
    if (along_sizes) {
      line.erase("sizes");
      o.value = *size;
    } else {
      o.value = values[spec.along];
      line.erase(spec.along);
      line["sizes"] = nlohmann::json::array({*size});
    }
    const auto x = position(o.value);
    if (!x) continue;
    o.x = *x;
    line["host_pair"] = host_pair;
    o.line = line.dump();  // nlohmann::json sorts object keys: a canonical text
    o.line_values = std::move(line);
    o.metric = metric->get<double>();
    o.point_id = point_id;
    out.push_back(std::move(o));
  }
  return out;
}

CliffsRecord cliffs_record_of(const CliffSpec& spec, const CliffScan& scan,
                              const std::string& time) {
  CliffsRecord r{cliff_metric_name(spec.metric),
                 spec.along,
                 spec.threshold,
                 scan.lines,
                 scan.values,
                 {},
                 time};
  auto neighbour = [](const CliffNeighbour& n) {
    return CliffsRecordNeighbour{n.value, n.metric, n.point_ids};
  };
  for (const Cliff& c : scan.cliffs) {
    CliffsRecordEntry e;
    e.point_id = c.at.point_ids.empty() ? std::string() : c.at.point_ids.front();
    e.point_ids = c.at.point_ids;
    e.line = c.line;
    e.value = c.at.value;
    e.metric = c.at.metric;
    e.drop = c.drop;
    e.shape = c.shape;
    e.previous = neighbour(c.previous);
    if (c.next) e.next = neighbour(*c.next);
    r.cliffs.push_back(std::move(e));
  }
  return r;
}

nlohmann::ordered_json cliffs_record(const CliffSpec& spec, const CliffScan& scan,
                                     const std::string& time) {
  return to_json(cliffs_record_of(spec, scan, time));
}

void print_cliffs(std::ostream& out, const CliffSpec& spec, const CliffScan& scan) {
  out << "cliffs (" << cliff_metric_name(spec.metric) << " along " << spec.along
      << ", a drop of more than " << metric_text(spec.threshold * 100)
      << " % from the previous value): " << scan.cliffs.size() << " in " << scan.lines
      << " line(s) of " << scan.values << " value(s)\n";
  for (const auto& c : scan.cliffs) {
    nlohmann::json others = c.line;
    others.erase("host_pair");
    out << "  " << (c.at.point_ids.empty() ? std::string("?") : c.at.point_ids.front()) << ": "
        << spec.along << " " << value_text(spec.along, c.at.value) << " "
        << metric_text(c.at.metric) << " after " << metric_text(c.previous.metric) << " at "
        << value_text(spec.along, c.previous.value) << " (-"
        << metric_text(std::round(c.drop * 1000) / 10) << " %), " << c.shape;
    if (c.next)
      out << " (next: " << metric_text(c.next->metric) << " at "
          << value_text(spec.along, c.next->value) << ")";
    out << "  [" << c.line.value("host_pair", "") << ": " << describe_values(others) << "]\n";
  }
}

}  // namespace rdmabench
