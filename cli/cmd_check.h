#pragma once
// rdmabench check: its options (CLI11) into a CheckRequest, and the check library's end as the
// exit status. The checks themselves are check/ (node_check.h: this host's port and link;
// fabric_check.h: every host of a fabric; docs/health-checks.md).
#include <CLI/CLI.hpp>

#include "check/check_request.h"
#include "cli/cli_common.h"

namespace rdmabench {

struct CheckArgs : CheckRequest {
  LocalArgs local_args;  // -i and -x as typed (applied into `local`)
};

CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
// Runs the check; 0 when every expectation holds, 8 when one fails, a run's own status when a
// workload could not run at all, 130 when interrupted. ConfigError for bad input.
int run_check_command(CheckArgs& a);

}  // namespace rdmabench
