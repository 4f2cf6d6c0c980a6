#pragma once
// The identity of a measurement across runs and campaigns, used by `rdmabench report` (one table
// per workload) and `rdmabench compare` (matching A with B): every workload field except the
// message sizes, plus the campaign's host pair when the document has one. Documents with the
// same identity are repetitions; the sizes are matched one by one.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/results_set.h"

namespace rdmabench {

struct WorkloadId {
  nlohmann::json fields;  // the workload without "sizes", plus "host_pair" when known
  std::string key;        // fields.dump(): equal for repetitions
};

WorkloadId workload_id(const ResultFile& f);

// The fields (besides op, qp and mode) whose value is not the same in all `ids`.
std::vector<std::string> differing_fields(const std::vector<const WorkloadId*>& ids);

// "write rc bw" followed by "field=value" for each of `extra` that the id has, e.g.
// "send uc bw, threads=2, host_pair=h1-h2".
std::string workload_label(const WorkloadId& id, const std::vector<std::string>& extra);

// Every field but op, qp, mode and host_pair whose value is not the default (Workload{}) as
// "field=value", comma-separated; "every other setting at its default" when there is none.
std::string workload_settings(const WorkloadId& id);

}  // namespace rdmabench
