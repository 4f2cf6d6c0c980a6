// The agents of a fabric campaign (orchestrator/agent/): the protocol's pieces, then a real
// `rdmabench agent` on this machine through the local launcher, driven by the controller's hub:
// greeting, sessions, refusals, a wrong token, a lost agent, the controller gone; and agents that
// connect back over TCP, as from a Slurm step (a shell here starts them). (No device is
// needed: `client --help` is a session that runs anywhere; the fabric campaigns through agents
// run on the testbed, tests/orchestrator/.)
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "base/error.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/agent/agent_protocol.h"
#include "orchestrator/launch/process.h"

namespace rdmabench {
namespace {

using SteadyClock = std::chrono::steady_clock;
namespace proto = agent;

TEST(AgentProtocol, ProofsDependOnTokenRoleAndBothNonces) {
  const std::string a = proto::new_nonce(), c = proto::new_nonce();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, c);
  const std::string p = proto::proof("secret", "controller", a, c);
  EXPECT_EQ(p.size(), 64u);
  EXPECT_TRUE(proto::same_proof(p, proto::proof("secret", "controller", a, c)));
  EXPECT_FALSE(proto::same_proof(p, proto::proof("secret", "agent", a, c)));  // no reflection
  EXPECT_FALSE(proto::same_proof(p, proto::proof("other", "controller", a, c)));
  EXPECT_FALSE(proto::same_proof(p, proto::proof("secret", "controller", c, a)));
  EXPECT_FALSE(proto::same_proof(p, p.substr(1)));
}

TEST(AgentProtocol, SessionsOnlyAndNoFileFromTheWire) {
  const std::set<std::string> paths = {"--json", "--out_json_file"};
  EXPECT_EQ(proto::session_argv_problem({"client", "10.0.0.1", "-s", "64"}, paths), "");
  EXPECT_EQ(proto::session_argv_problem({"server", "-p", "0", "--once"}, paths), "");
  EXPECT_NE(proto::session_argv_problem({}, paths), "");
  EXPECT_NE(proto::session_argv_problem({"sweep", "x.json"}, paths).find("'sweep'"),
            std::string::npos);
  EXPECT_NE(proto::session_argv_problem({"/bin/sh", "-c", "id"}, paths), "");
  EXPECT_NE(proto::session_argv_problem({"client", "h", "--json", "/etc/x"}, paths).find("--json"),
            std::string::npos);
  EXPECT_NE(proto::session_argv_problem({"client", "h", "--json=/etc/x"}, paths), "");
}

TEST(AgentProtocol, FramesSurviveAnySplitAndRefuseGarbage) {
  std::string bytes;
  for (int i = 0; i < 3; ++i)
    bytes +=
        proto::encode_message({{"type", "out"}, {"job", i}, {"data", std::string(i * 7, 'x')}});
  proto::FrameReader r;
  std::vector<nlohmann::json> got;
  for (char ch : bytes) {  // one byte at a time
    r.feed(std::string(1, ch));
    for (auto m = r.next(); !m.is_null(); m = r.next()) got.push_back(m);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2]["job"], 2);
  EXPECT_EQ(got[2]["data"].get<std::string>().size(), 14u);
  proto::FrameReader bad;
  bad.feed("GET / HTTP/1.1\r\n\r\n");
  EXPECT_THROW(bad.next(), PeerError);
}

// A launcher that starts the agent with another token than the hub's.
class WrongTokenLauncher : public Launcher {
 public:
  const std::string& host() const override { return local_->host(); }
  const char* kind() const override { return "local"; }
  CommandOutput run(const std::vector<std::string>& a, double t) override {
    return local_->run(a, t);
  }
  std::unique_ptr<Job> start(const std::vector<std::string>& a, const std::string& t) override {
    return local_->start(a, t);
  }
  std::unique_ptr<ProcessJob> start_agent(const std::vector<std::string>& a,
                                          const std::string&) override {
    return local_->start_agent(a, "not-the-campaign-token");
  }
  std::string describe() const override { return ""; }
  std::string describe_start(const std::vector<std::string>&) const override { return ""; }

 private:
  std::unique_ptr<Launcher> local_ = make_local_launcher();
};

// Pumps the hub until `done` or 10 s.
template <class F>
bool pump_until(AgentHub& hub, F done) {
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  while (!done() && SteadyClock::now() < deadline) hub.pump(50);
  return done();
}

class Agents : public ::testing::Test {
 protected:
  void SetUp() override {
    failed_ = hub_.start({{"local", AgentHub::Host{local_.get(), RDMABENCH_BIN}}});
    ASSERT_TRUE(failed_.empty()) << failed_.begin()->second;
    agent_ = hub_.launcher("local");
  }
  std::unique_ptr<Launcher> local_ = make_local_launcher();
  AgentHub hub_{"campaign-token", AgentHubSettings{10, 3, 8}};
  std::map<std::string, std::string> failed_;
  std::unique_ptr<Launcher> agent_;
};

TEST_F(Agents, HelloSaysWhoAndWhat) {
  const nlohmann::json h = hub_.hello("local");
  EXPECT_TRUE(h["host"].is_string() && !h["host"].get<std::string>().empty()) << h;
  EXPECT_TRUE(h["version"].is_string()) << h;
  EXPECT_GE(h["cpus"].get<long>(), 1) << h;
  EXPECT_GT(h["pid"].get<long>(), 1) << h;
  EXPECT_FALSE(h.contains("proof"));
  EXPECT_EQ(hub_.lost("local"), "");
}

TEST_F(Agents, RunsASessionAndReportsItsOutputAndExit) {
  auto job = agent_->start({RDMABENCH_BIN, "client", "--help"}, "ignored");
  ASSERT_TRUE(pump_until(hub_, [&] { return !job->running(); }));
  EXPECT_EQ(job->status(), 0) << job->status_text() << job->err();
  EXPECT_NE(job->out().find("--json"), std::string::npos) << job->out();
  // A client's brief comes before its exit (its help is no result document).
  ASSERT_NE(job->brief(), nullptr);
  EXPECT_FALSE(job->brief()->document);
  // Many sessions at once, and a failing one keeps its status.
  std::vector<std::unique_ptr<Job>> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back(agent_->start({"x", "client", "--help"}, ""));
  jobs.push_back(agent_->start({"x", "client", "10.0.0.1", "--no-such-option"}, ""));
  ASSERT_TRUE(pump_until(hub_, [&] {
    for (auto& j : jobs)
      if (j->running()) return false;
    return true;
  }));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(jobs[i]->status(), 0);
  EXPECT_EQ(jobs[4]->status(), 2);
  EXPECT_NE(jobs[4]->err().find("rdmabench: "), std::string::npos) << jobs[4]->err();
}

TEST_F(Agents, RefusesWhatIsNotASessionAndFilesFromTheWire) {
  auto shell = agent_->start({"x", "sh", "-c", "touch /tmp/rdmabench-agent-owned"}, "");
  auto file = agent_->start({"x", "client", "10.0.0.1", "--json", "/tmp/rdmabench-agent-x"}, "");
  ASSERT_TRUE(pump_until(hub_, [&] { return !shell->running() && !file->running(); }));
  EXPECT_EQ(shell->status(), 2);
  EXPECT_EQ(shell->status_text(), "refused");
  EXPECT_NE(shell->err().find("'sh'"), std::string::npos) << shell->err();
  EXPECT_EQ(file->status(), 2);
  EXPECT_NE(file->err().find("--json"), std::string::npos) << file->err();
  EXPECT_EQ(hub_.lost("local"), "");  // a refused session is not a lost agent
  EXPECT_THROW(agent_->run({"id"}, 5), Error);
}

TEST_F(Agents, AKilledAgentIsLostWithItsReasonAndRefusesLaterSessions) {
  const long pid = hub_.hello("local")["pid"].get<long>();
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  ASSERT_TRUE(pump_until(hub_, [&] { return !hub_.lost("local").empty(); }));
  EXPECT_NE(hub_.lost("local").find("killed by SIGKILL"), std::string::npos) << hub_.lost("local");
  try {
    agent_->start({"x", "client", "--help"}, "");
    ADD_FAILURE() << "a lost agent took a session";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("was lost"), std::string::npos) << e.what();
  }
}

TEST(AgentsAlone, AWrongTokenIsRefusedBothWays) {
  WrongTokenLauncher l;
  AgentHub hub("campaign-token", AgentHubSettings{10, 3, 8});
  const auto failed = hub.start({{"local", AgentHub::Host{&l, RDMABENCH_BIN}}});
  ASSERT_EQ(failed.count("local"), 1u);
  EXPECT_NE(failed.at("local").find("token"), std::string::npos) << failed.at("local");
}

TEST(AgentsAlone, AnAgentWhoseControllerIsGoneExits) {
  // The end of its input (the controller exited or was killed, its ssh with it): it exits at
  // once, status 0, having said nothing but its challenge.
  SpawnOptions o;
  o.argv = {RDMABENCH_BIN, "agent"};
  o.extra_env = {"RDMABENCH_TOKEN=t"};
  o.pipe_stdin = true;
  auto c = Child::spawn(o);
  c->close_stdin();
  const auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (c->running() && SteadyClock::now() < deadline) pump({c.get()}, 50);
  ASSERT_FALSE(c->running()) << "the agent outlived its controller by 5 s";
  EXPECT_EQ(c->status(), 0) << c->err();
  proto::FrameReader r;
  r.feed(c->out());
  EXPECT_EQ(r.next().value("type", ""), "challenge");
}

// A "slurm" launcher whose one step is a shell here: it starts `rdmabench agent --connect` for
// each host with SLURMD_NODENAME set (as srun would), an impostor with another token claiming
// "node-c", and nothing for node-c itself.
class ShellStepJob : public ProcessJob {
 public:
  explicit ShellStepJob(std::unique_ptr<Child> c) { child_ = std::move(c); }
  void stop() override { child_->terminate(1.0); }
  void begin_stop() override { child_->signal_group(SIGTERM); }
};

class ShellStepLauncher : public Launcher {
 public:
  const std::string& host() const override { return name_; }
  const char* kind() const override { return "slurm"; }
  CommandOutput run(const std::vector<std::string>&, double) override { return {}; }
  std::unique_ptr<Job> start(const std::vector<std::string>&, const std::string&) override {
    return nullptr;
  }
  std::unique_ptr<ProcessJob> start_agents_step(const std::vector<std::string>& hosts,
                                                const std::vector<std::string>& argv,
                                                const std::string& token) override {
    steps.push_back(hosts);
    step_argv = argv;
    SpawnOptions o;
    o.argv = {"sh",
              "-c",
              "bin=$1 addr=$2; shift 2\n"
              "for h in \"$@\"; do [ \"$h\" = node-c ] || SLURMD_NODENAME=$h \"$bin\" agent "
              "--connect \"$addr\" & done\n"
              "SLURMD_NODENAME=node-c RDMABENCH_TOKEN=wrong \"$bin\" agent --connect \"$addr\"\n"
              "wait",
              "step",
              argv.at(0),
              argv.at(3)};
    o.argv.insert(o.argv.end(), hosts.begin(), hosts.end());
    o.extra_env = {"RDMABENCH_TOKEN=" + token};
    return std::make_unique<ShellStepJob>(Child::spawn(o));
  }
  std::string describe() const override { return ""; }
  std::string describe_start(const std::vector<std::string>&) const override { return ""; }
  std::vector<std::vector<std::string>> steps;  // the hosts of each step started
  std::vector<std::string> step_argv;

 private:
  std::string name_ = "node";
};

TEST(AgentsConnectingBack, OneStepForAllEachFoundByItsHelloImpostorsRefused) {
  ShellStepLauncher step;
  // The hello timeout is what node-c's two steps each wait out; 10 s also lets two agents start
  // under a sanitizer on a loaded machine (4 s did not in CI: all three were retried alone).
  AgentHub hub("campaign-token", AgentHubSettings{10, 3, 8, "127.0.0.1"});
  const auto failed = hub.start({{"node-a", AgentHub::Host{&step, RDMABENCH_BIN}},
                                 {"node-b", AgentHub::Host{&step, RDMABENCH_BIN}},
                                 {"node-c", AgentHub::Host{&step, RDMABENCH_BIN}}});
  // One step for the three, told where to dial; then node-c, whose agent did not come up, alone
  // in a step of its own (as when Slurm cannot launch a step's task on one node).
  ASSERT_EQ(step.steps.size(), 2u);
  EXPECT_EQ(step.steps[0], (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  EXPECT_EQ(step.steps[1], (std::vector<std::string>{"node-c"}));
  ASSERT_EQ(step.step_argv.size(), 4u);
  EXPECT_EQ(step.step_argv[2], "--connect");
  EXPECT_EQ(step.step_argv[3], hub.connect_address());
  EXPECT_EQ(hub.connect_address().rfind("127.0.0.1:", 0), 0u) << hub.connect_address();
  // node-a and node-b came up as themselves; node-c's impostor (another token) was refused.
  EXPECT_EQ(hub.lost("node-a"), "");
  EXPECT_EQ(hub.hello("node-b")["host"], "node-b");
  ASSERT_EQ(failed.size(), 1u);
  const std::string why = failed.at("node-c");
  EXPECT_NE(why.find("its job step ended (exit status 0) before the agent connected"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("does not hold this campaign's token"), std::string::npos) << why;
  // A session through a connected agent.
  auto b = hub.launcher("node-b");
  auto job = b->start({RDMABENCH_BIN, "client", "--help"}, "");
  ASSERT_TRUE(pump_until(hub, [&] { return !job->running(); }));
  EXPECT_EQ(job->status(), 0) << job->status_text() << job->err();
  EXPECT_NE(job->out().find("--json"), std::string::npos);
  // A killed agent: its connection closes, it is lost with that reason.
  const long pid = hub.hello("node-a")["pid"].get<long>();
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  ASSERT_TRUE(pump_until(hub, [&] { return !hub.lost("node-a").empty(); }));
  EXPECT_NE(hub.lost("node-a").find("connection closed"), std::string::npos) << hub.lost("node-a");
  EXPECT_EQ(hub.lost("node-b"), "");
}

TEST(AgentsConnectingBack, ListenAddressesAreCheckedWithTheField) {
  EXPECT_EQ(AgentHub::listen_port("auto"), 0);
  EXPECT_EQ(AgentHub::listen_port("ctl.example"), 0);
  EXPECT_EQ(AgentHub::listen_port("10.0.0.1:7000"), 7000);
  EXPECT_EQ(AgentHub::listen_port("[fe80::1]:7001"), 7001);
  EXPECT_EQ(AgentHub::connect_address_for("[fe80::1]:7001", 7001), "[fe80::1]:7001");
  EXPECT_EQ(AgentHub::connect_address_for("ctl", 4242), "ctl:4242");
  for (const char* bad : {"", "host:", "host:0", "host:70000", "fe80::1", "a b", "[::1"}) {
    try {
      AgentHub::listen_port(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("/fabric/agent_listen"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rdmabench
