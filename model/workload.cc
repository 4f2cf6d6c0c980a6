#include "model/workload.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/error.h"
#include "base/json_util.h"
#include "model/recv_credit_rules.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Op, 7> kOps{{{Op::kSend, "send"},
                                 {Op::kSendImm, "send_imm"},
                                 {Op::kWrite, "write"},
                                 {Op::kWriteImm, "write_imm"},
                                 {Op::kRead, "read"},
                                 {Op::kFetchAdd, "fetch_add"},
                                 {Op::kCmpSwap, "cmp_swap"}}};
constexpr NameTable<QpType, 3> kQps{
    {{QpType::kRc, "rc"}, {QpType::kUc, "uc"}, {QpType::kUd, "ud"}}};
constexpr NameTable<Mode, 2> kModes{{{Mode::kBw, "bw"}, {Mode::kLat, "lat"}}};
constexpr NameTable<CqMode, 2> kCqModes{{{CqMode::kPoll, "poll"}, {CqMode::kEvent, "event"}}};
constexpr NameTable<ConnectMethod, 3> kConnects{{{ConnectMethod::kTcp, "tcp"},
                                                 {ConnectMethod::kRdmaCm, "rdma_cm"},
                                                 {ConnectMethod::kAuto, "auto"}}};
constexpr NameTable<MrMode, 2> kMrModes{{{MrMode::kPerQp, "per_qp"}, {MrMode::kShared, "shared"}}};
constexpr NameTable<GidType, 3> kGidTypes{
    {{GidType::kAuto, "auto"}, {GidType::kRoceV1, "roce-v1"}, {GidType::kRoceV2, "roce-v2"}}};

template <typename E, size_t N>
std::string_view name_of(const NameTable<E, N>& t, E v) noexcept {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}

template <typename E, size_t N>
E parse_name(const NameTable<E, N>& t, std::string_view s, const char* field) {
  std::string allowed;
  for (const auto& [e, n] : t) {
    if (n == s) return e;
    allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  }
  throw ConfigError(field, std::string(s), "one of " + allowed);
}

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string_view to_string(Op v) noexcept { return name_of(kOps, v); }
std::string_view to_string(QpType v) noexcept { return name_of(kQps, v); }
std::string_view to_string(Mode v) noexcept { return name_of(kModes, v); }
std::string_view to_string(CqMode v) noexcept { return name_of(kCqModes, v); }
std::string_view to_string(ConnectMethod v) noexcept { return name_of(kConnects, v); }
Op parse_op(std::string_view s) { return parse_name(kOps, s, "op"); }
QpType parse_qp_type(std::string_view s) { return parse_name(kQps, s, "qp"); }
Mode parse_mode(std::string_view s) { return parse_name(kModes, s, "mode"); }
CqMode parse_cq_mode(std::string_view s) { return parse_name(kCqModes, s, "cq"); }
ConnectMethod parse_connect(std::string_view s) { return parse_name(kConnects, s, "connect"); }
std::string_view to_string(MrMode v) noexcept { return name_of(kMrModes, v); }
MrMode parse_mr_mode(std::string_view s) { return parse_name(kMrModes, s, "mr"); }
std::string_view to_string(GidType v) noexcept { return name_of(kGidTypes, v); }
GidType parse_gid_type(std::string_view s) { return parse_name(kGidTypes, s, "gid-type"); }

int32_t parse_numa(std::string_view s, const std::string& field) {
  if (s == "none") return Workload::kNumaNone;
  if (s == "auto") return Workload::kNumaAuto;
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v > 1023)
    throw ConfigError(field, std::string(s),
                      "none, auto (the device's NUMA node) or a node number from 0 to 1023");
  return static_cast<int32_t>(v);
}

std::string numa_text(int32_t numa) {
  if (numa == Workload::kNumaNone) return "none";
  if (numa == Workload::kNumaAuto) return "auto";
  return std::to_string(numa);
}

ConnectMethod resolve_connect(ConnectMethod c, QpType qp, std::string_view transport) noexcept {
  if (c != ConnectMethod::kAuto) return c;
  // UC/UD on iWARP stay on tcp, so that the QP type is what validate_for_device refuses.
  return transport == "iWARP" && qp == QpType::kRc ? ConnectMethod::kRdmaCm : ConnectMethod::kTcp;
}

uint64_t Workload::max_size() const noexcept {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

uint64_t Workload::effective_iterations() const noexcept {
  if (iterations != 0) return iterations;
  return mode == Mode::kBw ? 5000 : 1000;
}

uint64_t Workload::effective_warmup() const noexcept {
  if (warmup != UINT64_MAX) return warmup;
  return std::max<uint64_t>(1, effective_iterations() / 10);
}

uint32_t Workload::effective_inline(uint32_t device_max_inline) const noexcept {
  if (inline_size >= 0) return static_cast<uint32_t>(inline_size);
  if (mode == Mode::kLat && !is_fetch(op)) return std::min<uint32_t>(220, device_max_inline);
  return 0;
}

uint32_t Workload::effective_signal_every() const noexcept {
  if (signal_every != 0) return signal_every;
  if (mode == Mode::kLat) return 1;
  const uint32_t s = std::min<uint32_t>(100, tx_depth);
  // With a post list, signal at the end of a whole batch (a multiple of it).
  if (post_list <= 1) return s;
  return post_list * std::max<uint32_t>(1, s / post_list);
}

uint32_t Workload::bw_signal_every(uint64_t size, uint64_t phase_ops) const noexcept {
  const uint32_t base = effective_signal_every();
  if (signal_every != 0) return base;
  uint64_t s = base;
  if (phase_ops != UINT64_MAX) s = std::min(s, (phase_ops + kMinSignals - 1) / kMinSignals);
  s = std::min(s, kSignalBytes / std::max<uint64_t>(1, size));
  s = std::max<uint64_t>(1, s);
  // With a post list, a whole number of lists (at least one) between signals.
  if (post_list <= 1) return static_cast<uint32_t>(s);
  return post_list * std::max<uint32_t>(1, static_cast<uint32_t>(s / post_list));
}

namespace {

// The engine knobs (docs/single-pair.md "Engine knobs"): ranges and the combinations they make
// sense in.
void validate_knobs(const Workload& w) {
  const std::string n_text = std::to_string(w.post_list);
  if (w.post_list > 1) {
    if (w.mode == Mode::kLat)
      throw ConfigError("post-list", n_text,
                        "1 in latency mode (a ping-pong posts one message at a time)");
    if (w.post_list > w.tx_depth)
      throw ConfigError(
          "post-list", n_text,
          "at most the send queue depth (tx-depth " + std::to_string(w.tx_depth) + ")");
    if (uses_recv(w.op) && w.post_list > w.rx_depth)
      throw ConfigError("post-list", n_text,
                        "at most the receive queue depth (rx-depth " + std::to_string(w.rx_depth) +
                            "): receives are re-posted in lists of the same length");
    const uint32_t s = w.signal_every;
    if (s != 0 && s % w.post_list != 0 && w.post_list % s != 0)
      throw ConfigError("signal-every", std::to_string(s),
                        "a multiple or a divisor of post-list " + n_text +
                            " (completions are signaled at list boundaries)");
  }
  if (w.sge > 1) {
    if (is_atomic(w.op))
      throw ConfigError("sge", std::to_string(w.sge), "1 for atomics (one 8-byte operand)");
    for (uint64_t s : w.sizes)
      if (s < w.sge)
        throw ConfigError("sge", std::to_string(w.sge),
                          "at most the smallest message size (" + std::to_string(s) +
                              " bytes): every SGE carries at least one byte");
  }
  if (w.max_rd_atomic != 0 && w.qp != QpType::kRc)
    throw ConfigError("max-rd-atomic", std::to_string(w.max_rd_atomic),
                      "only with RC QPs (reads and atomics exist only there)");
  if (w.latency_gap_us > 0 && w.mode != Mode::kLat)
    throw ConfigError("latency-gap", fmt_num(w.latency_gap_us),
                      "only in latency mode (--mode lat)");
  if (w.rate > 0) {
    const std::string r = fmt_num(w.rate);
    if (w.mode != Mode::kLat)
      throw ConfigError("rate", r, "only in latency mode (--mode lat): open-loop latency");
    if (w.qp != QpType::kRc)
      throw ConfigError(
          "rate", r, "only with RC QPs (replies are matched to requests in order; UC/UD may drop)");
    if (w.op == Op::kWrite)
      throw ConfigError("rate", r,
                        "with send, send_imm, write_imm, read or atomics (write ping-pong "
                        "detects arrival by one marker byte, which cannot tell overlapping "
                        "messages apart)");
    if (w.cq != CqMode::kPoll)
      throw ConfigError("rate", r,
                        "with --cq poll (the open-loop sender busy-waits on its schedule)");
    if (w.latency_gap_us > 0)
      throw ConfigError("latency-gap", fmt_num(w.latency_gap_us),
                        "0 with --rate (the schedule sets the gaps)");
  }
  if (w.cq_per_qp) {
    if (w.mode != Mode::kBw)
      throw ConfigError("cq-per-qp", "true",
                        "only in bw mode (latency runs one QP per thread, with its own CQ)");
    if (w.cq != CqMode::kPoll)
      throw ConfigError("cq-per-qp", "true", "with --cq poll (the worker polls each QP's CQ)");
  }
  if (w.align != 0 && (w.align & (w.align - 1)) != 0)
    throw ConfigError("align", std::to_string(w.align),
                      "a power of two from 1 to 1G (0 = the page size)");
  if (w.align != 0 && w.align < 8 && is_atomic(w.op))
    throw ConfigError("align", std::to_string(w.align),
                      "at least 8 for atomics (their target must be 8-byte aligned)");
  if (w.numa < Workload::kNumaAuto || w.numa > 1023)
    throw ConfigError("numa", std::to_string(w.numa), "none, auto or a node number from 0 to 1023");
}

}  // namespace

void validate(const Workload& w) {
  // Op x QP type, from the verbs table: UC has no read or atomics, UD only sends.
  if (w.qp == QpType::kUc && (is_fetch(w.op)))
    throw ConfigError("op", std::string(to_string(w.op)),
                      "UC QPs support send, send_imm, write and write_imm only");
  if (w.qp == QpType::kUd && w.op != Op::kSend && w.op != Op::kSendImm)
    throw ConfigError("op", std::string(to_string(w.op)), "UD QPs support send and send_imm only");
  if (w.sizes.empty()) throw ConfigError("size", "(none)", "at least one message size");
  for (uint64_t s : w.sizes) {
    if (is_atomic(w.op) && s != 8)
      throw ConfigError(
          "size", std::to_string(s),
          "atomics (" + std::string(to_string(w.op)) + ") operate on exactly 8 bytes");
    if (s > (1ULL << 30))
      throw ConfigError("size", std::to_string(s), "at most 1G (1073741824) bytes");
    if (s == 0 && w.mode == Mode::kLat && (w.op == Op::kWrite))
      throw ConfigError("size", "0",
                        "write latency needs at least 1 byte (arrival is seen in the last byte)");
    if (s == 0 && w.op == Op::kRead) throw ConfigError("size", "0", "read needs at least 1 byte");
  }
  if (w.iterations != 0 && w.duration_s > 0)
    throw ConfigError("iterations", std::to_string(w.iterations),
                      "give either iterations (-n) or duration (-D), not both");
  if (w.run_infinitely) {
    if (w.iterations != 0 || w.duration_s > 0)
      throw ConfigError("run-infinitely", "true", "alone: it runs until stopped, without -n or -D");
    if (w.sizes.size() != 1)
      throw ConfigError("run-infinitely", "true",
                        "one message size (" + std::to_string(w.sizes.size()) + " given)");
    if (w.bidir)
      throw ConfigError("run-infinitely", "true",
                        "one direction (the server ends its own sending at a set time)");
  }
  if (w.iterations > Workload::kMaxIterations)
    throw ConfigError("iterations", std::to_string(w.iterations), "at most 2^40");
  // Every numeric field within its range (workload_fields.cc), then the combinations.
  check_field_ranges(w);
  if (w.signal_every != 0 && w.signal_every > w.tx_depth)
    throw ConfigError(
        "signal-every", std::to_string(w.signal_every),
        "between 1 and the send queue depth (tx-depth " + std::to_string(w.tx_depth) + ")");
  // A latency phase reaps all of its send completions before the next one starts, so its last
  // send must be signaled: known with a fixed iteration count, not with a duration or a rate.
  if (w.mode == Mode::kLat && w.signal_every > 1 && (w.timed() || w.open_loop()))
    throw ConfigError(
        "signal-every", std::to_string(w.signal_every),
        "1 in latency mode with --duration or --rate (selective signaling there needs "
        "a fixed iteration count, -n)");
  if (w.inline_size > 0 && is_fetch(w.op))
    throw ConfigError("inline", std::to_string(w.inline_size),
                      "0: read and atomics carry no payload to inline");
  if (uint64_t(w.threads) * w.qps_per_thread > 65536)
    throw ConfigError("qps", std::to_string(w.qps_per_thread),
                      "threads x qps must be at most 65536");
  for (int c : w.cpus)
    if (c < 0) throw ConfigError("cpus", std::to_string(c), "CPU numbers are >= 0");
  if (w.mode == Mode::kLat && w.qps_per_thread != 1)
    throw ConfigError("qps", std::to_string(w.qps_per_thread),
                      "1 in latency mode (ping-pong uses one QP per thread; use --threads)");
  if (w.mode == Mode::kLat && w.bidir)
    throw ConfigError("bidir", "true", "only in bw mode (latency is a ping-pong already)");
  if (w.mode == Mode::kLat && w.op == Op::kWrite && w.cq == CqMode::kEvent)
    throw ConfigError("cq", "event",
                      "poll for write latency (arrival is detected by polling memory; event mode "
                      "works with send, send_imm, write_imm, read and atomics)");
  if (w.srq && !uses_recv(w.op))
    throw ConfigError("srq", "true",
                      "only with ops that consume receives (send, send_imm, write_imm)");
  if (w.connect == ConnectMethod::kRdmaCm && w.qp != QpType::kRc)
    throw ConfigError("connect", "rdma_cm",
                      "rdma_cm connects RC QPs here; use the TCP exchange for UC and UD");
  if (w.mtu != 0 && w.mtu != 256 && w.mtu != 512 && w.mtu != 1024 && w.mtu != 2048 && w.mtu != 4096)
    throw ConfigError("mtu", std::to_string(w.mtu), "one of 256, 512, 1024, 2048, 4096");
  validate_knobs(w);
}

// ---- JSON -------------------------------------------------------------------------------------

void to_json(nlohmann::json& j, const Workload& w) {
  j = nlohmann::json::object();
  for (const auto& f : workload_fields()) j[std::string(f.key)] = f.get(w);
  // The document records what ran: the defaults resolved.
  j["iterations"] = w.timed() ? 0 : w.effective_iterations();
  j["warmup"] = w.effective_warmup();
  j["signal_every"] = w.effective_signal_every();
}

Workload workload_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) throw ConfigError(path.empty() ? "/" : path, brief_json(j), "a JSON object");
  for (const auto& [k, v] : j.items()) {
    if (!is_workload_field(k)) {
      std::string allowed;
      for (const auto& key : workload_field_keys()) allowed += (allowed.empty() ? "" : ", ") + key;
      throw ConfigError(path + "/" + k, brief_json(v), "unknown field; known fields: " + allowed);
    }
  }
  Workload w;
  for (const auto& f : workload_fields()) {
    auto it = j.find(f.key);
    if (it == j.end()) continue;
    const std::string key(f.key);
    f.set(w, canonical_field_value(key, *it, path + "/" + key, FieldSource::kDocument));
  }
  try {
    validate(w);
  } catch (const ConfigError& e) {
    // Re-anchor the message at the JSON path of the field.
    const std::string_view key = field_key_of(e.field());
    throw ConfigError(path + "/" + (key.empty() ? e.field() : std::string(key)), e.value(),
                      e.allowed());
  }
  return w;
}

// ---- sizes ------------------------------------------------------------------------------------

uint64_t parse_size(std::string_view s, const std::string& field) {
  const std::string orig(s);
  auto bad = [&]() -> ConfigError {
    return ConfigError(field, orig,
                       "a byte count such as 64, 4K, 1M or 1G (K/M/G are powers of 1024)");
  };
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty() || s.front() == '-' || s.front() == '+') throw bad();
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc()) throw bad();
  std::string_view suffix(p, static_cast<size_t>(s.data() + s.size() - p));
  // Accept K, KB, Ki, KiB (any case for the letter), all meaning 1024.
  if (suffix.size() >= 2 && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.remove_suffix(1);
  if (suffix.size() == 2 && suffix.back() == 'i') suffix.remove_suffix(1);
  if (suffix == "B" || suffix == "b") suffix = {};
  int shift = 0;
  if (suffix.empty())
    shift = 0;
  else if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else
    throw bad();
  if (shift > 0 && v > (UINT64_MAX >> shift)) throw bad();
  return v << shift;
}

std::vector<uint64_t> parse_size_list(std::string_view s, const std::string& field) {
  std::vector<uint64_t> out;
  if (s == "all") {
    for (uint64_t v = 2; v <= (8ULL << 20); v *= 2) out.push_back(v);
    return out;
  }
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string_view item =
        s.substr(start, comma == std::string_view::npos ? s.npos : comma - start);
    if (size_t dash = item.find('-'); dash != std::string_view::npos && dash > 0) {
      uint64_t lo = parse_size(item.substr(0, dash), field);
      uint64_t hi = parse_size(item.substr(dash + 1), field);
      if (lo == 0 || hi < lo)
        throw ConfigError(field, std::string(item),
                          "a range FROM-TO with 0 < FROM <= TO (sizes double from FROM)");
      for (uint64_t v = lo;; v *= 2) {  // doubling, without overflowing past `hi`
        out.push_back(v);
        if (v > hi / 2) break;
      }
    } else {
      out.push_back(parse_size(item, field));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_size(uint64_t b) {
  if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) return std::to_string(b >> 30) + "G";
  if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

}  // namespace rdmabench
