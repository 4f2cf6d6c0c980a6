// Validation rules of the Workload (model/workload.h): every invalid combination is refused
// with a ConfigError that names the option, the value and what is allowed; every valid
// combination from the verbs table is accepted; device limits are enforced with messages that
// name the device's limit.
#include "model/workload.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

constexpr Op kAllOps[] = {Op::kSend, Op::kSendImm,  Op::kWrite,  Op::kWriteImm,
                          Op::kRead, Op::kFetchAdd, Op::kCmpSwap};
constexpr QpType kAllQps[] = {QpType::kRc, QpType::kUc, QpType::kUd};
constexpr Mode kAllModes[] = {Mode::kBw, Mode::kLat};
constexpr CqMode kAllCqs[] = {CqMode::kPoll, CqMode::kEvent};

using testutil::catch_config_error;

// Expects validate(w) to refuse with the given field; the message must contain the value and
// `allowed_fragment` (a piece of what is allowed).
void expect_refused(const Workload& w, const std::string& field, const std::string& value,
                    const std::string& allowed_fragment) {
  ConfigError e = catch_config_error([&] { validate(w); });
  EXPECT_EQ(e.field(), field);
  EXPECT_EQ(e.value(), value);
  const std::string msg = e.what();
  EXPECT_NE(msg.find(field), std::string::npos) << msg;
  EXPECT_NE(msg.find(value), std::string::npos) << msg;
  EXPECT_NE(e.allowed().find(allowed_fragment), std::string::npos) << e.allowed();
  EXPECT_NE(msg.find(allowed_fragment), std::string::npos) << msg;
}

Workload make(Op op, QpType qp, Mode mode = Mode::kBw, CqMode cq = CqMode::kPoll) {
  Workload w;
  w.op = op;
  w.qp = qp;
  w.mode = mode;
  w.cq = cq;
  if (is_atomic(op)) w.sizes = {8};
  return w;
}

bool op_allowed_on(Op op, QpType qp) {
  switch (qp) {
    case QpType::kRc:
      return true;
    case QpType::kUc:
      return op == Op::kSend || op == Op::kSendImm || op == Op::kWrite || op == Op::kWriteImm;
    case QpType::kUd:
      return op == Op::kSend || op == Op::kSendImm;
  }
  return false;
}

std::string name(Op op) { return std::string(to_string(op)); }

// ---- names --------------------------------------------------------------------------------

TEST(WorkloadNamesTest, EveryEnumNameParsesBack) {
  for (Op op : kAllOps) EXPECT_EQ(parse_op(to_string(op)), op);
  for (QpType qp : kAllQps) EXPECT_EQ(parse_qp_type(to_string(qp)), qp);
  for (Mode m : kAllModes) EXPECT_EQ(parse_mode(to_string(m)), m);
  for (CqMode c : kAllCqs) EXPECT_EQ(parse_cq_mode(to_string(c)), c);
  for (ConnectMethod c : {ConnectMethod::kTcp, ConnectMethod::kRdmaCm})
    EXPECT_EQ(parse_connect(to_string(c)), c);
}

TEST(WorkloadNamesTest, UnknownNameListsAllowedNames) {
  ConfigError e = catch_config_error([] { parse_op("writ"); });
  EXPECT_EQ(e.field(), "op");
  EXPECT_EQ(e.value(), "writ");
  for (Op op : kAllOps) EXPECT_NE(e.allowed().find(name(op)), std::string::npos) << e.allowed();

  e = catch_config_error([] { parse_qp_type("xrc"); });
  EXPECT_EQ(e.field(), "qp");
  for (QpType qp : kAllQps)
    EXPECT_NE(e.allowed().find(std::string(to_string(qp))), std::string::npos);

  e = catch_config_error([] { parse_mode("throughput"); });
  EXPECT_EQ(e.field(), "mode");
  EXPECT_NE(e.allowed().find("bw"), std::string::npos);
  EXPECT_NE(e.allowed().find("lat"), std::string::npos);

  e = catch_config_error([] { parse_cq_mode("spin"); });
  EXPECT_EQ(e.field(), "cq");
  EXPECT_NE(e.allowed().find("poll"), std::string::npos);
  EXPECT_NE(e.allowed().find("event"), std::string::npos);

  e = catch_config_error([] { parse_connect("udp"); });
  EXPECT_EQ(e.field(), "connect");
  EXPECT_NE(e.allowed().find("rdma_cm"), std::string::npos);
}

// ---- every valid combination ----------------------------------------------------------------

TEST(WorkloadValidateTest, EveryValidOpQpModeCqCombinationValidates) {
  int accepted = 0;
  for (Op op : kAllOps)
    for (QpType qp : kAllQps) {
      if (!op_allowed_on(op, qp)) continue;
      for (Mode mode : kAllModes)
        for (CqMode cq : kAllCqs) {
          if (mode == Mode::kLat && op == Op::kWrite && cq == CqMode::kEvent) continue;
          Workload w = make(op, qp, mode, cq);
          SCOPED_TRACE(name(op) + " " + std::string(to_string(qp)) + " " +
                       std::string(to_string(mode)) + " " + std::string(to_string(cq)));
          EXPECT_NO_THROW(validate(w));
          ++accepted;
        }
    }
  // RC 7 ops + UC 4 + UD 2 = 13 op/qp pairs x 2 modes x 2 CQ modes, minus RC and UC
  // write-lat-event.
  EXPECT_EQ(accepted, 13 * 4 - 2);
}

TEST(WorkloadValidateTest, ValidCombinationsWithOptionalFeatures) {
  // srq with every receive-consuming op on every QP type that allows it.
  for (Op op : {Op::kSend, Op::kSendImm, Op::kWriteImm})
    for (QpType qp : kAllQps) {
      if (!op_allowed_on(op, qp)) continue;
      Workload w = make(op, qp);
      w.srq = true;
      EXPECT_NO_THROW(validate(w)) << name(op);
    }
  // rdma_cm with RC.
  Workload w = make(Op::kRead, QpType::kRc);
  w.connect = ConnectMethod::kRdmaCm;
  EXPECT_NO_THROW(validate(w));
  // bidir bandwidth, multiple QPs per thread, all valid MTUs, inline on send/write.
  w = make(Op::kWrite, QpType::kRc);
  w.bidir = true;
  w.threads = 4;
  w.qps_per_thread = 8;
  w.inline_size = 64;
  for (uint32_t mtu : {0u, 256u, 512u, 1024u, 2048u, 4096u}) {
    w.mtu = mtu;
    EXPECT_NO_THROW(validate(w)) << mtu;
  }
  // Zero-byte messages where they make sense.
  w = make(Op::kSend, QpType::kRc, Mode::kLat);
  w.sizes = {0};
  EXPECT_NO_THROW(validate(w));
  w = make(Op::kWrite, QpType::kRc, Mode::kBw);
  w.sizes = {0};
  EXPECT_NO_THROW(validate(w));
  // Duration instead of iterations; the 1G boundary.
  w = make(Op::kWrite, QpType::kRc);
  w.duration_s = 2.5;
  w.sizes = {1ULL << 30};
  EXPECT_NO_THROW(validate(w));
  // signal_every equal to the depth.
  w = make(Op::kWrite, QpType::kRc);
  w.tx_depth = 16;
  w.signal_every = 16;
  EXPECT_NO_THROW(validate(w));
}

// ---- op x QP type ---------------------------------------------------------------------------

TEST(WorkloadValidateTest, UcRefusesReadAndAtomics) {
  for (Op op : {Op::kRead, Op::kFetchAdd, Op::kCmpSwap}) {
    SCOPED_TRACE(name(op));
    Workload w = make(op, QpType::kUc);
    expect_refused(w, "op", name(op), "UC");
    ConfigError e = catch_config_error([&] { validate(w); });
    // What is allowed: the ops UC does support.
    for (const char* ok : {"send", "send_imm", "write", "write_imm"})
      EXPECT_NE(e.allowed().find(ok), std::string::npos) << e.allowed();
  }
}

TEST(WorkloadValidateTest, UdRefusesEverythingButSends) {
  for (Op op : kAllOps) {
    Workload w = make(op, QpType::kUd);
    SCOPED_TRACE(name(op));
    if (op == Op::kSend || op == Op::kSendImm) {
      EXPECT_NO_THROW(validate(w));
      continue;
    }
    expect_refused(w, "op", name(op), "UD");
    ConfigError e = catch_config_error([&] { validate(w); });
    EXPECT_NE(e.allowed().find("send"), std::string::npos);
    EXPECT_NE(e.allowed().find("send_imm"), std::string::npos);
  }
}

// ---- sizes ----------------------------------------------------------------------------------

TEST(WorkloadValidateTest, AtomicsNeedExactlyEightBytes) {
  for (Op op : {Op::kFetchAdd, Op::kCmpSwap})
    for (uint64_t size :
         {uint64_t{0}, uint64_t{4}, uint64_t{7}, uint64_t{9}, uint64_t{16}, uint64_t{65536}}) {
      SCOPED_TRACE(name(op) + " " + std::to_string(size));
      Workload w = make(op, QpType::kRc);
      w.sizes = {8, size};
      expect_refused(w, "size", std::to_string(size), "8 bytes");
    }
}

TEST(WorkloadValidateTest, SizeAboveOneGigabyteIsRefused) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.sizes = {4096, (1ULL << 30) + 1};
  expect_refused(w, "size", std::to_string((1ULL << 30) + 1), "1073741824");
  w.sizes = {UINT64_MAX};
  expect_refused(w, "size", std::to_string(UINT64_MAX), "1G");
}

TEST(WorkloadValidateTest, EmptySizeListIsRefused) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.sizes.clear();
  ConfigError e = catch_config_error([&] { validate(w); });
  EXPECT_EQ(e.field(), "size");
}

TEST(WorkloadValidateTest, WriteLatencyNeedsAtLeastOneByte) {
  for (QpType qp : {QpType::kRc, QpType::kUc}) {
    Workload w = make(Op::kWrite, qp, Mode::kLat);
    w.sizes = {0, 64};
    expect_refused(w, "size", "0", "at least 1 byte");
  }
}

TEST(WorkloadValidateTest, ReadNeedsAtLeastOneByte) {
  for (Mode mode : kAllModes) {
    Workload w = make(Op::kRead, QpType::kRc, mode);
    w.sizes = {0};
    expect_refused(w, "size", "0", "at least 1 byte");
  }
}

// ---- counts and depths ----------------------------------------------------------------------

TEST(WorkloadValidateTest, IterationsAndDurationTogetherAreRefused) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.iterations = 1000;
  w.duration_s = 2;
  expect_refused(w, "iterations", "1000", "not both");
}

TEST(WorkloadValidateTest, OutOfRangeCountsAndTimes) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.iterations = (1ULL << 40) + 1;
  expect_refused(w, "iterations", std::to_string((1ULL << 40) + 1), "2^40");

  w = make(Op::kWrite, QpType::kRc);
  w.duration_s = -1;
  expect_refused(w, "duration", "-1", "86400");
  w.duration_s = 86401;
  expect_refused(w, "duration", "86401", "86400");
  w.duration_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(catch_config_error([&] { validate(w); }).field(), "duration");

  w = make(Op::kWrite, QpType::kRc);
  w.warmup_s = -0.5;
  expect_refused(w, "warmup-time", "-0.5", "3600");
  w.warmup_s = 3601;
  expect_refused(w, "warmup-time", "3601", "3600");

  w = make(Op::kWrite, QpType::kRc);
  w.warmup = (1ULL << 40) + 1;
  expect_refused(w, "warmup", std::to_string((1ULL << 40) + 1), "2^40");

  w = make(Op::kWrite, QpType::kRc);
  w.timeout_s = 0;
  expect_refused(w, "timeout", "0", "3600");
  w.timeout_s = 3601;
  expect_refused(w, "timeout", "3601", "3600");
}

TEST(WorkloadValidateTest, DepthsOutOfRange) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.tx_depth = 0;
  expect_refused(w, "tx-depth", "0", "between 1 and 1048576");
  w.tx_depth = (1U << 20) + 1;
  expect_refused(w, "tx-depth", std::to_string((1U << 20) + 1), "between 1 and 1048576");

  w = make(Op::kSend, QpType::kRc);
  w.rx_depth = 0;
  expect_refused(w, "rx-depth", "0", "between 1 and 1048576");
  w.rx_depth = (1U << 20) + 1;
  expect_refused(w, "rx-depth", std::to_string((1U << 20) + 1), "between 1 and 1048576");

  w = make(Op::kSend, QpType::kRc);
  w.tx_depth = 1U << 20;
  w.rx_depth = 1U << 20;
  EXPECT_NO_THROW(validate(w));
}

TEST(WorkloadValidateTest, ThreadsAndQpsOutOfRange) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.threads = 0;
  expect_refused(w, "threads", "0", "between 1 and 1024");
  w.threads = 1025;
  expect_refused(w, "threads", "1025", "between 1 and 1024");

  w = make(Op::kWrite, QpType::kRc);
  w.qps_per_thread = 0;
  expect_refused(w, "qps", "0", "between 1 and 65536");

  w = make(Op::kWrite, QpType::kRc);
  w.threads = 2;
  w.qps_per_thread = 65536;  // each in range, the product is not
  expect_refused(w, "qps", "65536", "65536");
}

TEST(WorkloadValidateTest, SignalEveryAboveTxDepthIsRefused) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.tx_depth = 64;
  w.signal_every = 65;
  expect_refused(w, "signal-every", "65", "tx-depth 64");
}

TEST(WorkloadValidateTest, SelectiveSignalingInLatencyModeNeedsAFixedIterationCount) {
  Workload w = make(Op::kSend, QpType::kRc);
  w.mode = Mode::kLat;
  w.tx_depth = 8;
  w.signal_every = 4;
  EXPECT_NO_THROW(validate(w));  // -n: the phase's last send is signaled
  w.duration_s = 2;
  expect_refused(w, "signal-every", "4", "1 in latency mode with --duration or --rate");
  w.signal_every = 1;
  EXPECT_NO_THROW(validate(w));
}

TEST(WorkloadValidateTest, InlineWithReadOrAtomicsIsRefused) {
  for (Op op : {Op::kRead, Op::kFetchAdd, Op::kCmpSwap}) {
    SCOPED_TRACE(name(op));
    Workload w = make(op, QpType::kRc);
    w.inline_size = 32;
    expect_refused(w, "inline", "32", "read and atomics");
    w.inline_size = 0;  // explicitly none is fine
    EXPECT_NO_THROW(validate(w));
  }
  Workload w = make(Op::kSend, QpType::kRc);
  w.inline_size = -2;
  expect_refused(w, "inline", "-2", "0 or a positive byte count");
}

TEST(WorkloadValidateTest, NegativeCpuIsRefused) {
  Workload w = make(Op::kWrite, QpType::kRc);
  w.cpus = {0, -1};
  expect_refused(w, "cpus", "-1", ">= 0");
}

// ---- mode rules -----------------------------------------------------------------------------

TEST(WorkloadValidateTest, LatencyModeWithSeveralQpsPerThreadIsRefused) {
  for (Op op : {Op::kSend, Op::kWrite, Op::kRead}) {
    Workload w = make(op, QpType::kRc, Mode::kLat);
    w.qps_per_thread = 2;
    expect_refused(w, "qps", "2", "1 in latency mode");
    w.qps_per_thread = 1;
    w.threads = 4;  // threads are the way to get parallel ping-pongs
    EXPECT_NO_THROW(validate(w));
  }
}

TEST(WorkloadValidateTest, LatencyModeBidirIsRefused) {
  Workload w = make(Op::kSend, QpType::kRc, Mode::kLat);
  w.bidir = true;
  expect_refused(w, "bidir", "true", "bw mode");
}

TEST(WorkloadValidateTest, WriteLatencyWithEventCqIsRefused) {
  for (QpType qp : {QpType::kRc, QpType::kUc}) {
    Workload w = make(Op::kWrite, qp, Mode::kLat, CqMode::kEvent);
    expect_refused(w, "cq", "event", "poll");
  }
  // The same with bandwidth mode is fine.
  EXPECT_NO_THROW(validate(make(Op::kWrite, QpType::kRc, Mode::kBw, CqMode::kEvent)));
}

TEST(WorkloadValidateTest, SrqWithOpsThatConsumeNoReceivesIsRefused) {
  for (Op op : {Op::kWrite, Op::kRead, Op::kFetchAdd, Op::kCmpSwap}) {
    SCOPED_TRACE(name(op));
    Workload w = make(op, QpType::kRc);
    w.srq = true;
    expect_refused(w, "srq", "true", "send, send_imm, write_imm");
  }
}

TEST(WorkloadValidateTest, RdmaCmWithUcOrUdIsRefused) {
  for (QpType qp : {QpType::kUc, QpType::kUd}) {
    Workload w = make(Op::kSend, qp);
    w.connect = ConnectMethod::kRdmaCm;
    expect_refused(w, "connect", "rdma_cm", "RC");
  }
}

TEST(WorkloadValidateTest, BadMtuIsRefused) {
  for (uint32_t mtu : {1u, 255u, 257u, 1000u, 1500u, 8192u, 9000u}) {
    Workload w = make(Op::kWrite, QpType::kRc);
    w.mtu = mtu;
    expect_refused(w, "mtu", std::to_string(mtu), "256, 512, 1024, 2048, 4096");
  }
}

// ---- device limits --------------------------------------------------------------------------

DeviceLimits roomy_device() {
  DeviceLimits d;
  d.name = "mlx5_7";
  d.transport = "InfiniBand";
  d.atomic_cap = "ATOMIC_HCA";
  d.port_active_mtu = 4096;
  d.max_inline_data = 220;
  d.max_qp_wr = 32768;
  d.max_qp = 131072;
  d.max_cqe = 4194303;
  d.max_srq_wr = 16384;
  d.max_sge = 30;
  d.max_mr_size = 1ULL << 40;
  return d;
}

void expect_device_refused(const Workload& w, const DeviceLimits& d, const std::string& field,
                           const std::string& value, const std::string& limit) {
  ConfigError e = catch_config_error([&] { validate_for_device(w, d); });
  EXPECT_EQ(e.field(), field);
  EXPECT_EQ(e.value(), value);
  const std::string msg = e.what();
  EXPECT_NE(msg.find(limit), std::string::npos) << msg;
  EXPECT_NE(msg.find(d.name), std::string::npos) << msg;
}

TEST(WorkloadDeviceTest, ValidWorkloadsFitARoomyDevice) {
  DeviceLimits d = roomy_device();
  for (Op op : kAllOps)
    for (QpType qp : kAllQps) {
      if (!op_allowed_on(op, qp)) continue;
      Workload w = make(op, qp);
      if (qp == QpType::kUd) w.sizes = {2048};
      ASSERT_NO_THROW(validate(w));
      EXPECT_NO_THROW(validate_for_device(w, d)) << name(op) << " " << to_string(qp);
    }
  Workload w = make(Op::kSend, QpType::kRc);
  w.tx_depth = 32768;  // == max_qp_wr
  w.rx_depth = 16384;  // == max_srq_wr
  w.srq = true;
  w.inline_size = 220;  // == max_inline_data
  EXPECT_NO_THROW(validate_for_device(w, d));
}

TEST(WorkloadDeviceTest, TxDepthAboveMaxQpWr) {
  DeviceLimits d = roomy_device();
  d.max_qp_wr = 1000;
  Workload w = make(Op::kWrite, QpType::kRc);
  w.tx_depth = 1001;
  w.rx_depth = 16;
  expect_device_refused(w, d, "tx-depth", "1001", "1000");
}

TEST(WorkloadDeviceTest, RxDepthAboveMaxQpWr) {
  DeviceLimits d = roomy_device();
  d.max_qp_wr = 1000;
  Workload w = make(Op::kSend, QpType::kRc);
  w.tx_depth = 16;
  w.rx_depth = 1001;
  expect_device_refused(w, d, "rx-depth", "1001", "max_qp_wr = 1000");
}

TEST(WorkloadDeviceTest, RxDepthAboveMaxSrqWrWithSrq) {
  DeviceLimits d = roomy_device();
  d.max_qp_wr = 100000;
  d.max_srq_wr = 777;
  Workload w = make(Op::kSend, QpType::kRc);
  w.srq = true;
  w.rx_depth = 778;
  expect_device_refused(w, d, "rx-depth", "778", "max_srq_wr = 777");
  // Without srq the same depth is within max_qp_wr.
  w.srq = false;
  EXPECT_NO_THROW(validate_for_device(w, d));
}

TEST(WorkloadDeviceTest, InlineAboveMaxInlineData) {
  DeviceLimits d = roomy_device();
  d.max_inline_data = 60;
  Workload w = make(Op::kSend, QpType::kRc);
  w.inline_size = 61;
  expect_device_refused(w, d, "inline", "61", "60");
  w.inline_size = 60;
  EXPECT_NO_THROW(validate_for_device(w, d));
}

TEST(WorkloadDeviceTest, TooManyQps) {
  DeviceLimits d = roomy_device();
  d.max_qp = 63;
  Workload w = make(Op::kWrite, QpType::kRc);
  w.threads = 8;
  w.qps_per_thread = 8;  // 64 QPs
  expect_device_refused(w, d, "qps", "8", "63");
  w.qps_per_thread = 7;  // 56 QPs
  w.tx_depth = 16;
  EXPECT_NO_THROW(validate_for_device(w, d));
}

TEST(WorkloadDeviceTest, UdSizeAboveMtu) {
  DeviceLimits d = roomy_device();
  d.port_active_mtu = 2048;
  Workload w = make(Op::kSend, QpType::kUd);
  w.sizes = {64, 2049};
  expect_device_refused(w, d, "size", "2049", "2048");
  w.sizes = {2048};
  EXPECT_NO_THROW(validate_for_device(w, d));
  // A configured MTU below the port's is the limit then.
  w.mtu = 1024;
  w.sizes = {1025};
  expect_device_refused(w, d, "size", "1025", "1024");
  // Reliable QPs segment: the same size is fine on RC.
  w = make(Op::kSend, QpType::kRc);
  w.sizes = {1 << 20};
  EXPECT_NO_THROW(validate_for_device(w, d));
}

TEST(WorkloadDeviceTest, MtuAboveThePortsActiveMtu) {
  DeviceLimits d = roomy_device();
  d.port_active_mtu = 1024;
  Workload w = make(Op::kWrite, QpType::kRc);
  w.mtu = 2048;
  expect_device_refused(w, d, "mtu", "2048", "1024");
}

TEST(WorkloadDeviceTest, AtomicsOnADeviceWithoutAtomics) {
  DeviceLimits d = roomy_device();
  d.atomic_cap = "none";
  for (Op op : {Op::kFetchAdd, Op::kCmpSwap}) {
    Workload w = make(op, QpType::kRc);
    expect_device_refused(w, d, "op", name(op), "atomic_cap none");
  }
  EXPECT_NO_THROW(validate_for_device(make(Op::kRead, QpType::kRc), d));
}

TEST(WorkloadDeviceTest, IwarpNeedsRcAndRdmaCm) {
  DeviceLimits d = roomy_device();
  d.name = "irdma0";
  d.transport = "iWARP";
  for (QpType qp : {QpType::kUc, QpType::kUd}) {
    Workload w = make(Op::kSend, qp);
    w.sizes = {1024};  // fits the MTU, so the QP type is what is refused
    expect_device_refused(w, d, "qp", std::string(to_string(qp)), "rc");
  }
  Workload w = make(Op::kSend, QpType::kRc);
  w.connect = ConnectMethod::kTcp;  // chosen explicitly: refused with the reason
  expect_device_refused(w, d, "connect", "tcp", "iWARP QPs connect only through rdma_cm");
  w.connect = ConnectMethod::kRdmaCm;
  EXPECT_NO_THROW(validate_for_device(w, d));
  w.connect = ConnectMethod::kAuto;  // the default: becomes rdma_cm on iWARP
  EXPECT_NO_THROW(validate_for_device(w, d));
  for (Op op : {Op::kSendImm, Op::kWriteImm}) {
    Workload imm = make(op, QpType::kRc);
    expect_device_refused(imm, d, "op", name(op), "iWARP (RDMAP) carries no immediate data");
  }
}

TEST(WorkloadDeviceTest, IwarpRefusesUcAndUdWhateverTheConnectMethod) {
  DeviceLimits d = roomy_device();
  d.transport = "iWARP";
  for (ConnectMethod c : {ConnectMethod::kAuto, ConnectMethod::kTcp}) {
    Workload w = make(Op::kWrite, QpType::kUc);
    w.connect = c;
    expect_device_refused(w, d, "qp", "uc", "iWARP has only reliable connected QPs");
  }
}

TEST(WorkloadConnectTest, AutoIsTheDefaultAndResolvesFromTheTransport) {
  EXPECT_EQ(Workload{}.connect, ConnectMethod::kAuto);
  EXPECT_EQ(resolve_connect(ConnectMethod::kAuto, QpType::kRc, "iWARP"), ConnectMethod::kRdmaCm);
  // UC/UD cannot use rdma_cm: they stay on tcp and iWARP then refuses the QP type.
  EXPECT_EQ(resolve_connect(ConnectMethod::kAuto, QpType::kUc, "iWARP"), ConnectMethod::kTcp);
  EXPECT_EQ(resolve_connect(ConnectMethod::kAuto, QpType::kUd, "iWARP"), ConnectMethod::kTcp);
  EXPECT_EQ(resolve_connect(ConnectMethod::kAuto, QpType::kRc, "InfiniBand"), ConnectMethod::kTcp);
  EXPECT_EQ(resolve_connect(ConnectMethod::kAuto, QpType::kRc, ""),
            ConnectMethod::kTcp);  // no such device
  // An explicit choice is kept (and refused by validate_for_device where it cannot work).
  EXPECT_EQ(resolve_connect(ConnectMethod::kTcp, QpType::kRc, "iWARP"), ConnectMethod::kTcp);
  EXPECT_EQ(resolve_connect(ConnectMethod::kRdmaCm, QpType::kRc, "InfiniBand"),
            ConnectMethod::kRdmaCm);
  EXPECT_EQ(parse_connect("auto"), ConnectMethod::kAuto);
  EXPECT_EQ(to_string(ConnectMethod::kAuto), "auto");
}

// ---- defaults -------------------------------------------------------------------------------

TEST(WorkloadDefaultsTest, EffectiveIterationsAndWarmup) {
  Workload w;
  w.mode = Mode::kBw;
  EXPECT_EQ(w.effective_iterations(), 5000u);
  EXPECT_EQ(w.effective_warmup(), 500u);
  w.mode = Mode::kLat;
  EXPECT_EQ(w.effective_iterations(), 1000u);
  EXPECT_EQ(w.effective_warmup(), 100u);
  w.iterations = 5;
  EXPECT_EQ(w.effective_iterations(), 5u);
  EXPECT_EQ(w.effective_warmup(), 1u);  // 10 % rounds to 0, at least 1
  w.iterations = 12345;
  EXPECT_EQ(w.effective_warmup(), 1234u);
  w.warmup = 0;  // explicitly no warm-up
  EXPECT_EQ(w.effective_warmup(), 0u);
  w.warmup = 7;
  EXPECT_EQ(w.effective_warmup(), 7u);
}

TEST(WorkloadDefaultsTest, EffectiveInline) {
  Workload w;
  w.mode = Mode::kBw;
  w.op = Op::kSend;
  EXPECT_EQ(w.effective_inline(220), 0u);
  w.mode = Mode::kLat;
  for (Op op : {Op::kSend, Op::kSendImm, Op::kWrite, Op::kWriteImm}) {
    w.op = op;
    EXPECT_EQ(w.effective_inline(512), 220u) << name(op);
    EXPECT_EQ(w.effective_inline(64), 64u) << name(op);  // capped by the device
    EXPECT_EQ(w.effective_inline(0), 0u) << name(op);
  }
  for (Op op : {Op::kRead, Op::kFetchAdd, Op::kCmpSwap}) {
    w.op = op;
    EXPECT_EQ(w.effective_inline(512), 0u) << name(op);
  }
  w.op = Op::kSend;
  w.inline_size = 0;
  EXPECT_EQ(w.effective_inline(512), 0u);
  w.inline_size = 100;
  EXPECT_EQ(w.effective_inline(512), 100u);
}

TEST(WorkloadDefaultsTest, EffectiveSignalEvery) {
  Workload w;
  w.mode = Mode::kBw;
  w.tx_depth = 128;
  EXPECT_EQ(w.effective_signal_every(), 100u);
  w.tx_depth = 32;
  EXPECT_EQ(w.effective_signal_every(), 32u);
  w.mode = Mode::kLat;
  EXPECT_EQ(w.effective_signal_every(), 1u);
  w.signal_every = 8;
  EXPECT_EQ(w.effective_signal_every(), 8u);
}

// Bandwidth phases signal often enough to show progress (issue: -n 20 of 8 MiB signalled only
// the 20th send, and a slow link failed "no progress" before the first completion).
TEST(WorkloadDefaultsTest, BwSignalEveryGivesEveryPhaseSeveralCompletions) {
  Workload w;  // bw, tx_depth 128: the base interval is 100
  constexpr uint64_t kForever = UINT64_MAX;
  EXPECT_EQ(w.bw_signal_every(64, 5000), 100u);        // small messages, many sends: unchanged
  EXPECT_EQ(w.bw_signal_every(64, kForever), 100u);    // duration mode
  EXPECT_EQ(w.bw_signal_every(4096, kForever), 100u);  // 400 KiB between signals
  EXPECT_EQ(w.bw_signal_every(64, 20), 5u);            // 20 sends: at least 4 completions
  EXPECT_EQ(w.bw_signal_every(64, 2), 1u);
  EXPECT_EQ(w.bw_signal_every(64, 1), 1u);
  EXPECT_EQ(w.bw_signal_every(65536, kForever), 16u);  // one every MiB
  EXPECT_EQ(w.bw_signal_every(8 << 20, 20), 1u);       // large messages: every send
  EXPECT_EQ(w.bw_signal_every(8 << 20, kForever), 1u);
  for (uint64_t n : {1u, 3u, 4u, 7u, 20u, 399u, 400u, 401u})
    EXPECT_GE(n / w.bw_signal_every(64, n) + (n % w.bw_signal_every(64, n) != 0),
              std::min<uint64_t>(n, Workload::kMinSignals))
        << n;
  w.post_list = 8;  // whole lists between signals, at least one
  EXPECT_EQ(w.bw_signal_every(64, 5000), 96u);
  EXPECT_EQ(w.bw_signal_every(64, 100), 24u);
  EXPECT_EQ(w.bw_signal_every(64, 20), 8u);
  EXPECT_EQ(w.bw_signal_every(65536, kForever), 16u);
  w.post_list = 1;
  w.signal_every = 50;  // asked for: kept as it is
  EXPECT_EQ(w.bw_signal_every(8 << 20, 20), 50u);
}

TEST(WorkloadDefaultsTest, DefaultWorkloadValidatesAndDerivedValues) {
  Workload w;
  EXPECT_NO_THROW(validate(w));
  w.sizes = {64, 1 << 20, 4096};
  EXPECT_EQ(w.max_size(), uint64_t{1} << 20);
  w.threads = 3;
  w.qps_per_thread = 5;
  EXPECT_EQ(w.total_qps(), 15u);
  for (Op op : kAllOps) {
    w.op = op;
    EXPECT_EQ(w.responder_posts_recv(),
              op == Op::kSend || op == Op::kSendImm || op == Op::kWriteImm)
        << name(op);
  }
}

// ---- sizes text -----------------------------------------------------------------------------

TEST(WorkloadSizeTextTest, FormatSizeParsesBack) {
  for (uint64_t b : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{1024}, uint64_t{1536},
                     uint64_t{4096}, uint64_t{1} << 20, uint64_t{3} << 20, uint64_t{1} << 30,
                     (uint64_t{1} << 30) + 1024, uint64_t{5} << 30})
    EXPECT_EQ(parse_size(format_size(b), "size"), b) << format_size(b);
  EXPECT_EQ(format_size(4096), "4K");
  EXPECT_EQ(format_size(1000), "1000");
}

}  // namespace
}  // namespace rdmabench
