#pragma once
// A configuration file's objects (a campaign's, a search's, a fabric's) accept only the keys they
// know: an unknown one (a typo, a key of another object) is refused naming its JSON path, its
// value and the keys that are known.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {

inline void check_keys(const nlohmann::json& j, const std::string& path,
                       const std::vector<std::string>& known) {
  for (const auto& [k, v] : j.items()) {
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    std::string list;
    for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError(path + "/" + k, brief_json(v), "unknown key; known keys: " + list);
  }
}

}  // namespace rdmabench
