#include "orchestrator/sweep_halt.h"

#include <chrono>

#include "orchestrator/slurm_allocation.h"

namespace rdmabench {

SweepHalt::SweepHalt(const std::atomic<bool>& stop, std::string job_id, double period_s)
    : stop_(stop), job_id_(std::move(job_id)), period_s_(period_s) {
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

void SweepHalt::watch() {
  using Clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(period_s_));
  auto next_check = Clock::now() + period;
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_.load()) halt_.store(true);
    if (job_id_.empty() || ended_.load() || Clock::now() < next_check) continue;
    lock.unlock();
    const bool running = slurm_job_running(job_id_);
    lock.lock();
    next_check = Clock::now() + period;
    if (!running) {
      ended_.store(true);
      halt_.store(true);
    }
  }
}

}  // namespace rdmabench
