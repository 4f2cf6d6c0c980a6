#include "cli/cmd_check.h"

#include <iostream>

#include "check/fabric_check.h"
#include "check/node_check.h"
#include "cli/exit_status.h"

namespace rdmabench {
namespace {

// --fabric and its --out (check/fabric_check.h).
void add_fabric_options(CLI::App* check, CheckArgs& a) {
  check
      ->add_option("--fabric", a.fabric,
                   "check every host of a campaign's fabric (its hosts, launcher and agents): a "
                   "ring of flows, each host the client of one link and the server of another; "
                   "per-link lines, then a verdict per host (FAIL when its own expectations or "
                   "both of its links fail)")
      ->type_name("CAMPAIGN_FILE")
      ->check(path_not_option());
  check
      ->add_option("--out", a.out_dir,
                   "--fabric: where the ring's sweeps write (default out/check-NAME)")
      ->type_name("OUT_DIR")
      ->check(path_not_option());
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand(
      "check",
      "health check of this host's port and its link: expectations on the port's facts and on "
      "short workloads; exit 8 when one fails");
  add_local_options(check, a.local, a.local_args);
  check
      ->add_option("-e,--expect", a.expect,
                   "an expectation, repeatable: 'port state = ACTIVE', 'port mtu >= 4096', "
                   "'port speed >= 100 Gb/s', 'port width = 4x', 'gid = usable|roce-v2|roce-v1|"
                   "ib', 'fw >= 20.31', 'pcie width >= 16', 'pcie speed >= 16 GT/s', "
                   "'write bw 64K >= 90% of link', 'send ud bw 4K >= 20 Gb/s', 'read lat 8 p99 "
                   "<= 5us' (p50, p90, p99, p99.9, avg, max); 'port state = ACTIVE' and 'gid = "
                   "usable' are always checked unless given")
      ->type_name("EXPECTATION");
  check
      ->add_option("--expect-file", a.expect_file,
                   "more expectations from FILE, one a line (blank lines and lines starting "
                   "with # are skipped), after those of -e")
      ->type_name("EXPECT_FILE");
  check
      ->add_option("--baseline", a.baseline,
                   "an earlier check's --json document (each of its traffic figures becomes an "
                   "expectation on the same workload, within --tolerance), or result documents "
                   "(a folder or a file: each op, QP type, mode and size they measured, their "
                   "median Gb/s or p50)")
      ->type_name("BASELINE")
      ->check(path_not_option());
  check
      ->add_option("--tolerance", a.tolerance,
                   "--baseline's tolerance in percent: bandwidth at least (100 - P) % of the "
                   "baseline's, latency at most (100 + P) % (default 10)")
      ->type_name("PERCENT");
  check
      ->add_option("--peer", a.peer,
                   "a running rdmabench server to run the workloads against (rdmabench server "
                   "on the peer; check does not start it)")
      ->type_name("HOST");
  check->add_flag("--loopback", a.loopback,
                  "run the workloads against a server this check starts on its own device "
                  "(the device must reach itself: rxe, siw and most NICs do)");
  check->add_option("-p,--port", a.port, "the peer server's TCP port (default 18515)")
      ->type_name("PORT");
  check->add_option("--token", a.token, "shared secret (the peer server's)")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  check
      ->add_option("--duration", a.duration,
                   "seconds each size is measured (default 1; less when --max-time needs it)")
      ->type_name("SECONDS");
  check
      ->add_option("--max-time", a.max_time,
                   "the whole check's bound in seconds (default 30): the workloads' durations "
                   "shrink to fit, and what cannot fit fails with that reason")
      ->type_name("SECONDS");
  add_fabric_options(check, a);
  check
      ->add_option("--json", a.json_file,
                   "write the check's document to FILE (atomically; - : stdout)")
      ->type_name("CHECK_FILE")
      ->check(path_not_option());
  set_examples(
      check,
      "  rdmabench check                                        # port ACTIVE, a usable GID\n"
      "  rdmabench check -e 'port mtu >= 4096' -e 'port speed >= 200 Gb/s'\n"
      "  rdmabench check --peer node7 -e 'write bw 64K >= 90% of link' -e 'read lat 8 p99 <= "
      "5us'\n"
      "  rdmabench check --loopback -e 'send bw 4K >= 1 Gb/s' --json check.json\n"
      "  rdmabench check --fabric fabric.json -e 'write bw 64K >= 90% of link'   # every host\n"
      "Reads the device through libibverbs and sysfs: no root needed (a Slurm prolog runs it as "
      "root, which works too). With no --peer or --loopback only the port's facts are checked.\n");
  return check;
}

int run_check_command(CheckArgs& a) {
  a.local_options_given = !a.local.device.empty() || a.local_args.gid || a.local_args.ib_port;
  // With --json - the document is standard output: the lines go to standard error.
  std::ostream& lines = a.json_file == "-" ? std::cerr : std::cout;
  if (!a.fabric.empty()) {
    stop_on_signals();
    return check_exit_status(run_fabric_check(a, lines, std::cout, std::cerr, stop_flag()));
  }
  apply_local(a.local, a.local_args);
  return check_exit_status(run_node_check(a, lines, std::cout));
}

}  // namespace rdmabench
