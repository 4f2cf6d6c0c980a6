#pragma once
// `rdmabench compare A B`: the comparison of two result sets (comparison.h) as a table or JSON,
// and the exit status.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "report/comparison.h"

namespace rdmabench {

struct CompareOptions {
  std::string a, b;                        // result folders or files
  std::optional<std::string> threshold;    // percent, default 5
  std::optional<std::string> noise_floor;  // percent, default 2
  std::vector<std::string> metrics;        // default: gbps, mmsg, p50, p99
  bool json = false;
};

// Parses a percentage option: a number from `lo` to `hi`; ConfigError(option, text, ...) else.
double parse_percent(const std::string& option, const std::string& text, double lo, double hi);

// The readable table (one line per workload, size and metric), the unmatched points and a
// summary line.
std::string comparison_text(const Comparison& c, const ChangeRule& rule);
nlohmann::json comparison_json(const Comparison& c, const ChangeRule& rule);

// Loads A and B (ConfigError for bad input: missing, empty or foreign; or when no workload and
// size of A was measured in B), compares them and prints the table (or JSON) on `out`.
// Returns 1 when there is a regression, else 0.
int run_compare(const CompareOptions& opt, std::ostream& out, std::ostream& notes);

}  // namespace rdmabench
