#pragma once
// Where the orchestrator runs commands: this machine ("local"), or a host reached with the
// OpenSSH client (so the user's ~/.ssh/config, keys, agent and ProxyJump all apply).
//
// ssh details: options -F CONFIG (when the campaign names one), BatchMode=yes (never prompt),
// ConnectTimeout, and one control master per host in a private folder (ControlPath), started by
// connect(), so each later command costs no new handshake. Remote commands are argv vectors,
// every element single-quoted for the remote POSIX shell (shell_quote); nothing goes through a
// local shell. A long-running job runs under a fixed wrapper script (remote_job_script()):
//   - `setsid` puts it in its own session and process group there; the wrapper prints
//     "RDMABENCH_PGID <n>" on stderr so the group can be killed (`kill -TERM -<n>`);
//   - the token arrives as the first line of its stdin (never on a command line) and is
//     exported as RDMABENCH_TOKEN;
//   - a watchdog kills the group when stdin reaches end of file, i.e. when the orchestrator
//     closes it, or its ssh connection is gone (the orchestrator died or was killed).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/launch/process.h"

namespace rdmabench {

// A started long-running command (rdmabench server or client): a process here (local, ssh,
// srun: ProcessJob) or a session an agent runs on its host (orchestrator/agent/).
class Job {
 public:
  virtual ~Job() = default;
  // True while it runs (reaps it when it exited).
  virtual bool running() = 0;
  virtual const std::string& out() const = 0;
  // stderr of the command, without the wrapper's own line (ssh, slurm).
  virtual std::string err() const = 0;
  // True once its output was read to the end.
  virtual bool output_closed() const = 0;
  // After it exited: the exit code, or 128 + the signal number; and as text.
  virtual int status() const = 0;
  virtual std::string status_text() const = 0;
  // The remote process group, once known (ssh: from the wrapper's line; local: the child).
  virtual std::optional<long> group() const { return std::nullopt; }
  // The Slurm job step ("JOB.STEP") the command runs as, once known (slurm launcher); "" else.
  virtual std::string step() const { return ""; }
  // What its agent made of its result document (a client an agent ran; result_brief.h); null
  // when none came: the controller briefs the output itself.
  virtual const struct ResultBrief* brief() const { return nullptr; }
  // The pid the command itself reported (the server's ready line): a fallback for group().
  void set_reported_pid(long pid) { reported_pid_ = pid; }
  // Stops the command and everything it started, there and here; waits until they are gone
  // (bounded). Safe to call when it already exited.
  virtual void stop() = 0;
  // The first, non-blocking step of stop(): asks the command to end (ssh: end of file on the
  // remote wrapper's stdin, whose watchdog kills the group there; local: SIGTERM to the group).
  virtual void begin_stop() = 0;
  // What pump_jobs() waits on: the local process whose pipes carry its output, or else the
  // source that delivers it (an agent connection set).
  virtual Child* child() { return nullptr; }
  virtual class JobSource* source() { return nullptr; }

 protected:
  std::optional<long> reported_pid_;
};

// Where jobs that are not processes here get their news from (orchestrator/agent/).
class JobSource {
 public:
  virtual ~JobSource() = default;
  // Waits up to `timeout_ms` for news, and takes it in.
  virtual void pump(int timeout_ms) = 0;
};

// Waits up to `timeout_ms` for output from any of `jobs` and takes it in (null entries are
// ignored).
void pump_jobs(const std::vector<Job*>& jobs, int timeout_ms);

// A job that is a process here (its output through pipes).
class ProcessJob : public Job {
 public:
  Child& process() { return *child_; }
  bool running() override { return child_->running(); }
  const std::string& out() const override { return child_->out(); }
  std::string err() const override;
  bool output_closed() const override { return child_->output_closed(); }
  int status() const override { return child_->status(); }
  std::string status_text() const override { return child_->status_text(); }
  Child* child() override { return child_.get(); }

 protected:
  std::unique_ptr<Child> child_;
};

// Stops many jobs at once (a round's, on Ctrl-C or a timeout): asks every one to end, waits
// for them together up to `grace_s`, then stop()s each (at once for those already gone), so the
// time is one grace period, not one per job.
void stop_all(const std::vector<Job*>& jobs, double grace_s = 5.0);

class Launcher {
 public:
  virtual ~Launcher() = default;
  // The campaign's name for the host: "local", the ssh destination or the Slurm node.
  virtual const std::string& host() const = 0;
  // How commands reach it: "local", "ssh" or "slurm" (for messages).
  virtual const char* kind() const = 0;
  // ssh: starts the control master (throws Error naming the host when it cannot connect).
  virtual void connect() {}
  virtual void disconnect() {}
  // Runs a short command there to completion, killed after `timeout_s`.
  virtual CommandOutput run(const std::vector<std::string>& argv, double timeout_s) = 0;
  // Starts `argv` there in its own process group, with RDMABENCH_TOKEN=token in its environment.
  virtual std::unique_ptr<Job> start(const std::vector<std::string>& argv,
                                     const std::string& token) = 0;
  // Starts `argv` (`rdmabench agent`) there with its stdin and stdout as the control connection
  // (orchestrator/agent/) and RDMABENCH_TOKEN=token in its environment. local and ssh; throws
  // Error for the others.
  virtual std::unique_ptr<ProcessJob> start_agent(const std::vector<std::string>& argv,
                                                  const std::string& token);
  // Starts `argv` (`rdmabench agent --connect ADDRESS`) once on each of `hosts` as one job
  // (slurm: one job step over those nodes of the allocation), with RDMABENCH_TOKEN=token in its
  // environment: each agent connects back to the controller over TCP. slurm; throws Error for
  // the others. describe_agents_step: the same as text, for --dry-run.
  virtual std::unique_ptr<ProcessJob> start_agents_step(const std::vector<std::string>& hosts,
                                                        const std::vector<std::string>& argv,
                                                        const std::string& token);
  virtual std::string describe_agents_step(const std::vector<std::string>& hosts,
                                           const std::vector<std::string>& argv) const;
  // For --dry-run: how this launcher runs a job (header), and the command of one job.
  virtual std::string describe() const = 0;
  virtual std::string describe_start(const std::vector<std::string>& argv) const = 0;
};

std::unique_ptr<Launcher> make_local_launcher();

struct SshSettings {
  std::string config_file;  // "" = ssh's defaults
  double connect_timeout_s = 10;
  std::string control_dir;  // private folder for the control sockets (0700)
};
std::unique_ptr<Launcher> make_ssh_launcher(const std::string& host, const SshSettings& s);

// The line the ssh wrappers print first on stderr: "RDMABENCH_PGID <group>".
inline constexpr std::string_view kPgidTag = "RDMABENCH_PGID ";
// The line a Slurm step's wrapper prints first on stderr: "RDMABENCH_STEP <job>.<step>".
inline constexpr std::string_view kStepTag = "RDMABENCH_STEP ";

// The value of the wrapper's line "TAG value" in a job's stderr ("" until it is there), and the
// text without that line.
std::string tagged_value(const std::string& err, std::string_view tag);
std::string without_tagged_line(std::string err, std::string_view tag);

// The wrapper run by `sh -c` on the remote side for start() (exposed for tests and
// docs/fabrics.md).
const std::string& remote_job_script();
// The one for start_agent(): the token line, then the agent with the rest of stdin (the control
// connection); the agent itself ends at its end of file.
const std::string& remote_agent_script();
// The remote command string of start() for `argv` (what ssh sends).
std::string remote_job_command(const std::vector<std::string>& argv);

}  // namespace rdmabench
