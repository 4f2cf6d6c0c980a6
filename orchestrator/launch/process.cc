#include "orchestrator/launch/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/error.h"

extern char** environ;

namespace rdmabench {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

using Clock = std::chrono::steady_clock;

// The child's environment: ours, with `extra` ("NAME=value") added or replacing our NAME.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& x : extra) {
      const auto eq = x.find('=');
      if (entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1)) replaced = true;
    }
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& x : extra) env.push_back(x);
  return env;
}

// The null-terminated pointer array execve takes, into `strings` (which must outlive it).
std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// The descriptors of a spawn, -1 where unused: pipes {read end, write end} for stdin, stdout,
// stderr and the exec status (the child's errno if execve fails), and the output file.
struct SpawnFds {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, exec_err[2] = {-1, -1};
  int file = -1;

  void close_all() {
    for (int* p : {in, out, err, exec_err}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    close_fd(file);
  }
};

// Opens them all close-on-exec: stdin (a pipe or /dev/null), the output (the file, or a pipe
// each for stdout and stderr) and the exec-status pipe. On failure closes what it opened and
// throws.
SpawnFds open_spawn_fds(const SpawnOptions& opt) {
  SpawnFds f;
  if (opt.pipe_stdin) {
    if (::pipe2(f.in, O_CLOEXEC) != 0) throw_sys("pipe2", "stdin of " + opt.argv[0]);
  } else {
    f.in[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  if (!opt.output_file.empty()) {
    f.file = ::open(opt.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (f.file < 0) {
      int e = errno;
      f.close_all();
      throw_sys("open", opt.output_file, e);
    }
  } else if (::pipe2(f.out, O_CLOEXEC) != 0 || ::pipe2(f.err, O_CLOEXEC) != 0) {
    int e = errno;
    f.close_all();
    throw_sys("pipe2", "output of " + opt.argv[0], e);
  }
  if (::pipe2(f.exec_err, O_CLOEXEC) != 0) {
    int e = errno;
    f.close_all();
    throw_sys("pipe2", "exec status of " + opt.argv[0], e);
  }
  return f;
}

// The child, from vfork to execve: system calls only (no allocation, no write to memory it
// shares with the parent until execve: vfork lends it the parent's). It starts with every signal
// blocked (the parent blocked them around vfork, so no handler of the parent's runs here), sets
// every disposition to the default, then unblocks them all. Its own process group, SIGKILL when
// the parent dies (exits at once if it already has), the descriptors as 0, 1 and 2; if execve
// fails, its errno goes to the parent through the exec-status pipe.
[[noreturn]] void exec_child(pid_t parent, const char* prog, char* const* argv, char* const* envp,
                             const SpawnFds& f) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  // Every disposition to the default (glibc's own signals refuse it, quietly).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(f.in[0], 0);
  ::dup2(f.file >= 0 ? f.file : f.out[1], 1);
  ::dup2(f.file >= 0 ? f.file : f.err[1], 2);
  ::execve(prog, argv, envp);
  int e = errno;
  ssize_t n = ::write(f.exec_err[1], &e, sizeof e);
  (void)n;
  ::_exit(127);
}

}  // namespace

std::string find_program(const std::string& argv0) {
  if (argv0.find('/') != std::string::npos) return argv0;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    // (assign, not `dir = "."`: GCC 12's -Wrestrict false positive on a literal assigned to a
    // string at -O3, bug 105651)
    if (dir.empty()) dir.assign(1, '.');
    std::string cand = dir + "/" + argv0;
    struct stat st {};
    if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0)
      return cand;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

std::unique_ptr<Child> Child::spawn(const SpawnOptions& opt) {
  if (opt.argv.empty()) throw Error("cannot run an empty command");
  const std::string prog = find_program(opt.argv[0]);
  if (prog.empty()) throw Error("cannot run " + opt.argv[0] + ": not found in PATH");

  // Everything the child needs is prepared here: after vfork it only makes system calls.
  // vfork, not fork: a large controller (a fabric of a thousand hosts) would have its page tables
  // copied for each child, and then take a fault on every page it writes until the child execs.
  std::vector<std::string> env = child_environment(opt.extra_env);
  std::vector<char*> envp = c_array(env);
  std::vector<std::string> args = opt.argv;
  std::vector<char*> argv = c_array(args);
  SpawnFds fds = open_spawn_fds(opt);
  const pid_t parent = ::getpid();
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::vfork();
  if (pid == 0) exec_child(parent, prog.c_str(), argv.data(), envp.data(), fds);
  const int vfork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    fds.close_all();
    throw_sys("vfork", opt.argv[0], vfork_errno);
  }
  ::setpgid(pid, pid);  // also from the parent: no race with signal_group()
  auto c = std::unique_ptr<Child>(new Child());
  c->pid_ = pid;
  close_fd(fds.in[0]);
  close_fd(fds.out[1]);
  close_fd(fds.err[1]);
  close_fd(fds.exec_err[1]);
  close_fd(fds.file);
  c->in_fd_ = fds.in[1];
  c->out_fd_ = fds.out[0];
  c->err_fd_ = fds.err[0];
  for (int fd : {c->out_fd_, c->err_fd_})
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  // The exec-status pipe closes on a successful execve; an errno arrives if it failed.
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(fds.exec_err[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  close_fd(fds.exec_err[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    c->exited_ = true;
    c->status_ = 127;
    throw Error("cannot run " + opt.argv[0] + ": " + std::strerror(child_errno));
  }
  return c;
}

Child::~Child() {
  close_stdin();
  if (!exited_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(out_fd_);
  close_fd(err_fd_);
}

bool Child::running() {
  if (exited_) return false;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    close_stdin();
  }
  return !exited_;
}

std::string Child::status_text() const {
  if (!exited_) return "still running";
  if (status_ > 128 && status_ < 128 + 65) {
    const char* name = sigabbrev_np(status_ - 128);
    return std::string("killed by SIG") +
           (name != nullptr ? name : std::to_string(status_ - 128).c_str());
  }
  return "exit status " + std::to_string(status_);
}

bool Child::write_stdin(std::string_view data) {
  if (in_fd_ < 0) return false;
  while (!data.empty()) {
    ssize_t n = ::write(in_fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void Child::close_stdin() { close_fd(in_fd_); }

void Child::read_fd(int& fd, std::string& buf) {
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_fd(fd);  // EOF or error
    return;
  }
}

void Child::signal_group(int sig) {
  if (pid_ <= 0) return;
  ::kill(-pid_, sig);
  if (!exited_) ::kill(pid_, sig);
}

void Child::terminate(double grace_s) {
  close_stdin();
  if (!running()) return;
  signal_group(SIGTERM);
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace_s);
  while (running() && Clock::now() < deadline) pump({this}, 50);
  signal_group(SIGKILL);
  if (!exited_) {
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    exited_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  pump({this}, 0);
}

bool pump(const std::vector<Child*>& children, int timeout_ms, int extra_fd) {
  std::vector<pollfd> fds;
  std::vector<std::pair<Child*, bool>> owners;  // child, is stdout
  if (extra_fd >= 0) {
    fds.push_back({extra_fd, POLLIN, 0});
    owners.emplace_back(nullptr, false);
  }
  for (Child* c : children) {
    if (c == nullptr) continue;
    if (c->out_fd_ >= 0) {
      fds.push_back({c->out_fd_, POLLIN, 0});
      owners.emplace_back(c, true);
    }
    if (c->err_fd_ >= 0) {
      fds.push_back({c->err_fd_, POLLIN, 0});
      owners.emplace_back(c, false);
    }
  }
  bool extra = false;
  if (fds.empty()) {
    if (timeout_ms > 0) ::poll(nullptr, 0, timeout_ms);
  } else if (::poll(fds.data(), fds.size(), timeout_ms) > 0) {
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Child* c = owners[i].first;
      if (c == nullptr) {
        extra = true;
      } else if (owners[i].second) {
        c->read_fd(c->out_fd_, c->out_);
      } else {
        c->read_fd(c->err_fd_, c->err_);
      }
    }
  }
  for (Child* c : children)
    if (c != nullptr) c->running();
  return extra;
}

CommandOutput run_command(const SpawnOptions& opt, double timeout_s) {
  CommandOutput r;
  std::unique_ptr<Child> c = Child::spawn(opt);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (c->running() || !c->output_closed()) {
    if (Clock::now() >= deadline) {
      r.timed_out = true;
      c->terminate(1.0);
      break;
    }
    pump({c.get()}, 100);
    // A grandchild may keep the pipes open after the child exited: stop reading soon after.
    if (!c->running() && !c->output_closed()) {
      pump({c.get()}, 200);
      break;
    }
  }
  r.status = c->status();
  r.out = c->out();
  r.err = c->err();
  return r;
}

}  // namespace rdmabench
