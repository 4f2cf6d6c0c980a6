#include <unistd.h>

#include <chrono>
#include <ostream>
#include <thread>

#include "base/clock.h"
#include "base/counters.h"
#include "base/error.h"
#include "base/json_util.h"
#include "base/oob_channel.h"
#include "base/version.h"
#include "engine/device_counters.h"
#include "engine/server_session.h"
#include "engine/session.h"
#include "engine/session_messages.h"
#include "engine/size_runner.h"

namespace rdmabench {
namespace {

using std::chrono::milliseconds;

milliseconds ms(double s) { return milliseconds(static_cast<int64_t>(s * 1000)); }

class ServerSession {
 public:
  ServerSession(const ServerOptions& opt, OobChannel& chan, const Clock& clock, SessionLog& log)
      : opt_(opt), chan_(chan), clock_(clock), log_(log) {}
  void run(const nlohmann::json& hello);

 private:
  void run_size(const nlohmann::json& start);
  // The steps of run_size, in order.
  std::vector<uint64_t> measure(const SizePlan& plan, WorkerControl& control,
                                std::vector<WorkerOutcome>& out);
  void finish_own_senders(WorkerControl& control, const std::vector<WorkerOutcome>& out);
  SizeReplyMsg size_reply(uint64_t size, const std::vector<uint64_t>& posted,
                          const std::vector<WorkerOutcome>& out);
  std::string verify_received(uint64_t size, const std::vector<uint64_t>& posted) const;
  // Waits for the next message from the client while workers run; heartbeats keep it alive.
  nlohmann::json wait_client(WorkerControl* control, const std::vector<WorkerOutcome>* out);

  const ServerOptions& opt_;
  OobChannel& chan_;
  const Clock& clock_;
  SessionLog& log_;
  Workload w_;
  std::unique_ptr<SessionResources> res_;
};

void ServerSession::run(const nlohmann::json& hello) {
  w_ = parse_hello(hello).workload;  // the token was checked at the door (server.cc)
  // A client normally resolves "auto" itself; if not, this side's device decides.
  w_.connect = resolve_connect(w_.connect, w_.qp, device_transport(opt_.local.device));
  // The workers and buffers of this side go where this side's options say (result:
  // setup.server.placement), not where the client's did.
  w_.cpus = opt_.cpus;
  w_.numa = opt_.numa;
  const milliseconds timeout = ms(std::max(w_.timeout_s, 1.0));
  // Creating and connecting resources can take long on a loaded or emulated host.
  const milliseconds setup_timeout = timeout + milliseconds(60000);
  log_.line("session with " + chan_.peer() + ": " + std::string(to_string(w_.op)) + " " +
            std::string(to_string(w_.qp)) + " " + std::string(to_string(w_.mode)) + ", " +
            std::to_string(w_.sizes.size()) + " size(s), " + std::to_string(w_.total_qps()) +
            " QP(s)");
  LocalSettings local = opt_.local;
  if (local.bind_addr.empty()) local.bind_addr = opt_.bind;
  const auto setup_start = std::chrono::steady_clock::now();
  res_ = std::make_unique<SessionResources>(w_, local, false);
  // rdma_cm: each session listens on a port of its own (concurrent sessions), and accepts only
  // requests that carry its nonce (anything can reach the port).
  uint16_t cm_port = 0;
  uint64_t nonce = 0;
  if (w_.connect == ConnectMethod::kRdmaCm) {
    cm_port = res_->cm_listen(opt_.bind, 0);
    nonce = random_nonce();
  }
  chan_.send(to_message(AcceptMsg{kVersion, local_host_info(), res_->describe(), cm_port, nonce}));
  if (w_.connect == ConnectMethod::kRdmaCm) {
    if (const CmRejections& foreign = res_->cm_accept_all(nonce, timeout + milliseconds(5000));
        foreign.total != 0)
      log_.line("session with " + chan_.peer() + ": rejected " + std::to_string(foreign.total) +
                " rdma_cm connect request(s) without the session's nonce: " + foreign.describe());
    res_->set_remote(parse_endpoints(chan_.expect(EndpointsMsg::kType, setup_timeout)).side);
    chan_.send(to_message(EndpointsMsg{res_->local_side()}));
  } else {
    const SideInfo remote = parse_endpoints(chan_.expect(EndpointsMsg::kType, setup_timeout)).side;
    res_->create_qps();
    res_->connect_qps(remote);
    chan_.send(to_message(EndpointsMsg{res_->local_side()}));
  }
  res_->post_initial_receives();
  chan_.expect(ReadyMsg::kType, setup_timeout);
  chan_.send(to_message(ReadyMsg{}));
  const nlohmann::json setup = res_->setup_info(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count());
  const std::string dev = res_->device().info().name;
  CounterSnapshot before = read_device_counters(dev, local.port);
  for (;;) {
    nlohmann::json msg = chan_.recv(timeout + milliseconds(30000), "the next request");
    const std::string type = msg[kMessageType];
    if (type == StartMsg::kType) {
      run_size(msg);
    } else if (type == ByeMsg::kType) {
      chan_.send(
          to_message(ByeMsg{counter_deltas(before, read_device_counters(dev, local.port)), setup}));
      return;
    } else {
      throw PeerError("protocol error: unexpected '" + type + "'");
    }
  }
}

nlohmann::json ServerSession::wait_client(WorkerControl* control,
                                          const std::vector<WorkerOutcome>* out) {
  // The client sends a heartbeat every second while it measures.
  const auto quiet_limit = ms(std::max(3.0, w_.timeout_s));
  auto deadline = std::chrono::steady_clock::now() + quiet_limit;
  for (;;) {
    // Sleeps on the socket and the workers' wake-up until a message, a worker's failure or the
    // deadline: no timer wake-ups during the measurement (each would preempt a busy worker).
    const auto left = std::chrono::ceil<milliseconds>(deadline - std::chrono::steady_clock::now());
    const OobChannel::Ready ready =
        control != nullptr
            ? chan_.wait(left, control->wake)
            : OobChannel::Ready{chan_.readable(std::max(left, milliseconds(0))), false};
    if (ready.woken) control->wake.drain();
    if (ready.message) {
      nlohmann::json j = chan_.recv(quiet_limit, "the client's next message");
      if (j[kMessageType] != HeartbeatMsg::kType) return j;
      deadline = std::chrono::steady_clock::now() + quiet_limit;
      continue;
    }
    if (control != nullptr && control->abort.load() && out != nullptr) throw_worker_error(*out);
    if (std::chrono::steady_clock::now() > deadline)
      throw TimeoutError(
          "the client went silent for " +
          std::to_string(std::chrono::duration_cast<milliseconds>(quiet_limit).count() / 1000) +
          " s during a measurement (half-open connection?)");
  }
}

// One size the client started: this side's workers (if it has any) run it, then the figures
// of this side go back to the client.
void ServerSession::run_size(const nlohmann::json& start) {
  const auto [index, size] = parse_start(start);
  if (index >= w_.sizes.size() || w_.sizes[index] != size)
    throw PeerError("protocol error: 'start' names size " + std::to_string(size) +
                    " which is not in the workload");
  const uint32_t T = w_.threads;
  // The port's counters over the size (results[].counters.server): a snapshot each side of it.
  const std::string dev = res_->device().info().name;
  const CounterSnapshot before = read_device_counters(dev, opt_.local.port);
  res_->prepare_size(size);
  WorkerControl control(T);
  res_->bind_control(&control, &clock_, w_.timeout_s);
  SizePlan plan{size, w_.timed() ? 0 : w_.effective_warmup(),
                w_.timed() ? 0 : w_.effective_iterations(), false};
  if (!w_.timed())
    for (auto& e : control.expected_recv)
      e.store((plan.warmup + plan.iterations) * w_.qps_per_thread);
  std::vector<WorkerOutcome> out(T);
  const std::vector<uint64_t> posted = measure(plan, control, out);
  SizeReplyMsg reply = size_reply(size, posted, out);
  reply.counters = counter_deltas(before, read_device_counters(dev, opt_.local.port));
  chan_.send(to_message(reply));
}

// The measurement: starts the workers, tells the client to go and waits for its finish (what
// its workers sent, which is what ours are to receive); bidirectional, our own senders finish
// too. On a failure the workers are stopped before the error goes on. Returns what the
// client's workers sent.
std::vector<uint64_t> ServerSession::measure(const SizePlan& plan, WorkerControl& control,
                                             std::vector<WorkerOutcome>& out) {
  const uint32_t T = w_.threads;
  const ControlThreadAside aside(w_.cpus);
  std::vector<std::thread> threads;
  auto& ctxs = res_->workers();
  if (server_has_workers(w_))
    for (uint32_t t = 0; t < T; ++t)
      threads.emplace_back([&, t] { run_worker(w_, ctxs[t], plan, out[t]); });
  auto join_all = [&] {
    for (auto& th : threads)
      if (th.joinable()) th.join();
  };
  std::vector<uint64_t> posted;
  try {
    // A line a size: a long sweep's progress shows in the server's log (and a test can time a
    // fault to land in the measurement, whatever the setup cost).
    log_.line("session with " + chan_.peer() + ": size " + std::to_string(plan.size) + " started");
    chan_.send(to_message(StartedMsg{}));
    nlohmann::json fin = wait_client(&control, &out);
    if (fin[kMessageType] != PostedMsg::kFinish)
      throw PeerError(std::string("protocol error: expected '") + PostedMsg::kFinish + "', got '" +
                      fin[kMessageType].get<std::string>() + "'");
    posted = parse_posted(fin, T);
    if (uses_recv(w_.op))
      for (uint32_t t = 0; t < T; ++t) control.expected_recv[t].store(posted[t]);
    control.peer_finished.store(true);
    if (w_.bidir) finish_own_senders(control, out);
    join_all();
    throw_worker_error(out);
  } catch (...) {
    control.abort.store(true);
    join_all();
    throw;
  }
  return posted;
}

// Bidirectional: waits for this side's senders to be done, then tells the client what they
// sent (what its workers are to receive).
void ServerSession::finish_own_senders(WorkerControl& control,
                                       const std::vector<WorkerOutcome>& out) {
  auto deadline = std::chrono::steady_clock::now() + ms(w_.timeout_s + 5);
  while (control.senders_done.load() < w_.threads) {
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline) throw TimeoutError("the server's own senders did not finish");
    // Sleeps until a sender is done; a message from the client (an error) ends the wait too.
    const OobChannel::Ready ready =
        chan_.wait(std::chrono::ceil<milliseconds>(deadline - now), control.wake);
    if (ready.woken) control.wake.drain();
    if (ready.message) {
      // Only an error (or a closed connection) can arrive now; recv() throws it.
      nlohmann::json j = chan_.recv(milliseconds(1000), "the client's status");
      throw PeerError("protocol error: unexpected '" + j[kMessageType].get<std::string>() +
                      "' from the client while the server's senders finish");
    }
  }
  PostedMsg sent{PostedMsg::kSent, {}};
  for (auto& o : out) sent.posted.push_back(o.posted_total);
  chan_.send(to_message(sent));
}

// This side's figures for the client: what it received, whether that was right and,
// bidirectional, what its own workers measured.
SizeReplyMsg ServerSession::size_reply(uint64_t size, const std::vector<uint64_t>& posted,
                                       const std::vector<WorkerOutcome>& out) {
  uint64_t received = 0;
  uint64_t received_bytes = 0;
  uint64_t recv_post_calls = 0;
  for (auto& c : res_->workers()) {
    received += c.received;
    received_bytes += c.received_bytes;
    recv_post_calls += c.recv_post_calls;
  }
  SizeReplyMsg res{received,     received_bytes, recv_post_calls,
                   std::nullopt, std::nullopt,   std::nullopt};
  if (w_.verify) res.verify_error = verify_received(size, posted);
  if (w_.bidir) {
    uint64_t ops = 0;
    uint64_t t0 = UINT64_MAX;
    uint64_t t1 = 0;
    for (auto& o : out) {
      ops += o.measured.ops;
      t0 = std::min(t0, o.measured.t_start);
      t1 = std::max(t1, o.measured.t_end);
    }
    res.reverse = SizeReplyMsg::Reverse{ops, t1 > t0 ? clock_.to_ns(t1 - t0) / 1e9 : 0.0};
  }
  return res;
}

// Verification of what the client's operations left here (empty: all is well): the atomics'
// targets, or the received data (a read leaves nothing here to check).
std::string ServerSession::verify_received(uint64_t size,
                                           const std::vector<uint64_t>& posted) const {
  std::string err;
  if (w_.op == Op::kFetchAdd) {
    uint64_t sum = 0;
    uint64_t sent = 0;
    for (uint64_t v : res_->rx_words()) sum += v;
    for (uint64_t p : posted) sent += p;
    if (sum != sent)
      err = "fetch-and-add counters sum to " + std::to_string(sum) + ", expected " +
            std::to_string(sent) + " (one per operation)";
  } else if (w_.op == Op::kCmpSwap) {
    for (uint64_t v : res_->rx_words())
      if (v != kCasPattern) err = "compare-and-swap target changed to " + std::to_string(v);
  } else if (w_.op != Op::kRead) {
    err = res_->verify_rx(size, w_.mode == Mode::kLat && w_.op == Op::kWrite);
  }
  return err;
}

}  // namespace

int run_server_session(const ServerOptions& opt, OobChannel& chan, const nlohmann::json& hello,
                       const Clock& clock, SessionLog& log) {
  try {
    ServerSession s(opt, chan, clock, log);
    s.run(hello);
    log.line("session with " + chan.peer() + " done");
    return 0;
  } catch (const std::exception& e) {
    log.line("session with " + chan.peer() + " failed: " + e.what());
    // A workload this side cannot run is a refusal (the client's exit status says so).
    const bool refusal = dynamic_cast<const ConfigError*>(&e) != nullptr;
    try {
      chan.send(to_message(ErrorMsg{e.what(), refusal ? "refused" : ""}));
    } catch (...) {
    }
    return 1;
  }
}

}  // namespace rdmabench
