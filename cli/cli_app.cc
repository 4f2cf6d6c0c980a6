#include "cli/cli_app.h"

#include <iostream>

#include "base/error.h"
#include "base/version.h"
#include "cli/exit_status.h"

namespace rdmabench {
namespace {

// The subcommand given, run; its exit status. ConfigError and other errors propagate.
int dispatch(Cli& c) {
  if (*c.devices) return run_devices_command(c.devices_args);
  if (*c.server) return run_server_command(c.server_args);
  if (*c.client) return run_client_command(c.client_args);
  if (*c.check) return run_check_command(c.check_args);
  if (*c.plot) return run_plot_command(c.plot_args);
  if (*c.exporter) return run_export_command(c.export_args);
  if (*c.report) return run_report_command(c.report_args);
  if (*c.compare) return run_compare_command(c.compare_args);
  if (*c.sweep) return run_sweep_command(c.sweep_args);
  if (*c.agent) return run_agent_command(c.agent_args, c.app);
  return 0;
}

}  // namespace

std::unique_ptr<Cli> make_cli() {
  auto c = std::make_unique<Cli>();
  CLI::App& app = c->app;
  app.footer(exit_status_help());  // before the subcommands, which inherit it
  app.set_version_flag("-V,--version", std::string("rdmabench ") + kVersion);
  app.require_subcommand(1);
  // In the order --help and the manual list them.
  c->devices = add_devices_command(app, c->devices_args);
  c->server = add_server_command(app, c->server_args);
  c->client = add_client_command(app, c->client_args);
  c->check = add_check_command(app, c->check_args);
  c->plot = add_plot_command(app, c->plot_args);
  c->exporter = add_export_command(app, c->export_args);
  c->report = add_report_command(app, c->report_args);
  c->compare = add_compare_command(app, c->compare_args);
  add_docs_commands(app, c->docs_args);
  c->sweep = add_sweep_command(app, c->sweep_args);
  c->agent = add_agent_command(app, c->agent_args);
  return c;
}

int run_cli(Cli& c, int argc, char** argv) {
  CLI::App& app = c.app;
  // An unknown flag before the subcommand would only get "A subcommand is required": name it.
  if (argc > 1 && argv[1][0] == '-' && app.get_option_no_throw(argv[1]) == nullptr) {
    std::cerr << "rdmabench: unknown option '" << argv[1]
              << "' (before a subcommand: -h/--help, -V/--version; rdmabench help lists the "
                 "subcommands)"
              << std::endl;
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a bad command line is bad input: 2, like every other, said
    // in rdmabench's words.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "rdmabench: " << e.what() << "\n(rdmabench help [SUBCOMMAND] lists the options)"
              << std::endl;
    return kExitBadInput;
  }
  if (const auto status = run_docs_command(app, c.docs_args)) return *status;
  try {
    return dispatch(c);
  } catch (const ConfigError& e) {
    std::cerr << "rdmabench: " << e.what() << std::endl;
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "rdmabench: error: " << e.what() << std::endl;
    return kExitFailed;
  }
}

}  // namespace rdmabench
