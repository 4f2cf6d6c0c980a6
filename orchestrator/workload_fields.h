#pragma once
// The workload fields a campaign matrix may set (the names of the workload JSON, see
// results/SCHEMA.md): checking one value, and spelling a set of values as the options of
// `rdmabench client`. The client builds its workload from those options, so a point's workload
// is checked exactly as the client will check it (build_workload: defaults, then validate).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/workload.h"
#include "workloads/workload_options.h"

namespace rdmabench {

// The keys a matrix may hold, in the order their options are written.
const std::vector<std::string>& workload_field_keys();
bool is_workload_field(const std::string& key);
// Fields whose value is itself a list (sizes, cpus): in a matrix, a list of lists is an axis.
bool is_list_field(const std::string& key);

// Checks one value of `key` and returns it in canonical form (sizes: sorted byte counts, enums:
// their names, numbers as numbers). Throws ConfigError naming `path` (e.g. "/matrix/op/2").
nlohmann::json canonical_field_value(const std::string& key, const nlohmann::json& value,
                                     const std::string& path);

// `values`: key -> canonical value. The client options, e.g. {"--op", "write", "--size",
// "64,4096"}.
std::vector<std::string> client_options(const nlohmann::json& values);
// The same, as parsed options (for build_workload).
WorkloadArgs workload_args(const nlohmann::json& values);

// "op=write qp=rc sizes=64,4K iterations=200" (keys in option order).
std::string describe_values(const nlohmann::json& values);

}  // namespace rdmabench
