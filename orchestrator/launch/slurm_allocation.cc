#include "orchestrator/launch/slurm_allocation.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "base/error.h"
#include "orchestrator/launch/process.h"

namespace rdmabench {
namespace {

constexpr const char* kUse =
    "run the sweep inside a Slurm allocation: salloc -N <nodes> rdmabench sweep ..., or "
    "rdmabench sweep in an sbatch script (configs/slurm-campaign.sbatch)";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

bool SlurmAllocation::has(const std::string& node) const {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

std::vector<std::string> parse_hostnames(const std::string& text) {
  std::vector<std::string> nodes;
  std::istringstream in(text);
  std::string word;
  while (in >> word) nodes.push_back(word);
  return nodes;
}

SlurmAllocation find_slurm_allocation() {
  SlurmAllocation a;
  a.job_id = env("SLURM_JOB_ID");
  if (a.job_id.empty())
    throw ConfigError(
        "launcher", "slurm",
        std::string("not inside a Slurm allocation (SLURM_JOB_ID is not set): ") + kUse);
  if (a.job_id.find_first_not_of("0123456789_") != std::string::npos)
    throw ConfigError("SLURM_JOB_ID", a.job_id, "a Slurm job id (digits)");
  for (const auto& cmd : kSlurmCommands)
    if (find_program(cmd).empty())
      throw ConfigError("launcher", "slurm",
                        "the Slurm command '" + cmd +
                            "' is not on PATH (the slurm launcher runs srun, scontrol, scancel "
                            "and squeue on this machine): install the Slurm client commands or "
                            "fix PATH");
  a.nodelist = env("SLURM_JOB_NODELIST");
  if (a.nodelist.empty()) a.nodelist = env("SLURM_NODELIST");
  if (a.nodelist.empty())
    throw ConfigError("launcher", "slurm",
                      "an allocation whose node list is known (SLURM_JOB_ID is " + a.job_id +
                          " but SLURM_JOB_NODELIST is not set): " + kUse);
  SpawnOptions o;
  o.argv = {"scontrol", "show", "hostnames", a.nodelist};
  const CommandOutput r = run_command(o, 30);
  if (r.status != 0 || r.timed_out)
    throw ConfigError("SLURM_JOB_NODELIST", a.nodelist,
                      "a node list 'scontrol show hostnames' expands (it " +
                          std::string(r.timed_out ? "did not answer within 30 s"
                                                  : "failed: " + first_line(r.err)) +
                          ")");
  a.nodes = parse_hostnames(r.out);
  if (a.nodes.empty())
    throw ConfigError(
        "SLURM_JOB_NODELIST", a.nodelist,
        "a node list with at least one node ('scontrol show hostnames' printed none)");
  return a;
}

bool slurm_job_running(const std::string& job_id) {
  SpawnOptions o;
  o.argv = {"squeue", "-h", "-j", job_id, "-o", "%T"};
  CommandOutput r;
  try {
    r = run_command(o, 30);
  } catch (const std::exception&) {
    return true;
  }
  if (r.timed_out) return true;
  std::string state = r.out.substr(0, r.out.find('\n'));
  if (r.status == 0) {
    static const std::vector<std::string> kEnded = {
        "",          "COMPLETED", "COMPLETING", "CANCELLED",     "TIMEOUT",  "FAILED",
        "BOOT_FAIL", "DEADLINE",  "NODE_FAIL",  "OUT_OF_MEMORY", "PREEMPTED"};
    return std::find(kEnded.begin(), kEnded.end(), state) == kEnded.end();
  }
  // squeue exits 1 with "Invalid job id specified" once the job has left the controller's
  // memory; any other failure says nothing about the job.
  return r.err.find("Invalid job id") == std::string::npos;
}

}  // namespace rdmabench
