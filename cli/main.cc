// rdmabench command line: devices, server, client, sweep, plot, export, report, compare. Every
// error is caught here and printed as one message; the exit status is 2 for bad input, 1 for a
// failed run.
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli/cli_docs.h"
#include "cli/exit_status.h"
#include "cli/perftest_compat.h"
#include "cli/print.h"
#include "cli/workload_cli.h"
#include "harness/device.h"
#include "harness/error.h"
#include "harness/version.h"
#include "orchestrator/sweep.h"
#include "report/compare.h"
#include "report/csv_export.h"
#include "report/plot.h"
#include "report/report.h"
#include "workloads/session.h"
#include "workloads/workload_fields.h"
#include "workloads/workload_options.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }
// The client: an interrupted run is a failure with its own status (README "Exit status"), also
// where SIGINT was inherited ignored (a background job of a non-interactive shell).
void on_client_signal(int sig) { ::_exit(128 + sig); }

// --start-at: a Unix time no further ahead than the workload's timeout (the server waits that
// long, and a little more, for the first size); a time already past starts at once.
double parse_start_at(const std::string& text, double timeout_s) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (text.empty() || *end != '\0' || !(v > 0) || v - now > timeout_s)
    throw rdmabench::ConfigError(
        "start-at", text,
        "a Unix time in seconds at most the timeout (" + std::to_string(std::lround(timeout_s)) +
            " s) from now (now: " + std::to_string(std::llround(now)) + ")");
  return v;
}

void add_local_options(CLI::App* app, rdmabench::LocalSettings& local,
                       std::optional<std::string>& port, std::optional<std::string>& gid) {
  app->add_option("-d,--device,--ib-dev", local.device, "RDMA device (default: the first one)")
      ->type_name("DEV");
  app->add_option("-i,--ib-port", port, "device port (default 1)")->type_name("PORT");
  app->add_option("-x,--gid-index", gid,
                  "GID index, or a GID / IPv4 address of the port (default: the RoCE v2 GID of "
                  "the port's IPv4 address; see --gid-type)")
      ->type_name("GID");
}

void apply_local(rdmabench::LocalSettings& local, const std::optional<std::string>& port,
                 const std::optional<std::string>& gid) {
  if (port)
    local.port = static_cast<uint32_t>(rdmabench::parse_uint_option("ib-port", *port, 1, 255));
  if (gid && gid->find_first_of(":.") != std::string::npos)
    local.gid = *gid;  // a GID or an IPv4 address: resolved against the port's GID table
  else if (gid)
    local.gid_index = static_cast<int>(rdmabench::parse_uint_option("gid-index", *gid, 0, 65535));
}

}  // namespace

// For options that take a file or folder: a value that looks like an option (`--json -J`) is
// refused rather than written to a file of that name. "-" alone is allowed.
const CLI::Validator kPathNotOption(
    [](std::string& v) {
      return v.size() > 1 && v[0] == '-'
                 ? "a file name, not an option ('" + v + "'; write ./" + v + " for such a file)"
                 : std::string();
    },
    "PATH");

int main(int argc, char** argv) {
  using namespace rdmabench;
  CLI::App app{"rdmabench - RDMA performance tests (bandwidth and latency over verbs)"};
  app.footer(exit_status_help());
  app.set_version_flag("-V,--version", std::string("rdmabench ") + kVersion);
  app.require_subcommand(1);

  // devices
  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "list RDMA devices, ports and GID tables");
  devices->add_flag("--json", devices_json, "print JSON");

  // server
  ServerOptions sopt;
  std::optional<std::string> s_port, s_ibport, s_gid;
  auto* server = app.add_subcommand("server", "serve tests (the client sends the workload)");
  add_local_options(server, sopt.local, s_ibport, s_gid);
  server->add_option("--bind", sopt.bind,
                     "address to listen on (default: the device's IPv4 address)");
  server->add_option("-p,--port", s_port, "TCP port (default 18515; 0 = any free port)")
      ->type_name("PORT");
  bool s_once = false;
  std::optional<std::string> s_sessions;
  server->add_flag("--once", s_once, "serve one test and exit with its status (= --sessions 1)");
  server->add_option(
      "--sessions", s_sessions,
      "N: serve N tests (at once, up to --max-sessions), then exit; 1 if one failed");
  server->add_option("--token", sopt.token, "shared secret the client must present")
      ->envname("RDMABENCH_TOKEN");
  std::optional<std::string> s_hs_timeout, s_max_pending, s_max_per_source, s_max_sessions;
  server->add_option("--handshake-timeout", s_hs_timeout,
                     "SEC a connection has to send its hello whole (default 3)");
  server->add_option("--max-pending", s_max_pending,
                     "N connections waiting to say hello, at most (default 32)");
  server->add_option("--max-pending-per-source", s_max_per_source,
                     "N of them from one address, at most (default 4)");
  server->add_option("--max-sessions", s_max_sessions,
                     "N sessions served at once; more clients are told busy (default 16)");
  std::optional<std::string> s_cpus, s_numa;
  server->add_option("--cpus", s_cpus,
                     "pin this side's workers to these CPUs, e.g. 2,3 or 0-3,8 (default: not "
                     "pinned; the client's --cpus stays the client's)");
  server->add_option("--numa", s_numa,
                     "none, auto (the device's node) or N: this side's buffers and workers "
                     "(default none)");

  // client
  ClientOptions copt;
  WorkloadArgs wa;
  std::optional<std::string> c_port, c_ibport, c_gid;
  std::string json_file;
  bool json_stdout = false;
  auto* client = app.add_subcommand("client", "run a test against an rdmabench server");
  client->add_option("server", copt.server, "server address")->required();
  add_local_options(client, copt.local, c_ibport, c_gid);
  client->add_option("-p,--port", c_port, "server TCP port (default 18515)")->type_name("PORT");
  add_workload_options(client, wa);
  std::optional<std::string> lat_precision;
  client->add_option("--latency-precision", lat_precision,
                     "latency histogram's largest relative error, 0.00001..0.1 (default 0.01)");
  client->add_option("--json", json_file, "write the result document to FILE (atomically)")
      ->type_name("FILE")
      ->check(kPathNotOption);
  client->add_flag("-J", json_stdout, "print the result document on stdout");
  PerftestCompat perftest;
  add_perftest_compat(client, perftest)->check(kPathNotOption);
  client->add_option("--token", copt.token, "shared secret (must match the server's)")
      ->envname("RDMABENCH_TOKEN");
  std::optional<std::string> min_gbps;
  client->add_option("--min-gbps", min_gbps,
                     "exit with status 7 when an interval's rate falls below X Gb/s (intervals "
                     "of --interval, 1 s without it; the results are written whole)");
  std::optional<std::string> start_at;
  client->add_option("--start-at", start_at,
                     "Unix time (seconds, decimals allowed) at which the first size starts, once "
                     "connected; at most the workload's timeout ahead (fabric rounds use it)");

  // plot
  PlotOptions popt;
  auto* plot = app.add_subcommand("plot", "figures of result documents (gnuplot; plots/README.md)");
  plot->add_option("inputs", popt.inputs, "result folders (every *.json) or files")->required();
  plot->add_option("-o,--out", popt.out_dir, "output folder (default: the first input's folder)")
      ->check(kPathNotOption);
  plot->add_option("--format", popt.format, "png, svg or pdf (default png)");
  plot->add_option("--group-by", popt.group_by,
                   "the parameter telling series apart (default: the one that varies)");
  plot->add_option("--point", popt.point,
                   "message size of the latency CDF and histogram (default: the smallest)");

  // export
  bool export_csv = false;
  std::vector<std::string> export_inputs;
  std::string export_file;
  auto* exporter = app.add_subcommand("export", "write result documents as one table");
  exporter->add_flag("--csv", export_csv, "CSV, one row per document and size")->required();
  exporter->add_option("inputs", export_inputs, "result folders (every *.json) or files")
      ->required();
  exporter->add_option("-o,--out", export_file, "write to FILE (atomically) instead of stdout")
      ->check(kPathNotOption);

  // report
  ReportOptions ropt;
  auto* report =
      app.add_subcommand("report", "one self-contained HTML page of results (plots/README.md)");
  report->add_option("inputs", ropt.inputs, "result folders (a sweep's, or any *.json) or files")
      ->required();
  report
      ->add_option("-o,--out", ropt.out_file,
                   "the page (default: <first input folder>/report.html)")
      ->check(kPathNotOption);
  report->add_option("--format", ropt.format, "embedded images: png or svg (default png)");

  // compare
  CompareOptions cmpopt;
  auto* compare = app.add_subcommand(
      "compare",
      "compare two result sets point by point; exit 1 on a regression (plots/README.md)");
  compare->add_option("A", cmpopt.a, "the baseline: a result folder or file")->required();
  compare->add_option("B", cmpopt.b, "the candidate: a result folder or file")->required();
  compare->add_option(
      "--threshold", cmpopt.threshold,
      "percent: a real change for the worse beyond this is a regression (default 5)");
  compare->add_option("--noise-floor", cmpopt.noise_floor,
                      "percent: the least spread assumed around each median (default 2)");
  compare->add_option("--metric", cmpopt.metrics,
                      "gbps, mmsg, p50, p99, p99.9 (default gbps,mmsg,p50,p99)");
  compare->add_flag("--json", cmpopt.json, "print JSON instead of the table");

  // help, completion, the manual page (built from this definition: cli/cli_docs.h)
  std::string help_topic;
  auto* help = app.add_subcommand("help", "this help, or a subcommand's: rdmabench help client");
  help->add_option("subcommand", help_topic, "a subcommand");
  std::string completion_shell;
  auto* completion = app.add_subcommand(
      "completion", "print the bash completion script: rdmabench completion bash");
  completion->add_option("shell", completion_shell, "bash")->required();
  auto* man_page = app.add_subcommand("man-page", "print rdmabench(1) (roff)");
  man_page->group("");  // for the build, which installs it

  // sweep
  SweepOptions swopt;
  auto* sweep = app.add_subcommand(
      "sweep", "run a campaign of tests over host pairs (orchestrator/README.md)");
  sweep->add_option("campaign", swopt.campaign_file, "campaign file (JSON)")->required();
  sweep->add_option("--out", swopt.out_dir, "results folder (default: out/<campaign name>)")
      ->check(kPathNotOption);
  sweep->add_flag("--resume", swopt.resume, "run only the points without an ok result in --out");
  sweep->add_flag("--dry-run", swopt.dry_run, "print the points and commands; touch no host");
  sweep->add_option("--jobs", swopt.jobs, "host pairs run in parallel (default 1)");
  sweep->add_option("--launcher", swopt.launcher,
                    "how commands reach the hosts: ssh (default) or slurm (job steps of the "
                    "allocation the sweep runs in); overrides the campaign's \"launcher\"");

  // Value names for the options declared above as plain text (CLI11 would say TEXT).
  const std::pair<const char*, const char*> kValueNames[] = {{"--bind", "ADDR"},
                                                             {"--sessions", "N"},
                                                             {"--token", "SECRET"},
                                                             {"--handshake-timeout", "SEC"},
                                                             {"--max-pending", "N"},
                                                             {"--max-pending-per-source", "N"},
                                                             {"--max-sessions", "N"},
                                                             {"--cpus", "CPUS"},
                                                             {"--numa", "NODE"},
                                                             {"server", "HOST"},
                                                             {"--latency-precision", "X"},
                                                             {"--start-at", "UNIX_TIME"},
                                                             {"--min-gbps", "X"},
                                                             {"--out_json_file", "FILE"},
                                                             {"inputs", "PATH"},
                                                             {"--out", "PATH"},
                                                             {"--format", "FORMAT"},
                                                             {"--group-by", "FIELD"},
                                                             {"--point", "SIZE"},
                                                             {"A", "PATH"},
                                                             {"B", "PATH"},
                                                             {"--threshold", "PCT"},
                                                             {"--noise-floor", "PCT"},
                                                             {"--metric", "METRIC"},
                                                             {"campaign", "FILE"},
                                                             {"--jobs", "N"},
                                                             {"shell", "SHELL"},
                                                             {"subcommand", "SUBCOMMAND"}};
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (const auto& [name, value] : kValueNames)
      if (CLI::Option* o = sub->get_option_no_throw(name);
          o != nullptr && o->get_type_name().rfind("TEXT", 0) == 0)
        o->type_name(value);

  // A few examples per subcommand, above the exit statuses (--help, rdmabench help, the manual).
  const auto examples = [&](CLI::App* sub, const std::string& text) {
    sub->footer("Examples:\n" + text + "\n" + exit_status_help());
  };
  examples(server,
           "  rdmabench server                      # on the device's IPv4 address, port 18515\n"
           "  rdmabench server -d mlx5_0 --cpus 2,3 # this side's workers on CPUs 2 and 3\n");
  examples(
      client,
      "  rdmabench client 10.0.0.1 --op write -s 64,4K,64K           # bandwidth\n"
      "  rdmabench client 10.0.0.1 --op send --mode lat -s 8 -n 10000 # latency\n"
      "  rdmabench client 10.0.0.1 --op read -a --json r.json        # every size, JSON\n"
      "  rdmabench client 10.0.0.1 --tos 104 -u 16                   # traffic class, timeout\n");
  examples(sweep,
           "  rdmabench sweep configs/quick.json --out out/quick\n"
           "  rdmabench sweep configs/fabric-pairwise.json --dry-run\n"
           "  rdmabench sweep configs/quick.json --out out/quick --resume\n"
           "  salloc -N 4 rdmabench sweep configs/fabric-pairwise.json --launcher slurm\n");
  examples(plot,
           "  rdmabench plot out/quick                # PNGs next to the results\n"
           "  rdmabench plot a.json b.json -o figs --format svg\n");
  examples(compare, "  rdmabench compare out/before out/after --threshold 5\n");
  examples(devices,
           "  rdmabench devices          # each port's GIDs and the one auto picks\n"
           "  rdmabench devices --json\n");
  examples(exporter, "  rdmabench export --csv out/quick -o quick.csv\n");
  examples(report,
           "  rdmabench report out/quick             # out/quick/report.html\n"
           "  rdmabench report out/a out/b -o both.html\n");

  // An unknown flag before the subcommand would only get "A subcommand is required": name it.
  if (argc > 1 && argv[1][0] == '-' && app.get_option_no_throw(argv[1]) == nullptr) {
    std::cerr << "rdmabench: unknown option '" << argv[1]
              << "' (before a subcommand: -h/--help, -V/--version; rdmabench help lists the "
                 "subcommands)"
              << std::endl;
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a bad command line is bad input: 2, like every other, said
    // in rdmabench's words.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "rdmabench: " << e.what() << "\n(rdmabench help [SUBCOMMAND] lists the options)"
              << std::endl;
    return 2;
  }
  if (*help) {
    const auto formatter = app.get_formatter();
    if (help_topic.empty()) {
      std::cout << formatter->make_help(&app, "rdmabench", CLI::AppFormatMode::Normal);
      return 0;
    }
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == help_topic && !sub->get_group().empty()) {
        std::cout << formatter->make_help(sub, "rdmabench " + help_topic,
                                          CLI::AppFormatMode::Normal);
        return 0;
      }
    std::cerr << "rdmabench: invalid help topic '" << help_topic
              << "': a subcommand (rdmabench help lists them)" << std::endl;
    return 2;
  }
  if (*completion) {
    if (completion_shell != "bash") {
      std::cerr << "rdmabench: invalid shell '" << completion_shell << "': bash" << std::endl;
      return 2;
    }
    write_bash_completion(std::cout, app);
    return 0;
  }
  if (*man_page) {
    write_man_page(std::cout, app, std::string("rdmabench ") + kVersion);
    return 0;
  }

  try {
    if (*devices) {
      std::vector<DeviceInfo> infos;
      for (const auto& name : list_device_names()) infos.push_back(Device::open(name).info());
      if (devices_json) {
        std::cout << nlohmann::json(infos).dump(2) << std::endl;
      } else {
        print_devices(std::cout, infos);
      }
      if (infos.empty()) {  // nothing to test with: a script must not read that as success
        std::cerr << "rdmabench: error: no RDMA device found (no driver loaded? `rdma link` "
                     "lists the links; Soft-RoCE: rdma link add rxe0 type rxe netdev IFACE)"
                  << std::endl;
        return 1;
      }
      return 0;
    }
    if (*server) {
      apply_local(sopt.local, s_ibport, s_gid);
      if (s_port) sopt.port = static_cast<uint16_t>(parse_uint_option("port", *s_port, 0, 65534));
      if (s_hs_timeout) {
        char* end = nullptr;
        const double v = std::strtod(s_hs_timeout->c_str(), &end);
        if (s_hs_timeout->empty() || *end != '\0' || !(v >= 0.1 && v <= 600))
          throw ConfigError("handshake-timeout", *s_hs_timeout, "seconds from 0.1 to 600");
        sopt.handshake.deadline = std::chrono::milliseconds(static_cast<int64_t>(v * 1000));
      }
      if (s_max_pending)
        sopt.handshake.max_pending = parse_uint_option("max-pending", *s_max_pending, 1, 4096);
      if (s_max_per_source)
        sopt.handshake.max_per_source =
            parse_uint_option("max-pending-per-source", *s_max_per_source, 1, 4096);
      if (s_max_sessions)
        sopt.max_sessions = parse_uint_option("max-sessions", *s_max_sessions, 1, 1024);
      if (s_once && s_sessions)
        throw ConfigError("sessions", *s_sessions, "--once or --sessions, not both");
      if (s_cpus)
        sopt.cpus =
            field_value_from_text(*find_workload_field("cpus"), *s_cpus).get<std::vector<int>>();
      if (s_numa) sopt.numa = parse_numa(*s_numa, "numa");
      // The server's own CPUs, checked now rather than at its first session.
      cpu_set_t allowed;
      CPU_ZERO(&allowed);
      if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c : sopt.cpus)
          if (c >= CPU_SETSIZE || !CPU_ISSET(c, &allowed))
            throw ConfigError("cpus", std::to_string(c),
                              "a CPU this process may run on (this host has " +
                                  std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online)");
      if (s_once) sopt.sessions = 1;
      if (s_sessions) sopt.sessions = parse_uint_option("sessions", *s_sessions, 1, 1024);
      std::signal(SIGINT, on_signal);
      std::signal(SIGTERM, on_signal);
      std::signal(SIGPIPE, SIG_IGN);
      return serve(sopt, std::cout, std::cerr, g_stop);
    }
    if (*client) {
      apply_local(copt.local, c_ibport, c_gid);
      if (c_port) copt.port = static_cast<uint16_t>(parse_uint_option("port", *c_port, 1, 65535));
      copt.workload = build_workload(wa);
      if (start_at) copt.start_at = parse_start_at(*start_at, copt.workload.timeout_s);
      const std::string transport = device_transport(copt.local.device);
      if (transport.empty()) (void)Device::open(copt.local.device);  // throws, listing the devices
      copt.workload.connect = resolve_connect(copt.workload.connect, copt.workload.qp, transport);
      if (lat_precision) {
        char* end = nullptr;
        double v = std::strtod(lat_precision->c_str(), &end);
        if (lat_precision->empty() || *end != '\0' || !(v >= 0.00001 && v <= 0.1))
          throw ConfigError("latency-precision", *lat_precision,
                            "a relative error from 0.00001 to 0.1");
        copt.histogram_error = v;
      }
      std::optional<double> min_rate;
      if (min_gbps) {
        min_rate = parse_number_option("min-gbps", *min_gbps, 0.001, 1e6, "Gb/s");
        if (copt.workload.interval_s == 0) copt.workload.interval_s = 1;
      }
      std::signal(SIGPIPE, SIG_IGN);
      if (copt.workload.run_infinitely) {
        // The signal ends the measurement; the run then ends as a timed one does (exit 0).
        copt.stop = &g_stop;
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
      } else {
        std::signal(SIGINT, on_client_signal);
        std::signal(SIGTERM, on_client_signal);
      }
      std::ostream& table = json_stdout ? std::cerr : std::cout;
      for (const auto& note : perftest_compat_notes(perftest))
        std::cerr << "rdmabench: note: " << note << "\n";
      json_file = perftest_json_file(perftest, json_file);
      print_header(table, copt.workload);
      RunResult r = run_client(
          copt, [&](const SizeResult& s) { print_size(table, copt.workload, s); },
          [&](uint64_t size, const IntervalResult& iv) {
            print_interval(table, copt.workload, size, iv);
          });
      print_footer(table, r);
      nlohmann::json doc = r;
      if (!json_file.empty()) write_file_atomic(json_file, doc.dump(2) + "\n");
      if (json_stdout) std::cout << doc.dump(2) << std::endl;
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
    if (*plot) {
      for (const auto& image : run_plot(popt, std::cerr)) std::cout << image << std::endl;
      return 0;
    }
    if (*exporter) {
      run_export_csv(export_inputs, export_file, std::cout, std::cerr);
      return 0;
    }
    if (*report) {
      std::cout << run_report(ropt, std::cerr) << std::endl;
      return 0;
    }
    if (*compare) {
      return run_compare(cmpopt, std::cout, std::cerr);
    }
    if (*sweep) {
      std::signal(SIGINT, on_signal);
      std::signal(SIGTERM, on_signal);
      std::signal(SIGPIPE, SIG_IGN);
      return run_sweep(swopt, std::cout, std::cerr, g_stop);
    }
  } catch (const ConfigError& e) {
    std::cerr << "rdmabench: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rdmabench: error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
