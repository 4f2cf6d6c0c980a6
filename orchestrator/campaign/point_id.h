#pragma once
// Stable point ids: a short readable slug (op, QP type, mode, sizes, host pair, repetition) and a
// hash of everything that defines the point (all matrix values in canonical form, the host pair
// name and the repetition). The same campaign gives the same ids on every run and machine, which
// is what --resume relies on; changing any matrix value of a point changes its id.
//   e.g. "write-rc-bw-64_4K-local-r1-5f0c3a9e12"
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/slug.h"
#include "model/workload.h"

namespace rdmabench {

// `values`: the point's canonical matrix values (fields it does not set show the client's
// defaults in the slug). `round`: a fabric flow's round (its label before any split), part of the
// identity when not empty (a link measured in several rounds is several points).
std::string point_id(const nlohmann::json& values, const std::string& pair_name,
                     unsigned repetition, const std::string& round = "");

// The same ids for many points of one combination: what depends on the values alone (the slug's
// workload part, the values' canonical text) is made once. PointIds(values).id(...) ==
// point_id(values, ...), byte for byte.
class PointIds {
 public:
  explicit PointIds(const nlohmann::json& values);
  std::string id(const std::string& pair_name, unsigned repetition,
                 const std::string& round = "") const;

 private:
  std::string readable_;     // "write-rc-bw-64_4K"
  std::string values_text_;  // values.dump()
};

}  // namespace rdmabench
