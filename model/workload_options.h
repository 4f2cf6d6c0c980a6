#pragma once
// Command-line spellings of a workload: every value arrives as text (so each error can name the
// option, the value and what is allowed) and is turned into a validated Workload here.
#include <map>
#include <string>

#include "model/workload.h"

namespace rdmabench {

// A client command line's workload options as typed (the spellings come from workload_fields.h).
struct WorkloadArgs {
  std::map<std::string, std::string> text;  // field key ("tx_depth") -> value ("true" for flags)
  // Shorthands that are not fields of their own.
  bool all_sizes = false;  // -a/--all: message sizes 2 B .. 8 MiB
  bool events = false;     // -e/--events: --cq event
  bool rdma_cm = false;    // -R/--rdma-cm: --connect rdma_cm
};

// Builds and validates; throws ConfigError naming the option (long name) on any bad value.
Workload build_workload(const WorkloadArgs& a);

// Unsigned integer option in [lo, hi]; accepts size suffixes when `sizes` is true.
uint64_t parse_uint_option(const std::string& field, const std::string& text, uint64_t lo,
                           uint64_t hi);
double parse_number_option(const std::string& field, const std::string& text, double lo, double hi,
                           const std::string& unit);
double parse_seconds_option(const std::string& field, const std::string& text, double lo,
                            double hi);

}  // namespace rdmabench
