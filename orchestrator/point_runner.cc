#include "orchestrator/point_runner.h"

#include <chrono>

#include "harness/error.h"
#include "workloads/result.h"

namespace rdmabench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kReadyTag = "RDMABENCH_SERVER_READY ";

std::string tail(const std::string& text, size_t max_chars = 1500) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  return t;
}

std::string last_line(const std::string& text) {
  std::string t = tail(text, 100000);
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// The JSON of the ready line, or null when it has not arrived.
nlohmann::json find_ready(const std::string& out) {
  size_t pos = 0;
  while ((pos = out.find(kReadyTag, pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') {
      size_t end = out.find('\n', pos);
      if (end == std::string::npos) return nullptr;  // not complete yet
      size_t start = pos + std::char_traits<char>::length(kReadyTag);
      nlohmann::json j = nlohmann::json::parse(out.substr(start, end - start), nullptr, false);
      if (!j.is_discarded() && j.is_object()) return j;
    }
    ++pos;
  }
  return nullptr;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

std::vector<std::string> server_argv(const HostSpec& h) {
  std::vector<std::string> a = {h.rdmabench, "server"};
  if (!h.device.empty()) a.insert(a.end(), {"-d", h.device});
  if (h.gid_index) a.insert(a.end(), {"-x", std::to_string(*h.gid_index)});
  a.insert(a.end(), {"-p", "0", "--once"});
  return a;
}

std::vector<std::string> client_argv(const HostSpec& h, const std::string& address,
                                     const std::string& port,
                                     const std::vector<std::string>& workload) {
  std::vector<std::string> a = {h.rdmabench, "client", address, "-p", port};
  if (!h.device.empty()) a.insert(a.end(), {"-d", h.device});
  if (h.gid_index) a.insert(a.end(), {"-x", std::to_string(*h.gid_index)});
  a.insert(a.end(), workload.begin(), workload.end());
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
    if (client) client->stop();
    if (server) server->stop();
    o.ok = ok;
    o.server_log = server ? server->err() : "";
    o.client_log = client ? client->err() : "";
    if (!ok) {
      o.error = why;
      if (!tail(o.server_log).empty())
        o.error += "\n--- server stderr (" + sh + ") ---\n" + tail(o.server_log);
      if (!tail(o.client_log).empty())
        o.error += "\n--- client stderr (" + ch + ") ---\n" + tail(o.client_log);
    }
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
    pump({&server->process()}, 100);
    ready = find_ready(server->out());
    if (!ready.is_null()) break;
    if (!server->running()) {
      pump({&server->process()}, 200);
      ready = find_ready(server->out());
      if (!ready.is_null()) break;
      const std::string why = last_line(server->err());
      return finish(false, "the server on " + sh + " exited before it was ready (" +
                               server->process().status_text() + ")" +
                               (why.empty() ? "" : ": " + why));
    }
    if (ctx.stop.load()) return finish(false, "interrupted");
    if (timed_out())
      return finish(false, "timed out after " + seconds_text(ctx.timeout_s) +
                               " s waiting for the server's ready line on " + sh);
  }
  if (!ready.contains("port") || !ready["port"].is_number_unsigned())
    return finish(false, "the server on " + sh + " announced no port: " + ready.dump());
  if (ready.contains("pid") && ready["pid"].is_number_integer())
    server->set_reported_pid(ready["pid"].get<long>());
  std::string address = ctx.pair.connect_address;
  if (address.empty()) {
    if (!ready.contains("address") || !ready["address"].is_string() ||
        ready["address"].get<std::string>().empty())
      return finish(false, "the server on " + sh +
                               " announced no address (set connect_address): " + ready.dump());
    address = ready["address"].get<std::string>();
  }

  // Client.
  try {
    client = ctx.client.start(
        client_argv(ctx.pair.client, address, std::to_string(ready["port"].get<uint64_t>()),
                    p.workload_options),
        ctx.token);
  } catch (const Error& e) {
    return finish(false, "cannot start the client on " + ch + ": " + e.what());
  }
  for (;;) {
    pump({&server->process(), &client->process()}, 100);
    if (!client->running()) break;
    if (ctx.stop.load()) return finish(false, "interrupted");
    if (timed_out())
      return finish(false, "timed out after " + seconds_text(ctx.timeout_s) + " s (the client on " +
                               ch + " was still running)");
  }
  // The rest of its output (bounded: a leftover holding the pipe must not stall us).
  for (int i = 0; i < 50 && !client->process().output_closed(); ++i)
    pump({&client->process()}, 100);
  // The server (--once) exits after its session.
  const auto server_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(10));
  while (server->running() && Clock::now() < server_deadline) pump({&server->process()}, 100);

  const int status = client->process().status();
  nlohmann::json doc = nlohmann::json::parse(client->out(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    const std::string why = last_line(client->err());
    return finish(false, "the client on " + ch + " failed (" + client->process().status_text() +
                             ")" + (why.empty() ? "" : ": " + why));
  }
  o.document = doc;
  try {
    RunResult r = run_result_from_json(doc);
    if (!r.error.empty())
      return finish(false, "the run failed (" + client->process().status_text() + "): " + r.error);
  } catch (const ConfigError& e) {
    return finish(false, std::string("the client's result document is invalid: ") + e.what());
  }
  if (status != 0)
    return finish(false,
                  "the client on " + ch + " failed (" + client->process().status_text() + ")");
  return finish(true, "");
}

}  // namespace rdmabench
