#include "cli/cmd_agent.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "base/error.h"
#include "base/oob_channel.h"
#include "base/version.h"
#include "cli/exit_status.h"
#include "orchestrator/agent/agent.h"
#include "orchestrator/launch/host_env.h"
#include "orchestrator/launch/process.h"

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

// The campaign's name for this host: the Slurm node's name in a step (what the sweep knows it
// by), else the host name.
std::string host_name() {
  if (const char* node = std::getenv("SLURMD_NODENAME"); node != nullptr && *node != '\0')
    return node;
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// HOST:PORT ([V6]:PORT) dialled within 30 s (the sweep listens before it starts the step);
// throws ConfigError or Error naming the address.
OobChannel dial(const std::string& where) {
  const auto bad = [&] { return ConfigError("--connect", where, "HOST:PORT, PORT 1-65535"); };
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos || colon == 0) throw bad();
  std::string host = where.substr(0, colon);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  const std::string p = where.substr(colon + 1);
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || port < 1 || port > 65535)
    throw bad();
  return OobChannel::connect(host, static_cast<uint16_t>(port), std::chrono::seconds(30));
}

}  // namespace

CLI::App* add_agent_command(CLI::App& app, AgentArgs& a) {
  auto* agent = app.add_subcommand(
      "agent",
      "the per-host agent of a fabric campaign: started by `rdmabench sweep`, never by hand; "
      "its control connection is stdin/stdout (ssh, local) or --connect (a Slurm step)");
  agent->add_option("--token", a.token, "the campaign's shared secret (proved, never sent)")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  agent
      ->add_option("--connect", a.connect,
                   "dial the sweep at HOST:PORT instead of using stdin/stdout (the Slurm "
                   "step that starts every agent of a campaign)")
      ->type_name("HOST_PORT");
  return agent;
}

int run_agent_command(const AgentArgs& a, const CLI::App& root) {
  if (!a.token || a.token->empty())
    throw ConfigError("--token", "", "the campaign's token (RDMABENCH_TOKEN), not empty");
  if (a.connect.empty() && (::isatty(STDIN_FILENO) != 0 || ::isatty(STDOUT_FILENO) != 0))
    throw ConfigError("agent", "a terminal",
                      "stdin and stdout connected to rdmabench sweep (it starts the agents)");
  OobChannel conn;
  if (!a.connect.empty()) conn = dial(a.connect);
  std::signal(SIGPIPE, SIG_IGN);  // a broken connection is a write error, handled
  agent::AgentOptions opt;
  opt.token = *a.token;
  opt.path_options = path_options(root);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  opt.facts = {{"host", host_name()},
               {"version", kVersion},
               {"pid", static_cast<long>(::getpid())},
               {"cpus", cpus > 0 ? cpus : 1}};
  // The hello carries what the host checks would capture (the same script, run here).
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  SpawnOptions env_script;
  env_script.argv = host_env_argv(self);
  opt.facts["env"] = host_env_members(run_command(env_script, 60));
  auto sessions = agent::make_process_sessions(self);
  const int in = conn.fd() >= 0 ? conn.fd() : STDIN_FILENO;
  const int out = conn.fd() >= 0 ? conn.fd() : STDOUT_FILENO;
  const int status = agent::run_agent(opt, *sessions, in, out, std::cerr);
  return status == 0 ? kExitOk : (status == 2 ? kExitRefused : kExitFailed);
}

}  // namespace rdmabench
