#pragma once
// A child process of the orchestrator, started with fork + execve (never through a shell), in
// its own process group (so a Ctrl-C on the terminal reaches only the orchestrator, which then
// stops its children in order), with SIGKILL as its parent-death signal (so nothing outlives a
// killed orchestrator), stdout and stderr captured through pipes and stdin either /dev/null or a
// pipe we write to.
#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmabench {

struct SpawnOptions {
  std::vector<std::string> argv;       // argv[0] without '/' is looked up in PATH
  std::vector<std::string> extra_env;  // "NAME=value", added to (or replacing) our environment
  bool pipe_stdin = false;             // else stdin is /dev/null
  std::string output_file;             // if set: stdout and stderr go to this file, not pipes
};

class Child {
 public:
  // Throws Error("cannot run ARGV0: REASON") when the program cannot be executed.
  static std::unique_ptr<Child> spawn(const SpawnOptions& opt);
  ~Child();  // a child still running is killed (its whole group) and reaped
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // Reaps the child if it exited; true while it runs.
  bool running();
  // After it exited: the exit code, or 128 + the signal number.
  int status() const { return status_; }
  std::string status_text() const;  // "exit status 1", "killed by SIGKILL"

  // Writes everything (blocking); false if the child closed its stdin.
  bool write_stdin(std::string_view data);
  void close_stdin();

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  // What was read so far, handed over and forgotten (a long-lived child's output, consumed as
  // it comes: an agent's messages).
  std::string take_out() { return std::exchange(out_, {}); }
  std::string take_err() { return std::exchange(err_, {}); }
  // For a caller's own poll loop (many children): the output pipes (-1 once closed), and reading
  // whatever both hold now.
  int out_fd() const { return out_fd_; }
  int err_fd() const { return err_fd_; }
  void read_available() {
    if (out_fd_ >= 0) read_fd(out_fd_, out_);
    if (err_fd_ >= 0) read_fd(err_fd_, err_);
  }
  // True once both pipes reached end of file (or were never pipes).
  bool output_closed() const { return out_fd_ < 0 && err_fd_ < 0; }

  void signal_group(int sig);
  // SIGTERM to the group, up to `grace_s` for it to exit, then SIGKILL; reaps.
  void terminate(double grace_s);

  friend bool pump(const std::vector<Child*>& children, int timeout_ms, int extra_fd);

 private:
  Child() = default;
  void read_fd(int& fd, std::string& buf);

  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
};

// Waits up to `timeout_ms` for output from any of `children`, reads what is there and reaps
// the ones that exited. Null entries are ignored. With `extra_fd` >= 0, it is waited on too and
// the result says whether it is readable (or closed): nothing is read from it.
bool pump(const std::vector<Child*>& children, int timeout_ms, int extra_fd);
inline void pump(const std::vector<Child*>& children, int timeout_ms) {
  pump(children, timeout_ms, -1);
}

// Runs argv to completion (or kills it after `timeout_s`): {status, stdout, stderr}.
struct CommandOutput {
  int status = -1;
  bool timed_out = false;
  std::string out, err;
};
CommandOutput run_command(const SpawnOptions& opt, double timeout_s);

// The absolute path of argv0 (PATH lookup if it has no '/'); "" if not found.
std::string find_program(const std::string& argv0);

}  // namespace rdmabench
