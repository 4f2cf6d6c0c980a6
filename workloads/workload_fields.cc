#include "workloads/workload_fields.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "harness/error.h"
#include "harness/json_util.h"
#include "workloads/workload_options.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using K = FieldKind;

// Accessors between a canonical value and the struct member it describes.
template <auto M>
void set_value(Workload& w, const json& v) {
  using T = std::remove_cvref_t<decltype(w.*M)>;
  w.*M = v.get<T>();
}
template <auto M>
json get_value(const Workload& w) {
  return w.*M;
}
template <auto M, auto Parse>
void set_name(Workload& w, const json& v) {
  w.*M = Parse(v.get<std::string>());
}
template <auto M>
json get_name(const Workload& w) {
  return std::string(to_string(w.*M));
}
template <auto Parse>
void check(std::string_view s) {
  (void)Parse(s);
}

void set_numa(Workload& w, const json& v) { w.numa = parse_numa(v.get<std::string>(), "numa"); }
json get_numa(const Workload& w) { return numa_text(w.numa); }
void check_numa(std::string_view s) { (void)parse_numa(s, "numa"); }

constexpr auto k2To40 = static_cast<double>(Workload::kMaxIterations);

const std::array kFields = {
    WorkloadField{
        .key = "op",
        .option = "op",
        .names = "--op",
        .kind = K::kEnum,
        .help = "send, send_imm, write, write_imm, read, fetch_add, cmp_swap (default write)",
        .check_name = check<parse_op>,
        .set = set_name<&Workload::op, parse_op>,
        .get = get_name<&Workload::op>},
    WorkloadField{.key = "qp",
                  .option = "qp",
                  .names = "-c,--qp",
                  .kind = K::kEnum,
                  .help = "QP type: rc, uc, ud (default rc)",
                  .check_name = check<parse_qp_type>,
                  .set = set_name<&Workload::qp, parse_qp_type>,
                  .get = get_name<&Workload::qp>},
    WorkloadField{.key = "mode",
                  .option = "mode",
                  .names = "--mode",
                  .kind = K::kEnum,
                  .help = "bw (streaming) or lat (ping-pong / round trip) (default bw)",
                  .check_name = check<parse_mode>,
                  .set = set_name<&Workload::mode, parse_mode>,
                  .get = get_name<&Workload::mode>},
    WorkloadField{.key = "bidir",
                  .option = "bidir",
                  .names = "-b,--bidir",
                  .kind = K::kBool,
                  .help = "both directions at once (bw)",
                  .set = set_value<&Workload::bidir>,
                  .get = get_value<&Workload::bidir>},
    WorkloadField{
        .key = "sizes",
        .option = "size",
        .names = "-s,--size",
        .kind = K::kSizes,
        .help = "message size(s): 64, 4K, 1K,4K,64K or 2-8M (default 64K bw, 2 lat, 8 atomics)",
        .set = set_value<&Workload::sizes>,
        .get = get_value<&Workload::sizes>},
    WorkloadField{.key = "iterations",
                  .option = "iters",
                  .names = "-n,--iters",
                  .kind = K::kUint,
                  .help = "iterations per QP per size (default 5000 bw, 1000 lat)",
                  .lo = 1,
                  .hi = k2To40,
                  .has_unset = true,
                  .unset = 0,
                  .set = set_value<&Workload::iterations>,
                  .get = get_value<&Workload::iterations>},
    WorkloadField{.key = "duration_s",
                  .option = "duration",
                  .names = "-D,--duration",
                  .kind = K::kDouble,
                  .help = "seconds per size instead of -n",
                  .lo = 0.001,
                  .hi = 86400,
                  .unit = "seconds",
                  .has_unset = true,
                  .unset = 0,
                  .set = set_value<&Workload::duration_s>,
                  .get = get_value<&Workload::duration_s>},
    WorkloadField{.key = "warmup",
                  .option = "warmup",
                  .names = "--warmup",
                  .kind = K::kUint,
                  .help = "warm-up iterations per QP (default 10% of -n)",
                  .lo = 0,
                  .hi = k2To40,
                  .set = set_value<&Workload::warmup>,
                  .get = get_value<&Workload::warmup>},
    WorkloadField{.key = "warmup_s",
                  .option = "warmup-time",
                  .names = "--warmup-time",
                  .kind = K::kDouble,
                  .help = "warm-up seconds with -D (default 1)",
                  .lo = 0,
                  .hi = 3600,
                  .unit = "seconds",
                  .set = set_value<&Workload::warmup_s>,
                  .get = get_value<&Workload::warmup_s>},
    WorkloadField{.key = "tx_depth",
                  .option = "tx-depth",
                  .names = "-t,--tx-depth",
                  .kind = K::kUint,
                  .help = "send queue depth (default 128)",
                  .lo = 1,
                  .hi = 1 << 20,
                  .set = set_value<&Workload::tx_depth>,
                  .get = get_value<&Workload::tx_depth>},
    WorkloadField{.key = "rx_depth",
                  .option = "rx-depth",
                  .names = "-r,--rx-depth",
                  .kind = K::kUint,
                  .help = "receive queue depth (default 512)",
                  .lo = 1,
                  .hi = 1 << 20,
                  .set = set_value<&Workload::rx_depth>,
                  .get = get_value<&Workload::rx_depth>},
    WorkloadField{.key = "inline_size",
                  .option = "inline",
                  .names = "-I,--inline",
                  .kind = K::kInt,
                  .help = "inline threshold in bytes (default 0 bw, up to 220 lat)",
                  .lo = 0,
                  .hi = 1 << 20,
                  .has_unset = true,
                  .unset = -1,
                  .allowed = "0 or a positive byte count up to 1048576 (-1 = the default)",
                  .set = set_value<&Workload::inline_size>,
                  .get = get_value<&Workload::inline_size>},
    WorkloadField{
        .key = "signal_every",
        .option = "signal-every",
        .names = "-Q,--cq-mod,--signal-every",
        .kind = K::kUint,
        .help = "signal one completion every N sends (default min(100, depth) in bw, 1 in lat)",
        .lo = 1,
        .hi = 1 << 20,
        .has_unset = true,
        .unset = 0,
        .set = set_value<&Workload::signal_every>,
        .get = get_value<&Workload::signal_every>},
    WorkloadField{.key = "cq",
                  .option = "cq",
                  .names = "--cq",
                  .kind = K::kEnum,
                  .help = "poll (busy polling) or event (completion channel) (default poll)",
                  .check_name = check<parse_cq_mode>,
                  .set = set_name<&Workload::cq, parse_cq_mode>,
                  .get = get_name<&Workload::cq>},
    WorkloadField{.key = "srq",
                  .option = "srq",
                  .names = "--srq",
                  .kind = K::kBool,
                  .help = "shared receive queue on the receiver",
                  .set = set_value<&Workload::srq>,
                  .get = get_value<&Workload::srq>},
    WorkloadField{.key = "threads",
                  .option = "threads",
                  .names = "--threads",
                  .kind = K::kUint,
                  .help = "worker threads, each with its own QPs and CQ (default 1)",
                  .lo = 1,
                  .hi = 1024,
                  .set = set_value<&Workload::threads>,
                  .get = get_value<&Workload::threads>},
    WorkloadField{.key = "qps_per_thread",
                  .option = "qps",
                  .names = "-q,--qps",
                  .kind = K::kUint,
                  .help = "QPs per thread (default 1)",
                  .lo = 1,
                  .hi = 65536,
                  .set = set_value<&Workload::qps_per_thread>,
                  .get = get_value<&Workload::qps_per_thread>},
    WorkloadField{.key = "cpus",
                  .option = "cpus",
                  .names = "--cpus",
                  .kind = K::kCpus,
                  .help = "pin workers to these CPUs, e.g. 0,1",
                  .lo = 0,
                  .hi = 4095,
                  .set = set_value<&Workload::cpus>,
                  .get = get_value<&Workload::cpus>},
    WorkloadField{.key = "connect",
                  .option = "connect",
                  .names = "--connect",
                  .kind = K::kEnum,
                  .help = "tcp, rdma_cm or auto (default: rdma_cm on iWARP devices, else tcp)",
                  .check_name = check<parse_connect>,
                  .set = set_name<&Workload::connect, parse_connect>,
                  .get = get_name<&Workload::connect>},
    WorkloadField{.key = "verify",
                  .option = "verify",
                  .names = "--verify",
                  .kind = K::kBool,
                  .help = "check the payload arrives intact",
                  .set = set_value<&Workload::verify>,
                  .get = get_value<&Workload::verify>},
    WorkloadField{.key = "mtu",
                  .option = "mtu",
                  .names = "-m,--mtu",
                  .kind = K::kUint,
                  .help = "path MTU: 256, 512, 1024, 2048 or 4096 (default: the ports' active MTU)",
                  .lo = 256,
                  .hi = 4096,
                  .has_unset = true,
                  .unset = 0,
                  .allowed = "one of 256, 512, 1024, 2048, 4096 (0 = the ports' active MTU)",
                  .set = set_value<&Workload::mtu>,
                  .get = get_value<&Workload::mtu>},
    WorkloadField{.key = "timeout_s",
                  .option = "timeout",
                  .names = "--timeout",
                  .kind = K::kDouble,
                  .help = "seconds without progress before giving up (default 5)",
                  .lo = 0.1,
                  .hi = 3600,
                  .unit = "seconds",
                  .set = set_value<&Workload::timeout_s>,
                  .get = get_value<&Workload::timeout_s>},
    // Engine knobs (README "Engine knobs").
    WorkloadField{
        .key = "post_list",
        .option = "post-list",
        .names = "-l,--post-list",
        .kind = K::kUint,
        .help = "chain N work requests per post call (sends and receive re-posts) (default 1)",
        .lo = 1,
        .hi = 4096,
        .set = set_value<&Workload::post_list>,
        .get = get_value<&Workload::post_list>},
    WorkloadField{.key = "sge",
                  .option = "sge",
                  .names = "--sge",
                  .kind = K::kUint,
                  .help = "split each message over K scatter/gather entries (default 1)",
                  .lo = 1,
                  .hi = 1024,
                  .set = set_value<&Workload::sge>,
                  .get = get_value<&Workload::sge>},
    WorkloadField{.key = "max_rd_atomic",
                  .option = "max-rd-atomic",
                  .names = "-o,--max-rd-atomic",
                  .kind = K::kUint,
                  .help = "outstanding reads/atomics per QP (RC) (default min(device, 16))",
                  .lo = 1,
                  .hi = 255,
                  .has_unset = true,
                  .unset = 0,
                  .set = set_value<&Workload::max_rd_atomic>,
                  .get = get_value<&Workload::max_rd_atomic>},
    WorkloadField{.key = "latency_gap_us",
                  .option = "latency-gap",
                  .names = "--latency-gap",
                  .kind = K::kDouble,
                  .help = "microseconds to busy-wait between ping-pong iterations (default 0)",
                  .lo = 0,
                  .hi = 1e6,
                  .unit = "microseconds",
                  .has_unset = true,
                  .unset = 0,
                  .set = set_value<&Workload::latency_gap_us>,
                  .get = get_value<&Workload::latency_gap_us>},
    WorkloadField{.key = "rate",
                  .option = "rate",
                  .names = "--rate",
                  .kind = K::kDouble,
                  .help = "open-loop latency: messages/s per QP on a fixed schedule (default off)",
                  .lo = 1,
                  .hi = 1e8,
                  .unit = "messages per second per QP",
                  .has_unset = true,
                  .unset = 0,
                  .set = set_value<&Workload::rate>,
                  .get = get_value<&Workload::rate>},
    WorkloadField{.key = "cq_per_qp",
                  .option = "cq-per-qp",
                  .names = "--cq-per-qp",
                  .kind = K::kBool,
                  .help = "one CQ per QP instead of one per thread",
                  .set = set_value<&Workload::cq_per_qp>,
                  .get = get_value<&Workload::cq_per_qp>},
    WorkloadField{.key = "hugepages",
                  .option = "hugepages",
                  .names = "--hugepages",
                  .kind = K::kBool,
                  .help = "buffers from huge pages",
                  .set = set_value<&Workload::hugepages>,
                  .get = get_value<&Workload::hugepages>},
    WorkloadField{.key = "align",
                  .option = "align",
                  .names = "--align",
                  .kind = K::kUint,
                  .help = "buffer alignment in bytes, a power of two (default: page)",
                  .lo = 1,
                  .hi = 1 << 30,
                  .has_unset = true,
                  .unset = 0,
                  .byte_suffix = true,
                  .set = set_value<&Workload::align>,
                  .get = get_value<&Workload::align>},
    WorkloadField{.key = "mr",
                  .option = "mr",
                  .names = "--mr",
                  .kind = K::kEnum,
                  .help = "per_qp (one MR per QP, default) or shared (one MR per side)",
                  .check_name = check<parse_mr_mode>,
                  .set = set_name<&Workload::mr, parse_mr_mode>,
                  .get = get_name<&Workload::mr>},
    WorkloadField{
        .key = "numa",
        .option = "numa",
        .names = "--numa",
        .kind = K::kEnum,
        .help = "none, auto (the device's node) or N: bind buffers and threads (default none)",
        .check_name = check_numa,
        .set = set_numa,
        .get = get_numa},
};

std::string num_text(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::to_string(v);
}

// A range bound as people read it: whole numbers in full ("1000000", not "1e+06"), large powers
// of two as such ("2^40").
std::string bound_text(double v) {
  if (v >= 4294967296.0 && std::exp2(std::round(std::log2(v))) == v)
    return "2^" + std::to_string(static_cast<int>(std::round(std::log2(v))));
  char buf[64];
  std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%g", v);
  return buf;
}

// A non-negative integer (nlohmann keeps unsigned and signed integers apart).
bool is_uint(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// One size entry of a campaign: a byte count, or text such as "4K", "1K,4K" or "2-8M".
void add_sizes(const json& v, const std::string& path, std::vector<uint64_t>& out) {
  if (is_uint(v)) {
    out.push_back(v.get<uint64_t>());
  } else if (v.is_string()) {
    try {
      for (uint64_t s : parse_size_list(v.get<std::string>(), path)) out.push_back(s);
    } catch (const ConfigError& e) {
      throw ConfigError(path, v.dump(), e.allowed());
    }
  } else {
    throw ConfigError(path, v.dump(),
                      "a message size: a byte count or text such as \"4K\", \"1K,4K\" or \"2-8M\"");
  }
}

json canonical_list(const WorkloadField& f, const json& v, const std::string& path,
                    FieldSource source) {
  const bool sizes = f.kind == K::kSizes;
  if (source == FieldSource::kDocument && !v.is_array())
    throw ConfigError(path, brief_json(v),
                      sizes ? "an array of byte counts" : "an array of CPU numbers");
  std::vector<uint64_t> out;
  auto one = [&](const json& x, const std::string& p) {
    if (sizes && source == FieldSource::kCampaign) return add_sizes(x, p, out);
    if (!is_uint(x) || (!sizes && double(x.get<uint64_t>()) > f.hi))
      throw ConfigError(p, brief_json(x),
                        sizes ? "a non-negative integer" : "a CPU number from 0 to 4095");
    out.push_back(x.get<uint64_t>());
  };
  if (v.is_array()) {
    if (v.empty() && source == FieldSource::kCampaign)
      throw ConfigError(path, v.dump(),
                        sizes ? "at least one message size" : "at least one CPU number");
    for (size_t i = 0; i < v.size(); ++i) one(v[i], path + "/" + std::to_string(i));
  } else {
    one(v, path);
  }
  if (sizes) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

bool is_unset(const WorkloadField& f, double v) { return f.has_unset && v == f.unset; }

}  // namespace

std::span<const WorkloadField> workload_fields() { return kFields; }

const WorkloadField* find_workload_field(std::string_view key) {
  for (const auto& f : kFields)
    if (f.key == key) return &f;
  return nullptr;
}

std::string_view field_key_of(std::string_view name) {
  for (const auto& f : kFields)
    if (f.option == name || f.key == name) return f.key;
  return {};
}

bool is_workload_field(const std::string& key) { return find_workload_field(key) != nullptr; }

bool is_list_field(const std::string& key) {
  const WorkloadField* f = find_workload_field(key);
  return f != nullptr && (f->kind == K::kSizes || f->kind == K::kCpus);
}

const std::vector<std::string>& workload_field_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k;
    for (const auto& f : kFields) k.emplace_back(f.key);
    return k;
  }();
  return kKeys;
}

std::string field_range_text(const WorkloadField& f) {
  if (!f.allowed.empty()) return std::string(f.allowed);
  std::string t = f.kind == K::kDouble ? std::string(f.unit) + " from " + bound_text(f.lo) +
                                             " to " + bound_text(f.hi)
                                       : "between " + bound_text(f.lo) + " and " + bound_text(f.hi);
  if (f.has_unset) t += " (" + bound_text(f.unset) + " = the default)";
  return t;
}

json canonical_field_value(const std::string& key, const json& v, const std::string& path,
                           FieldSource source) {
  const WorkloadField* f = find_workload_field(key);
  if (f == nullptr) {
    std::string allowed;
    for (const auto& k : workload_field_keys()) allowed += (allowed.empty() ? "" : ", ") + k;
    throw ConfigError(path, v.dump(), "unknown workload field; known fields: " + allowed);
  }
  switch (f->kind) {
    case K::kEnum: {
      if (!v.is_string()) throw ConfigError(path, brief_json(v), "a string");
      try {
        f->check_name(v.get<std::string>());
      } catch (const ConfigError& e) {
        throw ConfigError(path, v.get<std::string>(), e.allowed());
      }
      return v;
    }
    case K::kBool:
      if (!v.is_boolean()) throw ConfigError(path, brief_json(v), "true or false");
      return v;
    case K::kUint: {
      if (!is_uint(v))
        throw ConfigError(path, brief_json(v), "a whole number " + field_range_text(*f));
      const uint64_t n = v.get<uint64_t>();
      if (is_unset(*f, double(n))) return n;
      if (double(n) < f->lo || double(n) > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + field_range_text(*f));
      if (key == "mtu" && (n & (n - 1)) != 0)
        throw ConfigError(path, v.dump(), field_range_text(*f));
      return n;
    }
    case K::kInt: {
      if (!v.is_number_integer() || (v.is_number_unsigned() && double(v.get<uint64_t>()) > f->hi))
        throw ConfigError(path, brief_json(v), "a whole number " + field_range_text(*f));
      const int64_t n = v.get<int64_t>();
      if (is_unset(*f, double(n))) return n;
      if (double(n) < f->lo || double(n) > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + field_range_text(*f));
      return n;
    }
    case K::kDouble: {
      const std::string what = "a number: ";
      if (!v.is_number()) throw ConfigError(path, brief_json(v), what + field_range_text(*f));
      const double d = v.get<double>();
      if (is_unset(*f, d)) return 0.0;
      if (!std::isfinite(d) || d < f->lo || d > f->hi)
        throw ConfigError(path, v.dump(), what + field_range_text(*f));
      return d;
    }
    case K::kSizes:
    case K::kCpus:
      return canonical_list(*f, v, path, source);
  }
  return v;
}

json field_value_from_text(const WorkloadField& f, const std::string& text) {
  const std::string option(f.option);
  switch (f.kind) {
    case K::kEnum: {
      const std::string name = lower(text);
      f.check_name(name);
      return name;
    }
    case K::kBool:
      return text != "false";
    case K::kUint: {
      if (!f.byte_suffix) return parse_uint_option(option, text, uint64_t(f.lo), uint64_t(f.hi));
      const uint64_t v = parse_size(text, option);
      if (double(v) < f.lo || double(v) > f.hi)
        throw ConfigError(option, text, "a byte count " + field_range_text(f));
      return v;
    }
    case K::kInt:
      return int64_t(parse_uint_option(option, text, uint64_t(f.lo), uint64_t(f.hi)));
    case K::kDouble:
      return parse_number_option(option, text, f.lo, f.hi, std::string(f.unit));
    case K::kSizes:
      return parse_size_list(text, option);
    case K::kCpus: {
      std::vector<uint64_t> cpus;
      size_t start = 0;
      for (;;) {
        const size_t comma = text.find(',', start);
        cpus.push_back(parse_uint_option(option, text.substr(start, comma - start), uint64_t(f.lo),
                                         uint64_t(f.hi)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return cpus;
    }
  }
  return text;
}

Workload workload_from_values(const json& values, bool all_sizes) {
  Workload w;
  for (const auto& f : kFields)
    if (auto it = values.find(f.key); it != values.end()) f.set(w, *it);
  if (!values.contains("sizes")) {
    if (is_atomic(w.op))
      w.sizes = {8};
    else if (all_sizes)
      w.sizes = parse_size_list("all", "size");
    else
      w.sizes = {w.mode == Mode::kLat ? 2U : 65536U};
  }
  validate(w);
  return w;
}

void check_field_ranges(const Workload& w) {
  static const Workload kDefaults;
  for (const auto& f : kFields) {
    if (f.kind != K::kUint && f.kind != K::kInt && f.kind != K::kDouble) continue;
    const json v = f.get(w);
    if (v == f.get(kDefaults)) continue;  // the defaults are valid by construction
    const double d = v.get<double>();
    if (is_unset(f, d) || (d >= f.lo && d <= f.hi)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", d);
    throw ConfigError(std::string(f.option), f.kind == K::kDouble ? buf : v.dump(),
                      field_range_text(f));
  }
}

std::vector<std::string> client_options(const json& values) {
  std::vector<std::string> out;
  for (const auto& f : kFields) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    const json& v = *it;
    const std::string option = "--" + std::string(f.option);
    switch (f.kind) {
      case K::kEnum:
        if (f.key == "connect") {
          // rdma_cm: -R as before; tcp: explicit (the client's default is auto, which picks
          // rdma_cm on iWARP devices); auto: the default, no option.
          if (v.get<std::string>() == "rdma_cm")
            out.emplace_back("--rdma-cm");
          else if (v.get<std::string>() == "tcp")
            out.insert(out.end(), {"--connect", "tcp"});
        } else {
          out.insert(out.end(), {option, v.get<std::string>()});
        }
        break;
      case K::kBool:
        if (v.get<bool>()) out.push_back(option);
        break;
      case K::kUint:
      case K::kInt:
      case K::kDouble:
        if (is_unset(f, v.get<double>())) break;
        out.insert(out.end(), {option, v.is_number_float() ? num_text(v.get<double>()) : v.dump()});
        break;
      case K::kSizes:
      case K::kCpus: {
        std::string list;
        for (const auto& x : v)
          list += (list.empty() ? "" : ",") + std::to_string(x.get<uint64_t>());
        out.insert(out.end(), {option, list});
        break;
      }
    }
  }
  return out;
}

std::string describe_values(const json& values) {
  std::string out;
  for (const auto& f : kFields) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    std::string text;
    if (f.kind == K::kSizes || f.kind == K::kCpus) {
      for (const auto& x : *it)
        text +=
            (text.empty() ? "" : ",") + (f.kind == K::kSizes ? format_size(x.get<uint64_t>())
                                                             : std::to_string(x.get<uint64_t>()));
    } else if (it->is_string()) {
      text = it->get<std::string>();
    } else if (it->is_number_float()) {
      text = num_text(it->get<double>());
    } else {
      text = it->dump();
    }
    out += (out.empty() ? "" : " ") + std::string(f.key) + "=" + text;
  }
  return out;
}

}  // namespace rdmabench
