#include "orchestrator/launch/result_brief.h"

#include "base/error.h"
#include "model/counter_keys.h"
#include "model/result.h"

namespace rdmabench {
namespace {

std::optional<double> number_at(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return std::nullopt;
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

const nlohmann::json* object_at(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

// The loss figure of a "counters" object ({"client": deltas, "server": deltas}).
std::optional<double> loss_of(const nlohmann::json* counters) {
  return counters != nullptr ? loss_per_million(*counters) : std::nullopt;
}

SizeBrief size_brief(const nlohmann::json& r) {
  SizeBrief s;
  if (const auto size = r.find("size");
      size != r.end() && size->is_number_integer() && size->get<int64_t>() >= 0)
    s.size = size->get<uint64_t>();
  if (const auto e = r.find("error"); e != r.end() && !e->is_null())
    s.error = e->is_string() ? e->get<std::string>() : e->dump();
  s.gbps = number_at(r, "gbps");
  if (const nlohmann::json* lat = object_at(r, "latency")) {
    s.p50_ns = number_at(*lat, "p50");
    s.p99_ns = number_at(*lat, "p99");
    s.p999_ns = number_at(*lat, "p99_9");
  }
  if (const nlohmann::json* w = object_at(r, "window")) {
    s.window_start_unix_s = number_at(*w, "start_unix_s");
    s.window_end_unix_s = number_at(*w, "end_unix_s");
  }
  if (const nlohmann::json* counters = object_at(r, "counters")) {
    s.loss_ppm = loss_per_million(*counters);
    s.congestion_ppm = congestion_per_million(*counters);
    s.counters_moved = moved_counters(*counters);
  }
  return s;
}

// The slower end's port speed, if both tell.
std::optional<double> port_speed(const nlohmann::json& doc) {
  const nlohmann::json* devices = object_at(doc, "devices");
  if (devices == nullptr) return std::nullopt;
  std::optional<double> speed;
  for (const char* side : {"client", "server"}) {
    const nlohmann::json* d = object_at(*devices, side);
    const std::optional<double> s = d != nullptr ? number_at(*d, "speed_gbps") : std::nullopt;
    if (!s) return std::nullopt;
    speed = speed ? std::min(*speed, *s) : *s;
  }
  return speed;
}

void put(nlohmann::json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

std::optional<double> take(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_number()) throw PeerError(std::string("a brief's '") + key + "' is not a number");
  return it->get<double>();
}

std::string take_text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return "";
  if (!it->is_string()) throw PeerError(std::string("a brief's '") + key + "' is not a string");
  return it->get<std::string>();
}

}  // namespace

std::optional<double> ResultBrief::figure(uint64_t size, const std::string& metric) const {
  for (const SizeBrief& s : sizes) {
    if (s.size != size) continue;
    if (!s.error.empty()) return std::nullopt;
    return metric == "gbps" ? s.gbps : s.p50_ns;
  }
  return std::nullopt;
}

std::optional<double> ResultBrief::loss_at(uint64_t size) const {
  for (const SizeBrief& s : sizes)
    if (s.size == size && s.loss_ppm) return s.loss_ppm;
  return loss_ppm;
}

ResultBrief brief_of(const nlohmann::json& doc) {
  ResultBrief b;
  if (!doc.is_object()) return b;
  b.document = true;
  try {
    b.error = run_result_from_json(doc).error;
  } catch (const ConfigError& e) {
    b.invalid = e.what();
  }
  if (const auto results = doc.find("results"); results != doc.end() && results->is_array())
    for (const nlohmann::json& r : *results)
      if (r.is_object()) b.sizes.push_back(size_brief(r));
  b.port_gbps = port_speed(doc);
  if (const nlohmann::json* setup = object_at(doc, "setup"))
    if (const nlohmann::json* start = object_at(*setup, "start")) {
      b.start_waited_s = number_at(*start, "waited_s");
      b.start_late_s = number_at(*start, "late_s");
    }
  b.loss_ppm = loss_of(object_at(doc, "counters"));
  if (const nlohmann::json* point = object_at(doc, "point"))
    if (const nlohmann::json* fabric = object_at(*point, "fabric"))
      if (const auto shared = fabric->find("counters_shared");
          shared != fabric->end() && shared->is_boolean())
        b.loss_shared = shared->get<bool>();
  return b;
}

ResultBrief brief_of_output(const std::string& out) {
  return brief_of(nlohmann::json::parse(out, nullptr, false));
}

nlohmann::json to_json(const ResultBrief& b) {
  nlohmann::json j = {{"document", b.document}, {"sizes", nlohmann::json::array()}};
  if (!b.invalid.empty()) j["invalid"] = b.invalid;
  if (!b.error.empty()) j["error"] = b.error;
  for (const SizeBrief& s : b.sizes) {
    nlohmann::json o = {{"size", s.size}};
    if (!s.error.empty()) o["error"] = s.error;
    put(o, "gbps", s.gbps);
    put(o, "p50_ns", s.p50_ns);
    put(o, "p99_ns", s.p99_ns);
    put(o, "p999_ns", s.p999_ns);
    put(o, "window_start_unix_s", s.window_start_unix_s);
    put(o, "window_end_unix_s", s.window_end_unix_s);
    put(o, "loss_ppm", s.loss_ppm);
    put(o, "congestion_ppm", s.congestion_ppm);
    if (!s.counters_moved.empty()) o["counters_moved"] = s.counters_moved;
    j["sizes"].push_back(std::move(o));
  }
  put(j, "port_gbps", b.port_gbps);
  put(j, "start_waited_s", b.start_waited_s);
  put(j, "start_late_s", b.start_late_s);
  put(j, "loss_ppm", b.loss_ppm);
  return j;
}

ResultBrief brief_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("document") || !j["document"].is_boolean())
    throw PeerError("a brief without 'document'");
  ResultBrief b;
  b.document = j["document"].get<bool>();
  b.invalid = take_text(j, "invalid");
  b.error = take_text(j, "error");
  if (const auto sizes = j.find("sizes"); sizes != j.end()) {
    if (!sizes->is_array()) throw PeerError("a brief's 'sizes' is not an array");
    for (const nlohmann::json& o : *sizes) {
      if (!o.is_object() || !o.contains("size") || !o["size"].is_number_unsigned())
        throw PeerError("a brief's size without 'size'");
      SizeBrief s;
      s.size = o["size"].get<uint64_t>();
      s.error = take_text(o, "error");
      s.gbps = take(o, "gbps");
      s.p50_ns = take(o, "p50_ns");
      s.p99_ns = take(o, "p99_ns");
      s.p999_ns = take(o, "p999_ns");
      s.window_start_unix_s = take(o, "window_start_unix_s");
      s.window_end_unix_s = take(o, "window_end_unix_s");
      s.loss_ppm = take(o, "loss_ppm");
      s.congestion_ppm = take(o, "congestion_ppm");
      if (const auto moved = o.find("counters_moved"); moved != o.end()) {
        if (!moved->is_object()) throw PeerError("a brief's 'counters_moved' is not an object");
        s.counters_moved = *moved;
      }
      b.sizes.push_back(std::move(s));
    }
  }
  b.port_gbps = take(j, "port_gbps");
  b.start_waited_s = take(j, "start_waited_s");
  b.start_late_s = take(j, "start_late_s");
  b.loss_ppm = take(j, "loss_ppm");
  return b;
}

std::string with_member(const std::string& object_text, const std::string& key,
                        const nlohmann::json& value) {
  const size_t end = object_text.find_last_not_of(" \t\r\n");
  const size_t before = end == std::string::npos || end == 0
                            ? std::string::npos
                            : object_text.find_last_not_of(" \t\r\n", end - 1);
  if (before == std::string::npos || object_text[end] != '}')
    throw Error("internal: not a JSON object's text");
  const bool empty = object_text[before] == '{';
  // dump() escapes control characters in strings: every newline of its text is its own layout.
  std::string member = value.dump(2);
  for (size_t at = member.find('\n'); at != std::string::npos; at = member.find('\n', at + 3))
    member.replace(at, 1, "\n  ");
  return object_text.substr(0, before + 1) + (empty ? "\n  " : ",\n  ") +
         nlohmann::json(key).dump() + ": " + member + "\n}";
}

}  // namespace rdmabench
