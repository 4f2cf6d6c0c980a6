#include "report/spread.h"

#include <algorithm>
#include <stdexcept>

#include "base/statistics.h"

namespace rdmabench {

Spread spread_of(std::vector<double> v) {
  if (v.empty()) throw std::logic_error("spread_of: no values");
  std::sort(v.begin(), v.end());
  return {median(v), v.front(), v.back(), v.size()};
}

}  // namespace rdmabench
