#include "model/check_host_verdict.h"

namespace rdmabench {

std::vector<HostVerdict> host_verdicts(const std::vector<bool>& own_failed,
                                       const std::vector<CheckedLink>& links) {
  std::vector<HostVerdict> out(own_failed.size());
  for (size_t h = 0; h < out.size(); ++h) {
    size_t mine = 0;
    std::string failed;
    size_t n_failed = 0;
    for (const CheckedLink& l : links) {
      if (l.client != h && l.server != h) continue;
      ++mine;
      if (!l.failed) continue;
      ++n_failed;
      failed += (failed.empty() ? "" : ", ") + l.name;
    }
    HostVerdict& v = out[h];
    const bool all_links = mine > 0 && n_failed == mine;
    v.pass = !own_failed[h] && !all_links;
    if (own_failed[h]) v.why = "its own expectations failed";
    if (all_links)
      v.why += (v.why.empty() ? "" : "; ") + std::string("every link it is an end of failed (") +
               failed + ")";
    else if (n_failed > 0)
      v.why += (v.why.empty() ? "" : "; ") + std::to_string(n_failed) + " of " +
               std::to_string(mine) + " links failed (" + failed + "): another of its links passes";
  }
  return out;
}

}  // namespace rdmabench
