// The slurm launcher's own parts, without a cluster: the "launcher" field and --launcher, hosts
// checked against the allocation (and a fabric made of its nodes), the allocation read from the
// environment (its errors), the step's argv and environment (the token only in the environment),
// the step id, and stopping by scancel. Slurm's commands are small scripts here that record what
// they were given; tests/orchestrator/slurm_sweep_test.sh runs the real Slurm in the testbed.
#include "orchestrator/launch/slurm_launcher.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/error.h"
#include "model/campaign_index.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/launch/slurm_allocation.h"
#include "orchestrator/sweep/sweep.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

SlurmAllocation three_nodes() { return {"42", "n[1-3]", {"n1", "n2", "n3"}}; }

json pair_campaign(const std::string& server, const std::string& client) {
  json j = json::parse(R"({"name": "s", "matrix": {"op": "write", "sizes": [[64]]}})");
  j["hosts"] = {{{"name", "p"}, {"server", {{"host", server}}}, {"client", {{"host", client}}}}};
  return j;
}

Campaign parse(const json& j, const std::string& launcher = "", int* asked = nullptr) {
  CampaignOptions o{launcher,
                    [asked] {
                      if (asked != nullptr) ++*asked;
                      return three_nodes();
                    },
                    campaign_kinds()};
  return parse_campaign(j, "/campaigns", "/usr/bin/rdmabench-self", o);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SlurmCampaign, SshByDefaultAndTheAllocationOnlyAskedForSlurm) {
  int asked = 0;
  const Campaign ssh = parse(pair_campaign("n1", "far"), "", &asked);
  EXPECT_EQ(ssh.launcher, "ssh");
  EXPECT_FALSE(ssh.allocation);
  EXPECT_EQ(asked, 0);
  json j = pair_campaign("n1", "n2");
  j["launcher"] = "slurm";
  const Campaign slurm = parse(j, "", &asked);
  EXPECT_EQ(slurm.launcher, "slurm");
  ASSERT_TRUE(slurm.allocation);
  EXPECT_EQ(slurm.allocation->job_id, "42");
  EXPECT_EQ(asked, 1);
  // --launcher overrides the file, both ways.
  EXPECT_EQ(parse(j, "ssh").launcher, "ssh");
  EXPECT_EQ(parse(pair_campaign("n1", "local"), "slurm").launcher, "slurm");
}

TEST(SlurmCampaign, ErrorsNameTheField) {
  json j = pair_campaign("n1", "n2");
  j["launcher"] = "mpirun";
  std::string what = testutil::catch_config_error([&] { parse(j); }).what();
  EXPECT_NE(what.find("invalid /launcher '\"mpirun\"'"), std::string::npos) << what;
  EXPECT_EQ(testutil::catch_config_error([&] { parse(pair_campaign("n1", "n2"), "pbs"); }).field(),
            "--launcher");
  // A host outside the allocation: its JSON path, the host, the allocation's nodes.
  const ConfigError out =
      testutil::catch_config_error([&] { parse(pair_campaign("n1", "n7"), "slurm"); });
  EXPECT_EQ(out.field(), "/hosts/0/client/host");
  EXPECT_EQ(out.value(), "\"n7\"");
  EXPECT_NE(out.allowed().find("allocation 42 (n[1-3]: n1, n2, n3)"), std::string::npos)
      << out.what();
  // Not inside an allocation: the allocation's own error, under the field that chose slurm.
  j["launcher"] = "slurm";
  CampaignOptions o{"",
                    []() -> SlurmAllocation {
                      throw ConfigError("launcher", "slurm", "not inside a Slurm allocation");
                    },
                    campaign_kinds()};
  const ConfigError none = testutil::catch_config_error(
      [&] { parse_campaign(j, "/campaigns", "/usr/bin/rdmabench-self", o); });
  EXPECT_EQ(none.field(), "/launcher");
  EXPECT_EQ(none.allowed(), "not inside a Slurm allocation");
}

TEST(SlurmCampaign, FabricOfTheAllocationsNodes) {
  json j = json::parse(R"({"name": "f", "matrix": {"op": "write", "sizes": [[64]]},
                           "fabric": {"pattern": {"pattern": "pairwise"}}})");
  // Without hosts, the slurm launcher takes every node; "allocation" gives them common keys.
  Campaign c = parse(j, "slurm");
  ASSERT_TRUE(fabric_spec(c));
  ASSERT_EQ(fabric_spec(c)->hosts.size(), 3u);
  EXPECT_EQ(fabric_spec(c)->hosts[2].name, "n3");
  EXPECT_EQ(fabric_spec(c)->allocation, "42");
  EXPECT_EQ(c.pair_count(), 6u);
  j["fabric"]["allocation"] = {{"device", "mlx5_0"}, {"gid_index", 3}};
  c = parse(j, "slurm");
  for (const auto& h : fabric_spec(c)->hosts) {
    EXPECT_EQ(h.spec.device, "mlx5_0");
    EXPECT_EQ(h.spec.gid_index, 3);
  }
  // Errors: "allocation" with ssh, a per-host key in it, named hosts outside the allocation.
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j); }).field(), "/fabric/allocation");
  j["fabric"]["allocation"]["host"] = "n1";
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j, "slurm"); }).field(),
            "/fabric/allocation/host");
  j["fabric"].erase("allocation");
  j["fabric"]["hosts"] = {"n1", "n2", "m9"};
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j, "slurm"); }).field(), "/fabric/hosts/2");
  j["fabric"].erase("hosts");
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j); }).field(), "/fabric/hosts");
}

TEST(SlurmIndex, StepsRoundTrip) {
  IndexEntry e;
  e.point_id = "p";
  e.status = "ok";
  EXPECT_FALSE(index_line(e).contains("slurm_steps"));
  e.server_step = "42.3";
  e.client_step = "42.4";
  const std::string line = index_line(e).dump();
  EXPECT_NE(line.find(R"("slurm_steps":{"server":"42.3","client":"42.4"})"), std::string::npos);
  const auto back = parse_index(line + "\n");
  EXPECT_EQ(back.at("p").server_step, "42.3");
  EXPECT_EQ(back.at("p").client_step, "42.4");
}

// A folder of fake Slurm commands first on PATH, for the tests below: srun records its options
// and RDMABENCH_TOKEN, then runs the command here as step 42.7; scancel records its arguments
// and ends that "step".
class FakeSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rb-fake-slurm.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    write("srun",
          "echo \"$*\" >\"$FAKE_SLURM/srun.args\"\n"
          "echo \"${RDMABENCH_TOKEN:-}\" >\"$FAKE_SLURM/srun.token\"\n"
          "while [ $# -gt 0 ]; do case $1 in --jobid=*) SLURM_JOB_ID=${1#--jobid=};;\n"
          "  --*) ;; *) break;; esac; shift; done\n"
          "export SLURM_JOB_ID SLURM_STEP_ID=7\n"
          "echo $$ >\"$FAKE_SLURM/srun.pid\"\n"
          "exec \"$@\"\n");
    write("scancel",
          "echo \"$*\" >\"$FAKE_SLURM/scancel.args\"\n"
          "kill -TERM \"$(cat \"$FAKE_SLURM/srun.pid\")\"\n");
    write("scontrol", "[ \"$1 $2\" = 'show hostnames' ] && printf 'n1\\nn2\\n'\n");
    write("squeue", "echo RUNNING\n");
    old_path_ = std::getenv("PATH");
    ::setenv("PATH", (dir_ + ":" + old_path_).c_str(), 1);
    ::setenv("FAKE_SLURM", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    ::unsetenv("FAKE_SLURM");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void write(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
  }

  std::string dir_;
  std::string old_path_;
};

TEST_F(FakeSlurm, TheAllocationFromTheEnvironment) {
  ::unsetenv("SLURM_JOB_ID");
  ConfigError e = testutil::catch_config_error([] { find_slurm_allocation(); });
  EXPECT_NE(e.allowed().find("not inside a Slurm allocation (SLURM_JOB_ID is not set)"),
            std::string::npos)
      << e.what();
  ::setenv("SLURM_JOB_ID", "42", 1);
  ::setenv("SLURM_JOB_NODELIST", "n[1-2]", 1);
  const SlurmAllocation a = find_slurm_allocation();
  EXPECT_EQ(a.job_id, "42");
  EXPECT_EQ(a.nodelist, "n[1-2]");
  EXPECT_EQ(a.nodes, (std::vector<std::string>{"n1", "n2"}));
  fs::remove(dir_ + "/scancel");
  ::setenv("PATH", dir_.c_str(), 1);  // no other scancel either
  e = testutil::catch_config_error([] { find_slurm_allocation(); });
  EXPECT_NE(e.allowed().find("the Slurm command 'scancel' is not on PATH"), std::string::npos)
      << e.what();
  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SLURM_JOB_NODELIST");
}

TEST_F(FakeSlurm, StepGetsTheTokenInItsEnvironmentAndStopsByScancel) {
  auto l = make_slurm_launcher("n2", SlurmSettings{"42", 2});
  EXPECT_STREQ(l->kind(), "slurm");
  auto job = l->start({"sh", "-c", "echo ready; echo oops >&2; exec sleep 60"}, "t0k3n");
  for (int i = 0; i < 100 && (job->out().empty() || job->step().empty()); ++i)
    pump_jobs({job.get()}, 100);
  EXPECT_EQ(job->out(), "ready\n");
  EXPECT_EQ(job->step(), "42.7");
  const std::string args = read(dir_ + "/srun.args");
  EXPECT_EQ(args.find("t0k3n"), std::string::npos) << args;
  EXPECT_EQ(args.rfind("--jobid=42 --nodes=1 --ntasks=1 --nodelist=n2 --overlap --quiet "
                       "--export=ALL --job-name=rdmabench sh -c ",
                       0),
            0u)
      << args;
  EXPECT_EQ(read(dir_ + "/srun.token"), "t0k3n\n");
  job->stop();
  EXPECT_FALSE(job->running());
  EXPECT_EQ(read(dir_ + "/scancel.args"), "--quiet 42.7\n");
  EXPECT_EQ(job->err(), "oops\n");  // without the wrapper's step line
  // Ended by the scancel (SIGTERM here), not by the fallback's SIGKILL.
  EXPECT_EQ(job->status(), 128 + 15);
}

// A cancelled step stays listed until its task has gone (an RDMA client's exit takes seconds on
// a loaded node): stop() returns only once squeue lists it no more, and says so when it stays.
TEST_F(FakeSlurm, StopWaitsForTheCancelledStepToLeaveSqueue) {
  // squeue lists the step on its first three calls, then no more.
  write("squeue",
        "n=$(cat \"$FAKE_SLURM/squeue.n\" 2>/dev/null || echo 0); n=$((n + 1))\n"
        "echo $n >\"$FAKE_SLURM/squeue.n\"\n"
        "echo \"$*\" >\"$FAKE_SLURM/squeue.args\"\n"
        "[ $n -gt 3 ] || echo 42.7\n");
  auto l = make_slurm_launcher("n2", SlurmSettings{"42", 2, 20});
  auto job = l->start({"sh", "-c", "echo ready; exec sleep 60"}, "t");
  for (int i = 0; i < 100 && job->step().empty(); ++i) pump_jobs({job.get()}, 100);
  ASSERT_EQ(job->step(), "42.7");
  job->stop();
  EXPECT_EQ(read(dir_ + "/squeue.n"), "4\n");  // listed three times, then gone
  EXPECT_EQ(read(dir_ + "/squeue.args"), "-h --steps=42.7 -o %i\n");
  EXPECT_EQ(job->err(), "");
  // A step that stays: stop() gives up after step_gone_s and says so.
  write("squeue", "echo 42.7\n");
  auto l2 = make_slurm_launcher("n2", SlurmSettings{"42", 2, 1});
  auto stuck = l2->start({"sh", "-c", "echo ready; exec sleep 60"}, "t");
  for (int i = 0; i < 100 && stuck->step().empty(); ++i) pump_jobs({stuck.get()}, 100);
  stuck->stop();
  EXPECT_EQ(stuck->err(), "rdmabench: Slurm step 42.7 was still listed 1 s after its scancel\n");
}

TEST_F(FakeSlurm, ShortCommandsAreStepsToo) {
  auto l = make_slurm_launcher("n1", SlurmSettings{"42", 2});
  const CommandOutput r = l->run({"echo", "hello"}, 10);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_NE(read(dir_ + "/srun.args").find("--nodelist=n1 "), std::string::npos);
}

}  // namespace
}  // namespace rdmabench
