#include "orchestrator/run/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ostream>

namespace rdmabench {
namespace {

size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

}  // namespace

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && (term == nullptr || std::string(term) != "dumb");
}

Progress::Progress(std::ostream& out, bool terminal, size_t total)
    : out_(out), terminal_(terminal), total_(total), start_(std::chrono::steady_clock::now()) {}

std::string Progress::format_duration(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  long t = std::lround(s);
  char buf[32];
  if (t >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  }
  return buf;
}

std::string Progress::render(size_t done, size_t total, size_t failed, double elapsed_s,
                             const std::string& current, size_t width) {
  const size_t bar_w = 20;
  const size_t filled = total == 0 ? bar_w : done * bar_w / total;
  // Appended piece by piece: GCC 12's -Wrestrict misreads `"literal" + std::string&&` in the
  // quickstart's Release unity build (GCC bug 105651), as it did in workload_fields.cc.
  std::string line = "[";
  line.append(filled, '#').append(bar_w - filled, '.').append("] ");
  line += std::to_string(done);
  line += '/';
  line += std::to_string(total);
  if (failed != 0) {
    line += ", ";
    line += std::to_string(failed);
    line += " failed";
  }
  line += ", ";
  line += format_duration(elapsed_s);
  if (done != 0 && done < total) {
    line += ", ETA ";
    line += format_duration(elapsed_s / double(done) * double(total - done));
  }
  if (!current.empty()) line += "  " + current;
  if (width > 10 && line.size() > width - 1) line = line.substr(0, width - 4) + "...";
  return line;
}

void Progress::clear_locked() {
  if (terminal_ && drawn_) out_ << "\r\033[K";
  drawn_ = false;
}

void Progress::draw_locked() {
  if (!terminal_) return;
  std::string current;
  for (const auto& id : running_) current += (current.empty() ? "" : ", ") + id;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  out_ << "\r\033[K" << render(done_, total_, failed_, elapsed, current, terminal_width())
       << std::flush;
  drawn_ = true;
}

void Progress::started(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  running_.insert(id);
  draw_locked();
}

void Progress::finished(const std::string& id, const std::string& status, double duration_s,
                        const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  running_.erase(id);
  ++done_;
  if (status != "ok") ++failed_;
  std::string first = error.substr(0, error.find('\n'));
  if (terminal_) {
    if (status != "ok") {
      clear_locked();
      out_ << "FAILED " << id << ": " << first << "\n";
    }
    draw_locked();
  } else {
    char dur[32];
    std::snprintf(dur, sizeof dur, "%.1fs", duration_s);
    out_ << "[" << done_ << "/" << total_ << "] " << (status == "ok" ? "ok    " : "FAILED") << " "
         << dur << " " << id << (status != "ok" ? ": " + first : "") << std::endl;
  }
}

void Progress::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  out_ << line << "\n";
  if (terminal_ && done_ + running_.size() > 0) draw_locked();
  out_ << std::flush;
}

void Progress::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_ && (drawn_ || !running_.empty())) draw_locked();
}

void Progress::close() {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  out_ << std::flush;
}

}  // namespace rdmabench
