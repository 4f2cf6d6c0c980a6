#pragma once
// The Slurm allocation a sweep with the slurm launcher runs in (orchestrator/README.md, "On a
// Slurm cluster"): the job id and its nodes, read once before the campaign is parsed. The
// orchestrator must itself run inside the allocation (under salloc or in an sbatch script), so
// SLURM_JOB_ID and SLURM_JOB_NODELIST are set and srun starts steps in that job; the node list is
// expanded by `scontrol show hostnames`. Every error names what is missing and what to do.
#include <string>
#include <vector>

namespace rdmabench {

struct SlurmAllocation {
  std::string job_id;              // SLURM_JOB_ID
  std::string nodelist;            // SLURM_JOB_NODELIST as Slurm wrote it ("rb-host[1-3]")
  std::vector<std::string> nodes;  // expanded, in Slurm's order
  bool has(const std::string& node) const;
};

// The Slurm commands the launcher runs (each must be on PATH).
inline const std::vector<std::string> kSlurmCommands = {"srun", "scontrol", "scancel", "squeue"};

// Reads the allocation of the environment this process runs in. Throws ConfigError naming
// "launcher": not inside an allocation (no SLURM_JOB_ID), a Slurm command not on PATH, or a
// node list scontrol cannot expand.
SlurmAllocation find_slurm_allocation();

// The node names in `scontrol show hostnames` output (one a line, blanks skipped).
std::vector<std::string> parse_hostnames(const std::string& text);

// Whether job `job_id` is still running, from `squeue -h -j ID -o %T`: false once the job has
// ended (time limit, scancel) or squeue no longer knows it; true when squeue itself cannot answer
// (the controller busy or unreachable: not a reason to give up on the campaign).
bool slurm_job_running(const std::string& job_id);

}  // namespace rdmabench
