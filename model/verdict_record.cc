#include "model/verdict_record.h"

#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

bool has_member(const json& j, const std::string& ptr) {
  return j.contains(json::json_pointer(ptr));
}

json array_at(const json& j, const std::string& ptr, const char* want) {
  json a = at_path<json>(j, ptr, want);
  if (!a.is_array()) throw ConfigError(ptr, brief_json(a), want);
  return a;
}

// A member absent from an older record (one written before its rule existed) takes its default.
VerdictCriteria criteria_from(const json& j, const std::string& ptr) {
  VerdictCriteria c;
  const auto number = [&](const char* key, double& into) {
    if (has_member(j, ptr + "/" + key)) into = at_path<double>(j, ptr + "/" + key, kWantNumber);
  };
  const auto optional = [&](const char* key, std::optional<double>& into) {
    if (has_member(j, ptr + "/" + key)) into = optional_at_path(j, ptr + "/" + key);
  };
  number("bw_fraction", c.bw_fraction);
  number("lat_factor", c.lat_factor);
  optional("port_fraction", c.port_fraction);
  if (has_member(j, ptr + "/retest")) c.retest = at_path<bool>(j, ptr + "/retest", "true or false");
  number("loss_k", c.loss_k);
  optional("loss_floor_ppm", c.loss_floor_ppm);
  number("slow_k", c.slow_k);
  optional("slow_floor", c.slow_floor);
  return c;
}

LinkNotOk link_from(const json& j, const std::string& ptr) {
  LinkNotOk l;
  l.link = at_path<std::string>(j, ptr + "/link", kWantText);
  l.matrix = at_path<json>(j, ptr + "/matrix", "the workload's matrix values");
  l.size = at_path<uint64_t>(j, ptr + "/size", "a message size in bytes");
  l.metric = at_path<std::string>(j, ptr + "/metric", kWantText);
  l.value = optional_at_path(j, ptr + "/value");
  l.best = at_path<double>(j, ptr + "/best", kWantNumber);
  l.alone = optional_at_path(j, ptr + "/alone");
  l.verdict = at_path<std::string>(j, ptr + "/verdict", kWantText);
  if (has_member(j, ptr + "/rules"))
    l.rules = at_path<std::vector<std::string>>(j, ptr + "/rules", "a list of rule names");
  l.loss_ppm = optional_at_path(j, ptr + "/loss_ppm");
  if (has_member(j, ptr + "/loss_shared"))
    l.loss_shared = at_path<bool>(j, ptr + "/loss_shared", "true or false");
  if (has_member(j, ptr + "/loss_threshold_ppm"))
    l.loss_threshold_ppm = at_path<double>(j, ptr + "/loss_threshold_ppm", kWantNumber);
  l.why = at_path<std::string>(j, ptr + "/why", kWantText);
  l.point_id = at_path<std::string>(j, ptr + "/point_id", kWantText);
  return l;
}

ProbeNotOk probe_not_ok_from(const json& j, const std::string& ptr) {
  ProbeNotOk p;
  p.link = at_path<std::string>(j, ptr + "/link", kWantText);
  p.round = at_path<std::string>(j, ptr + "/round", kWantText);
  p.point_id = at_path<std::string>(j, ptr + "/point_id", kWantText);
  p.verdict = at_path<std::string>(j, ptr + "/verdict", kWantText);
  p.rule = at_path<std::string>(j, ptr + "/rule", kWantText);
  p.why = at_path<std::string>(j, ptr + "/why", kWantText);
  if (has_member(j, ptr + "/size")) p.size = at_path<uint64_t>(j, ptr + "/size", "a message size");
  p.p99_ns = optional_at_path(j, ptr + "/p99_ns");
  p.p99_9_ns = optional_at_path(j, ptr + "/p99_9_ns");
  p.idle_p99_ns = optional_at_path(j, ptr + "/idle_p99_ns");
  p.ratio = optional_at_path(j, ptr + "/ratio");
  p.threshold = optional_at_path(j, ptr + "/threshold");
  return p;
}

ProbeVerdicts probes_from(const json& j, const std::string& ptr) {
  ProbeVerdicts p;
  p.probed = at_path<size_t>(j, ptr + "/probed", kWantCount);
  p.ok = at_path<size_t>(j, ptr + "/ok", kWantCount);
  p.slow_under_load = at_path<size_t>(j, ptr + "/slow_under_load", kWantCount);
  p.failed = at_path<size_t>(j, ptr + "/failed", kWantCount);
  p.no_idle = at_path<size_t>(j, ptr + "/no_idle", kWantCount);
  p.slow_k = at_path<double>(j, ptr + "/criteria/slow_k", kWantNumber);
  p.slow_floor = optional_at_path(j, ptr + "/criteria/slow_floor");
  const json list = array_at(j, ptr + "/not_ok", "a list of probes");
  for (size_t i = 0; i < list.size(); ++i)
    p.not_ok.push_back(probe_not_ok_from(j, ptr + "/not_ok/" + std::to_string(i)));
  return p;
}

}  // namespace

ordered_json to_json(const VerdictCriteria& c) {
  return {{"bw_fraction", c.bw_fraction},
          {"lat_factor", c.lat_factor},
          {"port_fraction", number_or_null(c.port_fraction)},
          {"retest", c.retest},
          {"loss_k", c.loss_k},
          {"loss_floor_ppm", number_or_null(c.loss_floor_ppm)},
          {"slow_k", c.slow_k},
          {"slow_floor", number_or_null(c.slow_floor)}};
}

ordered_json to_json(const ProbeVerdicts& p) {
  ordered_json list = ordered_json::array();
  for (const ProbeNotOk& e : p.not_ok) {
    ordered_json j = {{"link", e.link},       {"round", e.round}, {"point_id", e.point_id},
                      {"verdict", e.verdict}, {"rule", e.rule},   {"why", e.why}};
    if (e.size) {
      j["size"] = *e.size;
      j["p99_ns"] = number_or_null(e.p99_ns);
      j["p99_9_ns"] = number_or_null(e.p99_9_ns);
      j["idle_p99_ns"] = number_or_null(e.idle_p99_ns);
      j["ratio"] = number_or_null(e.ratio);
      j["threshold"] = number_or_null(e.threshold);
    }
    list.push_back(std::move(j));
  }
  return {{"probed", p.probed},
          {"ok", p.ok},
          {"slow_under_load", p.slow_under_load},
          {"failed", p.failed},
          {"no_idle", p.no_idle},
          {"criteria", {{"slow_k", p.slow_k}, {"slow_floor", number_or_null(p.slow_floor)}}},
          {"not_ok", std::move(list)}};
}

ordered_json to_json(const VerdictsRecord& r) {
  ordered_json counts = ordered_json::object();
  for (const auto& [verdict, n] : r.counts) counts[verdict] = n;
  ordered_json not_ok = ordered_json::array();
  for (const LinkNotOk& l : r.not_ok)
    not_ok.push_back({{"link", l.link},
                      {"matrix", l.matrix},
                      {"size", l.size},
                      {"metric", l.metric},
                      {"value", number_or_null(l.value)},
                      {"best", l.best},
                      {"alone", number_or_null(l.alone)},
                      {"verdict", l.verdict},
                      {"rules", l.rules},
                      {"loss_ppm", number_or_null(l.loss_ppm)},
                      {"loss_shared", l.loss_shared},
                      {"loss_threshold_ppm", l.loss_threshold_ppm},
                      {"why", l.why},
                      {"point_id", l.point_id}});
  ordered_json j = {{"record", kVerdictsRecord}, {"criteria", to_json(r.criteria)},
                    {"judged", r.judged},        {"counts", counts},
                    {"not_ok", not_ok},          {"time", r.time}};
  if (r.probes) j["probes"] = to_json(*r.probes);
  return j;
}

VerdictsRecord verdicts_record_from_json(const json& j) {
  if (!j.is_object() || j.value("record", json()) != kVerdictsRecord)
    throw ConfigError("/record", brief_json(j.is_object() ? j.value("record", json()) : j),
                      "a verdicts record ({\"record\": \"verdicts\", ...})");
  VerdictsRecord r;
  if (const json c = at_path<json>(j, "/criteria", "an object of criteria"); !c.is_object())
    throw ConfigError("/criteria", brief_json(c), "an object of criteria");
  r.criteria = criteria_from(j, "/criteria");
  r.judged = at_path<size_t>(j, "/judged", kWantCount);
  const json counts = at_path<json>(j, "/counts", "an object of counts by verdict");
  if (!counts.is_object())
    throw ConfigError("/counts", brief_json(counts), "an object of counts by verdict");
  for (const auto& item : counts.items())
    r.counts.emplace_back(item.key(), at_path<size_t>(j, "/counts/" + item.key(), kWantCount));
  const json list = array_at(j, "/not_ok", "a list of links");
  for (size_t i = 0; i < list.size(); ++i)
    r.not_ok.push_back(link_from(j, "/not_ok/" + std::to_string(i)));
  r.time = at_path<std::string>(j, "/time", kWantText);
  if (j.contains("probes")) r.probes = probes_from(j, "/probes");
  return r;
}

std::optional<VerdictsRecord> last_verdicts_record(const std::vector<json>& lines,
                                                   std::vector<std::string>& refused) {
  return last_record<VerdictsRecord>(lines, "verdicts", verdicts_record_from_json, refused);
}

}  // namespace rdmabench
