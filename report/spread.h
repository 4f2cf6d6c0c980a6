#pragma once
// Repetitions of one measurement: median with min and max (the error bars of a figure).
#include <cstddef>
#include <vector>

namespace rdmabench {

struct Spread {
  double median = 0;  // of an even count: the mean of the two middle values
  double min = 0;
  double max = 0;
  size_t n = 0;
};

// `values` must not be empty.
Spread spread_of(std::vector<double> values);

}  // namespace rdmabench
