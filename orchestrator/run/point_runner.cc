#include "orchestrator/run/point_runner.h"

#include <algorithm>
#include <chrono>

#include "base/error.h"
#include "orchestrator/launch/job_output.h"

namespace rdmabench {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::vector<std::string> server_argv(const HostSpec& h, size_t sessions) {
  std::vector<std::string> a = {h.rdmabench, "server"};
  if (!h.device.empty()) a.insert(a.end(), {"-d", h.device});
  for (const std::string& x : gid_args(h)) a.push_back(x);
  if (!h.cpus.empty()) a.insert(a.end(), {"--cpus", h.cpus});
  if (!h.numa.empty()) a.insert(a.end(), {"--numa", h.numa});
  a.insert(a.end(), {"-p", "0"});
  if (sessions == 1) {
    a.emplace_back("--once");
  } else {
    const std::string n = std::to_string(sessions);
    a.insert(a.end(), {"--sessions", n, "--max-sessions", n});
  }
  return a;
}

std::vector<std::string> client_argv(const HostSpec& h, const std::string& address,
                                     const std::string& port,
                                     const std::vector<std::string>& workload) {
  std::vector<std::string> a = {h.rdmabench, "client", address, "-p", port};
  if (!h.device.empty()) a.insert(a.end(), {"-d", h.device});
  for (const std::string& x : gid_args(h)) a.push_back(x);
  a.insert(a.end(), workload.begin(), workload.end());
  // The host's placement, unless the point's workload places the client itself.
  const auto has = [&](const char* opt) {
    return std::find(workload.begin(), workload.end(), opt) != workload.end();
  };
  if (!h.cpus.empty() && !has("--cpus")) a.insert(a.end(), {"--cpus", h.cpus});
  if (!h.numa.empty() && !has("--numa")) a.insert(a.end(), {"--numa", h.numa});
  a.push_back("-J");
  return a;
}

PointOutcome run_point(const Point& p, const PointContext& ctx) {
  PointOutcome o;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(ctx.timeout_s));
  const std::string& sh = ctx.server.host();
  const std::string& ch = ctx.client.host();
  std::unique_ptr<Job> server, client;

  auto finish = [&](bool ok, const std::string& why) -> PointOutcome {
    // Both ends at once, as a round's flows (one grace period, not one per end: a Slurm step's
    // stop waits for the step to leave squeue).
    stop_all({client.get(), server.get()});
    o.ok = ok;
    o.server_log = server ? server->err() : "";
    o.client_log = client ? client->err() : "";
    o.server_step = server ? server->step() : "";
    o.client_step = client ? client->step() : "";
    if (!ok) o.error = failure_text(why, sh, o.server_log, ch, o.client_log);
    o.duration_s = std::chrono::duration<double>(Clock::now() - t0).count();
    return o;
  };
  auto timed_out = [&] { return Clock::now() >= deadline; };

  // Server, and its ready line.
  try {
    server = ctx.server.start(server_argv(ctx.pair.server), ctx.token);
  } catch (const Error& e) {
    return finish(false, "cannot start the server on " + sh + ": " + e.what());
  }
  nlohmann::json ready;
  for (;;) {
    pump_jobs({server.get()}, 100);
    ready = find_ready(server->out());
    if (!ready.is_null()) break;
    if (!server->running()) {
      pump_jobs({server.get()}, 200);
      ready = find_ready(server->out());
      if (!ready.is_null()) break;
      return finish(false, server_exit_reason(*server, sh));
    }
    if (ctx.stop.load()) return finish(false, "interrupted");
    if (timed_out())
      return finish(false, "timed out after " + seconds_text(ctx.timeout_s) +
                               " s waiting for the server's ready line on " + sh);
  }
  if (ready.contains("pid") && ready["pid"].is_number_integer())
    server->set_reported_pid(ready["pid"].get<long>());
  const Endpoint ep = server_endpoint(ready, ctx.pair.connect_address, sh);
  if (!ep.error.empty()) return finish(false, ep.error);

  // Client.
  try {
    client = ctx.client.start(
        client_argv(ctx.pair.client, ep.address, ep.port, p.workload_options()), ctx.token);
  } catch (const Error& e) {
    return finish(false, "cannot start the client on " + ch + ": " + e.what());
  }
  for (;;) {
    pump_jobs({server.get(), client.get()}, 100);
    if (!client->running()) break;
    if (ctx.stop.load()) return finish(false, "interrupted");
    if (timed_out())
      return finish(false, "timed out after " + seconds_text(ctx.timeout_s) + " s (the client on " +
                               ch + " was still running)");
  }
  // The rest of its output (bounded: a leftover holding the pipe must not stall us).
  for (int i = 0; i < 50 && !client->output_closed(); ++i) pump_jobs({client.get()}, 100);
  // The server (--once) exits after its session.
  const auto server_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(10));
  while (server->running() && Clock::now() < server_deadline) pump_jobs({server.get()}, 100);

  const std::string why = judge_client(*client, ch, o.brief);
  o.client_status = client->status();
  if (o.brief.document) o.document = client->out();
  return finish(why.empty(), why);
}

}  // namespace rdmabench
