#pragma once
// rdmabench agent: the per-host agent of a fabric campaign (orchestrator/agent/agent.h),
// started by `rdmabench sweep`, never by hand: through ssh or locally its stdin and stdout are
// the control connection; in a Slurm step (--connect HOST:PORT) it dials the sweep over TCP.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace rdmabench {

struct AgentArgs {
  std::optional<std::string> token;
  std::string connect;  // HOST:PORT of the sweep; "" = stdin/stdout
};

CLI::App* add_agent_command(CLI::App& app, AgentArgs& a);
// Runs the agent; `root` is the whole command line's definition (the server's and client's
// options that take a file are refused from the controller). Its exit status.
int run_agent_command(const AgentArgs& a, const CLI::App& root);

}  // namespace rdmabench
