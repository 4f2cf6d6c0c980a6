#include "orchestrator/sweep/resume.h"

namespace rdmabench {

std::set<std::string> done_points(const std::vector<std::string>& ids,
                                  const std::map<std::string, IndexEntry>& index,
                                  const std::set<std::string>& existing_results) {
  std::set<std::string> done;
  for (const auto& id : ids) {
    auto it = index.find(id);
    if (it != index.end() && it->second.status == "ok" && existing_results.count(id) != 0)
      done.insert(id);
  }
  return done;
}

}  // namespace rdmabench
