#include "report/grouping.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "harness/error.h"

namespace rdmabench {
namespace {

FieldValue number(std::string_view name, double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", v);
  return {v, std::string(name) + "=" + buf};
}

std::string device_text(const nlohmann::json& d, const char* key) {
  return d.is_object() && d.contains(key) && d[key].is_string() ? d[key].get<std::string>() : "?";
}

FieldValue device_name(const RunResult& r) {
  std::string c = device_text(r.client_device, "name");
  std::string s = device_text(r.server_device, "name");
  return {0, c == s || s == "?" ? c : c + "/" + s};
}

}  // namespace

const std::vector<std::string>& series_fields() {
  static const std::vector<std::string> fields = {
      "op",       "qp",      "mode",           "cq",           "inline_size",
      "tx_depth", "threads", "qps_per_thread", "signal_every", "bidir",
      "srq",      "connect", "device",         "transport",    "server_address",
      "tool"};
  return fields;
}

void check_series_field(const std::string& field) {
  const auto& f = series_fields();
  if (std::find(f.begin(), f.end(), field) != f.end()) return;
  std::string allowed = "one of:";
  for (size_t i = 0; i < f.size(); ++i) allowed += (i > 0 ? ", " : " ") + f[i];
  throw ConfigError("--group-by", field, allowed);
}

FieldValue field_value(const RunResult& r, std::string_view field) {
  const Workload& w = r.workload;
  auto enum_value = [](auto v) {
    return FieldValue{static_cast<double>(v), std::string(to_string(v))};
  };
  if (field == "op") return enum_value(w.op);
  if (field == "qp") return enum_value(w.qp);
  if (field == "mode") return enum_value(w.mode);
  if (field == "cq") return enum_value(w.cq);
  if (field == "connect") return enum_value(w.connect);
  if (field == "inline_size")
    return w.inline_size < 0 ? FieldValue{-1, "inline_size=default"} : number(field, w.inline_size);
  if (field == "tx_depth") return number(field, w.tx_depth);
  if (field == "threads") return number(field, w.threads);
  if (field == "qps_per_thread") return number(field, w.qps_per_thread);
  if (field == "signal_every")
    return w.signal_every == 0 ? FieldValue{0, "signal_every=default"}
                               : number(field, w.signal_every);
  if (field == "bidir") return w.bidir ? FieldValue{1, "bidir"} : FieldValue{0, "unidir"};
  if (field == "srq") return w.srq ? FieldValue{1, "srq"} : FieldValue{0, "no srq"};
  if (field == "device") return device_name(r);
  if (field == "transport")
    return {0, device_text(r.client_device, "transport") + "/" +
                   device_text(r.client_device, "link_layer")};
  if (field == "server_address") return {0, r.server_address};
  if (field == "tool") return {r.tool == "rdmabench" ? 0.0 : 1.0, r.tool};
  throw std::logic_error("unknown series field " + std::string(field));
}

std::vector<std::string> varying_fields(const std::vector<const ResultFile*>& runs) {
  std::vector<std::string> out;
  for (const auto& f : series_fields()) {
    std::set<FieldValue> values;
    for (const auto* r : runs) values.insert(field_value(r->run, f));
    if (values.size() > 1) out.push_back(f);
  }
  return out;
}

Grouping group_runs(const std::vector<const ResultFile*>& runs, const std::string& group_by) {
  Grouping g;
  if (group_by.empty()) {
    g.fields = varying_fields(runs);
    if (g.fields.empty()) g.fields = {"op"};
  } else {
    check_series_field(group_by);
    g.fields = {group_by};
    // Every other varying field must have one value per group_by value.
    std::string loose;
    for (const auto& f : varying_fields(runs)) {
      if (f == group_by) continue;
      std::map<FieldValue, std::set<FieldValue>> seen;
      for (const auto* r : runs) seen[field_value(r->run, group_by)].insert(field_value(r->run, f));
      std::set<std::string> all;
      bool fixed = true;
      for (const auto& [key, values] : seen) {
        fixed = fixed && values.size() == 1;
        for (const auto& v : values) all.insert(v.text);
      }
      if (fixed) continue;
      loose += (loose.empty() ? "" : "; ") + f + " (";
      for (auto it = all.begin(); it != all.end(); ++it)
        loose += (it == all.begin() ? "" : ", ") + *it;
      loose += ")";
    }
    if (!loose.empty())
      throw ConfigError("--group-by", group_by,
                        "other parameters vary within its series too: " + loose +
                            "; group by one of those, or plot fewer documents");
  }
  std::map<std::vector<FieldValue>, std::vector<const ResultFile*>> by_key;
  for (const auto* r : runs) {
    std::vector<FieldValue> key;
    for (const auto& f : g.fields) key.push_back(field_value(r->run, f));
    by_key[key].push_back(r);
  }
  for (auto& [key, members] : by_key) {
    Series s;
    for (const auto& v : key) s.label += (s.label.empty() ? "" : ", ") + v.text;
    s.runs = std::move(members);
    g.series.push_back(std::move(s));
  }
  return g;
}

}  // namespace rdmabench
