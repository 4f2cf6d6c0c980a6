#include "report/workload_id.h"

#include <set>

#include "model/workload.h"

namespace rdmabench {
namespace {

std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

bool is_headline(const std::string& k) { return k == "op" || k == "qp" || k == "mode"; }

}  // namespace

WorkloadId workload_id(const ResultFile& f) {
  WorkloadId id;
  id.fields = f.run.workload;
  id.fields.erase("sizes");
  if (f.point.is_object() && f.point.contains("host_pair") && f.point["host_pair"].is_string())
    id.fields["host_pair"] = f.point["host_pair"];
  id.key = id.fields.dump();
  return id;
}

std::vector<std::string> differing_fields(const std::vector<const WorkloadId*>& ids) {
  std::set<std::string> keys;
  for (const auto* id : ids)
    for (const auto& [k, v] : id->fields.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys) {
    if (is_headline(k)) continue;
    const nlohmann::json* first = nullptr;
    bool differs = false;
    for (const auto* id : ids) {
      const nlohmann::json& v = id->fields.contains(k) ? id->fields.at(k) : nlohmann::json();
      if (first == nullptr)
        first = &v;
      else if (*first != v)
        differs = true;
    }
    if (differs) out.push_back(k);
  }
  return out;
}

std::string workload_label(const WorkloadId& id, const std::vector<std::string>& extra) {
  std::string s;
  for (const char* k : {"op", "qp", "mode"}) {
    if (!id.fields.contains(k)) continue;
    if (!s.empty()) s += ' ';
    s += value_text(id.fields.at(k));
  }
  for (const auto& k : extra)
    if (id.fields.contains(k)) s += ", " + k + "=" + value_text(id.fields.at(k));
  return s;
}

std::string workload_settings(const WorkloadId& id) {
  static const nlohmann::json kDefaults = Workload{};
  std::string s;
  for (const auto& [k, v] : id.fields.items()) {
    if (is_headline(k) || k == "host_pair") continue;
    if (auto d = kDefaults.find(k); d != kDefaults.end() && *d == v) continue;
    if (!s.empty()) s += ", ";
    s += k + "=" + value_text(v);
  }
  return s.empty() ? "every other setting at its default" : s;
}

}  // namespace rdmabench
