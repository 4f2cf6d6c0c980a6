#include "cli/cmd_docs.h"

#include <iostream>

#include "base/version.h"
#include "cli/cli_docs.h"

namespace rdmabench {

void add_docs_commands(CLI::App& app, DocsArgs& a) {
  a.help = app.add_subcommand("help", "this help, or a subcommand's: rdmabench help client");
  a.help->add_option("subcommand", a.help_topic, "a subcommand")->type_name("SUBCOMMAND");
  a.completion = app.add_subcommand("completion",
                                    "print the bash completion script: rdmabench completion bash");
  a.completion->add_option("shell", a.shell, "bash")->required()->type_name("SHELL");
  a.man_page = app.add_subcommand("man-page", "print rdmabench(1) (roff)");
  a.man_page->group("");  // for the build, which installs it
}

std::optional<int> run_docs_command(const CLI::App& app, const DocsArgs& a) {
  if (*a.help) {
    const auto formatter = app.get_formatter();
    if (a.help_topic.empty()) {
      std::cout << formatter->make_help(&app, "rdmabench", CLI::AppFormatMode::Normal);
      return 0;
    }
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == a.help_topic && !sub->get_group().empty()) {
        std::cout << formatter->make_help(sub, "rdmabench " + a.help_topic,
                                          CLI::AppFormatMode::Normal);
        return 0;
      }
    std::cerr << "rdmabench: invalid help topic '" << a.help_topic
              << "': a subcommand (rdmabench help lists them)" << std::endl;
    return 2;
  }
  if (*a.completion) {
    if (a.shell != "bash") {
      std::cerr << "rdmabench: invalid shell '" << a.shell << "': bash" << std::endl;
      return 2;
    }
    write_bash_completion(std::cout, app);
    return 0;
  }
  if (*a.man_page) {
    write_man_page(std::cout, app, std::string("rdmabench ") + kVersion);
    return 0;
  }
  return std::nullopt;
}

}  // namespace rdmabench
