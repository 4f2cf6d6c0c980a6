#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/counters.h"
#include "base/error.h"
#include "base/oob_channel.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "engine/device_checks.h"
#include "engine/device_counters.h"
#include "engine/interval_meter.h"
#include "engine/session.h"
#include "engine/session_messages.h"
#include "engine/size_runner.h"

namespace rdmabench {
namespace {

// The error of a timed size whose window saw no completion.
std::string nothing_completed(double window_s, double after_s) {
  char text[320];
  std::snprintf(text, sizeof text,
                "no operation completed in the %.3g s measured (what was posted completed in the "
                "%.3g s after it): the link or the peer stalled (retransmissions, a policer, a "
                "paused port); no rate or latency to report",
                window_s, after_s);
  return text;
}

using std::chrono::milliseconds;

// Round trips each latency worker keeps as they are (8 MiB), for exact percentiles.
constexpr uint64_t kExactSamplesPerThread = uint64_t{1} << 20;

milliseconds ms(double s) { return milliseconds(static_cast<int64_t>(s * 1000)); }

class ClientSession {
 public:
  ClientSession(const ClientOptions& opt, RunResult& result,
                std::function<void(uint64_t, const IntervalResult&)> on_interval)
      : opt_(opt),
        w_(opt.workload),
        result_(result),
        clock_(Clock::calibrate()),
        on_interval_(std::move(on_interval)) {}

  void run(const std::function<void(const SizeResult&)>& on_size);
  const std::string& phase() const noexcept { return phase_; }

 private:
  SizeResult run_size(size_t index, uint64_t size);
  // The steps of run_size, in order.
  SizePlan plan_size(uint64_t size, SizeResult& r) const;
  void make_histograms(const SizePlan& plan, std::vector<WorkerOutcome>& out) const;
  void measure(const SizePlan& plan, WorkerControl& control, std::vector<WorkerOutcome>& out,
               std::optional<IntervalMeter>& meter);
  uint64_t add_thread_results(const SizePlan& plan, const std::vector<WorkerOutcome>& out,
                              SizeResult& r) const;
  OpenLoopResult open_loop_result(const std::vector<WorkerOutcome>& out) const;
  LatencyResult latency_result(std::vector<WorkerOutcome>& out) const;
  void add_server_figures(uint64_t size, const SizeReplyMsg& res, SizeResult& r) const;
  void verify_size(uint64_t size, const SizeReplyMsg& res, SizeResult& r) const;
  void wait_senders(WorkerControl& control, uint32_t workers, IntervalMeter* meter);
  void wait_for_start_time();
  // Latency: half the round trip (send/write ping-pong) or all of it (read, atomics; open loop:
  // the response time from the intended send), and the ns per histogram unit that makes it.
  bool half_round_trip() const noexcept { return !is_fetch(w_.op) && !w_.open_loop(); }
  double latency_unit_ns() const noexcept {
    return clock_.ns_per_tick() * (half_round_trip() ? 0.5 : 1.0);
  }

  const ClientOptions& opt_;
  const Workload& w_;
  RunResult& result_;
  Clock clock_;
  OobChannel chan_;
  std::unique_ptr<SessionResources> res_;
  std::function<void(uint64_t, const IntervalResult&)> on_interval_;
  std::string phase_ = "connection to the server";
};

void ClientSession::run(const std::function<void(const SizeResult&)>& on_size) {
  result_.clock = {clock_.source(),
                   clock_.tsc_hz(),
                   clock_.fallback_reason(),
                   clock_.invariant_tsc(),
                   clock_.tsc_note(),
                   clock_.read_cost_ns(),
                   0,
                   true};
  const milliseconds timeout = ms(std::max(w_.timeout_s, 1.0));
  // Creating and connecting resources can take long on a loaded or emulated host.
  const milliseconds setup_timeout = timeout + milliseconds(60000);
  chan_ = OobChannel::connect(opt_.server, opt_.port, timeout);
  phase_ = "handshake";
  chan_.send(to_message(HelloMsg{kVersion, opt_.token, w_, result_.client_host}));
  const AcceptMsg accept =
      parse_accept(chan_.expect(AcceptMsg::kType, timeout + milliseconds(30000)),
                   w_.connect == ConnectMethod::kRdmaCm);
  result_.server_host = accept.host;
  result_.server_device = accept.device;
  phase_ = "resource setup";
  const auto setup_start = std::chrono::steady_clock::now();
  res_ = std::make_unique<SessionResources>(w_, opt_.local, true);
  phase_ = "connection setup";
  result_.client_device = res_->describe();
  if (w_.connect == ConnectMethod::kRdmaCm) {
    res_->cm_connect(opt_.server, accept.cm_port, accept.cm_nonce, timeout);
    chan_.send(to_message(EndpointsMsg{res_->local_side()}));
    res_->set_remote(parse_endpoints(chan_.expect(EndpointsMsg::kType, setup_timeout)).side);
  } else {
    res_->create_qps();
    chan_.send(to_message(EndpointsMsg{res_->local_side()}));
    res_->connect_qps(parse_endpoints(chan_.expect(EndpointsMsg::kType, setup_timeout)).side);
  }
  res_->post_initial_receives();
  chan_.send(to_message(ReadyMsg{}));
  chan_.expect(ReadyMsg::kType, setup_timeout);
  result_.setup["client"] = res_->setup_info(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count());

  const std::string dev = res_->device().info().name;
  CounterSnapshot before = read_device_counters(dev, opt_.local.port);
  for (size_t i = 0; i < w_.sizes.size(); ++i) {
    phase_ = "the test of size " + std::to_string(w_.sizes[i]);
    SizeResult r;
    try {
      r = run_size(i, w_.sizes[i]);
    } catch (const std::exception& e) {
      r.size = w_.sizes[i];
      r.error = e.what();
      result_.results.push_back(r);
      if (on_size) on_size(r);
      throw;
    }
    result_.results.push_back(r);
    if (on_size) on_size(r);
  }
  phase_ = "teardown";
  // The TSC's rate over the whole run against its calibration: a TSC that changed its rate
  // (possible where it is not advertised invariant) made every figure above wrong.
  result_.clock.drift = clock_.drift();
  result_.clock.steady = std::abs(result_.clock.drift) <= Clock::kMaxSpread;
  result_.counters["client"] = counter_deltas(before, read_device_counters(dev, opt_.local.port));
  chan_.send(to_message(ByeMsg{}));
  try {
    const ByeMsg bye = parse_bye(chan_.expect(ByeMsg::kType, timeout));
    if (bye.counters) result_.counters["server"] = *bye.counters;
    if (bye.setup) result_.setup["server"] = *bye.setup;
  } catch (const Error&) {
    // The results are complete; a server that vanished after them does not spoil them.
  }
}

void ClientSession::wait_senders(WorkerControl& control, uint32_t workers, IntervalMeter* meter) {
  constexpr milliseconds kBeat(1000);
  // --run-infinitely: how often to look at the stop flag a signal sets.
  constexpr milliseconds kStopLook(200);
  // The first heartbeat at once: the server's wait for it began when it answered the start.
  auto last_beat = std::chrono::steady_clock::now() - kBeat;
  while (control.senders_done.load() < workers) {
    // Sleeps until a worker is done (or fails), the server says something, the next heartbeat
    // or interval is due: no timer wake-ups in between, as each would preempt a busy-polling
    // worker on a machine whose cores are all taken.
    auto wait =
        std::chrono::ceil<milliseconds>(last_beat + kBeat - std::chrono::steady_clock::now());
    if (meter != nullptr) wait = std::min(wait, meter->until_due());
    if (opt_.stop != nullptr) wait = std::min(wait, kStopLook);
    const OobChannel::Ready ready = chan_.wait(wait, control.wake);
    if (ready.woken) control.wake.drain();
    if (meter != nullptr) meter->tick();
    if (opt_.stop != nullptr && opt_.stop->load()) control.stop.store(true);
    auto now = std::chrono::steady_clock::now();
    if (now - last_beat >= kBeat) {
      chan_.send(to_message(HeartbeatMsg{}));
      last_beat = now;
    }
    if (ready.message) {
      // Only an error (or a closed connection) can arrive now; recv() throws it.
      nlohmann::json j = chan_.recv(milliseconds(1000), "the server's status");
      throw PeerError("protocol error: unexpected '" + j[kMessageType].get<std::string>() +
                      "' from the server during the measurement");
    }
  }
}

void ClientSession::wait_for_start_time() {
  using std::chrono::system_clock;
  const double at = *opt_.start_at;
  const double now = realtime_unix_s();
  if (at > now)
    std::this_thread::sleep_until(system_clock::time_point(
        std::chrono::duration_cast<system_clock::duration>(std::chrono::duration<double>(at))));
  result_.setup["start"] = {{"at_unix_s", at},
                            {"waited_s", std::max(0.0, at - now)},
                            {"late_s", std::max(0.0, now - at)}};
}

// One size: the workers measure it while this thread keeps the server informed, then the
// figures of both sides make its result.
SizeResult ClientSession::run_size(size_t index, uint64_t size) {
  const milliseconds timeout = ms(std::max(w_.timeout_s, 1.0));
  SizeResult r;
  r.size = size;
  res_->prepare_size(size);
  const SizePlan plan = plan_size(size, r);
  std::vector<WorkerOutcome> out(w_.threads);
  make_histograms(plan, out);
  // The port's counters over the size (results[].counters), this side's and the server's.
  const std::string dev = res_->device().info().name;
  const CounterSnapshot before = read_device_counters(dev, opt_.local.port);
  chan_.send(to_message(StartMsg{index, size}));
  // The server fills its buffers and starts its workers first: like its setup, seconds on a
  // loaded or emulated host (the server allows as much for the next request).
  chan_.expect(StartedMsg::kType, timeout + milliseconds(30000));
  // The server is ready for this size and tolerates the client's silence up to the timeout,
  // which bounds how far ahead --start-at may lie.
  if (index == 0 && opt_.start_at) wait_for_start_time();

  WorkerControl control(w_.threads);
  std::optional<IntervalMeter> meter;
  measure(plan, control, out, meter);
  const SizeReplyMsg res =
      parse_size_reply(chan_.expect(SizeReplyMsg::kType, timeout + ms(1)), w_.verify, w_.bidir);

  r.counters["client"] = counter_deltas(before, read_device_counters(dev, opt_.local.port));
  if (res.counters) r.counters["server"] = *res.counters;
  const uint64_t t1 = add_thread_results(plan, out, r);
  // A timed run that completed nothing in its window measured no rate (its work completed in the
  // drain after it, if at all): said as the size's error, not reported as 0 Gb/s.
  if (w_.timed() && r.ops == 0)
    r.error = nothing_completed(r.seconds, clock_.to_ns(clock_.now() - t1) / 1e9);
  r.recv_post_calls = res.recv_post_calls;
  if (w_.open_loop()) r.open_loop = open_loop_result(out);
  if (meter) meter->finish(r.ops, t1, r);  // before the histograms are merged
  if (w_.mode == Mode::kLat) r.latency = latency_result(out);
  add_server_figures(size, res, r);
  if (w_.verify) verify_size(size, res, r);
  return r;
}

// What each worker does for the size (timed runs count nothing), and for bandwidth how often a
// send is signalled.
SizePlan ClientSession::plan_size(uint64_t size, SizeResult& r) const {
  SizePlan plan{size, w_.timed() ? 0 : w_.effective_warmup(),
                w_.timed() ? 0 : w_.effective_iterations(), true};
  if (w_.mode == Mode::kBw)
    r.signal_every = w_.bw_signal_every(size, w_.timed() ? UINT64_MAX : plan.iterations);
  return plan;
}

// The histograms before the start: their kept samples (up to 8 MiB a thread, written now so
// the measurement takes no page fault) cost up to a second on an emulated CPU, which must not
// eat into the server's wait for the first heartbeat.
void ClientSession::make_histograms(const SizePlan& plan, std::vector<WorkerOutcome>& out) const {
  if (w_.mode == Mode::kLat)
    for (auto& o : out) {
      // Ticks up to one hour; the histogram's relative error is what the user asked for. Every
      // round trip is kept too, up to kExactSamplesPerThread, for exact percentiles.
      uint64_t hour_ticks = static_cast<uint64_t>(3600e9 / clock_.ns_per_tick());
      const uint64_t expected = w_.timed() ? kExactSamplesPerThread : plan.iterations;
      o.hist = std::make_unique<Histogram>(hour_ticks, opt_.histogram_error,
                                           std::min<uint64_t>(expected, kExactSamplesPerThread));
    }
}

// The measurement: runs the workers to the end while heartbeats (and intervals) go on, tells the
// server what they sent and, bidirectional, learns what it sent. On a failure the workers are
// stopped and the server told before the error goes on. `meter` outlives the call: it closes
// its last interval from the totals.
void ClientSession::measure(const SizePlan& plan, WorkerControl& control,
                            std::vector<WorkerOutcome>& out, std::optional<IntervalMeter>& meter) {
  const milliseconds timeout = ms(std::max(w_.timeout_s, 1.0));
  const uint32_t T = w_.threads;
  const uint64_t size = plan.size;
  res_->bind_control(&control, &clock_, w_.timeout_s);
  if (!w_.timed() && w_.bidir)
    for (auto& e : control.expected_recv)
      e.store((plan.warmup + plan.iterations) * w_.qps_per_thread);
  const ControlThreadAside aside(w_.cpus);
  std::vector<std::thread> threads;
  threads.reserve(T);
  auto& ctxs = res_->workers();
  for (uint32_t t = 0; t < T; ++t)
    threads.emplace_back([&, t] { run_worker(w_, ctxs[t], plan, out[t]); });
  auto join_all = [&] {
    for (auto& th : threads)
      if (th.joinable()) th.join();
  };
  // --interval (and --min-gbps): the rate every interval, from what the workers show.
  if (w_.interval_s > 0) {
    std::vector<const Histogram*> hists;
    for (const auto& o : out)
      if (o.hist) hists.push_back(o.hist.get());
    meter.emplace(w_.interval_s, size, clock_, control, std::move(hists), latency_unit_ns(),
                  [this, size](const IntervalResult& iv) {
                    if (on_interval_) on_interval_(size, iv);
                  });
    // The client's port counters per interval (a few dozen sysfs reads on this thread, not
    // the workers').
    meter->read_counters_with([dev = res_->device().info().name, port = opt_.local.port] {
      return read_device_counters(dev, port);
    });
  }
  try {
    wait_senders(control, T, meter ? &*meter : nullptr);
    throw_worker_error(out);
    PostedMsg finish{PostedMsg::kFinish, {}};
    for (auto& o : out) finish.posted.push_back(o.posted_total);
    chan_.send(to_message(finish));
    if (w_.bidir) {
      const std::vector<uint64_t> sp =
          parse_posted(chan_.expect(PostedMsg::kSent, timeout + ms(w_.duration_s + 10)), T);
      for (uint32_t t = 0; t < T; ++t) control.expected_recv[t].store(sp[t]);
      control.peer_finished.store(true);
    }
    join_all();
    throw_worker_error(out);
  } catch (const std::exception& e) {
    phase_ = std::string("the ") + control.phase.load() + " of size " + std::to_string(size);
    control.abort.store(true);
    join_all();
    try {
      chan_.send(to_message(ErrorMsg{std::string("the client failed: ") + e.what(), ""}));
    } catch (...) {
    }
    throw;
  }
}

// Aggregate: each worker's figures and their totals over the window from the first worker's
// start to the last one's end. Returns that end (ticks).
uint64_t ClientSession::add_thread_results(const SizePlan& plan,
                                           const std::vector<WorkerOutcome>& out,
                                           SizeResult& r) const {
  const uint64_t size = plan.size;
  uint64_t t0 = UINT64_MAX;
  uint64_t t1 = 0;
  double cpu_user = 0;
  double cpu_sys = 0;
  uint64_t voluntary = 0;
  uint64_t involuntary = 0;
  for (uint32_t t = 0; t < w_.threads; ++t) {
    const WorkerOutcome& o = out[t];
    ThreadResult tr;
    tr.thread = t;
    tr.ops = o.measured.ops;
    tr.bytes = o.measured.ops * size;
    tr.seconds = clock_.to_ns(o.measured.t_end - o.measured.t_start) / 1e9;
    tr.gbps = gbps(tr.bytes, tr.seconds);
    tr.mmsg_per_s = mmsg_per_s(tr.ops, tr.seconds);
    tr.cpu = o.cpu;
    r.threads.push_back(tr);
    r.ops += tr.ops;
    r.sent_messages += o.posted_total;
    t0 = std::min(t0, o.measured.t_start);
    t1 = std::max(t1, o.measured.t_end);
    cpu_user += o.cpu.user_s;
    cpu_sys += o.cpu.sys_s;
    voluntary += o.cpu.voluntary_switches.value_or(0);
    involuntary += o.cpu.involuntary_switches.value_or(0);
  }
  r.bytes = r.ops * size;
  r.seconds = clock_.to_ns(t1 - t0) / 1e9;
  // The window on the realtime clock: ticks counted back from one reading of both, now.
  const uint64_t tick_now = clock_.now();
  const double unix_now = realtime_unix_s();
  if (t1 >= t0 && tick_now >= t1)
    r.window = MeasurementWindow{unix_now - clock_.to_ns(tick_now - t0) / 1e9,
                                 unix_now - clock_.to_ns(tick_now - t1) / 1e9};
  r.gbps = gbps(r.bytes, r.seconds);
  r.mmsg_per_s = mmsg_per_s(r.ops, r.seconds);
  r.iterations = w_.timed() ? r.ops / w_.total_qps() : plan.iterations;
  for (const auto& c : res_->workers()) r.send_post_calls += c.post_calls;
  r.cpu = {cpu_user, cpu_sys, r.seconds > 0 ? (cpu_user + cpu_sys) / r.seconds : 0, voluntary,
           involuntary};
  return t1;
}

// Open loop: the rate asked for, the rate the workers kept and how late their sends were.
OpenLoopResult ClientSession::open_loop_result(const std::vector<WorkerOutcome>& out) const {
  OpenLoopResult ol;
  ol.rate = w_.rate;
  double achieved = 0;
  uint64_t max_lag = 0;
  for (const auto& o : out) {
    const PhaseStats& m = o.measured;
    ol.sends += m.ops;
    ol.late_sends += m.late;
    max_lag = std::max(max_lag, m.max_lag);
    if (m.ops > 1 && m.last_post > m.first_post)
      achieved += double(m.ops - 1) / (clock_.to_ns(m.last_post - m.first_post) / 1e9);
  }
  ol.achieved_rate = achieved / w_.threads;
  ol.max_send_lag_ns = clock_.to_ns(max_lag);
  return ol;
}

// Latency: the workers' histograms merged into the first one, in ns.
LatencyResult ClientSession::latency_result(std::vector<WorkerOutcome>& out) const {
  Histogram& h = *out[0].hist;
  for (uint32_t t = 1; t < w_.threads; ++t) h.merge(*out[t].hist);
  const bool half = half_round_trip();
  const double unit = latency_unit_ns();
  LatencyResult lr;
  lr.kind = half ? "half_round_trip" : "round_trip";
  lr.summary = summarize(h, unit);
  lr.max_relative_error = h.max_relative_error();
  lr.percentiles = h.percentile_method();
  for (const auto& b : h.nonzero_buckets())
    lr.buckets.push_back({double(b.low) * unit, double(b.high) * unit, double(b.count)});
  return lr;
}

// What the server counted: the messages it received (and so the ones lost, unreliable sends)
// and, bidirectional, its own direction.
void ClientSession::add_server_figures(uint64_t size, const SizeReplyMsg& res,
                                       SizeResult& r) const {
  r.received_messages = res.received;
  r.received_bytes = res.received_bytes;
  if (w_.qp != QpType::kRc && uses_recv(w_.op) && w_.mode == Mode::kBw)
    r.lost_messages =
        r.sent_messages > r.received_messages ? r.sent_messages - r.received_messages : 0;
  if (res.reverse) {
    DirectionResult d;
    d.ops = res.reverse->ops;
    d.bytes = d.ops * size;
    d.seconds = res.reverse->seconds;
    d.gbps = gbps(d.bytes, d.seconds);
    d.mmsg_per_s = mmsg_per_s(d.ops, d.seconds);
    r.reverse = d;
  }
}

// Verification: the server checked what it received; we check what came back to us.
void ClientSession::verify_size(uint64_t size, const SizeReplyMsg& res, SizeResult& r) const {
  std::string err = res.verify_error.value_or("");
  if (!err.empty()) err = "server: " + err;
  if (err.empty()) {
    bool check_rx = w_.op == Op::kRead || (w_.mode == Mode::kLat && !is_fetch(w_.op)) ||
                    (w_.bidir && !is_fetch(w_.op));
    if (check_rx) err = res_->verify_rx(size, w_.mode == Mode::kLat && w_.op == Op::kWrite);
    if (w_.op == Op::kCmpSwap)
      for (uint64_t v : res_->rx_words())
        if (v != kCasPattern)
          err = "compare-and-swap returned " + std::to_string(v) +
                ", expected the original value " + std::to_string(kCasPattern);
    if (!err.empty()) err = "client: " + err;
  }
  if (!err.empty()) {
    r.error = "verification failed: " + err;
  } else {
    r.verified = true;
  }
}

}  // namespace

RunResult run_client(const ClientOptions& options,
                     const std::function<void(const SizeResult&)>& on_size,
                     const std::function<void(uint64_t, const IntervalResult&)>& on_interval) {
  validate(options.workload);
  // The server learns the connect method from the hello: resolve "auto" from our device now.
  ClientOptions opt = options;
  const std::string transport = device_transport(opt.local.device);
  if (transport.empty()) (void)Device::open(opt.local.device);  // throws, listing the devices
  opt.workload.connect = resolve_connect(opt.workload.connect, opt.workload.qp, transport);
  check_local_device(opt.workload, opt.local);  // before anything goes to the server
  RunResult result;
  result.tool_version = kVersion;
  result.start_time = utc_now();
  result.client_host = local_host_info();
  result.workload = opt.workload;
  result.server_address = opt.server + ":" + std::to_string(opt.port);
  ClientSession s(opt, result, on_interval);
  try {
    s.run(on_size);
  } catch (const ConfigError& e) {
    result.error = e.what();
    result.failure = RunResult::Failure::kBadInput;
  } catch (const PeerReportedError& e) {
    result.error = "during " + s.phase() + ": " + e.what();
    result.failure = e.code() == "busy"      ? RunResult::Failure::kBusy
                     : e.code() == "refused" ? RunResult::Failure::kRefused
                                             : RunResult::Failure::kFailed;
  } catch (const TimeoutError& e) {
    result.error = "during " + s.phase() + ": " + e.what();
    result.failure = RunResult::Failure::kTimeout;
  } catch (const std::exception& e) {
    result.error = "during " + s.phase() + ": " + e.what();
    result.failure = RunResult::Failure::kFailed;
  }
  if (result.error.empty())
    for (const auto& r : result.results)
      if (!r.error.empty()) {
        result.error = "size " + std::to_string(r.size) + ": " + r.error;
        result.failure = RunResult::Failure::kFailed;
        break;
      }
  return result;
}

}  // namespace rdmabench
