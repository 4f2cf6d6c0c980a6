#include "model/workload_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/cpu_list.h"
#include "base/error.h"
#include "base/json_util.h"
#include "model/workload_options.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using K = FieldKind;

std::string num_text(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::to_string(v);
}

// A range bound as people read it: whole numbers in full ("1000000", not "1e+06"), large powers
// of two as such ("2^40").
std::string bound_text(double v) {
  if (v >= 4294967296.0 && std::exp2(std::round(std::log2(v))) == v)
    return "2^" + std::to_string(static_cast<int>(std::round(std::log2(v))));
  char buf[64];
  std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%g", v);
  return buf;
}

// A non-negative integer (nlohmann keeps unsigned and signed integers apart).
bool is_uint(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// One size entry of a campaign: a byte count, or text such as "4K", "1K,4K" or "2-8M".
void add_sizes(const json& v, const std::string& path, std::vector<uint64_t>& out) {
  if (is_uint(v)) {
    out.push_back(v.get<uint64_t>());
  } else if (v.is_string()) {
    try {
      for (uint64_t s : parse_size_list(v.get<std::string>(), path)) out.push_back(s);
    } catch (const ConfigError& e) {
      throw ConfigError(path, v.dump(), e.allowed());
    }
  } else {
    throw ConfigError(path, v.dump(),
                      "a message size: a byte count or text such as \"4K\", \"1K,4K\" or \"2-8M\"");
  }
}

json canonical_list(const WorkloadField& f, const json& v, const std::string& path,
                    FieldSource source) {
  const bool sizes = f.kind == K::kSizes;
  if (source == FieldSource::kDocument && !v.is_array())
    throw ConfigError(path, brief_json(v),
                      sizes ? "an array of byte counts" : "an array of CPU numbers");
  std::vector<uint64_t> out;
  auto one = [&](const json& x, const std::string& p) {
    if (sizes && source == FieldSource::kCampaign) return add_sizes(x, p, out);
    if (!is_uint(x) || (!sizes && double(x.get<uint64_t>()) > f.hi))
      throw ConfigError(p, brief_json(x),
                        sizes ? "a non-negative integer" : "a CPU number from 0 to 4095");
    out.push_back(x.get<uint64_t>());
  };
  if (v.is_array()) {
    if (v.empty() && source == FieldSource::kCampaign)
      throw ConfigError(path, v.dump(),
                        sizes ? "at least one message size" : "at least one CPU number");
    for (size_t i = 0; i < v.size(); ++i) one(v[i], path + "/" + std::to_string(i));
  } else {
    one(v, path);
  }
  if (sizes) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

bool is_unset(const WorkloadField& f, double v) { return f.has_unset && v == f.unset; }

}  // namespace

const WorkloadField* find_workload_field(std::string_view key) {
  for (const auto& f : workload_fields())
    if (f.key == key) return &f;
  return nullptr;
}

std::string_view field_key_of(std::string_view name) {
  for (const auto& f : workload_fields())
    if (f.option == name || f.key == name) return f.key;
  return {};
}

bool is_workload_field(const std::string& key) { return find_workload_field(key) != nullptr; }

bool is_list_field(const std::string& key) {
  const WorkloadField* f = find_workload_field(key);
  return f != nullptr && (f->kind == K::kSizes || f->kind == K::kCpus);
}

const std::vector<std::string>& workload_field_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k;
    for (const auto& f : workload_fields()) k.emplace_back(f.key);
    return k;
  }();
  return kKeys;
}

std::string field_range_text(const WorkloadField& f) {
  if (!f.allowed.empty()) return std::string(f.allowed);
  std::string t = f.kind == K::kDouble ? std::string(f.unit) + " from " + bound_text(f.lo) +
                                             " to " + bound_text(f.hi)
                                       : "between " + bound_text(f.lo) + " and " + bound_text(f.hi);
  if (f.has_unset) t += " (" + bound_text(f.unset) + " = the default)";
  return t;
}

json canonical_field_value(const std::string& key, const json& v, const std::string& path,
                           FieldSource source) {
  const WorkloadField* f = find_workload_field(key);
  if (f == nullptr) {
    std::string allowed;
    for (const auto& k : workload_field_keys()) allowed += (allowed.empty() ? "" : ", ") + k;
    throw ConfigError(path, v.dump(), "unknown workload field; known fields: " + allowed);
  }
  if (source == FieldSource::kCampaign && !f->not_in_campaigns.empty())
    throw ConfigError(path, brief_json(v), std::string(f->not_in_campaigns));
  switch (f->kind) {
    case K::kEnum: {
      if (!v.is_string()) throw ConfigError(path, brief_json(v), "a string");
      try {
        f->check_name(v.get<std::string>());
      } catch (const ConfigError& e) {
        throw ConfigError(path, v.get<std::string>(), e.allowed());
      }
      return v;
    }
    case K::kBool:
      if (!v.is_boolean()) throw ConfigError(path, brief_json(v), "true or false");
      return v;
    case K::kUint: {
      if (!is_uint(v))
        throw ConfigError(path, brief_json(v), "a whole number " + field_range_text(*f));
      const uint64_t n = v.get<uint64_t>();
      if (is_unset(*f, double(n))) return n;
      if (double(n) < f->lo || double(n) > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + field_range_text(*f));
      if (key == "mtu" && (n & (n - 1)) != 0)
        throw ConfigError(path, v.dump(), field_range_text(*f));
      return n;
    }
    case K::kInt: {
      if (!v.is_number_integer() || (v.is_number_unsigned() && double(v.get<uint64_t>()) > f->hi))
        throw ConfigError(path, brief_json(v), "a whole number " + field_range_text(*f));
      const int64_t n = v.get<int64_t>();
      if (is_unset(*f, double(n))) return n;
      if (double(n) < f->lo || double(n) > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + field_range_text(*f));
      return n;
    }
    case K::kDouble: {
      const std::string what = "a number: ";
      if (!v.is_number()) throw ConfigError(path, brief_json(v), what + field_range_text(*f));
      const double d = v.get<double>();
      if (is_unset(*f, d)) return 0.0;
      if (!std::isfinite(d) || d < f->lo || d > f->hi)
        throw ConfigError(path, v.dump(), what + field_range_text(*f));
      return d;
    }
    case K::kSizes:
    case K::kCpus:
      return canonical_list(*f, v, path, source);
  }
  return v;
}

json field_value_from_text(const WorkloadField& f, const std::string& text) {
  const std::string option(f.option);
  switch (f.kind) {
    case K::kEnum: {
      const std::string name = lower(text);
      f.check_name(name);
      return name;
    }
    case K::kBool:
      return text != "false";
    case K::kUint: {
      if (!f.byte_suffix) return parse_uint_option(option, text, uint64_t(f.lo), uint64_t(f.hi));
      const uint64_t v = parse_size(text, option);
      if (double(v) < f.lo || double(v) > f.hi)
        throw ConfigError(option, text, "a byte count " + field_range_text(f));
      return v;
    }
    case K::kInt:
      return int64_t(parse_uint_option(option, text, uint64_t(f.lo), uint64_t(f.hi)));
    case K::kDouble:
      return parse_number_option(option, text, f.lo, f.hi, std::string(f.unit));
    case K::kSizes:
      return parse_size_list(text, option);
    case K::kCpus: {  // a list of CPUs and ranges: 0-3,8
      std::vector<uint64_t> cpus;
      const auto cpu = [&](const std::string& t) {
        return parse_uint_option(option, t, uint64_t(f.lo), uint64_t(f.hi));
      };
      for (const CpuListItem& item : cpu_list_items(text)) {
        const uint64_t first = cpu(item.first);
        const uint64_t last = cpu(item.last);
        if (last < first)
          throw ConfigError(
              option, text,
              "CPU numbers and ranges, e.g. 0-3,8 (a range runs upwards: '" + item.text + "')");
        for (uint64_t c = first; c <= last; ++c) cpus.push_back(c);
      }
      return cpus;
    }
  }
  return text;
}

Workload workload_from_values(const json& values, bool all_sizes) {
  Workload w;
  for (const auto& f : workload_fields())
    if (auto it = values.find(f.key); it != values.end()) f.set(w, *it);
  if (!values.contains("sizes")) {
    if (is_atomic(w.op))
      w.sizes = {8};
    else if (all_sizes)
      w.sizes = parse_size_list("all", "size");
    else
      w.sizes = {w.mode == Mode::kLat ? 2U : 65536U};
  }
  validate(w);
  return w;
}

void check_field_ranges(const Workload& w) {
  static const Workload kDefaults;
  for (const auto& f : workload_fields()) {
    if (f.kind != K::kUint && f.kind != K::kInt && f.kind != K::kDouble) continue;
    const json v = f.get(w);
    if (v == f.get(kDefaults)) continue;  // the defaults are valid by construction
    const double d = v.get<double>();
    if (is_unset(f, d) || (d >= f.lo && d <= f.hi)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", d);
    throw ConfigError(std::string(f.option), f.kind == K::kDouble ? buf : v.dump(),
                      field_range_text(f));
  }
}

std::vector<std::string> client_options(const json& values) {
  std::vector<std::string> out;
  for (const auto& f : workload_fields()) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    const json& v = *it;
    const std::string option = "--" + std::string(f.option);
    switch (f.kind) {
      case K::kEnum:
        if (f.key == "connect") {
          // rdma_cm: -R as before; tcp: explicit (the client's default is auto, which picks
          // rdma_cm on iWARP devices); auto: the default, no option.
          if (v.get<std::string>() == "rdma_cm")
            out.emplace_back("--rdma-cm");
          else if (v.get<std::string>() == "tcp")
            out.insert(out.end(), {"--connect", "tcp"});
        } else {
          out.insert(out.end(), {option, v.get<std::string>()});
        }
        break;
      case K::kBool:
        if (v.get<bool>()) out.push_back(option);
        break;
      case K::kUint:
      case K::kInt:
      case K::kDouble:
        if (is_unset(f, v.get<double>())) break;
        out.insert(out.end(), {option, v.is_number_float() ? num_text(v.get<double>()) : v.dump()});
        break;
      case K::kSizes:
      case K::kCpus: {
        std::string list;
        // Appended piece by piece: `"," + std::string` trips GCC 12's -Wrestrict (bug 105651).
        for (const auto& x : v) {
          if (!list.empty()) list += ',';
          list += std::to_string(x.get<uint64_t>());
        }
        out.insert(out.end(), {option, list});
        break;
      }
    }
  }
  return out;
}

std::string describe_values(const json& values) {
  std::string out;
  for (const auto& f : workload_fields()) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    std::string text;
    if (f.kind == K::kSizes || f.kind == K::kCpus) {
      for (const auto& x : *it) {
        if (!text.empty()) text += ',';
        text += f.kind == K::kSizes ? format_size(x.get<uint64_t>())
                                    : std::to_string(x.get<uint64_t>());
      }
    } else if (it->is_string()) {
      text = it->get<std::string>();
    } else if (it->is_number_float()) {
      text = num_text(it->get<double>());
    } else {
      text = it->dump();
    }
    if (!out.empty()) out += ' ';
    out.append(f.key).append("=").append(text);
  }
  return out;
}

}  // namespace rdmabench
