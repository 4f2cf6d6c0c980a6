#include "report/csv_export.h"

#include <cmath>
#include <ostream>

#include "base/file_text.h"
#include "model/workload_fields.h"
#include "report/data_table.h"
#include "report/grouping.h"

namespace rdmabench {
namespace {

std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Empty for the NaN of a histogram without data.
std::string num(double v) { return std::isfinite(v) ? format_number(v) : ""; }

std::string device_field(const nlohmann::json& d, const char* key) {
  if (!d.is_object() || !d.contains(key)) return "";
  return d[key].is_string() ? d[key].get<std::string>() : d[key].dump();
}

// A field of a sweep document's "point" ("" for a lone client's document).
// A workload field's value as a cell: names and flags as written in JSON, numbers in full.
std::string field_cell(const WorkloadField& f, const Workload& w) {
  const nlohmann::json v = f.get(w);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return num(v.get<double>());
  return v.dump();
}

// Before the workload fields, and after them up to the size's measurements.
const std::vector<std::string> kLeadColumns = {"file",      "start_time",  "server_address",
                                               "host_pair", "server_host", "client_host"};
const std::vector<std::string> kTailColumns = {"device",
                                               "transport",
                                               "link_layer",
                                               "size",
                                               "iterations",
                                               "ops",
                                               "bytes",
                                               "seconds",
                                               "gbps",
                                               "mmsg_per_s",
                                               "latency_kind",
                                               "latency_min_ns",
                                               "latency_mean_ns",
                                               "latency_p50_ns",
                                               "latency_p90_ns",
                                               "latency_p99_ns",
                                               "latency_p99_9_ns",
                                               "latency_p99_99_ns",
                                               "latency_max_ns",
                                               "cpu_utilization",
                                               "error"};

}  // namespace

// The workload columns are the field table's series fields (model/workload_fields.h), in
// its order: a new knob is a column without an edit here.
const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = kLeadColumns;
    for (const WorkloadField& f : workload_fields())
      if (f.series) c.emplace_back(f.key);
    c.insert(c.end(), kTailColumns.begin(), kTailColumns.end());
    return c;
  }();
  return columns;
}

std::string results_csv(const std::vector<ResultFile>& runs) {
  std::string out;
  for (const auto& c : csv_columns()) out += (out.empty() ? "" : ",") + c;
  out += "\n";
  for (const auto& f : runs) {
    const RunResult& r = f.run;
    const Workload& w = r.workload;
    for (const auto& s : r.results) {
      std::vector<std::string> row = {f.path,
                                      r.start_time,
                                      r.server_address,
                                      point_host_field(f, "host_pair"),
                                      point_host_field(f, "server_host"),
                                      point_host_field(f, "client_host")};
      for (const WorkloadField& wf : workload_fields())
        if (wf.series) row.push_back(field_cell(wf, w));
      row.insert(row.end(),
                 {field_value(f, "device").text, device_field(r.client_device, "transport"),
                  device_field(r.client_device, "link_layer"), std::to_string(s.size),
                  std::to_string(s.iterations), std::to_string(s.ops), std::to_string(s.bytes),
                  num(s.seconds), num(s.gbps), num(s.mmsg_per_s)});
      if (s.latency) {
        const LatencySummary& l = s.latency->summary;
        row.push_back(s.latency->kind);
        for (double v : {l.min, l.mean, l.p50, l.p90, l.p99, l.p999, l.p9999, l.max})
          row.push_back(num(v));
      } else {
        row.insert(row.end(), 9, "");
      }
      row.push_back(num(s.cpu.utilization));
      row.push_back(s.error.empty() ? r.error : s.error);
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {  // (not "," + std::string: GCC 12 -Wrestrict)
        if (i > 0) line += ',';
        line += cell(row[i]);
      }
      out += line + "\n";
    }
  }
  return out;
}

void run_export_csv(const std::vector<std::string>& inputs, const std::string& out_file,
                    std::ostream& out, std::ostream& notes) {
  std::string csv = results_csv(load_results(inputs, notes));
  if (out_file.empty())
    out << csv << std::flush;
  else
    write_file_atomic(out_file, csv);
}

}  // namespace rdmabench
