// The command line's value names (what --help, the manual page and the completion show after an
// option): every option of every subcommand that takes a value, positionals too, has one that
// says what the value is. Walks the definition main() parses with (cli/cli_app.h), so a new
// option without a name, or with CLI11's generic one, fails here.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_app.h"

namespace rdmabench {
namespace {

// Why `o`'s value name says nothing about its value, or "" when it is a good one. Generic: CLI11's
// defaults (TEXT, UINT, INT, FLOAT, NUMBER, ...), the words PATH, FILE and DIR alone, and
// anything with ':' (CLI11 appends a validator's description that way: FILE:PATH).
std::string value_name_problem(const CLI::Option* o) {
  static const std::set<std::string> kGeneric = {
      "TEXT", "UINT", "INT",  "FLOAT", "NUMBER", "DOUBLE", "BOOLEAN", "ENUM",    "VALUE",
      "ARG",  "PATH", "FILE", "DIR",   "FOLDER", "STRING", "CHAR",    "POSITIVE"};
  const std::string name = o->get_type_name();
  if (name.empty()) return "no value name";
  if (name.find(':') != std::string::npos) return "a validator's description in '" + name + "'";
  if (kGeneric.count(name) != 0) return "the generic '" + name + "'";
  return {};
}

// Every problem in `app` and its subcommands (hidden ones too), as "SUBCOMMAND OPTION: why";
// `checked` counts the options that take a value.
void walk(const CLI::App& app, const std::string& where, std::vector<std::string>& problems,
          size_t& checked) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_expected_max() == 0) continue;  // a flag
    ++checked;
    if (const std::string why = value_name_problem(o); !why.empty())
      problems.push_back(where + " " + o->get_name() + ": " + why);
  }
  for (const CLI::App* sub : app.get_subcommands({}))
    walk(*sub, where + " " + sub->get_name(), problems, checked);
}

TEST(CliValueNames, EveryOptionThatTakesAValueNamesIt) {
  const auto cli = make_cli();
  std::vector<std::string> problems;
  size_t checked = 0;
  walk(cli->app, "rdmabench", problems, checked);
  std::string list;
  for (const auto& p : problems) list += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << problems.size() << " option(s):" << list;
  // The walk reached the subcommands' options: the client alone has dozens (the workload's).
  EXPECT_GT(checked, 60u);
}

// The ones the issue found, by name: each now says what it takes.
TEST(CliValueNames, TheOnesThatWereGeneric) {
  const auto cli = make_cli();
  const auto name = [&](const char* sub, const char* opt) {
    return cli->app.get_subcommand(sub)->get_option(opt)->get_type_name();
  };
  EXPECT_EQ(name("sweep", "--launcher"), "LAUNCHER");
  EXPECT_EQ(name("sweep", "--jobs"), "N");
  EXPECT_EQ(name("sweep", "--out"), "RESULTS_DIR");
  EXPECT_EQ(name("client", "--json"), "RESULT_FILE");
  EXPECT_EQ(name("client", "--out_json_file"), "RESULT_FILE");
  EXPECT_EQ(name("plot", "-o"), "FIGURE_DIR");
  EXPECT_EQ(name("export", "-o"), "EXPORT_FILE");
  EXPECT_EQ(name("report", "-o"), "HTML_FILE");
}

// The check itself: CLI11's defaults and a validator's suffix are caught; a named one is not.
TEST(CliValueNames, TheCheckCatchesGenericNames) {
  CLI::App app;
  std::string s;
  unsigned u = 0;
  double d = 0;
  const CLI::Validator described([](std::string&) { return std::string(); }, "PATH");
  EXPECT_EQ(value_name_problem(app.add_option("--s", s)), "the generic 'TEXT'");
  EXPECT_EQ(value_name_problem(app.add_option("--u", u)), "the generic 'UINT'");
  EXPECT_EQ(value_name_problem(app.add_option("--d", d)), "the generic 'FLOAT'");
  EXPECT_EQ(value_name_problem(app.add_option("--f", s)->type_name("FILE")), "the generic 'FILE'");
  EXPECT_EQ(value_name_problem(app.add_option("--p", s)->type_name("FILE")->check(described)),
            "a validator's description in 'FILE:PATH'");
  EXPECT_EQ(value_name_problem(app.add_option("--e", s)->type_name("")), "no value name");
  EXPECT_EQ(value_name_problem(app.add_option("--ok", s)->type_name("RESULT_FILE")), "");
}

}  // namespace
}  // namespace rdmabench
