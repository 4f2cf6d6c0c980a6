#pragma once
// The slurm launcher (campaign "launcher": "slurm", sweep --launcher slurm): every command on a
// node is a job step of the allocation the sweep runs in, started by srun on this machine:
//   srun --jobid=JOB --nodes=1 --ntasks=1 --nodelist=NODE --overlap --quiet --export=ALL
//        --job-name=rdmabench sh -c WRAPPER rdmabench-step ARGV...
// (flags Slurm 22.05 accepts; --overlap lets a node's server and client steps share its CPUs.)
//   - the token is in srun's environment as RDMABENCH_TOKEN and reaches the step through
//     --export=ALL, never on a command line that ps, squeue or sacct would show;
//   - the wrapper prints "RDMABENCH_STEP <job>.<step>" on stderr first, then execs the command,
//     so the step id is known (recorded in the index) and the step can be cancelled;
//   - stopping a job cancels its step (`scancel JOB.STEP`: Slurm signals and then kills every
//     process of the step on its node), waits for srun to end, and kills srun if it does not;
//   - srun itself is the orchestrator's child with SIGKILL as its parent-death signal, like
//     every child (process.h).
// A fabric campaign's agents are one step over all its nodes (start_agents_step,
// srun_agents_argv): `rdmabench agent --connect HOST:PORT` on each, connecting back to the
// sweep (orchestrator/agent/); their sessions are the agents' children, not steps.
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/launch/launcher.h"

namespace rdmabench {

struct SlurmSettings {
  std::string job_id;             // the allocation (SLURM_JOB_ID)
  double connect_timeout_s = 10;  // bounds scancel and the step's start, like ssh's connect
  double step_gone_s = 30;        // a cancelled step's wait to leave squeue (slurm_launcher.cc)
};

std::unique_ptr<Launcher> make_slurm_launcher(const std::string& node, const SlurmSettings& s);

// srun and its options for one step on `node` (up to the command).
std::vector<std::string> srun_argv(const SlurmSettings& s, const std::string& node);
// srun and its options for the agents' step: one task on each of `nodes`, all of a node's CPUs
// and memory shared with the other steps (--overlap --whole, no CPU binding: the sessions place
// their own threads, --cpus/--numa), and one node's failure ends only its own agent (--no-kill,
// --kill-on-bad-exit=0).
std::vector<std::string> srun_agents_argv(const SlurmSettings& s,
                                          const std::vector<std::string>& nodes);
// The wrapper the step runs with `sh -c` (exposed for tests and docs/fabrics.md).
const std::string& slurm_step_script();

}  // namespace rdmabench
