#include "workloads/workload_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "harness/error.h"

namespace rdmabench {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

uint64_t parse_uint_option(const std::string& field, const std::string& text, uint64_t lo,
                           uint64_t hi) {
  const std::string allowed =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (text.empty() || text[0] == '-' || text[0] == '+') throw ConfigError(field, text, allowed);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) throw ConfigError(field, text, allowed);
  if (v < lo || v > hi) throw ConfigError(field, text, allowed);
  return v;
}

double parse_seconds_option(const std::string& field, const std::string& text, double lo,
                            double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "seconds from %g to %g", lo, hi);
  const std::string allowed = buf;
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
      v < lo || v > hi)
    throw ConfigError(field, text, allowed);
  return v;
}

double parse_number_option(const std::string& field, const std::string& text, double lo, double hi,
                           const std::string& unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s from %g to %g", unit.c_str(), lo, hi);
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
      v < lo || v > hi)
    throw ConfigError(field, text, buf);
  return v;
}

Workload build_workload(const WorkloadArgs& a) {
  Workload w;
  if (a.op) w.op = parse_op(lower(*a.op));
  if (a.qp) w.qp = parse_qp_type(lower(*a.qp));
  if (a.mode) w.mode = parse_mode(lower(*a.mode));
  if (a.cq) w.cq = parse_cq_mode(lower(*a.cq));
  if (a.events) {
    if (a.cq && w.cq != CqMode::kEvent)
      throw ConfigError("cq", *a.cq, "event when -e/--events is given");
    w.cq = CqMode::kEvent;
  }
  w.bidir = a.bidir;
  w.srq = a.srq;
  w.verify = a.verify;
  if (a.connect) w.connect = parse_connect(lower(*a.connect));
  if (a.rdma_cm) {
    if (a.connect && w.connect != ConnectMethod::kRdmaCm)
      throw ConfigError("connect", *a.connect, "rdma_cm when -R/--rdma-cm is given");
    w.connect = ConnectMethod::kRdmaCm;
  }
  if (a.all_sizes && a.sizes)
    throw ConfigError("size", *a.sizes, "either -s/--size or -a/--all, not both");
  if (a.all_sizes)
    w.sizes = parse_size_list("all", "size");
  else if (a.sizes)
    w.sizes = parse_size_list(*a.sizes, "size");
  else if (is_atomic(w.op))
    w.sizes = {8};
  else
    w.sizes = {w.mode == Mode::kLat ? 2U : 65536U};
  if (a.all_sizes && is_atomic(w.op)) w.sizes = {8};
  if (a.iterations) w.iterations = parse_uint_option("iters", *a.iterations, 1, 1ULL << 40);
  if (a.duration) w.duration_s = parse_seconds_option("duration", *a.duration, 0.001, 86400);
  if (a.warmup) w.warmup = parse_uint_option("warmup", *a.warmup, 0, 1ULL << 40);
  if (a.warmup_time) w.warmup_s = parse_seconds_option("warmup-time", *a.warmup_time, 0, 3600);
  if (a.tx_depth)
    w.tx_depth = static_cast<uint32_t>(parse_uint_option("tx-depth", *a.tx_depth, 1, 1U << 20));
  if (a.rx_depth)
    w.rx_depth = static_cast<uint32_t>(parse_uint_option("rx-depth", *a.rx_depth, 1, 1U << 20));
  if (a.inline_size)
    w.inline_size = static_cast<int32_t>(parse_uint_option("inline", *a.inline_size, 0, 1U << 20));
  if (a.signal_every)
    w.signal_every =
        static_cast<uint32_t>(parse_uint_option("signal-every", *a.signal_every, 1, 1U << 20));
  if (a.threads)
    w.threads = static_cast<uint32_t>(parse_uint_option("threads", *a.threads, 1, 1024));
  if (a.qps) w.qps_per_thread = static_cast<uint32_t>(parse_uint_option("qps", *a.qps, 1, 65536));
  if (a.mtu) w.mtu = static_cast<uint32_t>(parse_uint_option("mtu", *a.mtu, 256, 4096));
  if (a.timeout) w.timeout_s = parse_seconds_option("timeout", *a.timeout, 0.1, 3600);
  if (a.post_list)
    w.post_list = static_cast<uint32_t>(parse_uint_option("post-list", *a.post_list, 1, 4096));
  if (a.sge) w.sge = static_cast<uint32_t>(parse_uint_option("sge", *a.sge, 1, 1024));
  if (a.max_rd_atomic)
    w.max_rd_atomic =
        static_cast<uint32_t>(parse_uint_option("max-rd-atomic", *a.max_rd_atomic, 1, 255));
  if (a.latency_gap)
    w.latency_gap_us = parse_number_option("latency-gap", *a.latency_gap, 0, 1e6, "microseconds");
  if (a.rate) w.rate = parse_number_option("rate", *a.rate, 1, 1e8, "messages per second per QP");
  if (a.align) {
    w.align = parse_size(*a.align, "align");
    if (w.align == 0 || (w.align & (w.align - 1)) != 0 || w.align > (1ULL << 30))
      throw ConfigError("align", *a.align, "a power of two from 1 to 1G, e.g. 64 or 4K");
  }
  if (a.mr) w.mr = parse_mr_mode(lower(*a.mr));
  if (a.numa) w.numa = parse_numa(lower(*a.numa), "numa");
  w.cq_per_qp = a.cq_per_qp;
  w.hugepages = a.hugepages;
  if (a.cpus) {
    std::string s = *a.cpus;
    size_t start = 0;
    while (start <= s.size()) {
      size_t comma = s.find(',', start);
      std::string item =
          s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      w.cpus.push_back(static_cast<int>(parse_uint_option("cpus", item, 0, 4095)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  validate(w);
  return w;
}

}  // namespace rdmabench
