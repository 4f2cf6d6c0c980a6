#pragma once
// Command-line spellings of a workload: every value arrives as text (so each error can name the
// option, the value and what is allowed) and is turned into a validated Workload here.
#include <optional>
#include <string>

#include "workloads/fabric.h"
#include "workloads/workload.h"

namespace rdmabench {

struct WorkloadArgs {
  std::optional<std::string> op, qp, mode, sizes, iterations, duration, warmup, warmup_time,
      tx_depth, rx_depth, inline_size, signal_every, cq, threads, qps, cpus, mtu, timeout, connect;
  bool all_sizes = false, bidir = false, events = false, srq = false, rdma_cm = false,
       verify = false;
  // Engine knobs.
  std::optional<std::string> post_list, sge, max_rd_atomic, latency_gap, rate, align, mr, numa;
  bool cq_per_qp = false, hugepages = false;
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
