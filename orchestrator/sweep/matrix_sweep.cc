#include "orchestrator/sweep/matrix_sweep.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "orchestrator/run/point_runner.h"

namespace rdmabench {
namespace {

// The workers' shared schedule, under `mu`: which points are taken, the hosts running a point
// now, the workers still working and the counts of what ran.
struct Schedule {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bool> taken;
  std::set<std::string> busy;
  size_t next_hint = 0;  // every point before it is taken
  unsigned active_workers = 0;
  MatrixSweepOutcome outcome;
};

// Runs one point and records it; whether it succeeded.
bool run_and_record(const Point& p, const HostPair& pair, const MatrixSweepContext& ctx) {
  ctx.progress.started(p.id);
  PointContext point_ctx{pair,
                         *ctx.launchers.at(pair.server.host),
                         *ctx.launchers.at(pair.client.host),
                         ctx.token,
                         ctx.campaign.timeout_s,
                         ctx.stop};
  PointOutcome o;
  try {
    o = run_point(p, point_ctx);
  } catch (const std::exception& e) {
    o.ok = false;
    o.error = e.what();
  }
  bool ok = false;
  try {
    ok = ctx.recorder.record(p, o, nlohmann::json::object());
  } catch (const std::exception& e) {
    ctx.progress.note(std::string("rdmabench: error: ") + e.what());
  }
  return ok;
}

// One worker: runs points, each while both its hosts run nothing else, until none is left or
// the sweep halts.
void worker(const std::vector<const Point*>& todo, const MatrixSweepContext& ctx, Schedule& q) {
  const Campaign& c = ctx.campaign;
  std::unique_lock<std::mutex> lock(q.mu);
  for (;;) {
    // The first point not taken whose hosts are both free.
    size_t pick = todo.size();
    bool any_left = false;
    for (size_t i = q.next_hint; i < todo.size(); ++i) {
      if (q.taken[i]) continue;
      any_left = true;
      const HostPair pair = c.pair(todo[i]->pair);
      if (q.busy.count(pair.server.host) == 0 && q.busy.count(pair.client.host) == 0) {
        pick = i;
        break;
      }
    }
    if (ctx.stop.load() || !any_left) break;
    if (pick == todo.size()) {
      q.cv.wait_for(lock, std::chrono::milliseconds(200));
      continue;
    }
    q.taken[pick] = true;
    while (q.next_hint < todo.size() && q.taken[q.next_hint]) ++q.next_hint;
    const Point& p = *todo[pick];
    const HostPair pair = c.pair(p.pair);
    q.busy.insert(pair.server.host);
    q.busy.insert(pair.client.host);
    lock.unlock();

    const bool ok = run_and_record(p, pair, ctx);

    lock.lock();
    q.busy.erase(pair.server.host);
    q.busy.erase(pair.client.host);
    ++q.outcome.finished;
    if (!ok) ++q.outcome.failed;
    q.cv.notify_all();
  }
  --q.active_workers;
  q.cv.notify_all();
}

}  // namespace

MatrixSweepOutcome run_matrix_sweep(const std::vector<const Point*>& todo,
                                    const MatrixSweepContext& ctx) {
  Schedule q;
  q.taken.assign(todo.size(), false);
  const unsigned n_workers =
      std::max(1U, std::min<unsigned>(ctx.jobs, static_cast<unsigned>(todo.size())));
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(q.mu);
    q.active_workers = n_workers;
  }
  for (unsigned i = 0; i < n_workers; ++i) workers.emplace_back([&] { worker(todo, ctx, q); });
  {
    std::unique_lock<std::mutex> lock(q.mu);
    while (q.active_workers > 0) {
      q.cv.wait_for(lock, std::chrono::seconds(1));
      lock.unlock();
      ctx.progress.tick();
      lock.lock();
    }
  }
  for (auto& t : workers) t.join();
  return q.outcome;
}

}  // namespace rdmabench
