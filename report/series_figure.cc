#include "report/series_figure.h"

#include <cctype>
#include <set>

#include "model/workload.h"

namespace rdmabench {
namespace {

// What all documents of a figure share among op, QP type, device and transport, for its title:
// "write, RC, rxe0 (RoCE v2)".
std::string context(const FigureRuns& runs) {
  auto common = [&](const char* field) -> std::string {
    std::set<std::string> values;
    for (const auto* r : runs) values.insert(field_value(*r, field).text);
    return values.size() == 1 ? *values.begin() : "";
  };
  std::string qp = common("qp");
  for (char& c : qp) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<std::string> parts;
  for (const std::string& p : {common("op"), qp, common("device")})
    if (!p.empty()) parts.push_back(p);
  std::string out = join_text(parts, ", ");
  if (std::string t = common("transport"); !t.empty())
    out += (out.empty() ? "" : " ") + ("(" + t + ")");
  return out;
}

}  // namespace

std::string join_text(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string size_label(uint64_t size) {
  return size < 1024 ? std::to_string(size) + " B" : format_size(size) + "iB";
}

std::string figure_heading(const std::string& what, const FigureRuns& runs) {
  std::string c = context(runs);
  return c.empty() ? what : what + " — " + c;
}

std::string latency_label(const FigureRuns& runs) {
  std::set<std::string> kinds;
  for (const auto* r : runs)
    for (const auto& s : r->run.results)
      if (s.latency) kinds.insert(s.latency->kind);
  if (kinds.size() == 1 && *kinds.begin() == "half_round_trip")
    return "latency (µs, half round trip)";
  if (kinds.size() == 1 && *kinds.begin() == "round_trip") return "latency (µs, round trip)";
  return "latency (µs; round trip for read and atomics, half round trip otherwise)";
}

std::string block_comment(const Series& s) {
  return s.label + " (" + std::to_string(s.runs.size()) +
         (s.runs.size() == 1 ? " document)" : " documents)");
}

std::vector<std::string> data_header(const std::string& name, const FigureLabels& l,
                                     const std::string& how, const std::string& columns) {
  return {"rdmabench plot data of " + name + ".gp: " + l.title,
          "series by " + l.key_title + "; one block per series (gnuplot index 0, 1, ...)", how,
          columns};
}

Figure series_figure(const std::string& name, std::string_view templ, const DataTable& table,
                     const std::vector<std::string>& series, const FigureLabels& l,
                     const std::string& format, std::map<std::string, std::string> values) {
  std::vector<std::string> names;
  for (const auto& s : series) names.push_back("\"" + gnuplot_string(s) + "\"");
  values.insert({{"NSERIES", std::to_string(series.size())},
                 {"SERIES", join_text(names, ", ")},
                 {"ERRORBARS", l.errorbars ? "1" : "0"},
                 {"TITLE", gnuplot_string(l.title)},
                 {"KEYTITLE", gnuplot_string(l.key_title)},
                 {"XLABEL", gnuplot_string(l.xlabel)},
                 {"YLABEL", gnuplot_string(l.ylabel)},
                 {"XTICS", l.xtics},
                 {"XRANGE", l.xrange}});
  return template_figure(name, templ, table.text(), format, false, std::move(values));
}

}  // namespace rdmabench
