#include "orchestrator/launch/slurm_launcher.h"

#include <chrono>
#include <csignal>
#include <thread>

#include "base/number_text.h"
#include "orchestrator/launch/shell_quote.h"

namespace rdmabench {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> step_argv(const SlurmSettings& s, const std::string& node,
                                   const std::vector<std::string>& argv) {
  std::vector<std::string> a = srun_argv(s, node);
  a.insert(a.end(), {"sh", "-c", slurm_step_script(), "rdmabench-step"});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

class SlurmJob : public ProcessJob {
 public:
  SlurmJob(std::unique_ptr<Child> c, SlurmSettings s) : s_(std::move(s)) { child_ = std::move(c); }
  ~SlurmJob() override { stop(); }

  std::string step() const override { return tagged_value(child_->err(), kStepTag); }

  // scancel of the step once srun has told it; before that (the step not created yet) srun
  // itself is asked to end, which withdraws its request.
  void begin_stop() override {
    if (cancel_ || !child_->running()) return;
    const std::string id = step();
    if (id.empty()) {
      child_->signal_group(SIGTERM);
      signalled_ = true;
      return;
    }
    SpawnOptions o;
    o.argv = {"scancel", "--quiet", id};
    try {
      cancel_ = Child::spawn(o);
    } catch (const std::exception&) {
      child_->signal_group(SIGTERM);
      signalled_ = true;
    }
  }

  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    begin_stop();
    // scancel answers at once; Slurm then signals the step (SIGCONT, SIGTERM, and SIGKILL after
    // the cluster's KillWait) and srun ends when the step has.
    const auto deadline = Clock::now() + std::chrono::duration<double>(s_.connect_timeout_s + 5);
    while (child_->running() && Clock::now() < deadline) {
      std::vector<Child*> watch = {child_.get()};
      if (cancel_) watch.push_back(cancel_.get());
      pump(watch, 100);
      // A step created after srun was signalled (the request was already granted): cancel it.
      if (signalled_ && !cancel_ && !step().empty()) begin_stop();
    }
    child_->terminate(1.0);
    if (cancel_) {
      const auto cancel_deadline = Clock::now() + std::chrono::seconds(10);
      while (cancel_->running() && Clock::now() < cancel_deadline) pump({cancel_.get()}, 100);
      cancel_->terminate(1.0);
      wait_step_gone(step());
    }
  }

  std::string err() const override { return ProcessJob::err() + note_; }

 private:
  // srun ends when Slurm has signalled the step's task, not when the task has gone: a cancelled
  // step stays listed until its task has exited, and an RDMA client's exit (its QPs, CQs and
  // MRs torn down with traffic in flight) took seconds on the emulated testbed's loaded nodes
  // (issue 47: a timed-out point's client step still listed as the sweep moved on or exited).
  // So the point is not over before the step has left squeue: polled every half second, up to
  // step_gone_s; one still listed then is said in the job's stderr (and so in the index).
  void wait_step_gone(const std::string& id) {
    if (id.empty()) return;
    const auto deadline = Clock::now() + std::chrono::duration<double>(s_.step_gone_s);
    while (Clock::now() < deadline) {
      SpawnOptions o;
      o.argv = {"squeue", "-h", "--steps=" + id, "-o", "%i"};
      CommandOutput r;
      try {
        r = run_command(o, 10);  // (its whole output: what a step still listed prints)
      } catch (const std::exception&) {
        return;  // no squeue here: nothing to wait with
      }
      // Gone: listed no more, or its job gone (squeue exits 1, "Invalid job id").
      if (!r.timed_out && (r.status != 0 || r.out.find(id) == std::string::npos)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    note_ = "rdmabench: Slurm step " + id + " was still listed " + three_digits(s_.step_gone_s) +
            " s after its scancel\n";
  }

  std::string note_;
  SlurmSettings s_;
  std::unique_ptr<Child> cancel_;  // the scancel of the step, once started
  bool signalled_ = false;         // srun was sent SIGTERM before its step was known
  bool stopped_ = false;
};

class SlurmLauncher : public Launcher {
 public:
  SlurmLauncher(std::string node, SlurmSettings s) : node_(std::move(node)), s_(std::move(s)) {}

  const std::string& host() const override { return node_; }
  const char* kind() const override { return "slurm"; }

  CommandOutput run(const std::vector<std::string>& argv, double timeout_s) override {
    SpawnOptions o;
    o.argv = srun_argv(s_, node_);
    o.argv.insert(o.argv.end(), argv.begin(), argv.end());
    return run_command(o, timeout_s);
  }

  std::unique_ptr<Job> start(const std::vector<std::string>& argv,
                             const std::string& token) override {
    SpawnOptions o;
    o.argv = step_argv(s_, node_, argv);
    o.extra_env = {"RDMABENCH_TOKEN=" + token};
    return std::make_unique<SlurmJob>(Child::spawn(o), s_);
  }

  std::unique_ptr<ProcessJob> start_agents_step(const std::vector<std::string>& hosts,
                                                const std::vector<std::string>& argv,
                                                const std::string& token) override {
    SpawnOptions o;
    o.argv = agents_step_argv(hosts, argv);
    o.extra_env = {"RDMABENCH_TOKEN=" + token};
    return std::make_unique<SlurmJob>(Child::spawn(o), s_);
  }

  std::string describe_agents_step(const std::vector<std::string>& hosts,
                                   const std::vector<std::string>& argv) const override {
    return shell_join(agents_step_argv(hosts, argv));
  }

  std::string describe() const override {
    return "slurm: every command is a job step of allocation " + s_.job_id +
           " on its node\n    each command: " + shell_join(srun_argv(s_, "NODE")) +
           " sh -c <WRAPPER> rdmabench-step <ARGS>\n"
           "                  (srun runs here with RDMABENCH_TOKEN=<token> in its environment, "
           "exported to the step; the step is cancelled with scancel when it must stop)";
  }
  std::string describe_start(const std::vector<std::string>& argv) const override {
    return shell_join(argv);
  }

 private:
  std::vector<std::string> agents_step_argv(const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& argv) const {
    std::vector<std::string> a = srun_agents_argv(s_, hosts);
    a.insert(a.end(), {"sh", "-c", slurm_step_script(), "rdmabench-step"});
    a.insert(a.end(), argv.begin(), argv.end());
    return a;
  }

  std::string node_;
  SlurmSettings s_;
};

}  // namespace

std::vector<std::string> srun_argv(const SlurmSettings& s, const std::string& node) {
  return {"srun",       "--jobid=" + s.job_id, "--nodes=1",
          "--ntasks=1", "--nodelist=" + node,  "--overlap",
          "--quiet",    "--export=ALL",        "--job-name=rdmabench"};
}

std::vector<std::string> srun_agents_argv(const SlurmSettings& s,
                                          const std::vector<std::string>& nodes) {
  std::string list;
  for (const std::string& n : nodes) list += (list.empty() ? "" : ",") + n;
  const std::string count = std::to_string(nodes.size());
  return {"srun",
          "--jobid=" + s.job_id,
          "--nodes=" + count,
          "--ntasks=" + count,
          "--ntasks-per-node=1",
          "--nodelist=" + list,
          "--overlap",
          "--whole",
          "--cpu-bind=none",
          "--no-kill",
          "--kill-on-bad-exit=0",
          "--quiet",
          "--export=ALL",
          "--job-name=rdmabench-agents"};
}

const std::string& slurm_step_script() {
  static const std::string kScript =
      "echo \"RDMABENCH_STEP ${SLURM_JOB_ID}.${SLURM_STEP_ID}\" >&2\n"
      "exec \"$@\"\n";
  return kScript;
}

std::unique_ptr<Launcher> make_slurm_launcher(const std::string& node, const SlurmSettings& s) {
  return std::make_unique<SlurmLauncher>(node, s);
}

}  // namespace rdmabench
