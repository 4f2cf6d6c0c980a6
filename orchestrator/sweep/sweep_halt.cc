#include "orchestrator/sweep/sweep_halt.h"

#include "orchestrator/launch/slurm_allocation.h"

namespace rdmabench {

using Clock = std::chrono::steady_clock;

SweepHalt::SweepHalt(const std::atomic<bool>& stop, std::string job_id, double period_s)
    : stop_(stop), job_id_(std::move(job_id)), period_s_(period_s), last_check_(Clock::now()) {
  thread_ = std::thread([this] { watch(); });
}

SweepHalt::~SweepHalt() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void SweepHalt::check(std::unique_lock<std::mutex>& lock) {
  last_check_ = Clock::now();
  lock.unlock();
  const bool running = slurm_job_running(job_id_);
  lock.lock();
  if (!running) {
    ended_.store(true);
    halt_.store(true);
  }
}

void SweepHalt::check_now() {
  if (job_id_.empty() || ended_.load()) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (Clock::now() - last_check_ >= std::chrono::seconds(1)) check(lock);
}

void SweepHalt::watch() {
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(period_s_));
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_.load()) halt_.store(true);
    if (!job_id_.empty() && !ended_.load() && Clock::now() - last_check_ >= period) check(lock);
  }
}

}  // namespace rdmabench
