#pragma once
// The subcommands about rdmabench itself: help, completion, and the hidden man-page the build
// installs (cli/cli_docs.h writes them from the CLI definition).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace rdmabench {

struct DocsArgs {
  std::string help_topic;  // "" = the whole command
  std::string shell;
  CLI::App* help = nullptr;
  CLI::App* completion = nullptr;
  CLI::App* man_page = nullptr;
};

void add_docs_commands(CLI::App& app, DocsArgs& a);
// When one of them was given: its output on stdout and its exit status; else nullopt.
std::optional<int> run_docs_command(const CLI::App& app, const DocsArgs& a);

}  // namespace rdmabench
