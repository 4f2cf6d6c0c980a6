#pragma once
// What a check runs: its traffic expectations grouped into workloads, one per op, QP type and
// mode over the sizes they name (on one host against a peer, or over a fabric's ring).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/check_expectation.h"

namespace rdmabench {

struct TrafficGroup {
  Op op = Op::kWrite;
  QpType qp = QpType::kRc;
  Mode mode = Mode::kBw;
  std::vector<uint64_t> sizes;       // ascending
  std::vector<size_t> expectations;  // indexes into the check's list
};

// The groups of `ex`'s traffic expectations, in the order of (op, QP type, mode).
std::vector<TrafficGroup> group_traffic(const std::vector<CheckExpectation>& ex);

}  // namespace rdmabench
