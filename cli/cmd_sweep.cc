#include "cli/cmd_sweep.h"

#include <csignal>
#include <iostream>

#include "cli/cli_common.h"

namespace rdmabench {

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o) {
  auto* sweep = app.add_subcommand(
      "sweep", "run a campaign of tests over host pairs (orchestrator/README.md)");
  sweep->add_option("campaign", o.campaign_file, "campaign file (JSON)")
      ->required()
      ->type_name("CAMPAIGN");
  sweep->add_option("--out", o.out_dir, "results folder (default: out/<campaign name>)")
      ->type_name("RESULTS_DIR")
      ->check(path_not_option());
  sweep->add_flag("--resume", o.resume, "run only the points without an ok result in --out");
  sweep->add_flag("--dry-run", o.dry_run, "print the points and commands; touch no host");
  sweep->add_option("--jobs", o.jobs, "host pairs run in parallel (default 1)")->type_name("N");
  sweep
      ->add_option("--launcher", o.launcher,
                   "how commands reach the hosts: ssh (default) or slurm (job steps of the "
                   "allocation the sweep runs in); overrides the campaign's \"launcher\"")
      ->type_name("LAUNCHER");
  set_examples(sweep,
               "  rdmabench sweep configs/quick.json --out out/quick\n"
               "  rdmabench sweep configs/fabric-pairwise.json --dry-run\n"
               "  rdmabench sweep configs/quick.json --out out/quick --resume\n"
               "  salloc -N 4 rdmabench sweep configs/fabric-pairwise.json --launcher slurm\n");
  return sweep;
}

int run_sweep_command(const SweepOptions& o) {
  stop_on_signals();
  std::signal(SIGPIPE, SIG_IGN);
  return run_sweep(o, std::cout, std::cerr, stop_flag());
}

}  // namespace rdmabench
