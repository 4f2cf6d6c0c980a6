// The engine knobs on the testbed (docs/single-pair.md "Engine knobs"): each one must change what
// the device is asked to do — seen in the engine's own post-call counts, the QP attributes
// ibv_query_qp reports after connecting, the completions and payloads, the setup and memory report
// — and show in the result document. Run inside testbed/softroce; never skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/result.h"
#include "tests/engine/process.h"

namespace rdmabench::test {
namespace {

using nlohmann::json;

std::string env_var(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

class Knobs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (dev().empty()) return;
    server_ = std::make_unique<Background>(std::vector<std::string>{
        bin(), "server", "-d", dev(), "-x", gid(), "--bind", addr(), "-p", "0"});
    std::string line = server_->line();
    const std::string tag = "RDMABENCH_SERVER_READY ";
    if (line.rfind(tag, 0) == 0)
      port_ = std::to_string(json::parse(line.substr(tag.size())).at("port").get<int>());
  }
  static void TearDownTestSuite() { server_.reset(); }
  static std::string dev() { return env_var("RDMABENCH_TEST_DEVICE"); }
  static std::string addr() { return env_var("RDMABENCH_TEST_ADDR"); }
  static std::string gid() { return env_var("RDMABENCH_TEST_GID_INDEX"); }

  void SetUp() override {
    ASSERT_FALSE(dev().empty() || addr().empty() || gid().empty())
        << "RDMABENCH_TEST_DEVICE/ADDR/GID_INDEX are not set: run with testbed/softroce run";
    ASSERT_FALSE(port_.empty()) << "the rdmabench server did not print its ready line";
  }

  RunOutput client(const std::vector<std::string>& args, json* doc) {
    const std::string path = ::testing::TempDir() + "rb-knobs-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter_++) + ".json";
    std::vector<std::string> full = {bin(), "client", addr(), "-p",        port_, "-d",
                                     dev(), "--json", path,   "--timeout", "30"};
    // The testbed's GID index, unless the test names its own -x.
    if (std::find(args.begin(), args.end(), "-x") == args.end())
      full.insert(full.end(), {"-x", gid()});
    full.insert(full.end(), args.begin(), args.end());
    RunOutput r = run(full, 300);
    const std::string text = slurp(path);
    if (doc != nullptr && !text.empty()) *doc = json::parse(text);
    std::remove(path.c_str());
    return r;
  }

  // A run that must succeed: exit 0, no error, a valid document, every size complete.
  json ok(const std::vector<std::string>& args) {
    json doc;
    RunOutput r = client(args, &doc);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    if (doc.is_null()) {
      ADD_FAILURE() << "no result document; stderr:\n" << r.err;
      return json::object();
    }
    EXPECT_TRUE(doc["error"].is_null()) << doc["error"];
    RunResult rr = run_result_from_json(doc);
    for (const SizeResult& s : rr.results) {
      EXPECT_EQ(s.error, "");
      if (rr.workload.verify) {
        EXPECT_TRUE(s.verified) << "size " << s.size;
      }
      if (rr.workload.duration_s <= 0) {
        EXPECT_EQ(s.ops, rr.workload.effective_iterations() * rr.workload.total_qps());
      }
    }
    EXPECT_TRUE(doc["setup"].contains("client")) << doc["setup"].dump();
    EXPECT_TRUE(doc["setup"].contains("server")) << doc["setup"].dump();
    return doc;
  }

  // A run refused with exit status != 0 and a message containing every fragment.
  void refused(const std::vector<std::string>& args, const std::vector<std::string>& fragments) {
    RunOutput r = client(args, nullptr);
    EXPECT_NE(r.status, 0) << r.out;
    for (const auto& f : fragments)
      EXPECT_NE(r.err.find(f), std::string::npos) << f << " in:\n" << r.err;
  }

  static inline std::unique_ptr<Background> server_;
  static inline std::string port_;
  static inline int counter_ = 0;
};

uint64_t u(const json& j) { return j.get<uint64_t>(); }

// ---- doorbell batching ------------------------------------------------------------------------

TEST_F(Knobs, PostListChainsSendsAndReceives) {
  // 80 warm-up + 800 measured sends, lists of 8: 110 post calls each way (one per list).
  json d = ok({"--op", "send", "-s", "1K", "-n", "800", "-l", "8", "--verify"});
  EXPECT_EQ(d["workload"]["post_list"], 8);
  EXPECT_EQ(d["workload"]["signal_every"], 96);
  const json& r = d["results"][0];
  EXPECT_EQ(u(r["sent_messages"]), 880u);
  EXPECT_EQ(u(r["received_messages"]), 880u);
  EXPECT_EQ(u(r["send_post_calls"]), 110u);
  EXPECT_EQ(u(r["recv_post_calls"]), 110u);
  // Without a list: one call per message.
  json one = ok({"--op", "send", "-s", "1K", "-n", "800", "--verify"});
  EXPECT_EQ(u(one["results"][0]["send_post_calls"]), 880u);
  EXPECT_EQ(u(one["results"][0]["recv_post_calls"]), 880u);
}

TEST_F(Knobs, PostListShorterLastList) {
  // 50 warm-up + 500 measured writes in lists of 16: 4 + 32 calls (each phase's last list is
  // short).
  json d =
      ok({"--op", "write", "-s", "256", "-n", "500", "--warmup", "50", "-l", "16", "--verify"});
  EXPECT_EQ(u(d["results"][0]["send_post_calls"]), 36u);
  EXPECT_EQ(u(d["results"][0]["sent_messages"]), 550u);
}

TEST_F(Knobs, PostListRefusals) {
  refused({"--op", "send", "-l", "200"}, {"invalid post-list '200'", "tx-depth 128"});
  refused({"--op", "send", "--mode", "lat", "-l", "4"}, {"invalid post-list", "latency mode"});
  refused({"--op", "write", "-l", "16", "-Q", "24"}, {"invalid signal-every '24'", "post-list 16"});
}

// ---- scatter/gather ---------------------------------------------------------------------------

TEST_F(Knobs, SgeSplitsEveryMessageOnBothSides) {
  for (const auto& op : {std::string("send"), std::string("write"), std::string("read")}) {
    SCOPED_TRACE(op);
    json d = ok({"--op", op, "-s", "64,4K", "-n", "200", "--sge", "5", "--verify"});
    EXPECT_EQ(d["workload"]["sge"], 5);
    for (const char* side : {"client", "server"}) {
      const json& a = d["setup"][side]["qp_attr"];
      EXPECT_GE(a["max_send_sge"].get<int>(), 5) << side << a.dump();
      EXPECT_GE(a["max_recv_sge"].get<int>(), 5) << side << a.dump();
    }
    if (op == "send") {
      EXPECT_EQ(d["results"][1]["received_bytes"],
                4096 * d["results"][1]["received_messages"].get<uint64_t>());
    }
  }
  json ud = ok({"--op", "send", "-c", "ud", "-s", "512", "-n", "200", "--sge", "3", "--verify"});
  EXPECT_EQ(ud["workload"]["sge"], 3);
}

TEST_F(Knobs, SgeRefusals) {
  refused({"--op", "send", "--sge", "64"}, {"invalid sge '64'", "max_sge = 32", dev()});
  refused({"--op", "send", "-s", "4", "--sge", "8"}, {"invalid sge '8'", "smallest message size"});
  refused({"--op", "fetch_add", "--sge", "2"}, {"invalid sge '2'", "atomics"});
}

// ---- latency mode's queues (issue 47) -----------------------------------------------------------

// A closed-loop read keeps one in flight: its CQ holds that and a margin, not the depths' sum (a
// send ping-pong's holds its unreaped sends and their replies); a read posts no receive, so its
// receive queue is one unused entry; a send keeps its receive depth. Bandwidth mode keeps the
// depths' sum. Each size records the workers' context switches.
TEST_F(Knobs, LatencyModeSizesItsQueuesToWhatIsInFlight) {
  json rd = ok({"--op", "read", "--mode", "lat", "-s", "8", "-n", "200"});
  json sd = ok({"--op", "send", "--mode", "lat", "-s", "8", "-n", "200"});
  json bw = ok({"--op", "read", "-s", "4K", "-n", "200"});
  for (const char* side : {"client", "server"}) {
    SCOPED_TRACE(side);
    EXPECT_EQ(rd["setup"][side]["cq_entries"], 1 + 8);
    EXPECT_GE(rd["setup"][side]["qp_attr"]["max_recv_wr"].get<int>(), 1);
    EXPECT_LT(rd["setup"][side]["qp_attr"]["max_recv_wr"].get<int>(), 16);  // not rx-depth 512
    EXPECT_EQ(sd["setup"][side]["cq_entries"], 128 + 128 + 8);  // sends reaped as it goes
    EXPECT_GE(sd["setup"][side]["qp_attr"]["max_recv_wr"].get<int>(), 512);
    EXPECT_EQ(bw["setup"][side]["cq_entries"], 128 + 512 + 16);
    // Latency mode posts through the extended QP where the provider has one (rxe does; siw
    // has none and keeps ibv_post_send); bandwidth mode's post lists keep ibv_post_send.
    const std::string path = rd["setup"][side]["post_path"];
    if (dev().rfind("rxe", 0) == 0) {
      EXPECT_EQ(path, "ibv_wr");
    }
    EXPECT_TRUE(path == "ibv_wr" || path == "ibv_post_send") << path;
    EXPECT_EQ(sd["setup"][side]["post_path"], rd["setup"][side]["post_path"]);
    EXPECT_EQ(bw["setup"][side]["post_path"], "ibv_post_send");
  }
  for (const json* d : {&rd, &sd, &bw}) {
    const json& cpu = (*d)["results"][0]["cpu"];
    EXPECT_TRUE(cpu.contains("voluntary_switches") && cpu.contains("involuntary_switches"))
        << cpu.dump();
    EXPECT_TRUE((*d)["results"][0]["threads"][0]["cpu"].contains("involuntary_switches"));
  }
}

// ---- outstanding reads/atomics ----------------------------------------------------------------

TEST_F(Knobs, MaxRdAtomicSetsTheQpAttributes) {
  json d = ok({"--op", "read", "-s", "4K", "-n", "200", "-o", "4", "--verify"});
  EXPECT_EQ(d["workload"]["max_rd_atomic"], 4);
  for (const char* side : {"client", "server"}) {
    EXPECT_EQ(d["setup"][side]["qp_attr"]["max_rd_atomic"], 4) << side;
    EXPECT_EQ(d["setup"][side]["qp_attr"]["max_dest_rd_atomic"], 4) << side;
  }
  json def = ok({"--op", "fetch_add", "-n", "200", "--verify"});
  EXPECT_EQ(def["setup"]["client"]["qp_attr"]["max_rd_atomic"], 16);  // min(device, 16)
  json cm = ok({"-R", "--op", "read", "-s", "1K", "-n", "200", "-o", "2", "--verify"});
  EXPECT_EQ(cm["setup"]["client"]["qp_attr"]["max_rd_atomic"], 2);
  EXPECT_EQ(cm["setup"]["server"]["qp_attr"]["max_dest_rd_atomic"], 2);
}

TEST_F(Knobs, MaxRdAtomicRefusals) {
  refused({"--op", "read", "-o", "200"}, {"invalid max-rd-atomic '200'", "max_qp_rd_atom = 128"});
  refused({"--op", "write", "-c", "uc", "-o", "4"}, {"invalid max-rd-atomic '4'", "RC"});
}

// ---- latency gap and open loop ----------------------------------------------------------------

TEST_F(Knobs, LatencyGapSpacesTheIterations) {
  json d = ok({"--op", "send", "--mode", "lat", "-s", "64", "-n", "100", "--latency-gap", "3000"});
  EXPECT_EQ(d["workload"]["latency_gap_us"], 3000.0);
  // 99 busy-waited gaps of 3 ms lie inside the measured interval (a property of the loop).
  EXPECT_GE(d["results"][0]["seconds"].get<double>(), 99 * 3e-3);
  EXPECT_EQ(u(d["results"][0]["latency"]["count"]), 100u);
}

TEST_F(Knobs, OpenLoopSendsOnScheduleAndRecordsFromIntendedTimes) {
  for (const auto& op : {std::string("send"), std::string("read"), std::string("fetch_add")}) {
    SCOPED_TRACE(op);
    json d = ok({"--op", op, "--mode", "lat", "-n", "200", "--rate", "300"});
    const json& r = d["results"][0];
    ASSERT_TRUE(r["open_loop"].is_object()) << r.dump();
    const json& o = r["open_loop"];
    EXPECT_EQ(o["rate"], 300.0);
    EXPECT_EQ(u(o["sends"]), 200u);
    EXPECT_LE(u(o["late_sends"]), 200u);
    EXPECT_EQ(r["latency"]["kind"], "round_trip");
    EXPECT_EQ(u(r["latency"]["count"]), 200u);
    // A send never leaves before its intended time, so the achieved rate can exceed the
    // requested one only by what a late first send shortens the span: (n-1) / ((n-1)/R - lag).
    const double span = 199 / 300.0 - o["max_send_lag_ns"].get<double>() / 1e9;
    const double achieved = o["achieved_rate"].get<double>();
    EXPECT_GT(achieved, 0.0);
    if (span > 0) {
      EXPECT_LE(achieved, 199 / span * 1.0001) << o.dump();
    }
  }
  json closed = ok({"--op", "send", "--mode", "lat", "-n", "100"});
  EXPECT_TRUE(closed["results"][0]["open_loop"].is_null());
}

TEST_F(Knobs, OpenLoopRefusals) {
  refused({"--op", "write", "--mode", "lat", "--rate", "100"}, {"invalid rate '100'", "marker"});
  refused({"--op", "send", "--rate", "100"}, {"invalid rate '100'", "latency mode"});
  refused({"--op", "send", "-c", "uc", "--mode", "lat", "--rate", "100"}, {"invalid rate", "RC"});
}

// ---- many QPs ---------------------------------------------------------------------------------

TEST_F(Knobs, HundredsOfQpsConnectAndAllComplete) {
  json d =
      ok({"--op", "write", "-s", "64", "-n", "20", "-q", "256", "-t", "8", "-r", "8", "--verify"});
  EXPECT_EQ(u(d["results"][0]["ops"]), 20u * 256);
  for (const char* side : {"client", "server"}) {
    const json& s = d["setup"][side];
    EXPECT_EQ(s["qps"], 256) << side;
    EXPECT_EQ(s["cqs"], 1) << side;
    EXPECT_EQ(s["mrs"], 256) << side;
    EXPECT_GT(s["per_qp_ms"].get<double>(), 0.0) << side;
    EXPECT_GE(s["qp_verbs_ms"]["max"].get<double>(), s["qp_verbs_ms"]["mean"].get<double>())
        << side;
  }
}

TEST_F(Knobs, CqPerQp) {
  json d = ok({"--op", "send", "-s", "256", "-n", "50", "-q", "32", "--cq-per-qp", "--verify"});
  EXPECT_EQ(d["workload"]["cq_per_qp"], true);
  EXPECT_EQ(d["setup"]["client"]["cqs"], 32);
  EXPECT_EQ(d["setup"]["server"]["cqs"], 32);
  EXPECT_EQ(d["results"][0]["received_messages"], d["results"][0]["sent_messages"]);
  // The same QPs sharing one CQ per thread need more entries than the device has.
  refused({"--op", "send", "-q", "64"}, {"invalid qps '64'", "max_cqe = 32767", "--cq-per-qp"});
}

// ---- memory placement -------------------------------------------------------------------------

TEST_F(Knobs, SharedMrAndAlignment) {
  json d = ok({"--op", "write", "-s", "4K", "-n", "200", "-q", "4", "--mr", "shared", "--align",
               "64", "--verify"});
  for (const char* side : {"client", "server"}) {
    const json& m = d["setup"][side]["memory"];
    EXPECT_EQ(m["mr"], "shared") << side;
    EXPECT_EQ(d["setup"][side]["mrs"], 1) << side;
    EXPECT_EQ(m["buffer_address_alignment"], 64) << side;  // exactly 64, not more
  }
  json big = ok({"--op", "send", "-s", "1K", "-n", "100", "--align", "1M", "--verify"});
  EXPECT_GE(u(big["setup"]["client"]["memory"]["buffer_address_alignment"]), 1u << 20);
  json dflt = ok({"--op", "write", "-s", "1K", "-n", "100"});
  EXPECT_GE(u(dflt["setup"]["client"]["memory"]["buffer_address_alignment"]), 4096u);
}

void set_huge_pages(int n) {
  std::ofstream f("/proc/sys/vm/nr_hugepages");
  f << n << "\n";
  f.close();
  ASSERT_TRUE(f) << "cannot write /proc/sys/vm/nr_hugepages (the testbed guest runs as root)";
}

TEST_F(Knobs, HugePages) {
  set_huge_pages(0);
  refused({"--op", "write", "--hugepages"}, {"invalid hugepages", "/proc/sys/vm/nr_hugepages"});
  set_huge_pages(8);
  json d = ok({"--op", "write", "-s", "4K", "-n", "200", "--hugepages", "--verify"});
  set_huge_pages(0);
  for (const char* side : {"client", "server"}) {
    const json& m = d["setup"][side]["memory"];
    EXPECT_EQ(m["hugepages"], true) << side;
    const uint64_t page = u(m["huge_page_bytes"]);
    EXPECT_GE(page, 2u << 20) << side;
    EXPECT_EQ(u(m["mapped_bytes"]) % page, 0u) << side;
    EXPECT_GE(u(m["buffer_address_alignment"]), page) << side;
  }
}

TEST_F(Knobs, NumaBinding) {
  // The client's --numa places the client; the server keeps its own (none here).
  json d = ok({"--op", "write", "-s", "1K", "-n", "100", "--numa", "0", "--verify"});
  const json& c = d["setup"]["client"]["numa"];
  EXPECT_EQ(c["node"], 0);
  EXPECT_EQ(c["buffer_node"], 0);
  EXPECT_FALSE(c["cpus"].empty());
  EXPECT_EQ(d["setup"]["server"]["numa"]["node"], -1);
  EXPECT_EQ(d["setup"]["server"]["placement"]["numa"], "none");
  // rxe sits on a veth: sysfs gives it no NUMA node, so auto binds nothing and says why.
  json a = ok({"--op", "write", "-s", "1K", "-n", "100", "--numa", "auto"});
  const json& n = a["setup"]["client"]["numa"];
  EXPECT_EQ(n["device_node"], -1);
  EXPECT_EQ(n["node"], -1);
  EXPECT_NE(n["note"].get<std::string>().find("no NUMA node"), std::string::npos) << n.dump();
  EXPECT_EQ(a["devices"]["client"]["numa_node"], -1);
  refused({"--op", "write", "--numa", "7"}, {"invalid numa '7'", "0"});
}

// ---- placement of each side (issue 20, item 5) --------------------------------------------------

// A server of its own placement, for one test: its port, or "" when it did not start.
std::string placed_server(std::unique_ptr<Background>& srv, const std::vector<std::string>& args,
                          const std::string& dev, const std::string& gid, const std::string& addr) {
  std::vector<std::string> a = {bin(), "server", "-d", dev, "-x", gid, "--bind", addr, "-p", "0"};
  a.insert(a.end(), args.begin(), args.end());
  srv = std::make_unique<Background>(a);
  const std::string line = srv->line();
  const std::string tag = "RDMABENCH_SERVER_READY ";
  if (line.rfind(tag, 0) != 0) return "";
  return std::to_string(json::parse(line.substr(tag.size())).at("port").get<int>());
}

TEST_F(Knobs, EachSideKeepsItsOwnPlacement) {
  // The client's --cpus pins the client only (it used to pin the server's workers to the same
  // CPU numbers: on one host, two busy-polling workers on CPU 0).
  json d = ok({"--op", "send", "--mode", "lat", "-s", "8", "-n", "200", "--cpus", "0"});
  EXPECT_EQ(d["setup"]["client"]["placement"]["cpus"], json::array({0}));
  EXPECT_EQ(d["setup"]["server"]["placement"]["cpus"], json::array());
  EXPECT_EQ(d["workload"]["cpus"], json::array({0}));
  // A server's own --cpus / --numa, whatever the client asks.
  std::unique_ptr<Background> srv;
  const std::string port = placed_server(srv, {"--cpus", "1", "--numa", "0"}, dev(), gid(), addr());
  ASSERT_FALSE(port.empty()) << "the placed server did not start";
  const std::string path =
      ::testing::TempDir() + "rb-placed-" + std::to_string(::getpid()) + ".json";
  RunOutput r =
      run({bin(),  "client", addr(),   "-p",  port, "-d", dev(), "-x",  gid(),    "--json", path,
           "--op", "send",   "--mode", "lat", "-s", "8",  "-n",  "200", "--cpus", "1"},
          300);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  json p = json::parse(slurp(path));
  std::remove(path.c_str());
  EXPECT_EQ(p["setup"]["server"]["placement"]["cpus"], json::array({1}));
  EXPECT_EQ(p["setup"]["server"]["numa"]["node"], 0);
  EXPECT_EQ(p["setup"]["client"]["numa"]["node"], -1);
  // Both ends on this host pin CPU 1: said, not silent.
  EXPECT_NE(r.out.find("both pin CPU 1"), std::string::npos) << r.out;
}

// ---- QP settings (issue 20) -----------------------------------------------------------------

TEST_F(Knobs, QpSettingsReachBothSidesQps) {
  json d =
      ok({"--op", "write", "-s", "4K", "-n", "100", "--tos", "104", "--flow-label", "77", "-u",
          "18", "--retry-count", "5", "--rnr-retry", "3", "--min-rnr-timer", "20", "--verify"});
  for (const char* side : {"client", "server"}) {
    const json& f = d["setup"][side]["qp_attr"]["fabric"];
    EXPECT_EQ(f["traffic_class"], 104) << side;
    EXPECT_EQ(f["flow_label"], 77) << side;
    EXPECT_EQ(f["timeout"], 18) << side;
    EXPECT_EQ(f["retry_cnt"], 5) << side;
    EXPECT_EQ(f["rnr_retry"], 3) << side;
    EXPECT_EQ(f["min_rnr_timer"], 20) << side;
    EXPECT_EQ(f["pkey_index"], 0) << side;
    EXPECT_EQ(f["not_as_asked"], json::object()) << side;
  }
  EXPECT_EQ(d["workload"]["tos"], 104);
  EXPECT_EQ(d["workload"]["qp_timeout"], 18);
  // The defaults are the values before the settings existed.
  json def = ok({"--op", "write", "-s", "64", "-n", "100"});
  const json& f = def["setup"]["server"]["qp_attr"]["fabric"];
  EXPECT_EQ(f["timeout"], 14);
  EXPECT_EQ(f["retry_cnt"], 7);
  EXPECT_EQ(f["rnr_retry"], 7);
  EXPECT_EQ(f["min_rnr_timer"], 12);
  EXPECT_EQ(f["traffic_class"], 0);
  // rdma_cm: the TOS and ACK timeout by rdma_set_option, the retries by the connection parameters.
  json cm = ok({"-R", "--op", "write", "-s", "64", "-n", "100", "-T", "72", "-u", "16",
                "--retry-count", "6"});
  for (const char* side : {"client", "server"}) {
    const json& g = cm["setup"][side]["qp_attr"]["fabric"];
    EXPECT_EQ(g["traffic_class"], 72) << side;
    EXPECT_EQ(g["timeout"], 16) << side;
    EXPECT_EQ(g["retry_cnt"], 6) << side;
  }
  // UD: the address handle carries the traffic class.
  json ud = ok({"--op", "send", "-c", "ud", "-s", "64", "-n", "100", "-T", "40"});
  EXPECT_EQ(ud["setup"]["client"]["qp_attr"]["fabric"]["traffic_class"], 40);
  // -x as a GID: the port's IPv4-mapped GID, by its address.
  json x = ok({"--op", "write", "-s", "64", "-n", "100", "-x", "::ffff:" + addr()});
  EXPECT_EQ(x["devices"]["client"]["gid"], "::ffff:" + addr());
}

TEST_F(Knobs, QpSettingsRefusals) {
  refused({"-R", "--sl", "2"}, {"invalid sl '2'", "rdma_cm"});
  refused({"-R", "--min-rnr-timer", "5"}, {"invalid min-rnr-timer '5'", "--connect tcp"});
  refused({"--pkey-index", "3"}, {"invalid pkey-index '3'", "0 (0xffff)"});
  refused({"--gid-type", "roce-v1"}, {"invalid gid-type 'roce-v1'", "is RoCE v2"});
  refused({"-x", "10.9.9.9"}, {"invalid gid-index '10.9.9.9'", "GID table"});
}

// ---- watching a run (--interval, --run-infinitely) ---------------------------------------------

// A size's intervals add up to its totals, their offsets follow one another from 0, and their
// lengths add up to the measurement's (within what lies between the workers' announcement of
// the measurement and their first stamp).
void expect_intervals_add_up(const json& r) {
  const json& iv = r["intervals"];
  ASSERT_FALSE(iv.empty());
  EXPECT_EQ(u(r["intervals_total"]), iv.size());
  uint64_t ops = 0, bytes = 0;
  double seconds = 0;
  for (size_t k = 0; k < iv.size(); ++k) {
    EXPECT_NEAR(iv[k]["offset_s"].get<double>(), seconds, 1e-6) << k;
    ops += u(iv[k]["ops"]);
    bytes += u(iv[k]["bytes"]);
    seconds += iv[k]["seconds"].get<double>();
  }
  EXPECT_EQ(ops, u(r["ops"]));
  EXPECT_EQ(bytes, u(r["bytes"]));
  EXPECT_NEAR(seconds, r["seconds"].get<double>(), 0.05);
}

TEST_F(Knobs, IntervalsAddUpToTheTotals) {
  // Bandwidth for 3 s, an interval a second: one interval per boundary passed, and one more
  // when the last boundary came just before the end (it holds the final moments).
  json d = ok({"--op", "write", "-s", "4K", "-D", "3", "--warmup-time", "0.2", "--interval", "1"});
  const json& r = d["results"][0];
  expect_intervals_add_up(r);
  const auto whole = static_cast<size_t>(r["seconds"].get<double>());
  EXPECT_GE(r["intervals"].size(), whole);
  EXPECT_LE(r["intervals"].size(), whole + 1);
  EXPECT_GT(r["bw_peak_gbps"].get<double>(), 0);
  EXPECT_LE(r["bw_min_gbps"].get<double>(), r["bw_peak_gbps"].get<double>());
  // Each interval carries the client port's counters that moved in it: the packets sent add up
  // to no more than the size's own delta (which holds the warm-up too), and to some.
  uint64_t sent = 0;
  for (const json& iv : r["intervals"]) {
    ASSERT_TRUE(iv.contains("counters")) << iv.dump();
    if (iv["counters"].contains("hw_counters/sent_pkts"))
      sent += u(iv["counters"]["hw_counters/sent_pkts"]);
  }
  EXPECT_GT(sent, 0U);
  EXPECT_LE(sent, u(r["counters"]["client"]["hw_counters/sent_pkts"]));
  // Latency with a count: every interval that had round trips has its percentiles.
  json l = ok({"--op", "send", "--mode", "lat", "-s", "64", "-n", "2000", "--interval", "0.2"});
  const json& lr = l["results"][0];
  expect_intervals_add_up(lr);
  for (const json& iv : lr["intervals"]) {
    if (u(iv["ops"]) == 0) continue;
    ASSERT_TRUE(iv.contains("p50_ns") && iv.contains("p99_ns")) << iv.dump();
    EXPECT_GT(iv["p50_ns"].get<double>(), 0);
    EXPECT_LE(iv["p50_ns"].get<double>(), iv["p99_ns"].get<double>());
  }
}

// --run-infinitely: SIGINT ends the measurement, and the client exits 0 with the whole run's
// document (summary and intervals). It is refused where it could not end on its own terms.
TEST_F(Knobs, RunInfinitelyEndsCleanlyOnSigint) {
  const std::string path =
      ::testing::TempDir() + "rb-forever-" + std::to_string(::getpid()) + ".json";
  Background c({bin(),        "client",
                addr(),       "-p",
                port_,        "-d",
                dev(),        "-x",
                gid(),        "--json",
                path,         "--timeout",
                "30",         "--op",
                "write",      "-s",
                "4K",         "--warmup-time",
                "0.2",        "--run-infinitely",
                "--interval", "0.5"});
  // Two intervals printed: the measurement runs. Then Ctrl-C.
  int intervals = 0;
  for (std::string line; intervals < 2 && !(line = c.line()).empty();)
    if (line.rfind(" [", 0) == 0) ++intervals;
  ASSERT_EQ(intervals, 2);
  ::kill(c.pid(), SIGINT);
  EXPECT_EQ(c.wait_exit(60), 0);
  const std::string text = slurp(path);
  std::remove(path.c_str());
  ASSERT_FALSE(text.empty()) << "no result document";
  const json d = json::parse(text);
  EXPECT_TRUE(d["error"].is_null()) << d["error"];
  EXPECT_EQ(d["workload"]["run_infinitely"], true);
  const json& r = d["results"][0];
  EXPECT_TRUE(r["error"].is_null()) << r["error"];
  EXPECT_GT(u(r["ops"]), 0u);
  EXPECT_GE(r["intervals"].size(), 2u);
  expect_intervals_add_up(r);
  refused({"--run-infinitely", "-n", "100"}, {"run-infinitely", "without -n or -D"});
  refused({"--run-infinitely", "-s", "64,4K"}, {"run-infinitely", "one message size"});
  refused({"--run-infinitely", "-b"}, {"run-infinitely", "one direction"});
}

}  // namespace
}  // namespace rdmabench::test
