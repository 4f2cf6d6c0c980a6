#pragma once
// `rdmabench check --baseline RESULTS`: the expectations a folder of result documents (a sweep's,
// or `client --json` files) makes for the check's own short runs. Each (op, QP type, mode, size)
// the documents measured gives one: bandwidth at least (1 - tolerance) x the median of their Gb/s,
// latency at most (1 + tolerance) x the median of their p50 (the most stable statistic of a short
// run). The check runs the default workload but for op, QP type, mode and sizes, so a document
// whose workload sets anything else that moves the figures (threads, QPs, depths, inline size,
// MTU, ...) is refused, naming the field: its figures would not be the check's to meet.
#include <string>
#include <vector>

#include "model/check_expectation.h"
#include "model/result.h"

namespace rdmabench {

struct BaselineRun {
  std::string path;  // for errors
  const RunResult* run = nullptr;
};

// ConfigError (field "baseline") naming the document and the field for a workload the check
// cannot repeat, or when no document has a figure.
std::vector<CheckExpectation> baseline_from_results(const std::vector<BaselineRun>& runs,
                                                    double tolerance);

}  // namespace rdmabench
