#pragma once
// Campaign progress. On a terminal: one line redrawn in place (bar, done/total, failures,
// elapsed, ETA, the points running now), with failures printed above it. Otherwise (a log, CI):
// one plain line per finished point. Thread-safe.
#include <chrono>
#include <iosfwd>
#include <mutex>
#include <set>
#include <string>

namespace rdmabench {

class Progress {
 public:
  // `total`: points this sweep will run (skipped and already-done ones excluded).
  Progress(std::ostream& out, bool terminal, size_t total);
  void started(const std::string& id);
  // status: "ok" or "failed"; `error`: first line shown for failures.
  void finished(const std::string& id, const std::string& status, double duration_s,
                const std::string& error);
  // A line of its own (above the bar on a terminal).
  void note(const std::string& line);
  // Redraws the bar (call every second or so; no-op when not a terminal).
  void tick();
  // Clears the bar.
  void close();

  // "1:02:03" / "4:05"
  static std::string format_duration(double s);
  // The bar line for a given state and width (exposed for tests).
  static std::string render(size_t done, size_t total, size_t failed, double elapsed_s,
                            const std::string& current, size_t width);

 private:
  void draw_locked();
  void clear_locked();

  std::ostream& out_;
  bool terminal_;
  size_t total_;
  size_t done_ = 0;
  size_t failed_ = 0;
  std::set<std::string> running_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  bool drawn_ = false;
};

// True when fd 2 is a terminal (and TERM is not "dumb").
bool stderr_is_terminal();

}  // namespace rdmabench
