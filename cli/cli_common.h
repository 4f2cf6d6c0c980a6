#pragma once
// What the subcommands share: the device options of the server and the client (-d, -i, -x),
// the check of options that name a file, a subcommand's examples, and the stop flag that
// SIGINT and SIGTERM set.
#include <CLI/CLI.hpp>
#include <atomic>
#include <optional>
#include <string>

#include "engine/session_resources.h"

namespace rdmabench {

// -i and -x as typed; apply_local() checks them.
struct LocalArgs {
  std::optional<std::string> ib_port;
  std::optional<std::string> gid;
};

void add_local_options(CLI::App* app, LocalSettings& local, LocalArgs& args);
// -i and -x into `local`; ConfigError naming the option for a bad value.
void apply_local(LocalSettings& local, const LocalArgs& args);

// For options that take a file or folder: a value that looks like an option (`--json -J`) is
// refused rather than written to a file of that name. "-" alone is allowed. It adds nothing to
// the value name (CLI11 would append ":" and a validator's description).
const CLI::Validator& path_not_option();

// A subcommand's examples, above the exit statuses (--help, rdmabench help, the manual).
void set_examples(CLI::App* sub, const std::string& text);

// Set by SIGINT and SIGTERM once stop_on_signals() has installed its handlers.
std::atomic<bool>& stop_flag();
void stop_on_signals();

}  // namespace rdmabench
