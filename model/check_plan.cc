#include "model/check_plan.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace rdmabench {

std::vector<TrafficGroup> group_traffic(const std::vector<CheckExpectation>& ex) {
  std::map<std::tuple<Op, QpType, Mode>, TrafficGroup> groups;
  for (size_t i = 0; i < ex.size(); ++i) {
    if (!ex[i].traffic()) continue;
    auto& g = groups[{ex[i].op, ex[i].qp, ex[i].mode}];
    g.op = ex[i].op;
    g.qp = ex[i].qp;
    g.mode = ex[i].mode;
    if (std::find(g.sizes.begin(), g.sizes.end(), ex[i].size) == g.sizes.end())
      g.sizes.push_back(ex[i].size);
    g.expectations.push_back(i);
  }
  std::vector<TrafficGroup> out;
  for (auto& [key, g] : groups) {
    std::sort(g.sizes.begin(), g.sizes.end());
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace rdmabench
