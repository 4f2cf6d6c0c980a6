#pragma once
// Minimal process control for the integration tests: run a command to completion with its
// output captured, or start one in the background (its own process group) and read its stdout.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rdmabench::test {

// The rdmabench binary under test: $RDMABENCH_BIN, else the one built beside the tests.
inline std::string bin() {
  const char* v = std::getenv("RDMABENCH_BIN");
  return v != nullptr && *v != '\0' ? v : RDMABENCH_BIN;
}

// An environment variable's value, "" when unset.
inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

struct RunOutput {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> v;
  for (auto& a : args) v.push_back(a.data());
  v.push_back(nullptr);
  return v;
}

// Runs `args` with a time limit (the test fails rather than hangs).
inline RunOutput run(std::vector<std::string> args, int timeout_s = 120) {
  char out_path[] = "/tmp/rb-test-out.XXXXXX";
  char err_path[] = "/tmp/rb-test-err.XXXXXX";
  int ofd = mkstemp(out_path);
  int efd = mkstemp(err_path);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, ofd, 1);
  posix_spawn_file_actions_adddup2(&fa, efd, 2);
  pid_t pid = 0;
  auto argv = argv_of(args);
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start " + args[0]);
  posix_spawn_file_actions_destroy(&fa);
  close(ofd);
  close(efd);
  RunOutput r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int st = 0;
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      r.err = "(killed after " + std::to_string(timeout_s) + " s)\n";
      break;
    }
    usleep(10000);
  }
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp(out_path);
  r.err += slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return r;
}

// A background process whose stdout we read line by line.
class Background {
 public:
  explicit Background(std::vector<std::string> args, bool merge_stderr = false) {
    int p[2];
    if (pipe(p) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    if (merge_stderr) posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    auto argv = argv_of(args);
    if (posix_spawn(&pid_, argv[0], &fa, &at, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start " + args[0]);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    out_ = fdopen(p[0], "r");
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  ~Background() {
    kill_now(SIGKILL);
    if (out_ != nullptr) fclose(out_);
  }
  // Next stdout line ("" at EOF).
  std::string line() {
    char buf[4096];
    if (fgets(buf, sizeof buf, out_) == nullptr) return "";
    return buf;
  }
  // Sends `sig` to the process group and returns at once (SIGSTOP, SIGCONT).
  void signal(int sig) const {
    if (pid_ > 0) ::kill(-pid_, sig);
  }
  void kill_now(int sig) {
    if (pid_ > 0) {
      ::kill(-pid_, sig);
      int st = 0;
      waitpid(pid_, &st, 0);
      pid_ = -1;
    }
  }
  pid_t pid() const { return pid_; }
  // Waits up to `timeout_s` for the process to exit; returns its status (128 + signal), or -1
  // if it is still running (then it is left running).
  int wait_exit(int timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      usleep(20000);
    }
    return -1;
  }
  // Everything left on stdout (after the process exited).
  std::string rest() {
    std::string all;
    for (std::string l = line(); !l.empty(); l = line()) all += l;
    return all;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

}  // namespace rdmabench::test
