#include "model/hunt_record.h"

#include <algorithm>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json score_json(const HuntScore& s) {
  ordered_json terms = ordered_json::array();
  for (const auto& t : s.terms)
    terms.push_back({{"term", t.term}, {"ratio", t.ratio}, {"value", t.value}, {"limit", t.limit}});
  return {{"anomalous", s.anomalous}, {"climb", s.climb}, {"terms", terms}};
}

const json& array_at(const json& j, const std::string& ptr) {
  const json::json_pointer p(ptr);
  if (!j.contains(p) || !j.at(p).is_array())
    throw ConfigError(ptr, j.contains(p) ? brief_json(j.at(p)) : "(missing)", "an array");
  return j.at(p);
}

HuntScore score_from(const json& j, const std::string& ptr) {
  HuntScore s;
  s.anomalous = at_path<bool>(j, ptr + "/anomalous", "true or false");
  s.climb = at_path<double>(j, ptr + "/climb", kWantNumber);
  const json& terms = array_at(j, ptr + "/terms");
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string p = ptr + "/terms/" + std::to_string(i);
    s.terms.push_back({at_path<std::string>(j, p + "/term", kWantText),
                       at_path<double>(j, p + "/ratio", kWantNumber),
                       at_path<double>(j, p + "/value", kWantNumber),
                       at_path<double>(j, p + "/limit", kWantNumber)});
  }
  return s;
}

std::optional<HuntScore> optional_score(const json& j, const std::string& ptr) {
  const json::json_pointer p(ptr);
  if (!j.contains(p) || j.at(p).is_null()) return std::nullopt;
  return score_from(j, ptr);
}

ordered_json anomaly_json(const HuntAnomaly& a) {
  ordered_json resets = ordered_json::array();
  for (const auto& r : a.resets) {
    ordered_json x = {{"factor", r.factor}, {"from", r.from}, {"to", r.to}, {"removes", r.removes}};
    x["score"] = r.score ? score_json(*r.score) : ordered_json(nullptr);
    if (!r.refused.empty()) x["refused"] = r.refused;
    resets.push_back(std::move(x));
  }
  ordered_json j;
  j["state"] = a.state;
  j["values"] = a.values;
  j["found_at"] = a.found_at;
  j["found"] = score_json(a.found);
  j["fired"] = a.fired;
  j["repeat"] = a.repeat ? score_json(*a.repeat) : ordered_json(nullptr);
  j["resets"] = resets;
  j["trigger"] = a.trigger;
  j["confirm_values"] = a.confirm_values;
  j["confirm"] = a.confirm ? score_json(*a.confirm) : ordered_json(nullptr);
  j["counters"] = {{"found", a.counters_found}, {"confirm", a.counters_confirm}};
  if (!a.reproduce_client.empty())
    j["reproduce"] = {{"server", a.reproduce_server}, {"client", a.reproduce_client}};
  j["also_at"] = a.also_at;
  if (!a.note.empty()) j["note"] = a.note;
  if (a.same_as) j["same_as"] = *a.same_as;
  return j;
}

HuntAnomaly anomaly_from(const json& j, const std::string& ptr) {
  HuntAnomaly a;
  a.state = at_path<std::string>(j, ptr + "/state", kWantText);
  a.values = at_path<json>(j, ptr + "/values", "an object of workload values");
  a.found_at = at_path<uint64_t>(j, ptr + "/found_at", kWantCount);
  a.found = score_from(j, ptr + "/found");
  a.fired = at_path<std::vector<std::string>>(j, ptr + "/fired", "a list of term names");
  a.repeat = optional_score(j, ptr + "/repeat");
  const json& resets = array_at(j, ptr + "/resets");
  for (size_t i = 0; i < resets.size(); ++i) {
    const std::string p = ptr + "/resets/" + std::to_string(i);
    HuntReset r;
    r.factor = at_path<std::string>(j, p + "/factor", kWantText);
    r.from = at_path<json>(j, p + "/from", "a workload value");
    r.to = at_path<json>(j, p + "/to", "a workload value");
    r.removes = at_path<bool>(j, p + "/removes", "true or false");
    r.score = optional_score(j, p + "/score");
    if (resets[i].contains("refused"))
      r.refused = at_path<std::string>(j, p + "/refused", kWantText);
    a.resets.push_back(std::move(r));
  }
  a.trigger = at_path<json>(j, ptr + "/trigger", "an object: factor -> value");
  if (!a.trigger.is_object())
    throw ConfigError(ptr + "/trigger", brief_json(a.trigger), "an object: factor -> value");
  a.confirm_values = j.value(json::json_pointer(ptr + "/confirm_values"), json());
  a.confirm = optional_score(j, ptr + "/confirm");
  // (Records written before the counters were recorded have none: empty.)
  if (j.contains(json::json_pointer(ptr + "/counters")))
    for (auto [member, to] :
         {std::pair{"found", &a.counters_found}, {"confirm", &a.counters_confirm}}) {
      const std::string p = ptr + "/counters/" + member;
      *to = at_path<json>(j, p, "an object: side -> {counter: n}");
      if (!to->is_object())
        throw ConfigError(p, brief_json(*to), "an object: side -> {counter: n}");
    }
  if (j.contains(json::json_pointer(ptr + "/reproduce"))) {
    a.reproduce_server = at_path<std::string>(j, ptr + "/reproduce/server", kWantText);
    a.reproduce_client = at_path<std::string>(j, ptr + "/reproduce/client", kWantText);
  }
  a.also_at = at_path<std::vector<uint64_t>>(j, ptr + "/also_at", "a list of evaluations");
  if (j.contains(json::json_pointer(ptr + "/note")))
    a.note = at_path<std::string>(j, ptr + "/note", kWantText);
  if (j.contains(json::json_pointer(ptr + "/same_as")))
    a.same_as = at_path<uint64_t>(j, ptr + "/same_as", kWantCount);
  return a;
}

}  // namespace

double HuntScore::worst() const {
  double w = 0;
  for (const auto& t : terms) w = std::max(w, t.ratio);
  return w;
}

ordered_json to_json(const HuntRecord& r) {
  ordered_json anomalies = ordered_json::array();
  for (const auto& a : r.anomalies) anomalies.push_back(anomaly_json(a));
  ordered_json candidates = ordered_json::array();
  for (const auto& a : r.candidates) candidates.push_back(anomaly_json(a));
  ordered_json scores = ordered_json::array();
  for (const auto& s : r.scores)
    scores.push_back({{"evaluation", s.evaluation},
                      {"step", s.step},
                      {"climb", s.climb},
                      {"worst", s.worst},
                      {"anomalous", s.anomalous}});
  ordered_json j;
  j["record"] = kHuntRecord;
  j["budget"] = r.budget;
  j["seed"] = r.seed;
  j["evaluations"] = r.evaluations;
  j["anomalies"] = anomalies;
  j["candidates"] = candidates;
  j["scores"] = scores;
  j["time"] = r.time;
  return j;
}

std::optional<HuntRecord> last_hunt_record(const std::vector<json>& lines,
                                           std::vector<std::string>& refused) {
  return last_record<HuntRecord>(lines, "hunt", hunt_record_from_json, refused);
}

HuntRecord hunt_record_from_json(const json& j) {
  HuntRecord r;
  r.budget = at_path<uint64_t>(j, "/budget", kWantCount);
  r.seed = at_path<uint64_t>(j, "/seed", kWantCount);
  r.evaluations = at_path<uint64_t>(j, "/evaluations", kWantCount);
  for (const char* list : {"anomalies", "candidates"}) {
    const json& a = array_at(j, std::string("/") + list);
    for (size_t i = 0; i < a.size(); ++i)
      (list[0] == 'a' ? r.anomalies : r.candidates)
          .push_back(anomaly_from(j, std::string("/") + list + "/" + std::to_string(i)));
  }
  const json& scores = array_at(j, "/scores");
  for (size_t i = 0; i < scores.size(); ++i) {
    const std::string p = "/scores/" + std::to_string(i);
    r.scores.push_back({at_path<uint64_t>(j, p + "/evaluation", kWantCount),
                        at_path<std::string>(j, p + "/step", kWantText),
                        at_path<double>(j, p + "/climb", kWantNumber),
                        at_path<double>(j, p + "/worst", kWantNumber),
                        at_path<bool>(j, p + "/anomalous", "true or false")});
  }
  r.time = at_path<std::string>(j, "/time", kWantText);
  return r;
}

}  // namespace rdmabench
