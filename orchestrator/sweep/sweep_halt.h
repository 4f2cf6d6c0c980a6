#pragma once
// When a running sweep must launch nothing more and stop what runs: the user's stop flag
// (SIGINT/SIGTERM), or, with the slurm launcher, the end of the allocation (its time limit, a
// scancel), found by asking squeue every `period_s` on a thread of its own. The points still
// running then fail or are stopped; what finished is kept for `sweep --resume`.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace rdmabench {

class SweepHalt {
 public:
  // `job_id`: the Slurm allocation to watch ("" = none).
  SweepHalt(const std::atomic<bool>& stop, std::string job_id, double period_s = 10);
  ~SweepHalt();
  SweepHalt(const SweepHalt&) = delete;
  SweepHalt& operator=(const SweepHalt&) = delete;

  // True once the sweep must end (what the run loops watch).
  const std::atomic<bool>& flag() const { return halt_; }
  bool allocation_ended() const { return ended_.load(); }
  // Asks squeue now (from any thread; at most once a second): a point that failed may have
  // failed because the allocation ended, and nothing more should start if it did.
  void check_now();

 private:
  void watch();
  // One squeue; halts when the job is gone. Under mu_.
  void check(std::unique_lock<std::mutex>& lock);

  const std::atomic<bool>& stop_;
  std::string job_id_;
  double period_s_;
  std::atomic<bool> halt_{false};
  std::atomic<bool> ended_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::chrono::steady_clock::time_point last_check_;
  std::thread thread_;
};

}  // namespace rdmabench
