#pragma once
// rdmabench server: its options and its run.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/cli_common.h"
#include "engine/session.h"

namespace rdmabench {

// The server's options as parsed; run_server_command() checks the ones kept as typed.
struct ServerArgs {
  ServerOptions opt;
  LocalArgs local;
  std::optional<std::string> port;
  bool once = false;
  std::optional<std::string> sessions;
  std::optional<std::string> handshake_timeout;
  std::optional<std::string> max_pending;
  std::optional<std::string> max_per_source;
  std::optional<std::string> max_sessions;
  std::optional<std::string> cpus;
  std::optional<std::string> numa;
};

CLI::App* add_server_command(CLI::App& app, ServerArgs& a);
// Serves until stopped or its sessions are done; its exit status. ConfigError for bad input.
int run_server_command(ServerArgs& a);

}  // namespace rdmabench
