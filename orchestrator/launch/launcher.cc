#include "orchestrator/launch/launcher.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/file_text.h"
#include "base/slug.h"
#include "orchestrator/launch/shell_quote.h"

namespace rdmabench {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// ---- local -----------------------------------------------------------------------------------

class LocalJob : public ProcessJob {
 public:
  explicit LocalJob(std::unique_ptr<Child> c) { child_ = std::move(c); }
  std::optional<long> group() const override { return child_->pid(); }
  void stop() override { child_->terminate(2.0); }
  void begin_stop() override {
    child_->close_stdin();
    if (child_->running()) child_->signal_group(SIGTERM);
  }
};

class LocalLauncher : public Launcher {
 public:
  const std::string& host() const override { return host_; }
  const char* kind() const override { return "local"; }
  CommandOutput run(const std::vector<std::string>& argv, double timeout_s) override {
    SpawnOptions o;
    o.argv = argv;
    return run_command(o, timeout_s);
  }
  std::unique_ptr<Job> start(const std::vector<std::string>& argv,
                             const std::string& token) override {
    return spawn(argv, token, false);
  }
  // An agent's stdin is its control connection: a pipe.
  std::unique_ptr<ProcessJob> start_agent(const std::vector<std::string>& argv,
                                          const std::string& token) override {
    return spawn(argv, token, true);
  }
  std::string describe() const override {
    return "this machine: each command runs directly (fork + exec, no shell) in its own process "
           "group, with RDMABENCH_TOKEN=<token> in its environment";
  }
  std::string describe_start(const std::vector<std::string>& argv) const override {
    return "RDMABENCH_TOKEN=<token> " + shell_join(argv);
  }

 private:
  static std::unique_ptr<ProcessJob> spawn(const std::vector<std::string>& argv,
                                           const std::string& token, bool pipe_stdin) {
    SpawnOptions o;
    o.argv = argv;
    o.extra_env = {"RDMABENCH_TOKEN=" + token};
    o.pipe_stdin = pipe_stdin;
    return std::make_unique<LocalJob>(Child::spawn(o));
  }

  std::string host_ = "local";
};

// ---- ssh -------------------------------------------------------------------------------------

class SshLauncher;

class SshJob : public ProcessJob {
 public:
  SshJob(std::unique_ptr<Child> c, SshLauncher& l) : launcher_(l) { child_ = std::move(c); }
  ~SshJob() override { stop(); }
  std::optional<long> group() const override {
    const std::string g = tagged_value(child_->err(), kPgidTag);
    if (!g.empty()) {
      try {
        const long n = std::stol(g);
        if (n > 1) return n;
      } catch (const std::exception&) {
      }
    }
    if (reported_pid_ && *reported_pid_ > 1) return reported_pid_;
    return std::nullopt;
  }
  void stop() override;
  void begin_stop() override { child_->close_stdin(); }

 private:
  SshLauncher& launcher_;
  bool stopped_ = false;
};

class SshLauncher : public Launcher {
 public:
  SshLauncher(std::string host, SshSettings s) : host_(std::move(host)), s_(std::move(s)) {}
  ~SshLauncher() override { disconnect(); }

  const std::string& host() const override { return host_; }
  const char* kind() const override { return "ssh"; }

  // ssh and its options, up to and including the destination.
  std::vector<std::string> ssh_argv(bool master) const {
    std::vector<std::string> a = {"ssh"};
    if (!s_.config_file.empty()) a.insert(a.end(), {"-F", s_.config_file});
    const long timeout = std::max(1L, std::lround(std::ceil(s_.connect_timeout_s)));
    a.insert(a.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=" + std::to_string(timeout),
                       "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"});
    if (!s_.control_dir.empty()) {
      a.insert(a.end(), {"-o", "ControlPath=" + s_.control_dir + "/%C"});
      if (master) {
        a.insert(a.end(), {"-o", "ControlMaster=yes", "-o", "ControlPersist=120", "-N", "-f"});
      } else {
        a.insert(a.end(), {"-o", "ControlMaster=no"});
      }
    }
    if (!master) a.push_back("-T");
    a.insert(a.end(), {"--", host_});
    return a;
  }

  void connect() override {
    if (s_.control_dir.empty() || connected_) return;
    SpawnOptions o;
    o.argv = ssh_argv(true);
    // The master stays in the background with ssh's stderr: a file, not a pipe we wait on.
    o.output_file = s_.control_dir + "/master-" + slug(host_, 60) + ".log";
    CommandOutput r = run_command(o, s_.connect_timeout_s + 5);
    if (r.status != 0 || r.timed_out) {
      std::string why = trim(file_text(o.output_file));
      if (r.timed_out)
        why = "no answer within " + std::to_string(std::lround(s_.connect_timeout_s + 5)) + " s" +
              (why.empty() ? "" : ": " + why);
      if (why.empty())
        why = "ssh " + std::string(r.status == 255 ? "could not connect" : "failed") +
              " (exit status " + std::to_string(r.status) + ")";
      throw Error("cannot reach " + host_ + " over ssh: " + why);
    }
    connected_ = true;
  }

  void disconnect() override {
    if (!connected_) return;
    connected_ = false;
    std::vector<std::string> a = {"ssh"};
    if (!s_.config_file.empty()) a.insert(a.end(), {"-F", s_.config_file});
    a.insert(a.end(), {"-o", "ControlPath=" + s_.control_dir + "/%C", "-O", "exit", "--", host_});
    SpawnOptions o;
    o.argv = a;
    try {
      run_command(o, 10);
    } catch (const std::exception&) {
    }
  }

  CommandOutput run(const std::vector<std::string>& argv, double timeout_s) override {
    SpawnOptions o;
    o.argv = ssh_argv(false);
    o.argv.push_back(shell_join(argv));
    return run_command(o, timeout_s);
  }

  std::unique_ptr<Job> start(const std::vector<std::string>& argv,
                             const std::string& token) override {
    return start_remote(remote_job_command(argv), token);  // stdin stays open: the watchdog's
  }

  // The agent's wrapper hands it the rest of stdin: its control connection.
  std::unique_ptr<ProcessJob> start_agent(const std::vector<std::string>& argv,
                                          const std::string& token) override {
    return start_remote("exec setsid -w sh -c " + shell_quote(remote_agent_script()) +
                            " rdmabench-agent " + shell_join(argv),
                        token);
  }

  // `command` through ssh, its stdin a pipe whose first line is the token (the wrapper reads it).
  std::unique_ptr<ProcessJob> start_remote(const std::string& command, const std::string& token) {
    SpawnOptions o;
    o.argv = ssh_argv(false);
    o.argv.push_back(command);
    o.pipe_stdin = true;
    auto job = std::make_unique<SshJob>(Child::spawn(o), *this);
    job->process().write_stdin(token + "\n");
    return job;
  }

  std::string describe() const override {
    std::vector<std::string> master = ssh_argv(true);
    return "ssh\n    connection (once): " + shell_join(master) +
           "\n    each command:      " + shell_join(ssh_argv(false)) +
           " \"exec setsid -w sh -c <WRAPPER> rdmabench-job <ARGS>\"\n"
           "                       (WRAPPER and every element of ARGS single-quoted; stdin: the "
           "token line, kept open while the command runs)";
  }
  std::string describe_start(const std::vector<std::string>& argv) const override {
    return shell_join(argv);
  }

  double connect_timeout() const { return s_.connect_timeout_s; }

 private:
  std::string host_;
  SshSettings s_;
  bool connected_ = false;
};

void SshJob::stop() {
  if (stopped_) return;
  stopped_ = true;
  using Clock = std::chrono::steady_clock;
  if (!child_->running() && child_->output_closed()) return;
  // End of file on the wrapper's stdin: its watchdog kills the group there.
  child_->close_stdin();
  if (auto g = group()) {
    // And explicitly, in case the watchdog cannot (the remote shell is not the one we expect).
    const std::string pg = std::to_string(*g);
    try {
      launcher_.run(
          {"sh", "-c",
           "kill -TERM -" + pg + " 2>/dev/null; sleep 1; kill -KILL -" + pg + " 2>/dev/null; true"},
          launcher_.connect_timeout() + 10);
    } catch (const std::exception&) {
    }
  }
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (child_->running() && Clock::now() < deadline) pump({child_.get()}, 100);
  child_->terminate(1.0);
}

}  // namespace

void pump_jobs(const std::vector<Job*>& jobs, int timeout_ms) {
  std::vector<Child*> children;
  std::vector<JobSource*> sources;
  for (Job* j : jobs) {
    if (j == nullptr) continue;
    if (Child* c = j->child()) children.push_back(c);
    if (JobSource* s = j->source();
        s && std::find(sources.begin(), sources.end(), s) == sources.end())
      sources.push_back(s);
  }
  if (sources.empty()) {
    pump(children, timeout_ms);
    return;
  }
  if (!children.empty()) pump(children, 0);
  // (One source in practice: every host of a fabric runs an agent of the same controller.)
  for (JobSource* s : sources) s->pump(sources.size() == 1 ? timeout_ms : timeout_ms / 4);
}

void stop_all(const std::vector<Job*>& jobs, double grace_s) {
  using Clock = std::chrono::steady_clock;
  std::vector<Job*> live;
  for (Job* j : jobs)
    if (j != nullptr) {
      j->begin_stop();
      live.push_back(j);
    }
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace_s);
  for (;;) {
    bool running = false;
    for (Job* j : live) running = running || j->running();
    if (!running || Clock::now() >= deadline) break;
    pump_jobs(live, 100);
  }
  for (Job* j : live) j->stop();
}

std::string ProcessJob::err() const {
  return without_tagged_line(without_tagged_line(child_->err(), kPgidTag), kStepTag);
}

namespace {

// Where the line "TAG ..." starts in `err` (at a line start, complete), or npos.
size_t tagged_line(const std::string& err, std::string_view tag) {
  for (size_t pos = err.find(tag); pos != std::string::npos; pos = err.find(tag, pos + 1))
    if ((pos == 0 || err[pos - 1] == '\n') && err.find('\n', pos) != std::string::npos) return pos;
  return std::string::npos;
}

}  // namespace

std::string tagged_value(const std::string& err, std::string_view tag) {
  const size_t pos = tagged_line(err, tag);
  if (pos == std::string::npos) return "";
  const size_t begin = pos + tag.size();
  return err.substr(begin, err.find('\n', begin) - begin);
}

std::string without_tagged_line(std::string err, std::string_view tag) {
  const size_t pos = tagged_line(err, tag);
  if (pos != std::string::npos) err.erase(pos, err.find('\n', pos) - pos + 1);
  return err;
}

const std::string& remote_job_script() {
  static const std::string kScript =
      "IFS= read -r RDMABENCH_TOKEN || exit 125\n"
      "export RDMABENCH_TOKEN\n"
      "echo \"RDMABENCH_PGID $$\" >&2\n"
      "exec 3<&0\n"
      "(\n"
      "  trap '' TERM\n"
      "  while IFS= read -r _ <&3; do :; done\n"
      "  kill -0 $$ 2>/dev/null || exit 0\n"
      "  kill -TERM -$$ 2>/dev/null\n"
      "  sleep 2\n"
      "  kill -KILL -$$ 2>/dev/null\n"
      ") </dev/null >/dev/null 2>&1 &\n"
      "exec 3<&- </dev/null\n"
      "exec \"$@\"\n";
  return kScript;
}

const std::string& remote_agent_script() {
  static const std::string kScript =
      "IFS= read -r RDMABENCH_TOKEN || exit 125\n"
      "export RDMABENCH_TOKEN\n"
      "echo \"RDMABENCH_PGID $$\" >&2\n"
      "exec \"$@\"\n";
  return kScript;
}

std::unique_ptr<ProcessJob> Launcher::start_agent(const std::vector<std::string>& /*argv*/,
                                                  const std::string& /*token*/) {
  throw Error(std::string("agents are not started through the ") + kind() + " launcher");
}

std::unique_ptr<ProcessJob> Launcher::start_agents_step(const std::vector<std::string>& /*hosts*/,
                                                        const std::vector<std::string>& /*argv*/,
                                                        const std::string& /*token*/) {
  throw Error(std::string("agents are not started as one step through the ") + kind() +
              " launcher");
}

std::string Launcher::describe_agents_step(const std::vector<std::string>& /*hosts*/,
                                           const std::vector<std::string>& /*argv*/) const {
  return "";
}

std::string remote_job_command(const std::vector<std::string>& argv) {
  return "exec setsid -w sh -c " + shell_quote(remote_job_script()) + " rdmabench-job " +
         shell_join(argv);
}

std::unique_ptr<Launcher> make_local_launcher() { return std::make_unique<LocalLauncher>(); }

std::unique_ptr<Launcher> make_ssh_launcher(const std::string& host, const SshSettings& s) {
  return std::make_unique<SshLauncher>(host, s);
}

}  // namespace rdmabench
