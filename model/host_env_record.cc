#include "model/host_env_record.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The members HostEnvRecord names; any other is kept in `other`.
constexpr std::string_view kNamed[] = {
    "host",      "rdmabench", "captured_at", "rdmabench_version", "kernel",
    "rdma_core", "cpus",      "devices",     "devices_error",     "clock_offset"};

std::optional<std::string> optional_text(const json& j, const std::string& ptr) {
  const json::json_pointer p(ptr);
  if (!j.contains(p) || j.at(p).is_null()) return std::nullopt;
  return at_path<std::string>(j, ptr, kWantText);
}

std::string text_or_empty(const json& j, const std::string& ptr) {
  return optional_text(j, ptr).value_or("");
}

unsigned count_at(const json& j, const std::string& ptr) {
  const json& v = j.at(json::json_pointer(ptr));
  if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xffffffffU)
    throw ConfigError(ptr, brief_json(v), kWantCount);
  return v.get<unsigned>();
}

void put(ordered_json& j, const char* key, const std::optional<std::string>& v) {
  j[key] = v ? ordered_json(*v) : ordered_json(nullptr);
}

}  // namespace

ordered_json to_json(const ClockOffset& c) {
  return {{"offset_s", c.offset_s}, {"uncertainty_s", c.uncertainty_s}, {"samples", c.samples}};
}

ClockOffset clock_offset_from_json(const json& j, const std::string& path) {
  if (!j.is_object()) throw ConfigError(path.empty() ? "/" : path, brief_json(j), "an object");
  ClockOffset c;
  try {
    c.offset_s = at_path<double>(j, "/offset_s", kWantNumber);
    c.uncertainty_s = at_path<double>(j, "/uncertainty_s", kWantNumber);
    if (j.contains("samples")) c.samples = count_at(j, "/samples");
  } catch (const ConfigError& e) {
    throw ConfigError(path + e.field(), e.value(), e.allowed());  // the path in the whole record
  }
  return c;
}

const json* HostEnvRecord::device(const std::string& name) const {
  if (!devices.is_array()) return nullptr;
  for (const json& d : devices)
    if (d.is_object() && (name.empty() || name == "auto" || d.value("name", std::string()) == name))
      return &d;
  return nullptr;
}

ordered_json to_json(const HostEnvRecord& r) {
  ordered_json j = {{"host", r.host}, {"rdmabench", r.rdmabench}, {"captured_at", r.captured_at}};
  put(j, "rdmabench_version", r.rdmabench_version);
  put(j, "kernel", r.kernel);
  put(j, "rdma_core", r.rdma_core);
  j["cpus"] = r.cpus ? ordered_json(*r.cpus) : ordered_json(nullptr);
  j["devices"] = r.devices;
  if (r.devices_error) j["devices_error"] = *r.devices_error;
  if (r.clock_offset) j["clock_offset"] = to_json(*r.clock_offset);
  for (const auto& [key, value] : r.other.items()) j[key] = value;
  return j;
}

HostEnvRecord host_env_record_from_json(const json& j) {
  if (!j.is_object()) throw ConfigError("/", brief_json(j), "a host environment object");
  HostEnvRecord r;
  r.host = text_or_empty(j, "/host");
  r.rdmabench = text_or_empty(j, "/rdmabench");
  r.captured_at = text_or_empty(j, "/captured_at");
  r.rdmabench_version = optional_text(j, "/rdmabench_version");
  r.kernel = optional_text(j, "/kernel");
  r.rdma_core = optional_text(j, "/rdma_core");
  if (j.contains("cpus") && !j["cpus"].is_null()) r.cpus = count_at(j, "/cpus");
  r.devices = j.value("devices", json());
  if (!r.devices.is_null() && !r.devices.is_array())
    throw ConfigError("/devices", brief_json(r.devices), "an array of devices, or null");
  r.devices_error = optional_text(j, "/devices_error");
  if (j.contains("clock_offset") && !j["clock_offset"].is_null())
    r.clock_offset = clock_offset_from_json(j["clock_offset"], "/clock_offset");
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(kNamed), std::end(kNamed), key) == std::end(kNamed))
      r.other[key] = value;
  return r;
}

ordered_json to_json(const ClockOffsetsRecord& r) {
  ordered_json hosts = ordered_json::object();
  for (const auto& [host, c] : r.hosts) hosts[host] = to_json(c);
  return {{"record", kClockOffsetsRecord}, {"time", r.time}, {"hosts", hosts}};
}

ClockOffsetsRecord clock_offsets_record_from_json(const json& j) {
  if (!j.is_object() || j.value("record", std::string()) != kClockOffsetsRecord)
    throw ConfigError("/record", brief_json(j.is_object() ? j.value("record", json()) : j),
                      "\"clock_offsets\"");
  ClockOffsetsRecord r;
  r.time = at_path<std::string>(j, "/time", kWantText);
  const json hosts = at_path<json>(j, "/hosts", "an object of hosts");
  if (!hosts.is_object()) throw ConfigError("/hosts", brief_json(hosts), "an object of hosts");
  for (const auto& [host, c] : hosts.items())
    r.hosts[host] = clock_offset_from_json(c, "/hosts/" + host);
  return r;
}

}  // namespace rdmabench
