#pragma once
// Helpers for reading untrusted JSON: short descriptions of values for error messages (never
// recursing into deep nesting), and integer reads that refuse floats and out-of-range values
// instead of converting them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

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

}  // namespace rdmabench
