#include "report/gnuplot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/error.h"

namespace rdmabench {

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t pos = 0;
  while (pos <= dirs.size()) {
    size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(pos, end - pos);
    pos = end + 1;
    if (dir.empty()) continue;
    std::string candidate = dir + "/gnuplot";
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  throw Error("gnuplot not found in PATH; install gnuplot-nox");
}

void run_gnuplot(const std::string& gnuplot, const std::string& dir,
                 const std::vector<std::string>& args) {
  std::vector<std::string> argv_text{gnuplot};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw_sys("pipe2", "gnuplot's output");
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(out[0]);
    close(out[1]);
    throw_sys("fork", "gnuplot", err);
  }
  if (pid == 0) {  // child: only async-signal-safe calls
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0 ||
        chdir(dir.c_str()) != 0)
      _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string output;
  char buf[4096];
  while (true) {
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                      : "signal " + std::to_string(WTERMSIG(status));
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  std::string cmd = gnuplot;
  for (const auto& a : args) cmd += " " + a;
  throw Error("gnuplot failed (" + how + ") running '" + cmd + "' in " + dir +
              (output.empty() ? std::string() : ":\n" + output));
}

}  // namespace rdmabench
