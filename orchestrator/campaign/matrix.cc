#include "orchestrator/campaign/matrix.h"

#include <algorithm>
#include <cstdint>

#include "base/error.h"
#include "base/json_util.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// True when `v` spells several values of `key` (an axis / a list of alternatives).
bool is_axis(const std::string& key, const nlohmann::json& v) {
  if (!v.is_array()) return false;
  if (!is_list_field(key)) return true;
  return !v.empty() && v[0].is_array();
}

// The canonical values `v` stands for: one, or each element of an axis.
std::vector<nlohmann::json> values_of(const std::string& key, const nlohmann::json& v,
                                      const std::string& path) {
  std::vector<nlohmann::json> out;
  if (!is_axis(key, v)) {
    out.push_back(canonical_field_value(key, v, path));
    return out;
  }
  if (v.empty()) throw ConfigError(path, "[]", "a value or a non-empty list of values");
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    if (is_list_field(key) && !v[i].is_array())
      throw ConfigError(p, brief_json(v[i]),
                        "a list, like the other elements (a list of lists is one " + key +
                            " value per run; a flat list is one run with all of them)");
    nlohmann::json c = canonical_field_value(key, v[i], p);
    if (std::find(out.begin(), out.end(), c) != out.end())
      throw ConfigError(p, brief_json(v[i]), "a value not already in the list (duplicate)");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

size_t Matrix::size() const {
  size_t n = 1;
  for (const auto& a : axes) {
    if (!a.values.empty() && n > SIZE_MAX / a.values.size()) return SIZE_MAX;  // saturate
    n *= a.values.size();
  }
  return n;
}

nlohmann::json Matrix::combination(size_t i) const {
  nlohmann::json c = nlohmann::json::object();
  for (size_t k = axes.size(); k-- > 0;) {
    const auto& a = axes[k];
    c[a.key] = a.values[i % a.values.size()];
    i /= a.values.size();
  }
  return c;
}

bool Matrix::has(const std::string& key) const {
  return std::any_of(axes.begin(), axes.end(), [&](const MatrixAxis& a) { return a.key == key; });
}

Matrix parse_matrix(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j), "an object: workload field -> value or list of values");
  Matrix m;
  for (const auto& [key, v] : j.items()) {
    const std::string p = path + "/" + key;
    if (!is_workload_field(key)) canonical_field_value(key, v, p);  // throws: unknown field
    m.axes.push_back({key, values_of(key, v, p)});
  }
  return m;
}

bool Exclude::matches(const nlohmann::json& values, const std::string& pair_name) const {
  for (const auto& [key, alts] : keys) {
    const nlohmann::json have =
        key == "host_pair" ? nlohmann::json(pair_name) : values.value(key, nlohmann::json());
    if (std::find(alts.begin(), alts.end(), have) == alts.end()) return false;
  }
  return true;
}

std::vector<Exclude> parse_excludes(const nlohmann::json& j, const Matrix& m,
                                    const std::string& path) {
  std::vector<Exclude> out;
  if (!j.is_array())
    throw ConfigError(path, brief_json(j), "a list of partial matrix points (objects)");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    const auto& e = j[i];
    if (!e.is_object() || e.empty())
      throw ConfigError(p, brief_json(e), "an object of matrix keys and the values to drop");
    Exclude ex;
    for (const auto& [key, v] : e.items()) {
      const std::string kp = p + "/" + key;
      if (key == "host_pair") {
        std::vector<nlohmann::json> names;
        for (const auto& n : v.is_array() ? v : nlohmann::json::array({v})) {
          if (!n.is_string())
            throw ConfigError(kp, brief_json(n), "a host pair name or a list of them");
          names.push_back(n);
        }
        ex.keys.emplace_back(key, std::move(names));
        continue;
      }
      if (!m.has(key))
        throw ConfigError(kp, brief_json(v),
                          "a key of the matrix (or host_pair): excludes match matrix values");
      ex.keys.emplace_back(key, values_of(key, v, kp));
    }
    out.push_back(std::move(ex));
  }
  return out;
}

}  // namespace rdmabench
