#pragma once
// A figure in messages and tables to three significant digits ("97.3", "0.0184", "1.2e+03"):
// verdict texts, round lines, the link matrix.
#include <cstdio>
#include <string>

namespace rdmabench {

inline std::string three_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace rdmabench
