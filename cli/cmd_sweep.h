#pragma once
// rdmabench sweep: a campaign over many hosts (orchestrator/).
#include <CLI/CLI.hpp>

#include "orchestrator/sweep/sweep.h"

namespace rdmabench {

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o);
// Runs the campaign until done or stopped (SIGINT, SIGTERM); its exit status.
int run_sweep_command(const SweepOptions& o);

}  // namespace rdmabench
