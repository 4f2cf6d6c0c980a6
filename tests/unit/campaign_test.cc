// The campaign orchestrator's pure parts: matrix expansion (product, excludes, invalid
// combinations skipped with the client's reason), stable point ids, JSON-path errors for
// malformed campaigns, shell quoting of hostile values (round trips through /bin/sh), the remote
// job wrapper, and --resume selection from an index.
#include "orchestrator/campaign/campaign.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/workload_fields.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/launch/host_env.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/process.h"
#include "orchestrator/launch/shell_quote.h"
#include "orchestrator/run/point_runner.h"
#include "orchestrator/run/progress.h"
#include "orchestrator/sweep/resume.h"
#include "orchestrator/sweep/sweep.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

json base_campaign() {
  return json::parse(R"({
    "name": "unit",
    "hosts": [
      {"name": "a", "server": {"host": "local"}, "client": {"host": "local"}},
      {"name": "b", "server": {"host": "h1", "device": "rxe0", "gid_index": 1},
       "client": {"host": "h2", "gid_index": "auto", "rdmabench": "/opt/rb/rdmabench"},
       "connect_address": "198.18.0.1"}
    ],
    "matrix": {"op": ["write", "send", "read"], "qp": ["rc", "uc", "ud"],
               "sizes": [[64], [4096]], "iterations": 100},
    "repetitions": 2
  })");
}

const CampaignOptions kAllKinds{"", {}, campaign_kinds()};
Campaign parse(const json& j) {
  return parse_campaign(j, "/campaigns", "/usr/bin/rdmabench-self", kAllKinds);
}

// Parsing `j` must fail with a ConfigError naming `path`; returns the message.
std::string expect_error(const json& j, const std::string& path) {
  const ConfigError e = testutil::catch_config_error([&] { parse(j); });
  EXPECT_EQ(e.field(), path) << e.what() << " for " << j.dump();
  return e.what();
}

// ---- expansion --------------------------------------------------------------------------------

TEST(CampaignExpand, ProductOfAxesTimesPairsTimesRepetitions) {
  Campaign c = parse(base_campaign());
  EXPECT_EQ(c.matrix.size(), 3u * 3u * 2u);
  Expansion x = expand(c);
  EXPECT_EQ(x.points.size(), 3u * 3u * 2u * 2u * 2u);
  EXPECT_EQ(x.excluded, 0u);
  std::set<std::string> ids;
  for (size_t i = 0; i < x.points.size(); ++i) {
    EXPECT_EQ(x.points[i].index, i);
    ids.insert(x.points[i].id);
  }
  EXPECT_EQ(ids.size(), x.points.size()) << "point ids must be unique";
  // Scalars apply to every point; the last axis varies fastest; pairs innermost.
  EXPECT_EQ(x.points[0].values(),
            json::parse(R"({"op":"write","qp":"rc","sizes":[64],"iterations":100})"));
  EXPECT_EQ(x.points[0].pair, 0u);
  EXPECT_EQ(x.points[1].pair, 1u);
  EXPECT_EQ(x.points[2].values()["sizes"], json::parse("[4096]"));
  EXPECT_EQ(x.points.back().repetition, 2u);
}

TEST(CampaignExpand, InvalidCombinationsAreSkippedWithTheClientsReason) {
  Expansion x = expand(parse(base_campaign()));
  std::map<std::string, std::string> reasons;  // "op/qp" -> reason
  size_t skipped = 0;
  for (const auto& p : x.points) {
    if (!p.skipped()) continue;
    ++skipped;
    reasons[p.values()["op"].get<std::string>() + "/" + p.values()["qp"].get<std::string>()] =
        p.skip_reason();
  }
  // read on UC and UD, write on UD: 3 of 9 op x qp, times sizes, pairs, repetitions.
  EXPECT_EQ(skipped, 3u * 2u * 2u * 2u);
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_NE(reasons["read/uc"].find("UC QPs support send, send_imm, write and write_imm only"),
            std::string::npos)
      << reasons["read/uc"];
  EXPECT_NE(reasons["read/ud"].find("UD QPs support send and send_imm only"), std::string::npos);
  EXPECT_NE(reasons["write/ud"].find("invalid op 'write'"), std::string::npos);
}

TEST(CampaignExpand, DefaultsFollowTheClient) {
  // Atomics without sizes use 8 bytes (as the client does), so they are valid.
  json j = base_campaign();
  j["matrix"] = json::parse(R"({"op": ["fetch_add", "cmp_swap"], "mode": ["bw", "lat"]})");
  Expansion x = expand(parse(j));
  for (const auto& p : x.points) EXPECT_FALSE(p.skipped()) << p.skip_reason();
  // ... but an explicit size other than 8 is refused with the client's message.
  j["matrix"]["sizes"] = 64;
  x = expand(parse(j));
  for (const auto& p : x.points)
    EXPECT_NE(p.skip_reason().find("exactly 8 bytes"), std::string::npos);
}

TEST(CampaignExpand, Excludes) {
  json j = base_campaign();
  j["exclude"] = json::parse(R"([{"qp": "ud"}, {"op": ["send", "read"], "sizes": [[4096]]},
                                 {"host_pair": "b", "qp": "uc"}])");
  Expansion x = expand(parse(j));
  size_t expect = 0;
  for (const char* op : {"write", "send", "read"})
    for (const char* qp : {"rc", "uc"})
      for (uint64_t size : {64, 4096})
        for (const char* pair : {"a", "b"}) {
          if (std::string(op) != "write" && size == 4096) continue;
          if (std::string(pair) == "b" && std::string(qp) == "uc") continue;
          ++expect;
        }
  EXPECT_EQ(x.points.size(), expect * 2);
  EXPECT_EQ(x.excluded, 3u * 3u * 2u * 2u * 2u - expect * 2);
  for (const auto& p : x.points) {
    EXPECT_NE(p.values()["qp"], "ud");
    if (p.values()["op"] != "write") {
      EXPECT_EQ(p.values()["sizes"], json::parse("[64]"));
    }
  }
}

TEST(CampaignExpand, SizesFlatListIsOneRunListOfListsIsAnAxis) {
  json j = base_campaign();
  j["matrix"] = json::parse(R"({"sizes": [64, "4K", "1K,2K"]})");
  Campaign c = parse(j);
  ASSERT_EQ(c.matrix.size(), 1u);
  EXPECT_EQ(c.matrix.combination(0)["sizes"], json::parse("[64, 1024, 2048, 4096]"));

  j["matrix"] = json::parse(R"({"sizes": [[64], ["2K-8K"], [4096, 64]]})");
  c = parse(j);
  ASSERT_EQ(c.matrix.size(), 3u);
  EXPECT_EQ(c.matrix.combination(1)["sizes"], json::parse("[2048, 4096, 8192]"));
  EXPECT_EQ(c.matrix.combination(2)["sizes"], json::parse("[64, 4096]"));

  j["matrix"] = json::parse(R"({"sizes": "64,4K"})");
  EXPECT_EQ(parse(j).matrix.combination(0)["sizes"], json::parse("[64, 4096]"));
}

TEST(CampaignExpand, WorkloadOptionsMatchTheValues) {
  json values = json::parse(R"({"op": "send", "qp": "ud", "mode": "lat", "sizes": [64, 1024],
      "iterations": 50, "cq": "event", "connect": "tcp", "verify": true, "bidir": false,
      "duration_s": 0, "inline_size": -1, "timeout_s": 2.5, "cpus": [1, 0]})");
  std::vector<std::string> expect = {"--op", "send",     "--qp",      "ud",      "--mode",
                                     "lat",  "--size",   "64,1024",   "--iters", "50",
                                     "--cq", "event",    "--cpus",    "1,0",     "--connect",
                                     "tcp",  "--verify", "--timeout", "2.5"};
  EXPECT_EQ(client_options(values), expect);
  Workload w = workload_from_values(values);
  EXPECT_EQ(w.op, Op::kSend);
  EXPECT_EQ(w.qp, QpType::kUd);
  EXPECT_EQ(w.sizes, (std::vector<uint64_t>{64, 1024}));
  EXPECT_EQ(w.iterations, 50u);
  EXPECT_EQ(w.cq, CqMode::kEvent);
  EXPECT_TRUE(w.verify);
  EXPECT_EQ(w.cpus, (std::vector<int>{1, 0}));
  EXPECT_DOUBLE_EQ(w.timeout_s, 2.5);
  EXPECT_EQ(w.connect, ConnectMethod::kTcp);
  EXPECT_EQ(client_options(json::parse(R"({"connect": "rdma_cm"})")),
            std::vector<std::string>{"--rdma-cm"});
  EXPECT_EQ(client_options(json::parse(R"({"connect": "auto"})")), std::vector<std::string>{});
  EXPECT_EQ(workload_from_values(json::parse(R"({"connect": "auto"})")).connect,
            ConnectMethod::kAuto);
}

TEST(CampaignParse, HostsAndDefaults) {
  Campaign c = parse(base_campaign());
  ASSERT_EQ(c.pair_count(), 2u);
  EXPECT_TRUE(c.pair(0).server.is_local());
  EXPECT_EQ(c.pair(0).server.rdmabench,
            "/usr/bin/rdmabench-self");                // local default: this rdmabench
  EXPECT_EQ(c.pair(1).server.rdmabench, "rdmabench");  // ssh default: PATH
  EXPECT_EQ(c.pair(1).server.device, "rxe0");
  EXPECT_EQ(c.pair(1).server.gid_index, 1);
  EXPECT_FALSE(c.pair(1).client.gid_index.has_value());
  EXPECT_EQ(c.pair(1).client.rdmabench, "/opt/rb/rdmabench");
  EXPECT_EQ(c.pair(1).connect_address, "198.18.0.1");
  EXPECT_EQ(c.repetitions, 2u);
  EXPECT_DOUBLE_EQ(c.timeout_s, 300);
  json j = base_campaign();
  j["ssh_config"] = "pair/ssh_config";
  j["token"] = "s3cret";
  c = parse(j);
  EXPECT_EQ(c.ssh_config, "/campaigns/pair/ssh_config");  // relative to the campaign file
  EXPECT_EQ(c.token, "s3cret");
  EXPECT_EQ(c.source["token"], "(hidden)");
}

TEST(CampaignParse, HostPlacement) {
  json j = base_campaign();
  j["hosts"][1]["server"]["cpus"] = "2-3";
  j["hosts"][1]["server"]["numa"] = 0;
  j["hosts"][1]["client"]["cpus"] = json::array({1});
  j["hosts"][1]["client"]["numa"] = "auto";
  Campaign c = parse(j);
  const HostSpec s = c.pair(1).server;
  const HostSpec cl = c.pair(1).client;
  EXPECT_EQ(s.cpus, "2,3");
  EXPECT_EQ(s.numa, "0");
  const auto sa = server_argv(s);
  const std::vector<std::string> want = {"--cpus", "2,3", "--numa", "0"};
  EXPECT_NE(std::search(sa.begin(), sa.end(), want.begin(), want.end()), sa.end());
  // The client gets its host's placement, unless the point's workload sets its own.
  auto ca = client_argv(cl, "10.0.0.1", "1", {"--op", "write"});
  EXPECT_EQ(std::vector<std::string>(ca.end() - 5, ca.end()),
            (std::vector<std::string>{"--cpus", "1", "--numa", "auto", "-J"}));
  ca = client_argv(cl, "10.0.0.1", "1", {"--cpus", "0"});
  EXPECT_EQ(std::count(ca.begin(), ca.end(), std::string("--cpus")), 1);
  EXPECT_EQ(std::count(ca.begin(), ca.end(), std::string("0")), 1);
  // Bad values name the JSON path.
  j = base_campaign();
  j["hosts"][1]["server"]["cpus"] = "0-x";
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j); }).field(), "/hosts/1/server/cpus");
  j = base_campaign();
  j["hosts"][1]["client"]["numa"] = "far";
  EXPECT_EQ(testutil::catch_config_error([&] { parse(j); }).field(), "/hosts/1/client/numa");
}

// ---- ids --------------------------------------------------------------------------------------

TEST(PointId, StableAndReadable) {
  json v1 = json::parse(R"({"op": "write", "qp": "rc", "sizes": [64, 4096], "iterations": 100})");
  json v2 = json::parse(R"({"iterations": 100, "sizes": [64, 4096], "qp": "rc", "op": "write"})");
  const std::string id = point_id(v1, "local", 1);
  EXPECT_EQ(id, point_id(v2, "local", 1)) << "key order must not matter";
  // A fixed value: ids must not change between versions, or --resume would rerun everything.
  EXPECT_EQ(id, "write-rc-bw-64_4K-local-r1-" + id.substr(id.size() - 10));
  EXPECT_EQ(id, "write-rc-bw-64_4K-local-r1-482e0df089");
  EXPECT_NE(id, point_id(v1, "local", 2));
  EXPECT_NE(id, point_id(v1, "other", 1));
  json v3 = v1;
  v3["iterations"] = 200;
  EXPECT_NE(id, point_id(v3, "local", 1)) << "any matrix value is part of the identity";
  // Same campaign parsed twice: same ids; spellings of the same sizes: same ids.
  json a = base_campaign(), b = base_campaign();
  b["matrix"]["sizes"] = json::parse(R"([["64"], ["4K"]])");
  Expansion xa = expand(parse(a)), xb = expand(parse(b));
  ASSERT_EQ(xa.points.size(), xb.points.size());
  for (size_t i = 0; i < xa.points.size(); ++i) EXPECT_EQ(xa.points[i].id, xb.points[i].id);
  // Safe as a file name.
  std::regex safe("^[A-Za-z0-9_.-]+$");
  for (const auto& p : xa.points) EXPECT_TRUE(std::regex_match(p.id, safe)) << p.id;
  EXPECT_TRUE(std::regex_match(point_id(v1, "../../etc/passwd; rm -rf /", 1), safe));
  // The hash is over the canonical JSON text of {host_pair, matrix, repetition, round}, which
  // PointIds writes out itself: it agrees with nlohmann's dump of that object for awkward names
  // and rounds (quotes, backslashes, control characters, UTF-8).
  for (const std::string name : {"a -> b", "q\"uo\\te", "tab\there", "\xc3\xbcn\xc3\xaf"})
    for (const std::string round : {"", "pairwise 1/3", "x\"y\n"}) {
      json identity = {{"host_pair", name}, {"matrix", v1}, {"repetition", 3}};
      if (!round.empty()) identity["round"] = round;
      char hash[24];
      std::snprintf(hash, sizeof hash, "%010llx",
                    static_cast<unsigned long long>(fnv1a64(identity.dump()) >> 24));
      const std::string made = PointIds(v1).id(name, 3, round);
      EXPECT_EQ(made.substr(made.size() - 10), hash) << name << " / " << round;
      EXPECT_EQ(made, point_id(v1, name, 3, round));
    }
  EXPECT_EQ(point_id(json::object(), "p", 1).substr(0, 17), "write-rc-bw-64K-p");
  EXPECT_EQ(point_id(json::parse(R"({"op":"fetch_add"})"), "p", 1).substr(0, 20),
            "fetch_add-rc-bw-8-p-");
}

// ---- malformed campaigns ------------------------------------------------------------------------

TEST(CampaignParse, ErrorsNameTheJsonPath) {
  json j = base_campaign();
  j["matrix"]["op"] = json::parse(R"(["write", "send", "bogus"])");
  std::string msg = expect_error(j, "/matrix/op/2");
  EXPECT_NE(msg.find("bogus"), std::string::npos);
  EXPECT_NE(msg.find("send_imm"), std::string::npos) << "lists what is allowed: " << msg;

  j = base_campaign();
  j["matrix"]["iterations"] = -1;
  expect_error(j, "/matrix/iterations");
  j["matrix"]["iterations"] = json::parse("[10, 0.5]");
  expect_error(j, "/matrix/iterations/1");
  j["matrix"]["iterations"] = json::parse("[10, 10]");
  EXPECT_NE(expect_error(j, "/matrix/iterations/1").find("duplicate"), std::string::npos);
  j["matrix"]["iterations"] = json::array();
  expect_error(j, "/matrix/iterations");

  j = base_campaign();
  j["matrix"]["sizes"] = json::parse(R"([[64], 4096])");
  expect_error(j, "/matrix/sizes/1");
  j["matrix"]["sizes"] = json::parse(R"([[64], ["12Q"]])");
  expect_error(j, "/matrix/sizes/1/0");
  j["matrix"]["mtu"] = json::parse("[1024, 300]");
  j["matrix"]["sizes"] = 64;
  expect_error(j, "/matrix/mtu/1");
  j = base_campaign();
  j["matrix"]["inline_size"] = json::parse("18446744073709551615");  // not -1 in disguise
  expect_error(j, "/matrix/inline_size");
  j = base_campaign();
  j["matrix"]["colour"] = "blue";
  EXPECT_NE(expect_error(j, "/matrix/colour").find("known fields"), std::string::npos);
  j = base_campaign();
  j["matrix"]["verify"] = "yes";
  expect_error(j, "/matrix/verify");
  j = base_campaign();
  j["matrix"] = json::array();
  expect_error(j, "/matrix");

  j = base_campaign();
  j["hosts"][1]["server"].erase("host");
  expect_error(j, "/hosts/1/server/host");
  j = base_campaign();
  j["hosts"][1]["client"]["host"] = "-oProxyCommand=evil";
  expect_error(j, "/hosts/1/client/host");
  j["hosts"][1]["client"]["host"] = "two words";
  expect_error(j, "/hosts/1/client/host");
  j = base_campaign();
  j["hosts"][1]["name"] = "a";
  EXPECT_NE(expect_error(j, "/hosts/1/name").find("duplicate"), std::string::npos);
  j = base_campaign();
  j["hosts"][0]["server"]["gid_index"] = "first";
  expect_error(j, "/hosts/0/server/gid_index");
  j = base_campaign();
  j["hosts"][0]["sever"] = json::object();
  expect_error(j, "/hosts/0/sever");
  j = base_campaign();
  j["hosts"] = json::array();
  expect_error(j, "/hosts");

  j = base_campaign();
  j["exclude"] = json::parse(R"([{"qp": "ud"}, {"mode": "lat"}])");
  EXPECT_NE(expect_error(j, "/exclude/1/mode").find("key of the matrix"), std::string::npos);
  j["exclude"] = json::parse(R"([{"qp": "xx"}])");
  expect_error(j, "/exclude/0/qp");
  j["exclude"] = json::parse(R"([{}])");
  expect_error(j, "/exclude/0");

  j = base_campaign();
  j["repetitions"] = 0;
  expect_error(j, "/repetitions");
  j = base_campaign();  // 3 x 3 x 2 x 2 pairs x 100000 repetitions: too many points
  j["repetitions"] = 100000;
  EXPECT_NE(expect_error(j, "/matrix").find("at most 1000000 points"), std::string::npos);
  j = base_campaign();
  j["timeout_s"] = "long";
  expect_error(j, "/timeout_s");
  j = base_campaign();
  j["tokn"] = "x";
  expect_error(j, "/tokn");
  j = base_campaign();
  j.erase("name");
  expect_error(j, "/name");
  j = base_campaign();
  j["token"] = "two\nlines";
  EXPECT_EQ(expect_error(j, "/token").find("two"), std::string::npos)
      << "the token is never printed";
}

TEST(CampaignParse, FileErrorsNameTheFile) {
  try {
    load_campaign("/nonexistent/c.json", "rdmabench");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/c.json"), std::string::npos);
  }
}

// ---- shell quoting ----------------------------------------------------------------------------

const std::vector<std::string>& hostile() {
  static const std::vector<std::string> v = {"plain",
                                             "with space",
                                             "it's",
                                             "'",
                                             "''",
                                             "\"double\"",
                                             "$(touch /tmp/rb-pwned)",
                                             "`id`",
                                             "a;b",
                                             "x && y || z",
                                             "new\nline",
                                             "tab\there",
                                             "back\\slash",
                                             "$HOME",
                                             "${PATH}",
                                             "*",
                                             "?",
                                             "[a]",
                                             "~",
                                             "#comment",
                                             "-n",
                                             "--",
                                             "",
                                             " leading",
                                             "trailing ",
                                             "!bang",
                                             "%s%n",
                                             "<in >out 2>&1",
                                             "|pipe",
                                             "\x01\x7f",
                                             "ünïcödé",
                                             "=x",
                                             "a=b"};
  return v;
}

CommandOutput sh(const std::vector<std::string>& argv, const std::string& stdin_text = "") {
  SpawnOptions o;
  o.argv = argv;
  if (stdin_text.empty()) return run_command(o, 20);
  o.pipe_stdin = true;
  auto c = Child::spawn(o);
  c->write_stdin(stdin_text);  // kept open: end of file on it stops a remote job
  for (int i = 0; i < 200 && (c->running() || !c->output_closed()); ++i) pump({c.get()}, 100);
  CommandOutput r;
  r.status = c->status();
  r.out = c->out();
  r.err = c->err();
  return r;
}

TEST(ShellQuote, RoundTripsThroughSh) {
  for (const auto& v : hostile()) {
    CommandOutput r = sh({"/bin/sh", "-c", "printf %s " + shell_quote(v)});
    EXPECT_EQ(r.status, 0) << v << ": " << r.err;
    EXPECT_EQ(r.out, v) << "quoted as " << shell_quote(v);
  }
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("/usr/bin/rdmabench"), "/usr/bin/rdmabench");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(ShellQuote, JoinKeepsArgumentBoundaries) {
  std::vector<std::string> args = {"/bin/sh", "-c", "printf '<%s>' \"$@\"", "sh"};
  std::string expect;
  for (const auto& v : hostile()) expect += "<" + v + ">";
  // What ssh does: one string, parsed by the remote shell.
  std::vector<std::string> inner(args);
  inner.insert(inner.end(), hostile().begin(), hostile().end());
  CommandOutput r = sh({"/bin/sh", "-c", shell_join(inner)});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expect);
}

TEST(RemoteJob, WrapperPassesArgumentsTokenAndGroup) {
  // The remote command, run by a local sh as the remote login shell would: arguments intact,
  // the token from stdin in the environment (not in any argv), its own process group.
  std::vector<std::string> argv = {"/bin/sh", "-c",
                                   "printf '<%s>' \"$@\"; printf 'T=%s;' \"$RDMABENCH_TOKEN\"; "
                                   "ps -o pgid= -p $$ | tr -d ' \\n'; printf ';%s' $$",
                                   "job"};
  argv.insert(argv.end(), hostile().begin(), hostile().end());
  const std::string token = "tok en'$(x)";
  const std::string cmd = remote_job_command(argv);
  EXPECT_EQ(cmd.find("tok en"), std::string::npos);
  CommandOutput r = sh({"/bin/sh", "-c", cmd}, token + "\n");
  std::string expect;
  for (const auto& v : hostile()) expect += "<" + v + ">";
  expect += "T=" + token + ";";
  ASSERT_EQ(r.out.substr(0, expect.size()), expect) << r.out << "\n" << r.err;
  // "PGID;PID": the job leads its own group, and the wrapper announced that group.
  std::string rest = r.out.substr(expect.size());
  size_t semi = rest.find(';');
  ASSERT_NE(semi, std::string::npos) << rest;
  EXPECT_EQ(rest.substr(0, semi), rest.substr(semi + 1));
  EXPECT_NE(r.err.find("RDMABENCH_PGID " + rest.substr(semi + 1) + "\n"), std::string::npos)
      << r.err;
}

TEST(RemoteJob, EndOfFileOnStdinStopsTheJob) {
  // The orchestrator closing the pipe (or dying, or losing the ssh connection) ends the job.
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", remote_job_command({"sleep", "60"})};
  o.pipe_stdin = true;
  auto c = Child::spawn(o);
  c->write_stdin("token\n");
  for (int i = 0; i < 100 && c->err().find("RDMABENCH_PGID") == std::string::npos; ++i)
    pump({c.get()}, 100);
  ASSERT_NE(c->err().find("RDMABENCH_PGID"), std::string::npos) << c->err();
  pump({c.get()}, 300);
  EXPECT_TRUE(c->running());
  const auto t0 = std::chrono::steady_clock::now();
  c->close_stdin();
  for (int i = 0; i < 100 && c->running(); ++i) pump({c.get()}, 100);
  EXPECT_FALSE(c->running()) << "the job outlived the end of its stdin";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// ---- resume -----------------------------------------------------------------------------------

TEST(Resume, SelectionFromTheIndex) {
  const std::string text =
      R"({"point_id":"a","status":"ok","duration_s":1.5,"error":null})"
      "\n"
      R"({"point_id":"b","status":"failed","duration_s":2,"error":"boom"})"
      "\n"
      R"({"point_id":"c","status":"ok","duration_s":1,"error":null})"
      "\n"
      R"({"point_id":"c","status":"failed","duration_s":1,"error":"later failure"})"
      "\n"
      R"({"point_id":"d","status":"failed","duration_s":1,"error":"x"})"
      "\n"
      R"({"point_id":"d","status":"ok","duration_s":1,"error":null})"
      "\n"
      R"({"point_id":"e","status":"skipped","duration_s":0,"error":"invalid"})"
      "\n"
      R"({"point_id":"f","status":"ok","duration_s":1,"error":null})"
      "\n"
      R"({"point_id":"g","status":"ok","dura)";  // cut short by a crash
  size_t bad = 0;
  auto index = parse_index(text, &bad);
  EXPECT_EQ(bad, 1u);
  EXPECT_EQ(index.size(), 6u);
  EXPECT_EQ(index["b"].error, "boom");
  EXPECT_EQ(index["c"].status, "failed");
  EXPECT_EQ(index["d"].status, "ok");
  // f's result file is missing; g, h were never finished.
  const std::set<std::string> files = {"a", "b", "c", "d", "g"};
  std::set<std::string> done = done_points({"a", "b", "c", "d", "e", "f", "g", "h"}, index, files);
  EXPECT_EQ(done, (std::set<std::string>{"a", "d"}));
}

TEST(Progress, RenderedLine) {
  std::string l = Progress::render(3, 12, 1, 30, "write-rc-bw", 120);
  EXPECT_NE(l.find("3/12"), std::string::npos) << l;
  EXPECT_NE(l.find("1 failed"), std::string::npos) << l;
  EXPECT_NE(l.find("0:30"), std::string::npos) << l;
  EXPECT_NE(l.find("ETA 1:30"), std::string::npos) << l;
  EXPECT_NE(l.find("write-rc-bw"), std::string::npos) << l;
  EXPECT_LE(Progress::render(3, 12, 1, 30, std::string(300, 'x'), 60).size(), 59u);
  EXPECT_EQ(Progress::format_duration(3725), "1:02:05");
}

// The host's environment in one command (one ssh round trip or Slurm step): every item parsed
// from its section, a failing item null with its reason, an output without trailing newline.
TEST(HostEnv, EverythingFromOneCommand) {
  char tmpl[] = "/tmp/rb-host-env.XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, fake = dir + "/rdmabench";
  auto write_fake = [&](const std::string& devices) {
    std::ofstream(fake) << "#!/bin/sh\ncase $1 in --version) printf 'rdmabench 0.1.0';;\n"
                        << "devices) " << devices << ";;\nesac\n";
    ::chmod(fake.c_str(), 0755);
  };
  write_fake("echo '[{\"name\": \"rxe0\"}]'");
  auto local = make_local_launcher();
  nlohmann::json env = capture_host_env(*local, fake, 30);
  EXPECT_EQ(env["rdmabench_version"], "rdmabench 0.1.0");
  EXPECT_TRUE(env["kernel"].is_string() && env["kernel"].get<std::string>().rfind("Linux", 0) == 0)
      << env.dump();
  EXPECT_TRUE(env["cpus"].is_number_unsigned()) << env.dump();
  EXPECT_EQ(env["devices"], nlohmann::json::parse(R"([{"name": "rxe0"}])"));
  EXPECT_FALSE(env.contains("devices_error"));
  write_fake("echo 'no device' >&2; exit 3");
  env = capture_host_env(*local, fake, 30);
  EXPECT_TRUE(env["devices"].is_null());
  EXPECT_EQ(env["devices_error"], "exit status 3: no device");
  EXPECT_EQ(env["rdmabench_version"], "rdmabench 0.1.0");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rdmabench
