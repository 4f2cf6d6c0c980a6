#pragma once
// rdmabench client: its options (the workload's from the field table, cli/workload_cli.h) and
// its run: the result table, the result document, the exit status.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/cli_common.h"
#include "cli/perftest_compat.h"
#include "engine/session.h"
#include "model/workload_options.h"

namespace rdmabench {

// The client's options as parsed; run_client_command() checks the ones kept as typed.
struct ClientArgs {
  ClientOptions opt;
  WorkloadArgs workload;
  LocalArgs local;
  std::optional<std::string> port;
  std::optional<std::string> latency_precision;
  std::string json_file;
  bool json_stdout = false;
  PerftestCompat perftest;
  std::optional<std::string> min_gbps;
  std::optional<std::string> start_at;
};

CLI::App* add_client_command(CLI::App& app, ClientArgs& a);
// Runs the test; its exit status (docs/single-pair.md, "Exit status"). ConfigError for bad input.
int run_client_command(ClientArgs& a);

}  // namespace rdmabench
