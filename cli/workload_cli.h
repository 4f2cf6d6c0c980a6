#pragma once
// The client's workload options on a CLI11 command: one option per entry of the workload field
// table (model/workload_fields.h), with its spellings and help, plus the shorthands -a, -e
// and -R. The values are kept as typed in `args`; build_workload() checks them.
#include <CLI/CLI.hpp>

#include "model/workload_options.h"

namespace rdmabench {

void add_workload_options(CLI::App* app, WorkloadArgs& args);

}  // namespace rdmabench
