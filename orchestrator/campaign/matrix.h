#pragma once
// The matrix of a campaign: an object whose keys are workload fields and whose values are either
// one value or a list of values (an axis). The points are the cartesian product of the axes.
//
// For the list-valued fields `sizes` and `cpus`, a list of scalars is ONE value (e.g.
// "sizes": [64, 4096] is one run measuring both sizes) and a list of lists is an axis
// ("sizes": [[64], [4096, 65536]] is two runs). Sizes may be byte counts or text ("4K",
// "1K,4K", "2-8M"). Excludes use the same spelling and drop every point that matches all keys
// of one entry (a list there means any of its values); `host_pair` may be used in an exclude.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmabench {

struct MatrixAxis {
  std::string key;
  std::vector<nlohmann::json> values;  // canonical (workload_fields.h); one or more
};

struct Matrix {
  std::vector<MatrixAxis> axes;  // in key order

  // Number of combinations (product of the axis lengths; SIZE_MAX if that overflows).
  size_t size() const;
  // Combination `i` (0 <= i < size()) as key -> value; the last axis varies fastest.
  nlohmann::json combination(size_t i) const;
  bool has(const std::string& key) const;
};

// `j` is the "matrix" object; errors name paths under `path` (e.g. "/matrix/op/2").
Matrix parse_matrix(const nlohmann::json& j, const std::string& path);

// One exclude entry: key -> accepted alternatives (canonical).
struct Exclude {
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> keys;
  // True when every key of the entry matches (`host_pair` against `pair_name`).
  bool matches(const nlohmann::json& values, const std::string& pair_name) const;
};

// `j` is the "exclude" list; keys must be matrix keys or "host_pair".
std::vector<Exclude> parse_excludes(const nlohmann::json& j, const Matrix& m,
                                    const std::string& path);

}  // namespace rdmabench
