// Command-line spellings -> Workload (model/workload_options.h): sizes with suffixes, lists,
// ranges and "all", and refusals that name the option, the value and what is allowed.
#include "model/workload_options.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using testutil::catch_config_error;

// build_workload must refuse `a`, naming `field` and the value; returns the error for more checks.
ConfigError expect_build_refused(const WorkloadArgs& a, const std::string& field,
                                 const std::string& value) {
  ConfigError e = catch_config_error([&] { build_workload(a); });
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_EQ(e.value(), value) << e.what();
  const std::string msg = e.what();
  EXPECT_NE(msg.find(field), std::string::npos) << msg;
  EXPECT_NE(msg.find(value), std::string::npos) << msg;
  EXPECT_FALSE(e.allowed().empty());
  return e;
}

std::vector<uint64_t> powers_of_two(uint64_t from, uint64_t to) {
  std::vector<uint64_t> v;
  for (uint64_t x = from; x <= to; x *= 2) v.push_back(x);
  return v;
}

// ---- defaults -------------------------------------------------------------------------------

TEST(BuildWorkloadTest, NoArgumentsGivesTheDefaultWorkload) {
  Workload w = build_workload(WorkloadArgs{});
  EXPECT_EQ(w.op, Op::kWrite);
  EXPECT_EQ(w.qp, QpType::kRc);
  EXPECT_EQ(w.mode, Mode::kBw);
  EXPECT_EQ(w.cq, CqMode::kPoll);
  EXPECT_EQ(w.connect, ConnectMethod::kAuto);  // resolved from the device: rdma_cm on iWARP
  EXPECT_EQ(w.sizes, std::vector<uint64_t>{65536});
  EXPECT_NO_THROW(validate(w));
}

TEST(BuildWorkloadTest, NamesAreCaseInsensitive) {
  WorkloadArgs a;
  a.text["op"] = "SEND_IMM";
  a.text["qp"] = "Ud";
  a.text["mode"] = "LAT";
  a.text["cq"] = "Event";
  Workload w = build_workload(a);
  EXPECT_EQ(w.op, Op::kSendImm);
  EXPECT_EQ(w.qp, QpType::kUd);
  EXPECT_EQ(w.mode, Mode::kLat);
  EXPECT_EQ(w.cq, CqMode::kEvent);
}

TEST(BuildWorkloadTest, FlagsAreCarriedOver) {
  WorkloadArgs a;
  a.text["op"] = "send";
  a.text["bidir"] = "true";
  a.text["srq"] = "true";
  a.rdma_cm = true;
  a.text["verify"] = "true";
  a.events = true;
  Workload w = build_workload(a);
  EXPECT_TRUE(w.bidir);
  EXPECT_TRUE(w.srq);
  EXPECT_TRUE(w.verify);
  EXPECT_EQ(w.connect, ConnectMethod::kRdmaCm);
  EXPECT_EQ(w.cq, CqMode::kEvent);
}

TEST(BuildWorkloadTest, ConnectOption) {
  WorkloadArgs a;
  EXPECT_EQ(build_workload(a).connect, ConnectMethod::kAuto);
  a.text["connect"] = "tcp";
  EXPECT_EQ(build_workload(a).connect, ConnectMethod::kTcp);
  a.text["connect"] = "RDMA_CM";
  EXPECT_EQ(build_workload(a).connect, ConnectMethod::kRdmaCm);
  a.text["connect"] = "tcp";
  a.rdma_cm = true;
  try {
    build_workload(a);
    FAIL() << "--connect tcp with -R accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "connect");
    EXPECT_EQ(e.value(), "tcp");
  }
  a.rdma_cm = false;
  a.text["connect"] = "udp";
  try {
    build_workload(a);
    FAIL() << "--connect udp accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "connect");
    EXPECT_NE(e.allowed().find("tcp, rdma_cm, auto"), std::string::npos);
  }
}

TEST(BuildWorkloadTest, NumericOptions) {
  WorkloadArgs a;
  a.text["op"] = "send";
  a.text["iterations"] = "12345";
  a.text["warmup"] = "0";
  a.text["tx_depth"] = "256";
  a.text["rx_depth"] = "1024";
  a.text["inline_size"] = "64";
  a.text["signal_every"] = "16";
  a.text["threads"] = "4";
  a.text["qps_per_thread"] = "2";
  a.text["mtu"] = "2048";
  a.text["timeout_s"] = "2.5";
  a.text["cpus"] = "0,2,5";
  Workload w = build_workload(a);
  EXPECT_EQ(w.iterations, 12345u);
  EXPECT_EQ(w.effective_warmup(), 0u);
  EXPECT_EQ(w.tx_depth, 256u);
  EXPECT_EQ(w.rx_depth, 1024u);
  EXPECT_EQ(w.inline_size, 64);
  EXPECT_EQ(w.signal_every, 16u);
  EXPECT_EQ(w.threads, 4u);
  EXPECT_EQ(w.qps_per_thread, 2u);
  EXPECT_EQ(w.total_qps(), 8u);
  EXPECT_EQ(w.mtu, 2048u);
  EXPECT_DOUBLE_EQ(w.timeout_s, 2.5);
  EXPECT_EQ(w.cpus, (std::vector<int>{0, 2, 5}));
}

TEST(BuildWorkloadTest, DurationMode) {
  WorkloadArgs a;
  a.text["duration_s"] = "1.5";
  a.text["warmup_s"] = "0.25";
  Workload w = build_workload(a);
  EXPECT_DOUBLE_EQ(w.duration_s, 1.5);
  EXPECT_DOUBLE_EQ(w.warmup_s, 0.25);
  EXPECT_EQ(w.iterations, 0u);
}

// ---- sizes ----------------------------------------------------------------------------------

TEST(BuildWorkloadTest, SizeSuffixes) {
  struct Case {
    const char* text;
    uint64_t bytes;
  };
  for (const Case& c : {Case{"64", 64}, Case{"4K", 4096}, Case{"4k", 4096}, Case{"1M", 1ULL << 20},
                        Case{"2G", 2ULL << 30}, Case{"1G", 1ULL << 30}, Case{"4KB", 4096},
                        Case{"4KiB", 4096}, Case{"3M", 3ULL << 20}}) {
    WorkloadArgs a;
    a.text["sizes"] = c.text;
    if (c.bytes > (1ULL << 30)) {
      // Parsed correctly, then refused by validation as above 1G.
      EXPECT_EQ(parse_size(c.text, "size"), c.bytes) << c.text;
      expect_build_refused(a, "size", std::to_string(c.bytes));
      continue;
    }
    EXPECT_EQ(build_workload(a).sizes, std::vector<uint64_t>{c.bytes}) << c.text;
  }
}

TEST(BuildWorkloadTest, SizeLists) {
  WorkloadArgs a;
  a.text["sizes"] = "1K,4K";
  EXPECT_EQ(build_workload(a).sizes, (std::vector<uint64_t>{1024, 4096}));
  // Sorted and de-duplicated.
  a.text["sizes"] = "64K,2,64K,1K";
  EXPECT_EQ(build_workload(a).sizes, (std::vector<uint64_t>{2, 1024, 65536}));
}

TEST(BuildWorkloadTest, SizeRangeIsPowersOfTwo) {
  WorkloadArgs a;
  a.text["sizes"] = "2-8M";
  Workload w = build_workload(a);
  EXPECT_EQ(w.sizes, powers_of_two(2, 8ULL << 20));
  EXPECT_EQ(w.sizes.size(), 23u);
  EXPECT_EQ(w.sizes.front(), 2u);
  EXPECT_EQ(w.sizes.back(), 8ULL << 20);

  a.text["sizes"] = "1K-64K";
  EXPECT_EQ(build_workload(a).sizes,
            (std::vector<uint64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536}));
  // A range and single sizes combined.
  a.text["sizes"] = "3,16-64";
  EXPECT_EQ(build_workload(a).sizes, (std::vector<uint64_t>{3, 16, 32, 64}));
  // A range with one element.
  a.text["sizes"] = "4K-4K";
  EXPECT_EQ(build_workload(a).sizes, std::vector<uint64_t>{4096});
}

TEST(BuildWorkloadTest, BadRangesAreRefused) {
  WorkloadArgs a;
  a.text["sizes"] = "8M-2";
  ConfigError e = expect_build_refused(a, "size", "8M-2");
  EXPECT_NE(e.allowed().find("FROM"), std::string::npos);
  a.text["sizes"] = "0-8";
  expect_build_refused(a, "size", "0-8");
}

TEST(BuildWorkloadTest, AllSizes) {
  WorkloadArgs a;
  a.all_sizes = true;
  Workload w = build_workload(a);
  EXPECT_EQ(w.sizes, powers_of_two(2, 8ULL << 20));
  EXPECT_EQ(w.sizes.size(), 23u);
  EXPECT_EQ(parse_size_list("all", "size"), w.sizes);
}

TEST(BuildWorkloadTest, AtomicsDefaultToEightBytes) {
  for (const char* op : {"fetch_add", "cmp_swap"}) {
    WorkloadArgs a;
    a.text["op"] = op;
    EXPECT_EQ(build_workload(a).sizes, std::vector<uint64_t>{8}) << op;
    a.text["mode"] = "lat";
    EXPECT_EQ(build_workload(a).sizes, std::vector<uint64_t>{8}) << op;
    a.all_sizes = true;  // -a with atomics: the only size atomics have
    EXPECT_EQ(build_workload(a).sizes, std::vector<uint64_t>{8}) << op;
  }
  WorkloadArgs a;
  a.text["op"] = "fetch_add";
  a.text["sizes"] = "16";
  expect_build_refused(a, "size", "16");
}

TEST(BuildWorkloadTest, LatencyDefaultSizeIsSmall) {
  WorkloadArgs a;
  a.text["mode"] = "lat";
  Workload w = build_workload(a);
  ASSERT_EQ(w.sizes.size(), 1u);
  EXPECT_LT(w.sizes[0], 65536u);
  EXPECT_GT(w.sizes[0], 0u);  // write latency needs at least a byte
}

// ---- refusals -------------------------------------------------------------------------------

TEST(BuildWorkloadTest, NegativeNumbersAreRefused) {
  {
    WorkloadArgs a;
    a.text["iterations"] = "-5";
    expect_build_refused(a, "iters", "-5");
  }
  {
    WorkloadArgs a;
    a.text["sizes"] = "-5";
    expect_build_refused(a, "size", "-5");
  }
  {
    WorkloadArgs a;
    a.text["tx_depth"] = "-1";
    expect_build_refused(a, "tx-depth", "-1");
  }
  {
    WorkloadArgs a;
    a.text["threads"] = "-2";
    expect_build_refused(a, "threads", "-2");
  }
  {
    WorkloadArgs a;
    a.text["duration_s"] = "-1";
    expect_build_refused(a, "duration", "-1");
  }
  {
    WorkloadArgs a;
    a.text["cpus"] = "0,-1";
    expect_build_refused(a, "cpus", "-1");
  }
}

TEST(BuildWorkloadTest, NonNumbersAreRefused) {
  {
    WorkloadArgs a;
    a.text["iterations"] = "abc";
    ConfigError e = expect_build_refused(a, "iters", "abc");
    EXPECT_NE(e.allowed().find("whole number"), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["iterations"] = "1.5";
    expect_build_refused(a, "iters", "1.5");
  }
  {
    WorkloadArgs a;
    a.text["rx_depth"] = "1.5";
    expect_build_refused(a, "rx-depth", "1.5");
  }
  {
    WorkloadArgs a;
    a.text["qps_per_thread"] = "2x";
    expect_build_refused(a, "qps", "2x");
  }
  {
    WorkloadArgs a;
    a.text["sizes"] = "abc";
    ConfigError e = expect_build_refused(a, "size", "abc");
    EXPECT_NE(e.allowed().find("4K"), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["duration_s"] = "soon";
    expect_build_refused(a, "duration", "soon");
  }
  {
    WorkloadArgs a;
    a.text["iterations"] = "";
    expect_build_refused(a, "iters", "");
  }
}

TEST(BuildWorkloadTest, ZeroWhereNotAllowed) {
  {
    WorkloadArgs a;
    a.text["iterations"] = "0";
    ConfigError e = expect_build_refused(a, "iters", "0");
    EXPECT_NE(e.allowed().find("from 1"), std::string::npos) << e.allowed();
  }
  {
    WorkloadArgs a;
    a.text["threads"] = "0";
    expect_build_refused(a, "threads", "0");
  }
  {
    WorkloadArgs a;
    a.text["qps_per_thread"] = "0";
    expect_build_refused(a, "qps", "0");
  }
  {
    WorkloadArgs a;
    a.text["tx_depth"] = "0";
    expect_build_refused(a, "tx-depth", "0");
  }
  {
    WorkloadArgs a;
    a.text["signal_every"] = "0";
    expect_build_refused(a, "signal-every", "0");
  }
  {
    WorkloadArgs a;
    a.text["duration_s"] = "0";
    expect_build_refused(a, "duration", "0");
  }
  {
    WorkloadArgs a;
    a.text["timeout_s"] = "0";
    expect_build_refused(a, "timeout", "0");
  }
}

TEST(BuildWorkloadTest, OutOfRangeNumbersAreRefused) {
  {
    WorkloadArgs a;
    a.text["threads"] = "1025";
    ConfigError e = expect_build_refused(a, "threads", "1025");
    EXPECT_NE(e.allowed().find("1024"), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["mtu"] = "128";
    expect_build_refused(a, "mtu", "128");
  }
  {
    // In the option's range but not a valid MTU: refused by validation.
    WorkloadArgs a;
    a.text["mtu"] = "1500";
    ConfigError e = expect_build_refused(a, "mtu", "1500");
    EXPECT_NE(e.allowed().find("4096"), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["duration_s"] = "86401";
    expect_build_refused(a, "duration", "86401");
  }
}

TEST(BuildWorkloadTest, UnknownNamesListTheAllowedNames) {
  {
    WorkloadArgs a;
    a.text["op"] = "atomic";
    ConfigError e = expect_build_refused(a, "op", "atomic");
    for (const char* n :
         {"send", "send_imm", "write", "write_imm", "read", "fetch_add", "cmp_swap"})
      EXPECT_NE(e.allowed().find(n), std::string::npos) << e.allowed();
  }
  {
    WorkloadArgs a;
    a.text["qp"] = "xrc";
    ConfigError e = expect_build_refused(a, "qp", "xrc");
    for (const char* n : {"rc", "uc", "ud"}) EXPECT_NE(e.allowed().find(n), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["mode"] = "throughput";
    ConfigError e = expect_build_refused(a, "mode", "throughput");
    for (const char* n : {"bw", "lat"}) EXPECT_NE(e.allowed().find(n), std::string::npos);
  }
  {
    WorkloadArgs a;
    a.text["cq"] = "spin";
    ConfigError e = expect_build_refused(a, "cq", "spin");
    for (const char* n : {"poll", "event"}) EXPECT_NE(e.allowed().find(n), std::string::npos);
  }
}

TEST(BuildWorkloadTest, BadSizeSuffixIsRefused) {
  for (const char* s : {"4X", "4KK", "4T", "K", "4 K", "1,4X"}) {
    WorkloadArgs a;
    a.text["sizes"] = s;
    ConfigError e = catch_config_error([&] { build_workload(a); });
    EXPECT_EQ(e.field(), "size") << s;
    EXPECT_NE(std::string(e.what()).find("K/M/G"), std::string::npos) << e.what();
  }
  WorkloadArgs a;
  a.text["sizes"] = "4X";
  expect_build_refused(a, "size", "4X");
}

TEST(BuildWorkloadTest, OverflowIsRefused) {
  {
    WorkloadArgs a;
    a.text["sizes"] = "99999999999999999999";
    expect_build_refused(a, "size", "99999999999999999999");
  }
  {
    // 17179869184 G = 2^64 bytes: one more than fits.
    WorkloadArgs a;
    a.text["sizes"] = "17179869184G";
    expect_build_refused(a, "size", "17179869184G");
  }
  {
    WorkloadArgs a;
    a.text["iterations"] = "99999999999999999999";
    expect_build_refused(a, "iters", "99999999999999999999");
  }
  {
    WorkloadArgs a;
    a.text["duration_s"] = "1e400";
    expect_build_refused(a, "duration", "1e400");
  }
}

// A range whose end is at or above 2^63 must be refused (it is far above the 1G limit anyway).
// BUG (model/workload.cc, parse_size_list): the range loop `for (v = lo; v <= hi; v *= 2)`
// overflows once v reaches 2^63: v becomes 0, which is <= hi forever, so "1-8589934592G"
// (hi = 2^63) or "1-9223372036854775808" appends zeros until the allocation fails (bad_alloc
// after exhausting memory; confirmed in a separate process under `ulimit -v`). Enabling this
// test as it stands would exhaust the machine's memory.
TEST(BuildWorkloadTest, RangeEndingAtOrAbove2To63IsRefused) {
  for (const char* s : {"1-8589934592G", "1-9223372036854775808", "3-18446744073709551615"}) {
    WorkloadArgs a;
    a.text["sizes"] = s;
    ConfigError e = catch_config_error([&] { build_workload(a); });
    EXPECT_EQ(e.field(), "size") << s;
  }
}

// "i" and "B" belong to a K/M/G suffix ("4KiB"); a bare "4i" or "4iB" is not a byte count.
// BUG (model/workload.cc, parse_size): the trailing "B" and "i" are stripped before the
// multiplier is checked, so "4i", "4iB" and "4ib" are accepted as 4 bytes instead of being
// refused like "4X".
TEST(BuildWorkloadTest, BareBinaryMarkerIsRefused) {
  for (const char* s : {"4i", "4iB", "4ib"}) {
    WorkloadArgs a;
    a.text["sizes"] = s;
    ConfigError e = catch_config_error([&] { build_workload(a); });
    EXPECT_EQ(e.field(), "size") << s;
  }
}

TEST(BuildWorkloadTest, SizeTogetherWithAllIsRefused) {
  WorkloadArgs a;
  a.text["sizes"] = "4K";
  a.all_sizes = true;
  ConfigError e = expect_build_refused(a, "size", "4K");
  EXPECT_NE(e.allowed().find("-a"), std::string::npos) << e.allowed();
}

TEST(BuildWorkloadTest, CqPollTogetherWithEventsIsRefused) {
  WorkloadArgs a;
  a.text["cq"] = "poll";
  a.events = true;
  ConfigError e = expect_build_refused(a, "cq", "poll");
  EXPECT_NE(e.allowed().find("-e"), std::string::npos) << e.allowed();
  // --cq event with -e is consistent.
  a.text["cq"] = "event";
  EXPECT_EQ(build_workload(a).cq, CqMode::kEvent);
}

TEST(BuildWorkloadTest, StructurallyInvalidCombinationIsRefusedByValidation) {
  WorkloadArgs a;
  a.text["op"] = "read";
  a.text["qp"] = "uc";
  expect_build_refused(a, "op", "read");
  a = WorkloadArgs{};
  a.text["iterations"] = "100";
  a.text["duration_s"] = "1";
  ConfigError e = catch_config_error([&] { build_workload(a); });
  EXPECT_EQ(e.field().rfind("iter", 0), 0u) << e.field();  // -n/--iters ("iters"/"iterations")
  EXPECT_EQ(e.value(), "100");
  EXPECT_NE(e.allowed().find("not both"), std::string::npos) << e.allowed();
}

// ---- parse_uint_option / parse_seconds_option ------------------------------------------------

TEST(ParseUintOptionTest, AcceptsBoundsAndRefusesOutside) {
  EXPECT_EQ(parse_uint_option("x", "1", 1, 10), 1u);
  EXPECT_EQ(parse_uint_option("x", "10", 1, 10), 10u);
  EXPECT_EQ(parse_uint_option("x", "0", 0, 0), 0u);
  EXPECT_EQ(parse_uint_option("x", "18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
  for (const char* bad :
       {"0", "11", "", "-1", "+1", " 5", "5 ", "1.5", "abc", "0x5", "5K", "18446744073709551616"}) {
    ConfigError e = catch_config_error([&] { parse_uint_option("count", bad, 1, 10); });
    EXPECT_EQ(e.field(), "count") << bad;
    EXPECT_EQ(e.value(), bad);
    EXPECT_NE(e.allowed().find("1"), std::string::npos);
    EXPECT_NE(e.allowed().find("10"), std::string::npos);
  }
}

TEST(ParseSecondsOptionTest, AcceptsDecimalsAndBounds) {
  EXPECT_DOUBLE_EQ(parse_seconds_option("t", "0.5", 0, 10), 0.5);
  EXPECT_DOUBLE_EQ(parse_seconds_option("t", "10", 0, 10), 10.0);
  EXPECT_DOUBLE_EQ(parse_seconds_option("t", "0", 0, 10), 0.0);
  EXPECT_DOUBLE_EQ(parse_seconds_option("t", "1e1", 0, 10), 10.0);
}

TEST(ParseSecondsOptionTest, RefusesNanInfEmptyAndGarbage) {
  for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "infinity", "abc", "1s", "1,5", "-1",
                          "10.001", " 1", "1e999"}) {
    ConfigError e = catch_config_error([&] { parse_seconds_option("timeout", bad, 0, 10); });
    EXPECT_EQ(e.field(), "timeout") << bad;
    EXPECT_EQ(e.value(), bad);
    EXPECT_NE(std::string(e.what()).find("seconds"), std::string::npos) << e.what();
  }
}

// The message for a refused value must state the real lower bound: "-D 0" is refused because
// the minimum is 0.001 s, so the message must say 0.001.
// BUG (model/workload_options.cc, parse_seconds_option): the lower bound is formatted as
// std::to_string(lo).substr(0, 4), which turns 0.001 into "0.00" (and 0.1 into "0.10"), so
// `-D 0` is refused with "seconds from 0.00 to 86400" — a message that allows the value it
// refuses.
TEST(ParseSecondsOptionTest, MessageStatesTheRealLowerBound) {
  ConfigError e = catch_config_error([] { parse_seconds_option("duration", "0", 0.001, 86400); });
  EXPECT_EQ(e.field(), "duration");
  EXPECT_NE(e.allowed().find("0.001"), std::string::npos) << e.allowed();
}

}  // namespace
}  // namespace rdmabench
