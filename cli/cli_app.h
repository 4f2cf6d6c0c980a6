#pragma once
// The rdmabench command line: one CLI11 App with every subcommand, its options, value names,
// help and examples (what --help, `rdmabench help`, the manual page and the bash completion
// show), and the values it parses into. main() builds it, parses and runs the subcommand given
// (run_cli); tests walk the same definition. Each subcommand's options and run are in its own
// file (cli/cmd_*.h).
#include <CLI/CLI.hpp>
#include <memory>

#include "cli/cmd_agent.h"
#include "cli/cmd_check.h"
#include "cli/cmd_client.h"
#include "cli/cmd_devices.h"
#include "cli/cmd_docs.h"
#include "cli/cmd_results.h"
#include "cli/cmd_server.h"
#include "cli/cmd_sweep.h"

namespace rdmabench {

struct Cli {
  CLI::App app{"rdmabench - RDMA performance tests (bandwidth and latency over verbs)"};
  // What each subcommand parses into (its options refer to these: a Cli does not move).
  DevicesArgs devices_args;
  ServerArgs server_args;
  ClientArgs client_args;
  CheckArgs check_args;
  PlotOptions plot_args;
  ExportArgs export_args;
  ReportOptions report_args;
  CompareOptions compare_args;
  DocsArgs docs_args;
  SweepOptions sweep_args;
  AgentArgs agent_args;
  // The subcommands, for dispatch.
  CLI::App* devices = nullptr;
  CLI::App* server = nullptr;
  CLI::App* client = nullptr;
  CLI::App* check = nullptr;
  CLI::App* plot = nullptr;
  CLI::App* exporter = nullptr;
  CLI::App* report = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* agent = nullptr;
};

// The whole definition, nothing parsed yet.
std::unique_ptr<Cli> make_cli();

// Parses `argv` and runs the subcommand it names. Every error is caught and printed as one
// message; returns the exit status (cli/exit_status.h: 2 for bad input, 1 for a failed run).
int run_cli(Cli& cli, int argc, char** argv);

}  // namespace rdmabench
