#include "cli/cmd_client.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "base/error.h"
#include "base/file_text.h"
#include "base/utc_time.h"
#include "cli/exit_status.h"
#include "cli/print.h"
#include "cli/workload_cli.h"
#include "model/result.h"
#include "verbs/device.h"

namespace rdmabench {
namespace {

// An interrupted run is a failure with its own status (docs/single-pair.md, "Exit status"), also
// where SIGINT was inherited ignored (a background job of a non-interactive shell).
void on_client_signal(int sig) { ::_exit(128 + sig); }

// --start-at: a Unix time no further ahead than the workload's timeout (the server waits that
// long, and a little more, for the first size); a time already past starts at once.
double parse_start_at(const std::string& text, double timeout_s) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const double now = realtime_unix_s();
  if (text.empty() || *end != '\0' || !(v > 0) || v - now > timeout_s)
    throw ConfigError("start-at", text,
                      "a Unix time in seconds at most the timeout (" +
                          std::to_string(std::lround(timeout_s)) +
                          " s) from now (now: " + std::to_string(std::llround(now)) + ")");
  return v;
}

}  // namespace

CLI::App* add_client_command(CLI::App& app, ClientArgs& a) {
  auto* client = app.add_subcommand("client", "run a test against an rdmabench server");
  client->add_option("server", a.opt.server, "server address")->required()->type_name("HOST");
  add_local_options(client, a.opt.local, a.local);
  client->add_option("-p,--port", a.port, "server TCP port (default 18515)")->type_name("PORT");
  add_workload_options(client, a.workload);
  client
      ->add_option("--latency-precision", a.latency_precision,
                   "latency histogram's largest relative error, 0.00001..0.1 (default 0.01)")
      ->type_name("X");
  client->add_option("--json", a.json_file, "write the result document to FILE (atomically)")
      ->type_name("RESULT_FILE")
      ->check(path_not_option());
  client->add_flag("-J", a.json_stdout, "print the result document on stdout");
  add_perftest_compat(client, a.perftest)->check(path_not_option());
  client->add_option("--token", a.opt.token, "shared secret (must match the server's)")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  client
      ->add_option("--min-gbps", a.min_gbps,
                   "exit with status 7 when an interval's rate falls below X Gb/s (intervals "
                   "of --interval, 1 s without it; the results are written whole)")
      ->type_name("X");
  client
      ->add_option("--start-at", a.start_at,
                   "Unix time (seconds, decimals allowed) at which the first size starts, once "
                   "connected; at most the workload's timeout ahead (fabric rounds use it)")
      ->type_name("UNIX_TIME");
  set_examples(
      client,
      "  rdmabench client 10.0.0.1 --op write -s 64,4K,64K           # bandwidth\n"
      "  rdmabench client 10.0.0.1 --op send --mode lat -s 8 -n 10000 # latency\n"
      "  rdmabench client 10.0.0.1 --op read -a --json r.json        # every size, JSON\n"
      "  rdmabench client 10.0.0.1 --tos 104 -u 16                   # traffic class, timeout\n");
  return client;
}

int run_client_command(ClientArgs& a) {
  ClientOptions& copt = a.opt;
  apply_local(copt.local, a.local);
  if (a.port) copt.port = static_cast<uint16_t>(parse_uint_option("port", *a.port, 1, 65535));
  copt.workload = build_workload(a.workload);
  if (a.start_at) copt.start_at = parse_start_at(*a.start_at, copt.workload.timeout_s);
  const std::string transport = device_transport(copt.local.device);
  if (transport.empty()) (void)Device::open(copt.local.device);  // throws, listing the devices
  copt.workload.connect = resolve_connect(copt.workload.connect, copt.workload.qp, transport);
  if (a.latency_precision) {
    char* end = nullptr;
    double v = std::strtod(a.latency_precision->c_str(), &end);
    if (a.latency_precision->empty() || *end != '\0' || !(v >= 0.00001 && v <= 0.1))
      throw ConfigError("latency-precision", *a.latency_precision,
                        "a relative error from 0.00001 to 0.1");
    copt.histogram_error = v;
  }
  std::optional<double> min_rate;
  if (a.min_gbps) {
    min_rate = parse_number_option("min-gbps", *a.min_gbps, 0.001, 1e6, "Gb/s");
    if (copt.workload.interval_s == 0) copt.workload.interval_s = 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  if (copt.workload.run_infinitely) {
    // The signal ends the measurement; the run then ends as a timed one does (exit 0).
    copt.stop = &stop_flag();
    stop_on_signals();
  } else {
    std::signal(SIGINT, on_client_signal);
    std::signal(SIGTERM, on_client_signal);
  }
  std::ostream& table = a.json_stdout ? std::cerr : std::cout;
  for (const auto& note : perftest_compat_notes(a.perftest))
    std::cerr << "rdmabench: note: " << note << "\n";
  const std::string json_file = perftest_json_file(a.perftest, a.json_file);
  print_header(table, copt.workload);
  RunResult r = run_client(
      copt, [&](const SizeResult& s) { print_size(table, copt.workload, s); },
      [&](uint64_t size, const IntervalResult& iv) {
        print_interval(table, copt.workload, size, iv);
      });
  print_footer(table, r);
  nlohmann::json doc = r;
  if (!json_file.empty()) write_file_atomic(json_file, doc.dump(2) + "\n");
  if (a.json_stdout) std::cout << doc.dump(2) << std::endl;
  if (!r.error.empty()) {
    std::cerr << "rdmabench: error: " << r.error << std::endl;
    return exit_status(r.failure);
  }
  if (min_rate) {
    const std::string below = below_min_rate(r, *min_rate);
    if (!below.empty()) {
      std::cerr << "rdmabench: " << below << std::endl;
      return kExitBelowMinRate;
    }
  }
  return 0;
}

}  // namespace rdmabench
