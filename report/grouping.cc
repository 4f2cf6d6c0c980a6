#include "report/grouping.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "base/error.h"
#include "base/json_util.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

FieldValue number(std::string_view name, double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", v);
  return {v, std::string(name) + "=" + buf};
}

// The wire protocol of the client's device, as users name it: "iWARP", "RoCE v2" / "RoCE v1"
// (InfiniBand transport over Ethernet, by the GID type used), "InfiniBand"; from the result's
// device information, never from the device name.
std::string transport_label(const nlohmann::json& d) {
  const std::string t = json_string_or(d, "transport", "?"),
                    link = json_string_or(d, "link_layer", "?");
  if (t == "iWARP") return t;
  if (t == "InfiniBand" && link == "Ethernet") {
    const std::string g = json_string_or(d, "gid_type", "?");
    return g.rfind("RoCE", 0) == 0 ? g : "RoCE";
  }
  if (t == "InfiniBand" && link == "InfiniBand") return t;
  return t + "/" + link;
}

// A workload field's legend value, from its entry in the field table (workload_fields.h).
FieldValue workload_value(const WorkloadField& f, const Workload& w) {
  const nlohmann::json v = f.get(w);
  const std::string key(f.key);
  switch (f.kind) {
    case FieldKind::kEnum:
      return {f.order != nullptr ? f.order(w) : 0,
              std::string(f.series_text) + v.get<std::string>()};
    case FieldKind::kBool: {
      const std::string_view t = f.series_text;
      const size_t bar = t.find('|');
      if (bar == std::string_view::npos)
        return v.get<bool>() ? FieldValue{1, key} : FieldValue{0, "no " + key};
      return v.get<bool>() ? FieldValue{1, std::string(t.substr(0, bar))}
                           : FieldValue{0, std::string(t.substr(bar + 1))};
    }
    default: {
      const double x = v.get<double>();
      if (f.has_unset && x == f.unset)
        return {x, f.series_text.empty() ? key + "=default" : std::string(f.series_text)};
      return number(f.key, x);
    }
  }
}

FieldValue device_name(const RunResult& r) {
  std::string c = json_string_or(r.client_device, "name", "?");
  std::string s = json_string_or(r.server_device, "name", "?");
  return {0, c == s || s == "?" ? c : c + "/" + s};
}

}  // namespace

const std::vector<std::string>& series_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> f;
    for (const WorkloadField& w : workload_fields())
      if (w.series) f.emplace_back(w.key);
    for (const char* other : {"device", "transport", "server_address", "host_pair", "server_host",
                              "client_host", "tool"})
      f.emplace_back(other);
    return f;
  }();
  return fields;
}

void check_series_field(const std::string& field) {
  const auto& f = series_fields();
  if (std::find(f.begin(), f.end(), field) != f.end()) return;
  std::string allowed = "one of:";
  for (size_t i = 0; i < f.size(); ++i) allowed += (i > 0 ? ", " : " ") + f[i];
  throw ConfigError("--group-by", field, allowed);
}

std::string server_host(const std::string& address) {
  // "host:port" (the port differs between runs against `server -p 0`, as in every sweep).
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return address;
  for (size_t i = colon + 1; i < address.size(); ++i)
    if (address[i] < '0' || address[i] > '9') return address;
  const std::string host = address.substr(0, colon);
  // An IPv6 address without brackets has colons of its own: then there is no port to strip.
  if (host.find(':') != std::string::npos && !(host.front() == '[' && host.back() == ']'))
    return address;
  return host;
}

FieldValue field_value(const ResultFile& f, std::string_view field) {
  const RunResult& r = f.run;
  if (const WorkloadField* wf = find_workload_field(field); wf != nullptr && wf->series)
    return workload_value(*wf, r.workload);
  if (field == "device") return device_name(r);
  if (field == "transport") return {0, transport_label(r.client_device)};
  if (field == "server_address") return {0, server_host(r.server_address)};
  if (field == "host_pair" || field == "server_host" || field == "client_host") {
    // From the campaign's "point" (a sweep's documents; a fabric flow's host names); a lone
    // client's document has none.
    const std::string v = point_host_field(f, field);
    return {0, v.empty() ? std::string(field) + "=none" : v};
  }
  if (field == "tool") return {r.tool == "rdmabench" ? 0.0 : 1.0, r.tool};
  throw std::logic_error("unknown series field " + std::string(field));
}

std::vector<std::string> varying_fields(const std::vector<const ResultFile*>& runs) {
  std::vector<std::string> out;
  for (const auto& f : series_fields()) {
    std::set<FieldValue> values;
    for (const auto* r : runs) values.insert(field_value(*r, f));
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
      for (const auto* r : runs) seen[field_value(*r, group_by)].insert(field_value(*r, f));
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
    for (const auto& f : g.fields) key.push_back(field_value(*r, f));
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
