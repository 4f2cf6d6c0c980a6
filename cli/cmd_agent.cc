#include "cli/cmd_agent.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <set>

#include "base/error.h"
#include "base/version.h"
#include "cli/exit_status.h"
#include "orchestrator/agent/agent.h"

namespace rdmabench {
namespace {

// The options of `server` and `client` whose value is a file (value name ...FILE, ...PATH,
// ...DIR), as "--name": what the agent refuses from the wire.
std::set<std::string> path_options(const CLI::App& root) {
  std::set<std::string> out;
  const auto subs = root.get_subcommands(
      [](const CLI::App* a) { return a->get_name() == "server" || a->get_name() == "client"; });
  for (const CLI::App* app : subs) {
    for (const CLI::Option* o : app->get_options()) {
      const std::string t = o->get_type_name();
      const bool path = (t.size() >= 4 && t.compare(t.size() - 4, 4, "FILE") == 0) ||
                        t.find("PATH") != std::string::npos || t.find("DIR") != std::string::npos;
      if (!path) continue;
      for (const std::string& n : o->get_lnames()) out.insert("--" + n);
      for (const std::string& n : o->get_snames()) out.insert("-" + n);
    }
  }
  return out;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

CLI::App* add_agent_command(CLI::App& app, AgentArgs& a) {
  auto* agent = app.add_subcommand(
      "agent",
      "the per-host agent of a fabric campaign: started by `rdmabench sweep` (ssh or local), "
      "never by hand; stdin/stdout are its control connection");
  agent->add_option("--token", a.token, "the campaign's shared secret (proved, never sent)")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  return agent;
}

int run_agent_command(const AgentArgs& a, const CLI::App& root) {
  if (!a.token || a.token->empty())
    throw ConfigError("--token", "", "the campaign's token (RDMABENCH_TOKEN), not empty");
  if (::isatty(STDIN_FILENO) != 0 || ::isatty(STDOUT_FILENO) != 0)
    throw ConfigError("agent", "a terminal",
                      "stdin and stdout connected to rdmabench sweep (it starts the agents)");
  std::signal(SIGPIPE, SIG_IGN);  // a broken connection is a write error, handled
  agent::AgentOptions opt;
  opt.token = *a.token;
  opt.path_options = path_options(root);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  opt.facts = {{"host", host_name()},
               {"version", kVersion},
               {"pid", static_cast<long>(::getpid())},
               {"cpus", cpus > 0 ? cpus : 1}};
  auto sessions = agent::make_process_sessions(std::filesystem::read_symlink("/proc/self/exe"));
  const int status = agent::run_agent(opt, *sessions, STDIN_FILENO, STDOUT_FILENO, std::cerr);
  return status == 0 ? kExitOk : (status == 2 ? kExitRefused : kExitFailed);
}

}  // namespace rdmabench
