// Faults on the testbed: a peer killed at each phase, silent or foreign peers, bad local
// settings. The survivor must exit non-zero within a bounded time with a message naming the
// phase and the cause — never hang — and a server must keep serving.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/engine/process.h"

namespace rdmabench::test {
namespace {

std::string env(const char* n) {
  const char* v = std::getenv(n);
  return v != nullptr ? v : "";
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dev_.empty()) << "run inside testbed/softroce run (RDMABENCH_TEST_* unset)";
  }
  // Starts a server; returns it with its port filled in.
  std::unique_ptr<Background> server(std::string& port, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {RDMABENCH_BIN, "server", "-d", dev_, "-x", gid_, "--bind", addr_, "-p", "0"};
    a.insert(a.end(), extra.begin(), extra.end());
    auto s = std::make_unique<Background>(a);
    std::string line = s->line();
    const std::string tag = "RDMABENCH_SERVER_READY ";
    EXPECT_EQ(line.rfind(tag, 0), 0u) << line;
    if (line.rfind(tag, 0) == 0)
      port = std::to_string(nlohmann::json::parse(line.substr(tag.size())).at("port").get<int>());
    return s;
  }
  std::vector<std::string> client_args(const std::string& port, std::vector<std::string> extra) {
    std::vector<std::string> a = {RDMABENCH_BIN, "client", addr_, "-p", port, "-d", dev_, "-x", gid_};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  // Runs a client in the background, kills the server after `delay`, and checks the client
  // fails in bounded time naming `phase` and one of `causes`.
  void kill_server_during(std::vector<std::string> workload, double delay_s, const std::string& phase) {
    std::string port;
    auto srv = server(port);
    auto args = client_args(port, workload);
    args.insert(args.end(), {"--timeout", "3"});
    Background cli(args, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(delay_s * 1000)));
    srv->kill_now(SIGKILL);
    auto t0 = std::chrono::steady_clock::now();
    int status = cli.wait_exit(60);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_NE(status, -1) << "the client hung after its server was killed";
    std::string out = cli.rest();
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find(phase), std::string::npos) << "phase not named:\n" << out;
    const bool cause = out.find("closed the connection") != std::string::npos ||
                       out.find("retry") != std::string::npos ||
                       out.find("no progress") != std::string::npos ||
                       out.find("lost the connection") != std::string::npos;
    EXPECT_TRUE(cause) << "cause not named:\n" << out;
    RecordProperty("seconds_to_fail", std::to_string(took));
  }

  std::string dev_ = env("RDMABENCH_TEST_DEVICE");
  std::string addr_ = env("RDMABENCH_TEST_ADDR");
  std::string gid_ = env("RDMABENCH_TEST_GID_INDEX");
};

TEST_F(Faults, ServerKilledDuringBwMeasurement) {
  kill_server_during({"--op", "write", "-s", "4K", "-D", "30", "--warmup-time", "0.5"}, 4, "measurement");
}

TEST_F(Faults, ServerKilledDuringSendBwMeasurement) {
  kill_server_during({"--op", "send", "-s", "1K", "-D", "30", "--warmup-time", "0.5"}, 4, "measurement");
}

TEST_F(Faults, ServerKilledDuringWarmup) {
  kill_server_during({"--op", "write", "-s", "4K", "-D", "5", "--warmup-time", "30"}, 4, "warm-up");
}

TEST_F(Faults, ServerKilledDuringLatMeasurement) {
  kill_server_during({"--op", "send", "--mode", "lat", "-s", "64", "-D", "30", "--warmup-time", "0.5"}, 4,
                     "measurement");
}

TEST_F(Faults, ServerKilledDuringRdmaCmMeasurement) {
  kill_server_during({"-R", "--op", "write", "-s", "4K", "-D", "30", "--warmup-time", "0.5"}, 4, "measurement");
}

TEST_F(Faults, ClientKilledServerKeepsServing) {
  std::string port;
  auto srv = server(port);
  {
    Background cli(client_args(port, {"--op", "send", "-s", "1K", "-D", "30", "--warmup-time", "0.5"}), true);
    std::this_thread::sleep_for(std::chrono::seconds(4));
    cli.kill_now(SIGKILL);
  }
  // The server noticed, logged, and serves the next client.
  RunOutput ok = run(client_args(port, {"--op", "write", "-s", "1K", "-n", "200", "--verify"}), 120);
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
}

// A peer that accepts the TCP connection and never answers: the client gives up in bounded time.
TEST_F(Faults, SilentServerTimesOut) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof sin;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len);
  RunOutput r = run({RDMABENCH_BIN, "client", "127.0.0.1", "-p", std::to_string(ntohs(sin.sin_port)),
                     "--timeout", "1"},
                    120);
  ::close(fd);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("timed out waiting for 'accept'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("handshake"), std::string::npos) << r.err;
}

// Something that is not rdmabench talks to the server: dropped with a log line; the server goes on.
TEST_F(Faults, ForeignPeerIsDroppedAndServerContinues) {
  std::string port;
  auto srv = server(port);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(std::stoi(port)));
  inet_pton(AF_INET, addr_.c_str(), &sin.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin), 0);
  const char junk[] = "GET / HTTP/1.0\r\n\r\n";
  ASSERT_GT(::send(fd, junk, sizeof junk - 1, 0), 0);
  char buf[256];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);  // the server answers with an error frame or closes
  (void)n;
  ::close(fd);
  RunOutput ok = run(client_args(port, {"--op", "write", "-s", "64", "-n", "100"}), 120);
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
}

TEST_F(Faults, TokenMismatchIsRefusedAndServerContinues) {
  std::string port;
  auto srv = server(port, {"--token", "right-token"});
  RunOutput bad = run(client_args(port, {"--token", "wrong-token", "-n", "100"}), 120);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("token"), std::string::npos) << bad.err;
  RunOutput ok = run(client_args(port, {"--token", "right-token", "-n", "100"}), 120);
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
}

TEST_F(Faults, GidIndexOutOfRangeListsTheValidOnes) {
  RunOutput r = run({RDMABENCH_BIN, "server", "-d", dev_, "-x", "99", "-p", "0", "--once"}, 60);
  std::string port;
  auto srv = server(port);
  RunOutput c = run({RDMABENCH_BIN, "client", addr_, "-p", port, "-d", dev_, "-x", "99", "-n", "10"}, 60);
  EXPECT_NE(c.status, 0);
  EXPECT_NE(c.err.find("gid-index '99'"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find(gid_ + " ("), std::string::npos) << "valid indexes not listed: " << c.err;
}

TEST_F(Faults, MissingDeviceListsTheDevices) {
  RunOutput r = run({RDMABENCH_BIN, "server", "-d", "mlx5_99", "-p", "0"}, 60);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("device 'mlx5_99'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dev_), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rdmabench::test
