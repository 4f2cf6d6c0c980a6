#include "orchestrator/sweep/point_pool.h"

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
  BatchOutcome outcome;
};

// Runs one point and records it: its outcome, `ok` when its result was written.
PointOutcome run_and_record(const BatchPoint& bp, const PointPoolContext& ctx) {
  const Point& p = *bp.point;
  const HostPair& pair = bp.pair;
  ctx.progress.started(p.id);
  PointContext point_ctx{pair,
                         *ctx.launchers.at(pair.server.host),
                         *ctx.launchers.at(pair.client.host),
                         ctx.token,
                         ctx.timeout_s,
                         ctx.stop};
  PointOutcome o;
  try {
    o = run_point(p, point_ctx);
  } catch (const std::exception& e) {
    o.ok = false;
    o.error = e.what();
  }
  return ctx.recorder.record_outcome(p, std::move(o), bp.fields);
}

// One worker: runs points, each while both its hosts run nothing else, until none is left or
// the sweep halts.
void worker(const std::vector<BatchPoint>& todo, const PointPoolContext& ctx, Schedule& q) {
  std::unique_lock<std::mutex> lock(q.mu);
  for (;;) {
    // The first point not taken whose hosts are both free.
    size_t pick = todo.size();
    bool any_left = false;
    for (size_t i = q.next_hint; i < todo.size(); ++i) {
      if (q.taken[i]) continue;
      any_left = true;
      const HostPair& pair = todo[i].pair;
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
    const HostPair& pair = todo[pick].pair;
    q.busy.insert(pair.server.host);
    q.busy.insert(pair.client.host);
    lock.unlock();

    PointOutcome o = run_and_record(todo[pick], ctx);

    lock.lock();
    q.busy.erase(pair.server.host);
    q.busy.erase(pair.client.host);
    ++q.outcome.finished;
    if (!o.ok) ++q.outcome.failed;
    q.outcome.outcomes[pick] = std::move(o);
    q.cv.notify_all();
  }
  --q.active_workers;
  q.cv.notify_all();
}

}  // namespace

BatchOutcome run_each_point(const Batch& batch, const PointPoolContext& ctx) {
  const std::vector<BatchPoint>& todo = batch.points;
  Schedule q;
  q.taken.assign(todo.size(), false);
  q.outcome.outcomes.resize(todo.size());
  for (PointOutcome& o : q.outcome.outcomes) o.error = "not run: the sweep halted";
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
