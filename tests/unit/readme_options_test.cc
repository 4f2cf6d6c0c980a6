// The option tables of docs/single-pair.md (the README's until the docs/ split) against the
// definitions they describe: every workload field of the field table
// (model/workload_field_table.cc) is named in a table row of that page by its long option, and
// every option a table row names is one the command line accepts (cli/cli_app.h). So a new field
// without a row, a renamed option, or a row for an option that went away fails here.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli/cli_app.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// The page that holds the option tables.
std::string readme() {
  std::ifstream in(std::string(RDMABENCH_SOURCE_DIR) + "/docs/single-pair.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The options (-x, --long-name) named in the first cell of the page's table rows: every option
// in its code spans ("`-s, --size`", "`--cq poll\|event`, `-e`").
std::set<std::string> options_in_tables(const std::string& text) {
  std::set<std::string> out;
  const std::regex span("`([^`]*)`");
  const std::regex option(R"((?:^|[\s,/])(--?[A-Za-z][A-Za-z0-9_-]*))");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `-", 0) != 0) continue;
    const std::string first = line.substr(0, line.find(" | ", 2));
    for (std::sregex_iterator s(first.begin(), first.end(), span), end; s != end; ++s) {
      const std::string code = (*s)[1];
      for (std::sregex_iterator o(code.begin(), code.end(), option); o != end; ++o)
        out.insert((*o)[1]);
    }
  }
  return out;
}

// Every spelling of every option of `app` and its subcommands, with its dashes.
void spellings(const CLI::App& app, std::set<std::string>& out) {
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& s : o->get_snames()) out.insert("-" + s);
    for (const auto& l : o->get_lnames()) out.insert("--" + l);
  }
  for (const CLI::App* sub : app.get_subcommands({})) spellings(*sub, out);
}

TEST(ReadmeOptions, EveryWorkloadFieldHasARow) {
  const std::set<std::string> named = options_in_tables(readme());
  ASSERT_GT(named.size(), 40u) << "the option tables of docs/single-pair.md were not found";
  std::string missing;
  for (const WorkloadField& f : workload_fields())
    if (named.count("--" + std::string(f.option)) == 0) missing += " --" + std::string(f.option);
  EXPECT_TRUE(missing.empty()) << "workload fields without a row in docs/single-pair.md:"
                               << missing;
}

TEST(ReadmeOptions, EveryOptionInATableIsAccepted) {
  const auto cli = make_cli();
  std::set<std::string> accepted;
  spellings(cli->app, accepted);
  std::string unknown;
  for (const std::string& o : options_in_tables(readme()))
    if (accepted.count(o) == 0) unknown += " " + o;
  EXPECT_TRUE(unknown.empty()) << "docs/single-pair.md rows name options the command line lacks:"
                               << unknown;
}

}  // namespace
}  // namespace rdmabench
