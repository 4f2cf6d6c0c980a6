#include "report/prometheus_export.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "base/statistics.h"
#include "report/grouping.h"

namespace rdmabench {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Metric {
  const char* help;
  std::map<std::string, std::vector<double>> samples;  // label text -> values (repetitions)
};

class Exposition {
 public:
  void add(const std::string& name, const char* help, const Labels& labels, double value) {
    if (!std::isfinite(value)) return;
    Metric& m = metrics_.try_emplace(name, Metric{help, {}}).first->second;
    std::string text;
    for (const auto& [k, v] : labels)
      text += (text.empty() ? "" : ",") + k + "=\"" + prometheus_label_value(v) + "\"";
    m.samples[text].push_back(value);
  }
  std::string text() const {
    std::string out;
    for (const auto& [name, m] : metrics_) {
      out += "# HELP " + name + " " + m.help + "\n# TYPE " + name + " gauge\n";
      for (const auto& [labels, values] : m.samples) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.10g", median(values));
        out += name + "{" + labels + "} " + buf + "\n";
      }
    }
    return out;
  }

 private:
  std::map<std::string, Metric> metrics_;
};

std::string device_port(const nlohmann::json& d) {
  return d.is_object() && d.contains("port_used") ? d["port_used"].dump() : "";
}

std::string device_name(const nlohmann::json& d) {
  return d.is_object() && d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>()
                                                                      : "";
}

void point_metrics(Exposition& e, const ExportPoint& p) {
  const ResultFile& f = *p.document;
  const RunResult& r = f.run;
  const Labels run = {{"campaign", p.suite},
                      // The hosts as data: empty (Prometheus' "absent") where the document
                      // names none, never the figures' legend text ("client_host=none").
                      {"host", point_host_field(f, "client_host")},
                      {"peer", point_host_field(f, "server_host")},
                      {"device", device_name(r.client_device)},
                      {"port", device_port(r.client_device)},
                      {"op", field_value(f, "op").text},
                      {"qp", field_value(f, "qp").text},
                      {"mode", field_value(f, "mode").text}};
  for (const SizeResult& s : r.results) {
    if (!s.error.empty()) continue;
    Labels l = run;
    l.emplace_back("size", std::to_string(s.size));
    e.add("rdmabench_throughput_bytes_per_second",
          "Payload throughput of a point at a message size (the median of its repetitions).", l,
          s.gbps * 1e9 / 8);
    e.add("rdmabench_message_rate_per_second",
          "Messages a second of a point at a message size (the median of its repetitions).", l,
          s.mmsg_per_s * 1e6);
    if (!s.latency) continue;
    const LatencySummary& sum = s.latency->summary;
    for (const auto& [pct, ns] :
         {std::pair<const char*, double>{"50", sum.p50}, {"99", sum.p99}, {"99.9", sum.p999}}) {
      Labels pl = l;
      pl.emplace_back("percentile", pct);
      e.add("rdmabench_latency_seconds",
            "Latency percentile of a point at a message size, as measured (half or full round "
            "trip: the result's latency kind).",
            pl, ns / 1e9);
    }
  }
  if (!r.counters.is_object()) return;
  for (const auto& [side, values] : r.counters.items()) {
    if (!values.is_object()) continue;
    const bool client = side == "client";
    const nlohmann::json& dev = client ? r.client_device : r.server_device;
    for (const auto& [counter, delta] : values.items()) {
      if (!delta.is_number()) continue;
      e.add("rdmabench_port_delta", "A port counter's change over a point's run (all its sizes).",
            {{"campaign", p.suite},
             {"host", point_host_field(f, client ? "client_host" : "server_host")},
             {"device", device_name(dev)},
             {"port", device_port(dev)},
             {"side", side},
             {"counter", counter},
             {"op", field_value(f, "op").text},
             {"qp", field_value(f, "qp").text},
             {"mode", field_value(f, "mode").text}},
            delta.get<double>());
    }
  }
}

void verdict_metrics(Exposition& e, const std::string& campaign, const VerdictsRecord& record) {
  for (const auto& [verdict, n] : record.counts)
    e.add("rdmabench_link_verdicts", "Links of a fabric campaign by verdict.",
          {{"campaign", campaign}, {"verdict", verdict}}, static_cast<double>(n));
  for (const LinkNotOk& l : record.not_ok) {
    const auto text = [&l](const char* k) {
      return l.matrix.is_object() && l.matrix.contains(k) && l.matrix[k].is_string()
                 ? l.matrix[k].get<std::string>()
                 : std::string();
    };
    e.add("rdmabench_link_not_ok", "A fabric link judged other than ok (1), with its verdict.",
          {{"campaign", campaign},
           {"link", l.link},
           {"verdict", l.verdict},
           {"op", text("op")},
           {"qp", text("qp")},
           {"mode", text("mode")},
           {"size", std::to_string(l.size)}},
          1);
  }
}

void check_metrics(Exposition& e, const ExportCheck& c) {
  const Labels where = {{"host", c.host}, {"device", c.device}, {"port", c.port}};
  e.add("rdmabench_check_pass", "A health check's verdict: 1 when every expectation held.", where,
        c.pass ? 1 : 0);
  for (const nlohmann::json& x : c.expectations) {
    Labels l = where;
    l.emplace_back("expectation", x.value("expectation", std::string()));
    e.add("rdmabench_check_expectation_pass", "A health check's expectation: 1 when it held.", l,
          x.value("result", std::string()) == "PASS" ? 1 : 0);
    if (x.contains("figure") && x["figure"].is_number())
      e.add("rdmabench_check_figure",
            "The figure a health check's expectation compared (bytes, Gb/s, lanes, GT/s, or "
            "nanoseconds for latency).",
            l, x["figure"].get<double>());
  }
}

}  // namespace

std::string prometheus_label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string prometheus_text(const ExportSet& set) {
  Exposition e;
  std::map<std::pair<std::string, std::string>, double> statuses;
  for (const ExportPoint& p : set.points) {
    statuses[{p.suite, p.status}] += 1;
    if (p.document != nullptr && p.status == "ok") point_metrics(e, p);
  }
  for (const auto& [key, n] : statuses)
    e.add("rdmabench_points", "Workload points of a campaign by status (ok, failed, skipped).",
          {{"campaign", key.first}, {"status", key.second}}, n);
  for (const auto& [campaign, record] : set.verdicts) verdict_metrics(e, campaign, record);
  for (const ExportCheck& c : set.checks) check_metrics(e, c);
  return e.text();
}

}  // namespace rdmabench
