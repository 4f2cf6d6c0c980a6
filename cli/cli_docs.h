#pragma once
// The manual page and the bash completion of rdmabench, written from the CLI11 definition the
// command parses with (cli/main.cc): built at build time (cli/CMakeLists.txt), so neither can
// drift from --help.
#include <CLI/CLI.hpp>
#include <ostream>

namespace rdmabench {

// rdmabench(1) in man(7) roff: the synopsis, each subcommand with its description, positional
// arguments and options (every spelling, value name, help text), and the app's footer (the exit
// statuses).
void write_man_page(std::ostream& os, const CLI::App& app, const std::string& version);

// A bash completion script: subcommands after `rdmabench`, then each subcommand's option
// spellings; files for an option's value.
void write_bash_completion(std::ostream& os, const CLI::App& app);

}  // namespace rdmabench
