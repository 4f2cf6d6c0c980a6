#include "orchestrator/sweep/round_runner.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "base/error.h"
#include "base/utc_time.h"
#include "orchestrator/launch/job_output.h"

namespace rdmabench {
namespace {

using Clock = std::chrono::steady_clock;

struct ServerSlot {
  const HostSpec* spec = nullptr;
  std::string connect_address;
  size_t sessions = 0;
  std::unique_ptr<Job> job;
  Endpoint endpoint;  // once ready
  bool ready = false;
  std::string error;  // why its flows cannot run
};

std::vector<Job*> jobs_of(std::map<std::string, ServerSlot>& servers,
                          std::vector<std::unique_ptr<Job>>& clients) {
  std::vector<Job*> all;
  for (auto& [name, s] : servers)
    if (s.job) all.push_back(s.job.get());
  for (auto& c : clients)
    if (c) all.push_back(c.get());
  return all;
}

// The controller's start time on the client host's clock, to the microsecond.
std::string start_at_text(double start_at, const RoundFlow& f, const RoundContext& ctx) {
  if (ctx.clocks != nullptr)
    if (auto it = ctx.clocks->find(f.link.client.host); it != ctx.clocks->end())
      start_at += it->second.offset_s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", start_at);
  return buf;
}

// One slot per server host of the round, counting the flows (sessions) it serves.
std::map<std::string, ServerSlot> server_slots(const std::vector<RoundFlow>& flows) {
  std::map<std::string, ServerSlot> servers;
  for (const RoundFlow& f : flows) {
    ServerSlot& s = servers[f.server_name];
    s.spec = &f.link.server;
    s.connect_address = f.link.connect_address;
    ++s.sessions;
  }
  return servers;
}

// Every server of the round at once; one that cannot start gets its reason.
void start_servers(std::map<std::string, ServerSlot>& servers, const RoundContext& ctx) {
  for (auto& [name, s] : servers) {
    try {
      s.job = ctx.launchers.at(s.spec->host)->start(server_argv(*s.spec, s.sessions), ctx.token);
    } catch (const Error& e) {
      s.error = "cannot start the server on " + name + ": " + e.what();
    }
  }
}

// Every started server's ready line (its endpoint), or why it has none: it exited, the deadline
// passed or the round was stopped.
void await_ready_lines(std::map<std::string, ServerSlot>& servers, const RoundContext& ctx,
                       Clock::time_point deadline) {
  for (;;) {
    bool waiting = false;
    for (auto& [name, s] : servers) {
      if (!s.job || s.ready || !s.error.empty()) continue;
      const nlohmann::json ready = find_ready(s.job->out());
      if (!ready.is_null()) {
        if (ready.contains("pid") && ready["pid"].is_number_integer())
          s.job->set_reported_pid(ready["pid"].get<long>());
        // Every flow of a server connects to the same address: its host's connect_address.
        s.endpoint = server_endpoint(ready, s.connect_address, name);
        s.ready = s.endpoint.error.empty();
        if (!s.ready) s.error = s.endpoint.error;
      } else if (!s.job->running() && s.job->output_closed()) {
        // (Exited, and its output read to the end: a ready line printed just before the exit
        // is not missed.)
        s.error = server_exit_reason(*s.job, name);
      } else {
        waiting = true;
      }
    }
    if (!waiting) break;
    if (ctx.stop.load() || Clock::now() >= deadline) {
      const std::string why = ctx.stop.load() ? "interrupted"
                                              : "timed out after " + seconds_text(ctx.timeout_s) +
                                                    " s waiting for the servers' ready lines";
      for (auto& [name, s] : servers)
        if (!s.ready && s.error.empty()) s.error = why;
      break;
    }
    std::vector<std::unique_ptr<Job>> none;
    pump_jobs(jobs_of(servers, none), 100);
  }
}

// Every client at once, each told when to start measuring (on its host's clock). A flow whose
// server is not ready, or whose client cannot start, gets its reason in `failed` and no client.
std::vector<std::unique_ptr<Job>> start_clients(const std::vector<RoundFlow>& flows,
                                                std::map<std::string, ServerSlot>& servers,
                                                const RoundContext& ctx,
                                                std::vector<std::string>& failed) {
  std::optional<double> start_at;
  if (ctx.start_delay_s > 0 && flows.size() > 1) start_at = realtime_unix_s() + ctx.start_delay_s;
  std::vector<std::unique_ptr<Job>> clients(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    const RoundFlow& f = flows[i];
    ServerSlot& s = servers.at(f.server_name);
    if (!s.ready) {
      failed[i] = s.error;
      continue;
    }
    try {
      std::vector<std::string> argv = client_argv(f.link.client, s.endpoint.address,
                                                  s.endpoint.port, f.point->workload_options());
      if (start_at) argv.insert(argv.end(), {"--start-at", start_at_text(*start_at, f, ctx)});
      clients[i] = ctx.launchers.at(f.link.client.host)->start(argv, ctx.token);
    } catch (const Error& e) {
      failed[i] = "cannot start the client on " + f.link.client.host + ": " + e.what();
    }
  }
  return clients;
}

// A server whose process is gone mid-round (killed, its host or agent lost: exit 255 or a
// signal), not one that ended on its own or reported a failure: its clients cannot succeed, and
// would otherwise try to connect until their own timeout.
bool server_gone(ServerSlot& s) {
  if (!s.job || s.job->running()) return false;
  const int st = s.job->status();
  return st == 255 || st > 128;
}

// Until every client has exited, the deadline or the stop flag (a client still running then
// fails its flow). The clients of a server that is gone are stopped at once, with its reason.
void await_clients(const std::vector<RoundFlow>& flows, std::map<std::string, ServerSlot>& servers,
                   std::vector<std::unique_ptr<Job>>& clients, const RoundContext& ctx,
                   Clock::time_point deadline, std::vector<std::string>& failed) {
  for (;;) {
    bool running = false;
    for (size_t i = 0; i < clients.size(); ++i) {
      if (!clients[i] || !clients[i]->running()) continue;
      running = true;
      ServerSlot& s = servers.at(flows[i].server_name);
      if (failed[i].empty() && server_gone(s)) {
        failed[i] =
            "its server on " + flows[i].server_name + " is gone (" + s.job->status_text() + ")";
        clients[i]->begin_stop();
      }
    }
    if (!running) break;
    if (ctx.stop.load() || Clock::now() >= deadline) {
      const std::string why = ctx.stop.load() ? "interrupted"
                                              : "timed out after " + seconds_text(ctx.timeout_s) +
                                                    " s (the client was still running)";
      for (size_t i = 0; i < clients.size(); ++i)
        if (clients[i] && clients[i]->running() && failed[i].empty()) failed[i] = why;
      break;
    }
    pump_jobs(jobs_of(servers, clients), 100);
  }
}

// The rest of the clients' output (bounded), then the servers end on their own (--sessions): up
// to 10 s for those whose every client started. A server with a client that never started (its
// host lost, its agent gone) still waits for that session: it is stopped at once, so a lost host
// does not cost every later round of the campaign 10 s. Interrupted: neither; every process of
// the round is stopped at once.
void finish_round(const std::vector<RoundFlow>& flows, std::map<std::string, ServerSlot>& servers,
                  std::vector<std::unique_ptr<Job>>& clients, const RoundContext& ctx,
                  Clock::time_point deadline) {
  std::set<std::string> short_of_a_client;
  for (size_t i = 0; i < flows.size(); ++i)
    if (!clients[i]) short_of_a_client.insert(flows[i].server_name);
  for (int i = 0; i < 50 && !ctx.stop.load(); ++i) {
    bool open = false;
    for (auto& c : clients) open = open || (c && !c->output_closed());
    if (!open) break;
    pump_jobs(jobs_of(servers, clients), 100);
  }
  const auto server_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(10));
  while (!ctx.stop.load()) {
    bool running = false;
    for (auto& [name, s] : servers)
      running = running || (s.job && short_of_a_client.count(name) == 0 && s.job->running());
    if (!running || Clock::now() >= server_deadline) break;
    std::vector<std::unique_ptr<Job>> none;
    pump_jobs(jobs_of(servers, none), 100);
  }
  std::vector<Job*> jobs;
  for (auto& c : clients) jobs.push_back(c.get());
  for (auto& [name, s] : servers) jobs.push_back(s.job.get());
  stop_all(jobs);
}

// Each flow's outcome: both logs and steps, and its failure (from the round or the client's
// document).
std::vector<PointOutcome> outcomes(const std::vector<RoundFlow>& flows,
                                   const std::map<std::string, ServerSlot>& servers,
                                   std::vector<std::unique_ptr<Job>>& clients,
                                   const std::vector<std::string>& failed, double took) {
  std::vector<PointOutcome> out(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    PointOutcome& o = out[i];
    const ServerSlot& s = servers.at(flows[i].server_name);
    o.server_log = s.job ? s.job->err() : "";
    o.client_log = clients[i] ? clients[i]->err() : "";
    o.server_step = s.job ? s.job->step() : "";
    o.client_step = clients[i] ? clients[i]->step() : "";
    o.duration_s = took;
    std::string why = failed[i];
    if (why.empty()) {
      why = judge_client(*clients[i], flows[i].link.client.host, o.brief);
      if (o.brief.document) o.document = clients[i]->out();
    }
    o.ok = why.empty();
    if (!o.ok)
      o.error = failure_text(why, flows[i].server_name, o.server_log, flows[i].link.client.host,
                             o.client_log);
  }
  return out;
}

}  // namespace

std::vector<PointOutcome> run_round(const std::vector<RoundFlow>& flows, const RoundContext& ctx) {
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(ctx.timeout_s));
  std::vector<std::string> failed(flows.size());  // "" = still going
  std::map<std::string, ServerSlot> servers = server_slots(flows);
  start_servers(servers, ctx);
  await_ready_lines(servers, ctx, deadline);
  std::vector<std::unique_ptr<Job>> clients = start_clients(flows, servers, ctx, failed);
  await_clients(flows, servers, clients, ctx, deadline, failed);
  finish_round(flows, servers, clients, ctx, deadline);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  return outcomes(flows, servers, clients, failed, took);
}

}  // namespace rdmabench
