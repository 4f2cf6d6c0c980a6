#include "cli/cmd_server.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "base/error.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"

namespace rdmabench {

CLI::App* add_server_command(CLI::App& app, ServerArgs& a) {
  auto* server = app.add_subcommand("server", "serve tests (the client sends the workload)");
  add_local_options(server, a.opt.local, a.local);
  server
      ->add_option("--bind", a.opt.bind,
                   "address to listen on (default: the device's IPv4 address)")
      ->type_name("ADDR");
  server->add_option("-p,--port", a.port, "TCP port (default 18515; 0 = any free port)")
      ->type_name("PORT");
  server->add_flag("--once", a.once, "serve one test and exit with its status (= --sessions 1)");
  server
      ->add_option("--sessions", a.sessions,
                   "N: serve N tests (at once, up to --max-sessions), then exit; 1 if one failed")
      ->type_name("N");
  server->add_option("--token", a.opt.token, "shared secret the client must present")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  server
      ->add_option("--handshake-timeout", a.handshake_timeout,
                   "SEC a connection has to send its hello whole (default 3)")
      ->type_name("SEC");
  server
      ->add_option("--max-pending", a.max_pending,
                   "N connections waiting to say hello, at most (default 32)")
      ->type_name("N");
  server
      ->add_option("--max-pending-per-source", a.max_per_source,
                   "N of them from one address, at most (default 4)")
      ->type_name("N");
  server
      ->add_option("--max-sessions", a.max_sessions,
                   "N sessions served at once; more clients are told busy (default 16)")
      ->type_name("N");
  server
      ->add_option("--cpus", a.cpus,
                   "pin this side's workers to these CPUs, e.g. 2,3 or 0-3,8 (default: not "
                   "pinned; the client's --cpus stays the client's)")
      ->type_name("CPUS");
  server
      ->add_option("--numa", a.numa,
                   "none, auto (the device's node) or N: this side's buffers and workers "
                   "(default none)")
      ->type_name("NODE");
  set_examples(server,
               "  rdmabench server                      # on the device's IPv4 address, port "
               "18515\n"
               "  rdmabench server -d mlx5_0 --cpus 2,3 # this side's workers on CPUs 2 and 3\n");
  return server;
}

int run_server_command(ServerArgs& a) {
  ServerOptions& sopt = a.opt;
  apply_local(sopt.local, a.local);
  if (a.port) sopt.port = static_cast<uint16_t>(parse_uint_option("port", *a.port, 0, 65534));
  if (a.handshake_timeout) {
    char* end = nullptr;
    const double v = std::strtod(a.handshake_timeout->c_str(), &end);
    if (a.handshake_timeout->empty() || *end != '\0' || !(v >= 0.1 && v <= 600))
      throw ConfigError("handshake-timeout", *a.handshake_timeout, "seconds from 0.1 to 600");
    sopt.handshake.deadline = std::chrono::milliseconds(static_cast<int64_t>(v * 1000));
  }
  if (a.max_pending)
    sopt.handshake.max_pending = parse_uint_option("max-pending", *a.max_pending, 1, 4096);
  if (a.max_per_source)
    sopt.handshake.max_per_source =
        parse_uint_option("max-pending-per-source", *a.max_per_source, 1, 4096);
  if (a.max_sessions)
    sopt.max_sessions = parse_uint_option("max-sessions", *a.max_sessions, 1, 1024);
  if (a.once && a.sessions)
    throw ConfigError("sessions", *a.sessions, "--once or --sessions, not both");
  if (a.cpus)
    sopt.cpus =
        field_value_from_text(*find_workload_field("cpus"), *a.cpus).get<std::vector<int>>();
  if (a.numa) sopt.numa = parse_numa(*a.numa, "numa");
  // The server's own CPUs, checked now rather than at its first session.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c : sopt.cpus)
      if (c >= CPU_SETSIZE || !CPU_ISSET(c, &allowed))
        throw ConfigError("cpus", std::to_string(c),
                          "a CPU this process may run on (this host has " +
                              std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online)");
  if (a.once) sopt.sessions = 1;
  if (a.sessions) sopt.sessions = parse_uint_option("sessions", *a.sessions, 1, 1024);
  stop_on_signals();
  std::signal(SIGPIPE, SIG_IGN);
  return serve(sopt, std::cout, std::cerr, stop_flag());
}

}  // namespace rdmabench
