#pragma once
// rdmabench check: a node or link health check in one command (docs/health-checks.md). The port's
// facts first (no traffic), then short workloads against a peer's running server (--peer) or a
// server of its own on this host (--loopback); every figure judged by an expectation
// (model/check_expectation.h); one line each, a verdict line, --json, and exit status 8 when an
// expectation fails.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "engine/session.h"
#include "model/check_expectation.h"

namespace rdmabench {

struct CheckArgs {
  LocalSettings local;
  LocalArgs local_args;
  std::vector<std::string> expect;
  std::string expect_file;
  std::string baseline;
  std::optional<std::string> tolerance;
  std::string peer;
  bool loopback = false;
  std::optional<std::string> port;
  std::string token;
  std::optional<std::string> duration;
  std::optional<std::string> max_time;
  std::string json_file;
  std::string fabric;   // --fabric CAMPAIGN: the check over a fabric (check_fabric.h)
  std::string out_dir;  // --out: where its sweeps write (default out/check-NAME)
};

CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
// The expectations given (-e, then --expect-file's, then --baseline's), and the defaults: the
// port ACTIVE and a usable GID, unless given. ConfigError for bad text.
std::vector<CheckExpectation> check_expectations(const CheckArgs& a);
// Runs the check; 0 when every expectation holds, 8 when one fails, a run's own status when a
// workload could not run at all. ConfigError for bad input.
int run_check_command(CheckArgs& a);

}  // namespace rdmabench
