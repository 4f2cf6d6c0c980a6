#pragma once
// Helpers for reading untrusted JSON: short descriptions of values for error messages (never
// recursing into deep nesting); strict integer reads that refuse floats and out-of-range values
// instead of converting them; and lenient member reads for documents that are shown rather than
// trusted (reports, indexes, exports), which give a fallback for a missing member, a member of
// another type, or a value that is no object.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"

namespace rdmabench {

// A short text for an error message: scalars as JSON (strings cut at 60 characters), arrays and
// objects only by kind and size.
inline std::string brief_json(const nlohmann::json& v) {
  if (v.is_array()) return "[an array of " + std::to_string(v.size()) + "]";
  if (v.is_object()) return "{an object of " + std::to_string(v.size()) + " keys}";
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// An unsigned integer no larger than `max`; std::domain_error otherwise (floats included).
inline uint64_t json_uint(const nlohmann::json& v, uint64_t max = UINT64_MAX) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    throw std::domain_error("expected a non-negative integer, got " + brief_json(v));
  const uint64_t x = v.get<uint64_t>();
  if (x > max) throw std::domain_error(brief_json(v) + " is larger than " + std::to_string(max));
  return x;
}

// Lenient: j[key] when j is an object whose `key` is a string, else `fallback`.
inline std::string json_string_or(const nlohmann::json& j, const char* key,
                                  const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// Lenient: j[key] when it is a number (integer or not), else nullopt.
inline std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Lenient: j[key] when it is a number, else `fallback`.
inline double json_number_or(const nlohmann::json& j, const char* key, double fallback = 0.0) {
  return json_number(j, key).value_or(fallback);
}

// Lenient: j[key] when it is an integer, else `fallback`.
inline long json_integer_or(const nlohmann::json& j, const char* key, long fallback = 0) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<long>() : fallback;
}

// Lenient, as a table cell: a string as it is, a number or boolean as JSON text, anything else
// (missing, null, an array or object) "".
inline std::string json_text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  return "";
}

// The value at a JSON pointer as a T; a missing or mistyped value throws ConfigError naming the
// pointer, the value and `want` (for a missing one, the first key on the path that is absent).
template <typename T>
inline T at_path(const nlohmann::json& j, const std::string& ptr, const char* want) {
  try {
    return j.at(nlohmann::json::json_pointer(ptr)).get<T>();
  } catch (const nlohmann::json::exception&) {
    const nlohmann::json::json_pointer p(ptr);
    if (j.contains(p)) throw ConfigError(ptr, brief_json(j.at(p)), want);
    // Name the first key on the path that is absent (e.g. 'hosts' when the whole object is).
    std::string prefix;
    std::string missing = ptr.substr(ptr.rfind('/') + 1);
    size_t pos = 1;
    while (pos <= ptr.size()) {
      size_t next = ptr.find('/', pos);
      std::string key = ptr.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
      prefix += "/" + key;
      if (!j.contains(nlohmann::json::json_pointer(prefix))) {
        missing = key;
        break;
      }
      if (next == std::string::npos) break;
      pos = next + 1;
    }
    throw ConfigError(ptr, "(missing)", std::string(want) + " (key '" + missing + "' is missing)");
  }
}

// What a record's member must be, for at_path's errors.
inline constexpr const char* kWantNumber = "a number";
inline constexpr const char* kWantCount = "a whole number";
inline constexpr const char* kWantText = "a string";

// A number at a JSON pointer that may be absent or null: nullopt then; a value of another type
// throws ConfigError naming the pointer.
inline std::optional<double> optional_at_path(const nlohmann::json& j, const std::string& ptr) {
  const nlohmann::json::json_pointer p(ptr);
  if (!j.contains(p) || j.at(p).is_null()) return std::nullopt;
  return at_path<double>(j, ptr, "a number or null");
}

// The last of a campaign index's records of one kind (`lines`), read by `from_json`; a malformed
// one is left out and why added to `refused` ("the NAME record: ..."). None: nullopt.
template <typename Record, typename FromJson>
std::optional<Record> last_record(const std::vector<nlohmann::json>& lines, const char* name,
                                  FromJson from_json, std::vector<std::string>& refused) {
  if (lines.empty()) return std::nullopt;
  try {
    return from_json(lines.back());
  } catch (const ConfigError& e) {
    refused.push_back(std::string("the ") + name + " record: " + e.what());
    return std::nullopt;
  }
}

// A number, or null for none, as the records write it.
inline nlohmann::ordered_json number_or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace rdmabench
