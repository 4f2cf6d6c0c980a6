// The server under hostile and concurrent load (testbed): while strangers hold, dribble, flood
// and garble connections to its port, legitimate clients are served and their tests complete
// with verified payloads; the server's descriptors and memory stay bounded and its log names
// the peers it turned away. Also: a second client while one runs, the busy answer, --once.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "base/oob_channel.h"
#include "base/version.h"
#include "engine/session_messages.h"
#include "engine/session_resources.h"
#include "tests/engine/process.h"
#include "verbs/cm.h"

namespace rdmabench::test {
namespace {

// Connects to addr:port from the local address `from` (127.0.0.N: each attacker its own source,
// as strangers on the network would be; "" = the kernel's choice).
int connect_to(const std::string& addr, int port, const std::string& from = "") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (!from.empty()) {
    sockaddr_in src{};
    src.sin_family = AF_INET;
    inet_pton(AF_INET, from.c_str(), &src.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
      ::close(fd);
      return -1;
    }
  }
  timeval tv{2, 0};  // never stuck in connect when the backlog is full
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, addr.c_str(), &sin.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string frame(const nlohmann::json& msg) {
  const std::string body = msg.dump();
  std::string out(kFrameHeaderBytes, '\0');
  encode_frame_header(static_cast<uint32_t>(body.size()),
                      std::span<uint8_t, kFrameHeaderBytes>(reinterpret_cast<uint8_t*>(out.data()),
                                                            kFrameHeaderBytes));
  return out + body;
}

long fd_count(pid_t pid) {
  long n = 0;
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (readdir(d) != nullptr) ++n;
    closedir(d);
  }
  return n - 2;  // . and ..
}

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long v = 0;
  while (f >> key)
    if (key == "VmRSS:" && f >> v) return v;
  return -1;
}

// A stranger's rdma_cm connect request to addr:port, with `private_data` (none when empty) and
// no QP of its own: returns the event it got ("RDMA_CM_EVENT_REJECTED 28" when a listener turned
// it away).
std::string cm_stranger(const std::string& addr, uint16_t port,
                        const std::vector<uint8_t>& private_data) {
  constexpr std::chrono::milliseconds kWait(20000);
  CmChannelPtr ch = create_cm_channel();
  CmIdPtr id = create_cm_id(ch.get());
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  inet_pton(AF_INET, addr.c_str(), &sin.sin_addr);
  if (rdma_resolve_addr(id.get(), nullptr, reinterpret_cast<sockaddr*>(&sin), 5000) != 0)
    return "rdma_resolve_addr failed";
  cm_expect(ch.get(), RDMA_CM_EVENT_ADDR_RESOLVED, kWait, "the stranger's address");
  if (rdma_resolve_route(id.get(), 5000) != 0) return "rdma_resolve_route failed";
  cm_expect(ch.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, kWait, "the stranger's route");
  rdma_conn_param cp{};
  // No QP: a request is all a stranger needs to send. Each stranger a QP number of its own: the
  // passive side's CM turns away a request naming a QP that another pending request names
  // (stale connection) before the listener sees it.
  static std::atomic<uint32_t> next_qpn{0x4242};
  cp.qp_num = next_qpn++;
  cp.retry_count = 7;
  cp.private_data = private_data.empty() ? nullptr : private_data.data();
  cp.private_data_len = static_cast<uint8_t>(private_data.size());
  if (rdma_connect(id.get(), &cp) != 0) return "rdma_connect failed";
  const CmEvent ev = cm_next(ch.get(), kWait, "the stranger's connect");
  std::string what = rdma_event_str(ev.type);
  // The reason of a rejection: 28 (consumer defined) when a listener called rdma_reject; the
  // CM's own otherwise (8, invalid service id: nobody listens on that port).
  if (ev.type == RDMA_CM_EVENT_REJECTED) what += " " + std::to_string(ev.status);
  return what;
}

// The ports rdmabench's rdma_cm ids listen on, as anyone on the host can list them (`rdma res
// show cm_id`): how a stranger finds a session's listener.
std::vector<uint16_t> cm_listen_ports() {
  std::vector<uint16_t> ports;
  FILE* p = ::popen("rdma -j res show cm_id 2>/dev/null", "r");
  if (p == nullptr) return ports;
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ::pclose(p);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return ports;
  // {"state": "LISTEN", "comm": "rdmabench", "src-addr": "198.18.0.1:41234", "pid": TID, ...}:
  // the pid is the thread's that made the id (a session's), so the program's name tells.
  for (const auto& e : j) {
    if (!e.is_object() || e.value("state", "") != "LISTEN" || e.value("comm", "") != "rdmabench")
      continue;
    const std::string src = e.value("src-addr", "");
    const size_t colon = src.rfind(':');
    if (colon != std::string::npos && colon + 1 < src.size())
      ports.push_back(static_cast<uint16_t>(std::stoul(src.substr(colon + 1))));
  }
  return ports;
}

// What a stranger's request gets from a session's listener (rdma_reject).
const std::string kRejectedByListener = "RDMA_CM_EVENT_REJECTED 28";

// Private data as the session's client sends it (QP index, padding, nonce).
std::vector<uint8_t> cm_private_data(uint32_t index, uint64_t nonce) {
  std::vector<uint8_t> pd(16, 0);
  std::memcpy(pd.data(), &index, sizeof index);
  std::memcpy(pd.data() + 8, &nonce, sizeof nonce);
  return pd;
}

class ServerLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dev_.empty()) << "run inside testbed/softroce run (RDMABENCH_TEST_* unset)";
  }
  std::unique_ptr<Background> server(std::vector<std::string> extra) {
    std::vector<std::string> a = {bin(), "server", "-d",  dev_, "-x",
                                  gid_,  "--bind", addr_, "-p", "0"};
    a.insert(a.end(), extra.begin(), extra.end());
    auto s = std::make_unique<Background>(a, true);
    std::string line;
    while ((line = s->line()).rfind("RDMABENCH_SERVER_READY ", 0) != 0 && !line.empty()) {
    }
    EXPECT_FALSE(line.empty()) << "no ready line";
    if (!line.empty()) port_ = nlohmann::json::parse(line.substr(23)).at("port").get<int>();
    return s;
  }
  std::vector<std::string> client(std::vector<std::string> extra) {
    std::vector<std::string> a = {bin(), "client", addr_, "-p", std::to_string(port_),
                                  "-d",  dev_,     "-x",  gid_};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string dev_ = env("RDMABENCH_TEST_DEVICE");
  std::string addr_ = env("RDMABENCH_TEST_ADDR");
  std::string gid_ = env("RDMABENCH_TEST_GID_INDEX");
  int port_ = 0;
};

// Reads a server's merged output (its log) as it comes, so that a chatty log never fills the
// pipe and stalls the server; wait_for() a line and text() while it runs (a failure message
// never waits for the server), final_text() once it has exited.
class LogDrain {
 public:
  explicit LogDrain(Background& b)
      : b_(b), t_([this] {
          for (std::string l; !(l = b_.line()).empty();) {
            const std::lock_guard<std::mutex> lock(mu_);
            text_ += l + "\n";
          }
        }) {}
  ~LogDrain() {  // the server goes first, so that the reader sees the end of its output
    b_.kill_now(SIGKILL);
    if (t_.joinable()) t_.join();
  }
  // What the log holds so far (the server may still be running).
  std::string text() {
    const std::lock_guard<std::mutex> lock(mu_);
    return text_;
  }
  // The whole log, once the server has exited (waits for the end of its output).
  const std::string& final_text() {
    if (t_.joinable()) t_.join();
    return text_;
  }
  // Whether `what` appeared in the log (at least `times` times) within `seconds`.
  bool wait_for(const std::string& what, int seconds, int times = 1) {
    for (int i = 0; i < seconds * 10; ++i) {
      {
        const std::lock_guard<std::mutex> lock(mu_);
        int seen = 0;
        for (size_t at = text_.find(what); at != std::string::npos; at = text_.find(what, at + 1))
          ++seen;
        if (seen >= times) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

 private:
  Background& b_;
  std::mutex mu_;
  std::string text_;
  std::thread t_;
};

TEST_F(ServerLoad, StrangersDoNotLockLegitimateClientsOut) {
  auto srv = server({"--token", "secret", "--handshake-timeout", "2"});
  LogDrain drain(*srv);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> tried{0};
  std::vector<std::thread> attackers;
  // Idle connections that never send a byte (several per attacker thread, reopened when
  // dropped), slow senders dribbling a byte a second, random bytes, oversized length
  // prefixes, hellos with a wrong token, and a connect/close flood.
  attackers.emplace_back([&] {
    std::vector<int> idle;
    while (!stop) {
      while (idle.size() < 40 && !stop) {
        const int fd = connect_to(addr_, port_, "127.0.0.2");
        ++tried;
        if (fd >= 0) idle.push_back(fd);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      for (int& fd : idle) {  // reopen what the server closed
        char c;
        if (::recv(fd, &c, 1, MSG_DONTWAIT) == 0) {
          ::close(fd);
          fd = -1;
        }
      }
      std::erase(idle, -1);
    }
    for (int fd : idle) ::close(fd);
  });
  attackers.emplace_back([&] {
    const std::string hello = frame({{"type", "hello"}, {"token", "secret"}});
    while (!stop) {
      const int fd = connect_to(addr_, port_, "127.0.0.3");
      ++tried;
      for (size_t i = 0; fd >= 0 && i < hello.size() && !stop; ++i) {
        if (::send(fd, &hello[i], 1, MSG_NOSIGNAL) != 1) break;
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      if (fd >= 0) ::close(fd);
    }
  });
  attackers.emplace_back([&] {
    std::mt19937 rng(7);
    while (!stop) {
      const int fd = connect_to(addr_, port_, "127.0.0.4");
      ++tried;
      if (fd < 0) continue;
      std::string junk(1 + rng() % 4096, '\0');
      for (char& c : junk) c = static_cast<char>(rng());
      (void)::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
      ::close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  attackers.emplace_back([&] {
    while (!stop) {
      const int fd = connect_to(addr_, port_, "127.0.0.5");
      ++tried;
      if (fd < 0) continue;
      std::string big = frame({{"type", "hello"}});
      big[8] = big[9] = big[10] = static_cast<char>(0x7f);  // a length far past the bound
      (void)::send(fd, big.data(), kFrameHeaderBytes, MSG_NOSIGNAL);
      const std::string wrong = frame({{"type", "hello"}, {"token", "guess"}});
      const int fd2 = connect_to(addr_, port_, "127.0.0.6");
      ++tried;
      if (fd2 >= 0) {
        (void)::send(fd2, wrong.data(), wrong.size(), MSG_NOSIGNAL);
        ::close(fd2);
      }
      ::close(fd);
      for (int i = 0; i < 10 && !stop; ++i) {  // flood: connect and close at once
        const int f = connect_to(addr_, port_, "127.0.0.7");
        ++tried;
        if (f >= 0) ::close(f);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  // The sessions' rdma_cm listeners too: whoever lists them (rdma res show cm_id) sends
  // connect requests without the nonce, with a guessed one, from several threads at once.
  std::atomic<uint64_t> cm_sent{0};
  std::atomic<uint64_t> cm_rejected{0};
  for (int t = 0; t < 2; ++t) {
    attackers.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(11 + t));
      while (!stop) {
        for (uint16_t port : cm_listen_ports()) {
          for (int k = 0; k < 4 && !stop; ++k) {
            ++cm_sent;
            const std::string ev = cm_stranger(
                addr_, port, k % 2 == 0 ? std::vector<uint8_t>{} : cm_private_data(0, rng()));
            if (ev == kRejectedByListener) ++cm_rejected;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the door is crowded before we come

  long max_fds = 0;
  long max_rss = 0;
  double slowest = 0;
  // Legitimate clients in a loop: write and send, over the TCP exchange and over rdma_cm
  // (4 QPs: a listener that stays open while they connect one by one).
  const int kClients = 6;
  for (int i = 0; i < kClients; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> args = {"--token", "secret", "--op", i % 2 ? "send" : "write",
                                     "-s",      "4K",     "-n",   "2000",
                                     "--verify"};
    if (i % 3 != 0) args.insert(args.end(), {"-R", "-q", "4"});
    RunOutput r = run(client(args), 180);
    slowest = std::max(
        slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(r.status, 0) << "legitimate client " << i << " was not served:\n" << r.out << r.err;
    max_fds = std::max(max_fds, fd_count(srv->pid()));
    max_rss = std::max(max_rss, rss_kib(srv->pid()));
  }
  stop = true;
  for (auto& t : attackers) t.join();
  // Bounded: the door holds at most --max-pending (32) strangers, plus the listener, the log
  // and a session's own descriptors (device, CQ channel, rdma_cm).
  EXPECT_LT(max_fds, 32 + 64) << "descriptors grew with the strangers";
  // Memory: a pending stranger costs at most its 64 KiB hello buffer, so 32 of them and a
  // session's 4 KiB buffers stay far below this.
  EXPECT_LT(max_rss, 128 * 1024) << "server RSS grew with the strangers (KiB)";
  RecordProperty("connections_tried", std::to_string(tried.load()));
  RecordProperty("legitimate_tests", kClients);
  RecordProperty("slowest_legitimate_run_s", std::to_string(slowest));
  RecordProperty("server_max_fds", std::to_string(max_fds));
  RecordProperty("server_max_rss_kib", std::to_string(max_rss));
  RecordProperty("rdma_cm_requests_sent", std::to_string(cm_sent.load()));
  RecordProperty("rdma_cm_requests_rejected", std::to_string(cm_rejected.load()));
  std::printf(
      "load: %llu connections tried, %llu rdma_cm requests sent to session listeners (%llu "
      "rejected by a listener), %d legitimate tests passed, slowest %.1f s, server fds max %ld, "
      "RSS max %ld "
      "KiB\n",
      static_cast<unsigned long long>(tried.load()),
      static_cast<unsigned long long>(cm_sent.load()),
      static_cast<unsigned long long>(cm_rejected.load()), kClients, slowest, max_fds, max_rss);
  srv->kill_now(SIGTERM);
  const std::string& log = drain.final_text();
  EXPECT_NE(log.find("dropped 127.0.0."), std::string::npos) << "log names no dropped peer";
  EXPECT_NE(log.find("refused 127.0.0."), std::string::npos) << "log names no refused peer";
  EXPECT_NE(log.find("token does not match"), std::string::npos);
  // Every rdma_cm request a listener turned away is in the log with its address and reason
  // (a request that came after the session connected found no listener: the CM rejected it).
  if (cm_rejected > 0) {
    EXPECT_NE(log.find("rdma_cm connect request(s) without the session's nonce: " + addr_),
              std::string::npos)
        << log;
  }
}

// A second legitimate client while one runs is served at once (concurrent sessions); beyond
// --max-sessions it is told at once that the server is busy (exit 5), never left to time out.
TEST_F(ServerLoad, ConcurrentSessionsUpToTheCapThenBusy) {
  auto srv = server({"--max-sessions", "2"});
  LogDrain drain(*srv);
  Background a(client({"--op", "write", "-s", "4K", "-D", "15", "--warmup-time", "0.5"}), true);
  Background b(client({"--op", "write", "-s", "4K", "-D", "15", "--warmup-time", "0.5"}), true);
  // Both sessions begun (their start lines logged: each counted as running) before the third
  // client: a slow start (a sanitizer build) must not let the third one in first.
  ASSERT_TRUE(drain.wait_for(" size(s), ", 120, 2)) << drain.text();
  const auto t0 = std::chrono::steady_clock::now();
  RunOutput busy = run(client({"--op", "write", "-n", "100"}), 60);
  const double answered =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(busy.status, 5) << busy.err;
  EXPECT_NE(busy.err.find("busy"), std::string::npos) << busy.err;
  RecordProperty("busy_answer_s", std::to_string(answered));
  EXPECT_EQ(a.wait_exit(120), 0) << a.rest();
  EXPECT_EQ(b.wait_exit(120), 0) << b.rest();
}

// --sessions N (a fabric round's server): N clients served at once, a later one told busy at
// once, and the server exits 0 when the N sessions have ended.
TEST_F(ServerLoad, SessionsServesNAtOnceThenExits) {
  auto srv = server({"--sessions", "2"});
  LogDrain drain(*srv);
  Background a(client({"--op", "write", "-s", "4K", "-D", "15", "--warmup-time", "0.5"}), true);
  Background b(client({"--op", "send", "-s", "4K", "-D", "15", "--warmup-time", "0.5"}), true);
  ASSERT_TRUE(drain.wait_for(" size(s), ", 120, 2)) << drain.text();  // both begun
  RunOutput late = run(client({"--op", "write", "-n", "100"}), 60);
  EXPECT_EQ(late.status, 5) << late.err;
  EXPECT_NE(late.err.find("it serves 2 sessions (--sessions)"), std::string::npos) << late.err;
  EXPECT_EQ(a.wait_exit(120), 0) << a.rest();
  EXPECT_EQ(b.wait_exit(120), 0) << b.rest();
  EXPECT_EQ(srv->wait_exit(60), 0) << drain.text();
}

// --once: strangers and refused clients never count as its session; the first authenticated
// session does, and the server exits with its status.
TEST_F(ServerLoad, OnceCountsOnlyAnAuthenticatedSession) {
  auto srv = server({"--once", "--token", "t"});
  LogDrain drain(*srv);
  for (int i = 0; i < 5; ++i) {
    const int fd = connect_to(addr_, port_);
    if (fd >= 0) ::close(fd);
  }
  RunOutput wrong = run(client({"--token", "x", "-n", "100"}), 60);
  EXPECT_EQ(wrong.status, 3) << wrong.err;
  RunOutput none = run(client({"-n", "100"}), 60);  // no token at all
  EXPECT_EQ(none.status, 3) << none.err;
  EXPECT_NE(none.err.find("token"), std::string::npos) << none.err;
  RunOutput ok = run(client({"--token", "t", "-n", "100", "--verify"}), 120);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(srv->wait_exit(60), 0) << drain.text();
}

// A client that goes silent mid-measurement without closing its connection (stopped, or its
// host gone: a half-open connection) is detected by the server, which ends that session with a
// log line and goes on serving.
TEST_F(ServerLoad, HalfOpenClientIsDetectedAndServerGoesOn) {
  auto srv = server({});
  LogDrain drain(*srv);
  Background c(client({"--op", "write", "-s", "4K", "-D", "60", "--timeout", "3"}), true);
  ASSERT_TRUE(drain.wait_for(" started", 120)) << drain.text();
  std::this_thread::sleep_for(std::chrono::seconds(3));  // into the measurement
  ::kill(c.pid(), SIGSTOP);
  EXPECT_TRUE(drain.wait_for("went silent", 60)) << "the server did not notice the silence";
  ::kill(c.pid(), SIGKILL);
  ::kill(c.pid(), SIGCONT);
  RunOutput next = run(client({"--op", "write", "-n", "100", "--verify"}), 120);
  EXPECT_EQ(next.status, 0) << next.err;
}

// The rdma_cm listener of a session: it is reachable by anyone who finds its port (`rdma
// resource show cm_id` lists it), so it accepts only requests carrying the session's nonce.
// The test is the session's client, speaking the protocol itself: between the server's accept
// (which names the port and the nonce) and its own connect, strangers send requests without
// private data and with a wrong nonce; each is rejected, the session connects and ends cleanly,
// and the server names the rejected requests in its log and serves the next client.
TEST_F(ServerLoad, RdmaCmListenerRejectsStrangersAndTheSessionConnects) {
  auto srv = server({"--token", "secret"});
  LogDrain drain(*srv);
  Workload w;
  w.connect = ConnectMethod::kRdmaCm;
  w.sizes = {4096};
  constexpr std::chrono::milliseconds kWait(60000);
  OobChannel chan = OobChannel::connect(addr_, static_cast<uint16_t>(port_), kWait);
  chan.send(to_message(HelloMsg{kVersion, "secret", w, std::nullopt}));
  const AcceptMsg accept = parse_accept(chan.expect(AcceptMsg::kType, kWait), true);
  ASSERT_NE(accept.cm_port, 0);
  // A flood from 4 threads at once: requests without private data, with a wrong nonce, and
  // with the right nonce but a QP index the session does not have; every one is rejected.
  constexpr int kThreads = 4;
  constexpr int kEach = 6;
  std::atomic<int> rejected{0};
  std::vector<std::thread> flood;
  for (int t = 0; t < kThreads; ++t)
    flood.emplace_back([&, t] {
      for (int k = 0; k < kEach; ++k) {
        const int kind = (t + k) % 3;
        const std::vector<uint8_t> pd = kind == 0   ? std::vector<uint8_t>{}
                                        : kind == 1 ? cm_private_data(0, accept.cm_nonce ^ 1)
                                                    : cm_private_data(99, accept.cm_nonce);
        if (cm_stranger(addr_, accept.cm_port, pd) == kRejectedByListener) ++rejected;
      }
    });
  for (auto& t : flood) t.join();
  EXPECT_EQ(rejected.load(), kThreads * kEach);
  {
    SessionResources fab(w, LocalSettings{dev_, 1, std::stoi(gid_), ""}, true);
    fab.cm_connect(addr_, accept.cm_port, accept.cm_nonce, kWait);
    chan.send(to_message(EndpointsMsg{fab.local_side()}));
    fab.set_remote(parse_endpoints(chan.expect(EndpointsMsg::kType, kWait)).side);
    fab.post_initial_receives();
    chan.send(to_message(ReadyMsg{}));
    chan.expect(ReadyMsg::kType, kWait);
    chan.send(to_message(ByeMsg{}));
    chan.expect(ByeMsg::kType, kWait);
  }
  EXPECT_TRUE(drain.wait_for("rejected " + std::to_string(kThreads * kEach) +
                                 " rdma_cm connect request(s) without the session's nonce: ",
                             60))
      << drain.text();
  for (const char* why :
       {" (no session nonce) x8", " (wrong nonce) x8", " (QP index out of range) x8"})
    EXPECT_TRUE(drain.wait_for(addr_ + why, 1)) << "the log does not name " << addr_ << why << ":\n"
                                                << drain.text();
  EXPECT_TRUE(drain.wait_for(" done", 60)) << drain.text();
  RunOutput next = run(client({"-R", "--token", "secret", "-n", "200", "--verify"}), 120);
  EXPECT_EQ(next.status, 0) << next.err;
}

// Exit status 130: a client interrupted mid-run by SIGINT (docs/single-pair.md "Exit status").
TEST_F(ServerLoad, InterruptedClientExits130) {
  auto srv = server({});
  LogDrain drain(*srv);
  Background c(client({"--op", "write", "-s", "4K", "-D", "20"}), true);
  std::this_thread::sleep_for(std::chrono::seconds(4));
  ::kill(c.pid(), SIGINT);
  EXPECT_EQ(c.wait_exit(60), 130) << c.rest();
}

}  // namespace
}  // namespace rdmabench::test
