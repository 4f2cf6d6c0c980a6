// The engine knobs (docs/single-pair.md "Engine knobs"): validation with ConfigErrors naming
// option, value and limit; JSON round trip; command-line spelling; the SGE split; and the host
// helpers they use (NUMA from sysfs, huge page accounting, aligned mappings).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/cpu_list.h"
#include "base/error.h"
#include "base/host_memory.h"
#include "base/numa.h"
#include "base/temp_dir.h"
#include "model/result.h"
#include "model/workload.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "tests/unit/test_util.h"
#include "verbs/device.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigError refusal(const std::function<void()>& f) { return testutil::catch_config_error(f); }

void expect_refused(const Workload& w, const std::string& field, const std::string& value,
                    const std::string& fragment) {
  ConfigError e = refusal([&] { validate(w); });
  EXPECT_EQ(e.field(), field);
  EXPECT_EQ(e.value(), value);
  EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
}

Workload send_bw() {
  Workload w;
  w.op = Op::kSend;
  w.sizes = {4096};
  return w;
}

Workload lat(Op op) {
  Workload w;
  w.op = op;
  w.mode = Mode::kLat;
  w.sizes = {is_atomic(op) ? 8U : 64U};
  return w;
}

DeviceLimits device() {
  DeviceLimits d;
  d.name = "rxe7";
  d.transport = "InfiniBand";
  d.atomic_cap = "hca";
  d.port_active_mtu = 1024;
  d.max_inline_data = 256;
  d.max_qp_wr = 16384;
  d.max_qp = 1 << 16;
  d.max_cqe = 32767;
  d.max_srq_wr = 16384;
  d.max_sge = 32;
  d.max_sge_rd = 16;
  d.max_srq_sge = 8;
  d.max_qp_rd_atom = 128;
  d.max_qp_init_rd_atom = 64;
  d.max_cq = 1000;
  d.max_mr_size = 1ULL << 40;
  return d;
}

void expect_device_refused(const Workload& w, const std::string& field, const std::string& value,
                           const std::string& limit) {
  ASSERT_NO_THROW(validate(w));
  DeviceLimits d = device();
  ConfigError e = refusal([&] { validate_for_device(w, d); });
  EXPECT_EQ(e.field(), field);
  EXPECT_EQ(e.value(), value);
  const std::string msg = e.what();
  EXPECT_NE(msg.find(limit), std::string::npos) << msg;
  EXPECT_NE(msg.find("rxe7"), std::string::npos) << msg;
}

// ---- post list --------------------------------------------------------------------------------

TEST(PostListTest, DefaultsAndSignalingAtListBoundaries) {
  Workload w = send_bw();
  EXPECT_EQ(w.post_list, 1u);
  EXPECT_EQ(w.effective_signal_every(), 100u);
  w.post_list = 8;
  EXPECT_NO_THROW(validate(w));
  EXPECT_EQ(w.effective_signal_every(), 96u);  // a multiple of the list
  w.post_list = 64;
  EXPECT_EQ(w.effective_signal_every(), 64u);
  w.post_list = 128;
  EXPECT_EQ(w.effective_signal_every(), 128u);
  EXPECT_NO_THROW(validate(w));
  w.signal_every = 32;  // a divisor
  EXPECT_NO_THROW(validate(w));
  w.signal_every = 128;
  EXPECT_NO_THROW(validate(w));
}

TEST(PostListTest, Refusals) {
  Workload w = send_bw();
  w.post_list = 0;
  expect_refused(w, "post-list", "0", "between 1 and 4096");
  w.post_list = 5000;
  expect_refused(w, "post-list", "5000", "between 1 and 4096");
  w.post_list = 200;
  expect_refused(w, "post-list", "200", "tx-depth 128");
  w.post_list = 16;
  w.rx_depth = 8;
  expect_refused(w, "post-list", "16", "rx-depth 8");
  w.rx_depth = 512;
  w.signal_every = 24;
  expect_refused(w, "signal-every", "24", "multiple or a divisor of post-list 16");
  Workload l = lat(Op::kSend);
  l.post_list = 4;
  expect_refused(l, "post-list", "4", "latency mode");
  // Receive depth matters only when the op consumes receives.
  Workload write = send_bw();
  write.op = Op::kWrite;
  write.post_list = 16;
  write.rx_depth = 8;
  EXPECT_NO_THROW(validate(write));
}

// ---- scatter/gather ---------------------------------------------------------------------------

TEST(SgeTest, PiecesAreContiguousAndDifferByAtMostOneByte) {
  for (uint64_t size : {1ULL, 7ULL, 64ULL, 1000ULL, 65536ULL})
    for (uint32_t k : {1U, 2U, 3U, 7U, 32U}) {
      if (k > size) continue;
      uint64_t expect_off = 0;
      uint64_t lo = UINT64_MAX;
      uint64_t hi = 0;
      for (uint32_t i = 0; i < k; ++i) {
        EXPECT_EQ(sge_piece_offset(size, k, i), expect_off) << size << "/" << k << "/" << i;
        const uint64_t len = sge_piece_length(size, k, i);
        EXPECT_GE(len, 1u);
        lo = std::min(lo, len);
        hi = std::max(hi, len);
        expect_off += len;
      }
      EXPECT_EQ(expect_off, size);
      EXPECT_LE(hi - lo, 1u);
    }
}

TEST(SgeTest, Refusals) {
  Workload w = send_bw();
  w.sge = 0;
  expect_refused(w, "sge", "0", "between 1 and 1024");
  w.sge = 8;
  w.sizes = {4, 4096};
  expect_refused(w, "sge", "8", "smallest message size (4 bytes)");
  Workload a = lat(Op::kFetchAdd);
  a.sge = 2;
  expect_refused(a, "sge", "2", "1 for atomics");
}

TEST(SgeTest, DeviceLimits) {
  Workload w = send_bw();
  w.sge = 33;
  expect_device_refused(w, "sge", "33", "max_sge = 32");
  w.sge = 32;
  EXPECT_NO_THROW(validate_for_device(w, device()));
  Workload r = send_bw();
  r.op = Op::kRead;
  r.sge = 17;
  expect_device_refused(r, "sge", "17", "max_sge_rd (reads) = 16");
  Workload s = send_bw();
  s.srq = true;
  s.sge = 9;
  expect_device_refused(s, "sge", "9", "max_srq_sge (shared receive queue) = 8");
}

// ---- outstanding reads/atomics ----------------------------------------------------------------

TEST(MaxRdAtomicTest, RangeTransportAndDeviceLimits) {
  Workload w = send_bw();
  w.op = Op::kRead;
  w.max_rd_atomic = 256;
  expect_refused(w, "max-rd-atomic", "256", "between 1 and 255");
  w.max_rd_atomic = 4;
  w.qp = QpType::kUc;
  w.op = Op::kWrite;
  expect_refused(w, "max-rd-atomic", "4", "only with RC");
  w.qp = QpType::kRc;
  w.op = Op::kRead;
  EXPECT_NO_THROW(validate_for_device(w, device()));
  w.max_rd_atomic = 100;  // <= max_qp_rd_atom 128, > max_qp_init_rd_atom 64
  expect_device_refused(w, "max-rd-atomic", "100", "max_qp_init_rd_atom = 64");
  w.max_rd_atomic = 200;
  expect_device_refused(w, "max-rd-atomic", "200", "max_qp_rd_atom = 128");
}

// ---- latency gap and open loop ----------------------------------------------------------------

TEST(LatencyGapTest, OnlyInLatencyMode) {
  Workload w = lat(Op::kSend);
  w.latency_gap_us = 50;
  EXPECT_NO_THROW(validate(w));
  w.latency_gap_us = -1;
  expect_refused(w, "latency-gap", "-1", "0 to 1000000");
  Workload b = send_bw();
  b.latency_gap_us = 10;
  expect_refused(b, "latency-gap", "10", "latency mode");
}

TEST(OpenLoopTest, SupportedCombinations) {
  for (Op op : {Op::kSend, Op::kSendImm, Op::kWriteImm, Op::kRead, Op::kFetchAdd, Op::kCmpSwap}) {
    Workload w = lat(op);
    w.rate = 1000;
    EXPECT_NO_THROW(validate(w)) << to_string(op);
    EXPECT_TRUE(w.open_loop());
  }
  EXPECT_FALSE(lat(Op::kSend).open_loop());
}

TEST(OpenLoopTest, Refusals) {
  Workload w = lat(Op::kSend);
  w.rate = 2e8;
  expect_refused(w, "rate", "2e+08", "100000000");
  w.rate = 1000;
  w.mode = Mode::kBw;
  expect_refused(w, "rate", "1000", "latency mode");
  w.mode = Mode::kLat;
  w.qp = QpType::kUd;
  expect_refused(w, "rate", "1000", "only with RC");
  w.qp = QpType::kRc;
  w.cq = CqMode::kEvent;
  expect_refused(w, "rate", "1000", "--cq poll");
  w.cq = CqMode::kPoll;
  w.latency_gap_us = 5;
  expect_refused(w, "latency-gap", "5", "schedule");
  Workload write = lat(Op::kWrite);
  write.rate = 1000;
  expect_refused(write, "rate", "1000", "marker byte");
}

// ---- many QPs ---------------------------------------------------------------------------------

TEST(CqPerQpTest, ModeAndCqLimits) {
  Workload w = send_bw();
  w.cq_per_qp = true;
  w.qps_per_thread = 64;
  EXPECT_NO_THROW(validate(w));
  // One CQ per worker would need 64 x 640 entries; per QP it is 640.
  EXPECT_NO_THROW(validate_for_device(w, device()));
  w.cq_per_qp = false;
  expect_device_refused(w, "qps", "64", "--cq-per-qp");
  w.cq_per_qp = true;
  w.threads = 20;  // 1280 CQs > max_cq 1000
  expect_device_refused(w, "qps", "64", "max_cq = 1000");
  Workload l = lat(Op::kSend);
  l.cq_per_qp = true;
  expect_refused(l, "cq-per-qp", "true", "bw mode");
  Workload e = send_bw();
  e.cq_per_qp = true;
  e.cq = CqMode::kEvent;
  expect_refused(e, "cq-per-qp", "true", "--cq poll");
}

// ---- memory placement -------------------------------------------------------------------------

TEST(MemoryKnobsTest, AlignAndNuma) {
  Workload w = send_bw();
  w.align = 48;
  expect_refused(w, "align", "48", "power of two");
  w.align = 64;
  EXPECT_NO_THROW(validate(w));
  Workload a = lat(Op::kCmpSwap);
  a.align = 4;
  expect_refused(a, "align", "4", "at least 8 for atomics");
  EXPECT_EQ(parse_numa("none", "numa"), Workload::kNumaNone);
  EXPECT_EQ(parse_numa("auto", "numa"), Workload::kNumaAuto);
  EXPECT_EQ(parse_numa("3", "numa"), 3);
  ConfigError e = refusal([] { parse_numa("near", "numa"); });
  EXPECT_EQ(e.field(), "numa");
  EXPECT_NE(e.allowed().find("auto"), std::string::npos);
  EXPECT_EQ(numa_text(Workload::kNumaAuto), "auto");
  EXPECT_EQ(numa_text(2), "2");
  EXPECT_EQ(parse_mr_mode("shared"), MrMode::kShared);
  EXPECT_EQ(refusal([] { parse_mr_mode("one"); }).field(), "mr");
}

// ---- JSON -------------------------------------------------------------------------------------

TEST(KnobsJsonTest, RoundTripAndDefaults) {
  Workload w = send_bw();
  w.post_list = 16;
  w.sge = 4;
  w.max_rd_atomic = 8;
  w.cq_per_qp = true;
  w.hugepages = true;
  w.align = 128;
  w.mr = MrMode::kShared;
  w.numa = Workload::kNumaAuto;
  const json j = w;
  EXPECT_EQ(j["post_list"], 16);
  EXPECT_EQ(j["sge"], 4);
  EXPECT_EQ(j["mr"], "shared");
  EXPECT_EQ(j["numa"], "auto");
  Workload back = workload_from_json(json::parse(j.dump()), "/workload");
  EXPECT_EQ(json(back), j);
  Workload l = lat(Op::kRead);
  l.rate = 2500.5;
  Workload lb = workload_from_json(json(l), "/workload");
  EXPECT_DOUBLE_EQ(lb.rate, 2500.5);
  l.rate = 0;
  l.latency_gap_us = 12.5;
  EXPECT_DOUBLE_EQ(workload_from_json(json(l), "/workload").latency_gap_us, 12.5);
  // Documents written before the knobs read back with the defaults.
  Workload old = workload_from_json(json::parse(R"({"op": "send", "sizes": [64]})"), "/workload");
  EXPECT_EQ(old.post_list, 1u);
  EXPECT_EQ(old.sge, 1u);
  EXPECT_EQ(old.numa, Workload::kNumaNone);
  EXPECT_EQ(old.mr, MrMode::kPerQp);
}

TEST(KnobsJsonTest, BadValuesNameTheJsonPath) {
  json j = send_bw();
  j["post_list"] = 0;
  EXPECT_EQ(refusal([&] { workload_from_json(j, "/workload"); }).field(), "/workload/post_list");
  j = send_bw();
  j["numa"] = 3;
  EXPECT_EQ(refusal([&] { workload_from_json(j, "/workload"); }).field(), "/workload/numa");
  j = send_bw();
  j["mr"] = "many";
  EXPECT_EQ(refusal([&] { workload_from_json(j, "/workload"); }).field(), "/workload/mr");
  j = send_bw();
  j["rate"] = 100;  // bw mode
  EXPECT_EQ(refusal([&] { workload_from_json(j, "/workload"); }).field(), "/workload/rate");
}

TEST(KnobsJsonTest, SizeResultKnobFieldsRoundTrip) {
  SizeResult r;
  r.size = 64;
  r.send_post_calls = 110;
  r.recv_post_calls = 55;
  r.open_loop = OpenLoopResult{1000, 998.5, 2000, 3, 1234.5};
  json j = r;
  SizeResult back = size_result_from_json(json::parse(j.dump()), "/results/0");
  EXPECT_EQ(back.send_post_calls, 110u);
  EXPECT_EQ(back.recv_post_calls, 55u);
  ASSERT_TRUE(back.open_loop.has_value());
  EXPECT_DOUBLE_EQ(back.open_loop->achieved_rate, 998.5);
  EXPECT_EQ(back.open_loop->late_sends, 3u);
  j.erase("send_post_calls");
  j.erase("open_loop");
  SizeResult older = size_result_from_json(j, "/results/0");
  EXPECT_EQ(older.send_post_calls, 0u);
  EXPECT_FALSE(older.open_loop.has_value());
}

// ---- command line -----------------------------------------------------------------------------

TEST(KnobsOptionsTest, BuildWorkloadParsesEveryKnob) {
  WorkloadArgs a;
  a.text["op"] = "send";
  a.text["post_list"] = "8";
  a.text["sge"] = "3";
  a.text["align"] = "4K";
  a.text["mr"] = "SHARED";
  a.text["numa"] = "auto";
  a.text["cq_per_qp"] = "true";
  a.text["hugepages"] = "true";
  Workload w = build_workload(a);
  EXPECT_EQ(w.post_list, 8u);
  EXPECT_EQ(w.sge, 3u);
  EXPECT_EQ(w.align, 4096u);
  EXPECT_EQ(w.mr, MrMode::kShared);
  EXPECT_EQ(w.numa, Workload::kNumaAuto);
  EXPECT_TRUE(w.cq_per_qp);
  EXPECT_TRUE(w.hugepages);
  WorkloadArgs l;
  l.text["mode"] = "lat";
  l.text["op"] = "read";
  l.text["rate"] = "5000";
  l.text["max_rd_atomic"] = "4";
  Workload lw = build_workload(l);
  EXPECT_DOUBLE_EQ(lw.rate, 5000);
  EXPECT_EQ(lw.max_rd_atomic, 4u);
  WorkloadArgs g;
  g.text["mode"] = "lat";
  g.text["latency_gap_us"] = "2.5";
  EXPECT_DOUBLE_EQ(build_workload(g).latency_gap_us, 2.5);
}

TEST(KnobsOptionsTest, BadTextIsRefusedNamingTheOption) {
  auto field_of = [](WorkloadArgs a) { return refusal([&] { build_workload(a); }).field(); };
  WorkloadArgs a;
  a.text["post_list"] = "x";
  EXPECT_EQ(field_of(a), "post-list");
  a = {};
  a.text["sge"] = "0";
  EXPECT_EQ(field_of(a), "sge");
  a = {};
  a.text["max_rd_atomic"] = "300";
  EXPECT_EQ(field_of(a), "max-rd-atomic");
  a = {};
  a.text["mode"] = "lat";
  a.text["rate"] = "fast";
  EXPECT_EQ(field_of(a), "rate");
  a = {};
  a.text["mode"] = "lat";
  a.text["latency_gap_us"] = "-3";
  EXPECT_EQ(field_of(a), "latency-gap");
  a = {};
  a.text["align"] = "3";
  EXPECT_EQ(field_of(a), "align");
  a = {};
  a.text["numa"] = "-1";
  EXPECT_EQ(field_of(a), "numa");
}

TEST(KnobsOptionsTest, CampaignFieldsBecomeClientOptions) {
  json values = json::object();
  values["mode"] = canonical_field_value("mode", "lat", "/matrix/mode");
  values["op"] = canonical_field_value("op", "read", "/matrix/op");
  values["rate"] = canonical_field_value("rate", 1000, "/matrix/rate");
  values["max_rd_atomic"] = canonical_field_value("max_rd_atomic", 4, "/matrix/max_rd_atomic");
  values["numa"] = canonical_field_value("numa", "auto", "/matrix/numa");
  values["mr"] = canonical_field_value("mr", "shared", "/matrix/mr");
  values["hugepages"] = canonical_field_value("hugepages", true, "/matrix/hugepages");
  const std::vector<std::string> opts = client_options(values);
  auto has = [&](const std::string& a, const std::string& b) {
    for (size_t i = 0; i + 1 < opts.size(); ++i)
      if (opts[i] == a && opts[i + 1] == b) return true;
    return false;
  };
  EXPECT_TRUE(has("--rate", "1000"));
  EXPECT_TRUE(has("--max-rd-atomic", "4"));
  EXPECT_TRUE(has("--numa", "auto"));
  EXPECT_TRUE(has("--mr", "shared"));
  Workload w = workload_from_values(values);
  EXPECT_DOUBLE_EQ(w.rate, 1000);
  EXPECT_EQ(w.max_rd_atomic, 4u);
  EXPECT_EQ(w.numa, Workload::kNumaAuto);
  EXPECT_TRUE(w.hugepages);
  json bw = {{"post_list", canonical_field_value("post_list", 16, "/matrix/post_list")},
             {"sge", canonical_field_value("sge", 2, "/matrix/sge")},
             {"cq_per_qp", true}};
  Workload b = workload_from_values(bw);
  EXPECT_EQ(b.post_list, 16u);
  EXPECT_EQ(b.sge, 2u);
  EXPECT_TRUE(b.cq_per_qp);
  ConfigError e = refusal([] { canonical_field_value("rate", -5, "/matrix/rate"); });
  EXPECT_EQ(e.field(), "/matrix/rate");
  EXPECT_EQ(e.allowed().find("seconds"), std::string::npos) << e.allowed();
  EXPECT_EQ(refusal([] { canonical_field_value("numa", "far", "/matrix/numa"); }).field(),
            "/matrix/numa");
}

// ---- host helpers -----------------------------------------------------------------------------

TEST(NumaTest, CpuListsParse) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("\n").empty());
  EXPECT_THROW(parse_cpu_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("a"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("0-70000"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("1,,2"), std::invalid_argument);
  // The one splitter every reader shares: items as written, a leading '-' kept as a sign.
  const std::vector<CpuListItem> items = cpu_list_items("0-3,8,-1");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].first, "0");
  EXPECT_EQ(items[0].last, "3");
  EXPECT_EQ(items[0].text, "0-3");
  EXPECT_EQ(items[1].first, "8");
  EXPECT_EQ(items[1].last, "8");
  EXPECT_EQ(items[2].first, "-1");
}

TEST(NumaTest, NodesAndTheirCpusFromSysfs) {
  TempDir t;
  t.put("devices/system/node/node0/cpulist", "0-1\n");
  t.put("devices/system/node/node1/cpulist", "2-3\n");
  t.put("devices/system/node/possible", "0-1\n");
  EXPECT_EQ(numa_nodes(t.str()), (std::vector<int>{0, 1}));
  EXPECT_EQ(numa_node_cpus(1, t.str()), (std::vector<int>{2, 3}));
  ConfigError e = refusal([&] { numa_node_cpus(4, t.str()); });
  EXPECT_EQ(e.field(), "numa");
  EXPECT_NE(e.allowed().find("0, 1"), std::string::npos) << e.what();
}

TEST(NumaTest, DeviceNodeFromSysfsOrItsParentNetdev) {
  TempDir t;
  t.put("class/infiniband/mlx5_0/device/numa_node", "1\n");
  t.put("class/infiniband/hfi_0/device/numa_node", "-1\n");
  t.put("class/infiniband/rxe0/parent", "eth3\n");
  t.put("class/net/eth3/device/numa_node", "0\n");
  t.put("class/infiniband/rxe1/parent", "veth0\n");  // a netdev without a device
  EXPECT_EQ(device_numa_node("mlx5_0", t.str()), 1);
  EXPECT_EQ(device_numa_node("hfi_0", t.str()), -1);
  EXPECT_EQ(device_numa_node("rxe0", t.str()), 0);
  EXPECT_EQ(device_numa_node("rxe1", t.str()), -1);
  EXPECT_EQ(device_numa_node("absent", t.str()), -1);
}

TEST(HostMemoryTest, HugePageInfoAndAdvice) {
  TempDir t;
  t.put("meminfo",
        "MemTotal: 100 kB\nHugePages_Total:       4\nHugePages_Free:        3\n"
        "Hugepagesize:       2048 kB\n");
  HugePageInfo h = huge_page_info(t.str() + "/meminfo");
  EXPECT_EQ(h.page_bytes, 2048u * 1024);
  EXPECT_EQ(h.total, 4u);
  EXPECT_EQ(h.free, 3u);
  const std::string advice = huge_pages_advice(10, h);
  EXPECT_NE(advice.find("/proc/sys/vm/nr_hugepages"), std::string::npos) << advice;
  EXPECT_NE(advice.find("echo 11"), std::string::npos) << advice;  // 4 - 3 in use + 10
  EXPECT_NE(advice.find("2048 kB"), std::string::npos) << advice;
}

TEST(HostMemoryTest, MappingsAreZeroedAndAligned) {
  for (size_t align : {size_t{1} << 12, size_t{1} << 16, size_t{1} << 21}) {
    HostMemory m = HostMemory::map(10000, align, 0, -1);
    ASSERT_NE(m.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % align, 0u);
    EXPECT_GE(m.mapped_bytes(), 10000u);
    for (size_t i = 0; i < 10000; ++i) ASSERT_EQ(m.data()[i], std::byte{0});
    m.data()[9999] = std::byte{1};  // writable
    HostMemory moved = std::move(m);
    EXPECT_EQ(m.data(), nullptr);
    EXPECT_EQ(moved.data()[9999], std::byte{1});
  }
  EXPECT_EQ(mapping_bytes(1, 4096, 2 << 20), size_t{2} << 20);
}

}  // namespace
}  // namespace rdmabench
