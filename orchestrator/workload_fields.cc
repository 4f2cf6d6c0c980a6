#include "orchestrator/workload_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>

#include "harness/error.h"

namespace rdmabench {
namespace {

enum class Kind { kEnum, kBool, kUint, kInt, kDouble, kSizes, kCpus };

struct Field {
  const char* key;
  const char* option;  // client option (long spelling)
  Kind kind;
  double lo = 0, hi = 0;         // numeric range
  bool zero_is_default = false;  // 0 (or -1 for inline_size) = the client's default: no option
  std::function<void(const std::string&)> parse_enum = nullptr;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> kFields = {
      {"op", "--op", Kind::kEnum, 0, 0, false, [](const std::string& s) { parse_op(s); }},
      {"qp", "--qp", Kind::kEnum, 0, 0, false, [](const std::string& s) { parse_qp_type(s); }},
      {"mode", "--mode", Kind::kEnum, 0, 0, false, [](const std::string& s) { parse_mode(s); }},
      {"bidir", "--bidir", Kind::kBool},
      {"sizes", "--size", Kind::kSizes},
      {"iterations", "--iters", Kind::kUint, 1, 1099511627776.0, true},
      {"duration_s", "--duration", Kind::kDouble, 0.001, 86400, true},
      {"warmup", "--warmup", Kind::kUint, 0, 1099511627776.0},
      {"warmup_s", "--warmup-time", Kind::kDouble, 0, 3600},
      {"tx_depth", "--tx-depth", Kind::kUint, 1, 1 << 20},
      {"rx_depth", "--rx-depth", Kind::kUint, 1, 1 << 20},
      {"inline_size", "--inline", Kind::kInt, 0, 1 << 20, true},
      {"signal_every", "--signal-every", Kind::kUint, 1, 1 << 20, true},
      {"cq", "--cq", Kind::kEnum, 0, 0, false, [](const std::string& s) { parse_cq_mode(s); }},
      {"srq", "--srq", Kind::kBool},
      {"threads", "--threads", Kind::kUint, 1, 1024},
      {"qps_per_thread", "--qps", Kind::kUint, 1, 65536},
      {"cpus", "--cpus", Kind::kCpus, 0, 4095},
      {"connect", "--rdma-cm", Kind::kEnum, 0, 0, false,
       [](const std::string& s) { parse_connect(s); }},
      {"verify", "--verify", Kind::kBool},
      {"mtu", "--mtu", Kind::kUint, 256, 4096, true},
      {"timeout_s", "--timeout", Kind::kDouble, 0.1, 3600},
      // Engine knobs (README "Engine knobs").
      {"post_list", "--post-list", Kind::kUint, 1, 4096},
      {"sge", "--sge", Kind::kUint, 1, 1024},
      {"max_rd_atomic", "--max-rd-atomic", Kind::kUint, 1, 255, true},
      {"latency_gap_us", "--latency-gap", Kind::kDouble, 0, 1e6, true},
      {"rate", "--rate", Kind::kDouble, 1, 1e8, true},
      {"cq_per_qp", "--cq-per-qp", Kind::kBool},
      {"hugepages", "--hugepages", Kind::kBool},
      {"align", "--align", Kind::kUint, 1, 1 << 30, true},
      {"mr", "--mr", Kind::kEnum, 0, 0, false, [](const std::string& s) { parse_mr_mode(s); }},
      {"numa", "--numa", Kind::kEnum, 0, 0, false,
       [](const std::string& s) { parse_numa(s, "numa"); }},
  };
  return kFields;
}

const Field* find_field(const std::string& key) {
  for (const auto& f : fields())
    if (key == f.key) return &f;
  return nullptr;
}

std::string num_text(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::to_string(v);
}

std::string range_text(const Field& f) {
  std::string t = "from " + num_text(f.lo) + " to " + num_text(f.hi);
  if (f.zero_is_default)
    t += std::string(", or ") + (f.kind == Kind::kInt ? "-1" : "0") + " for the default";
  return t;
}

// A non-negative integer (nlohmann keeps unsigned and signed integers apart).
bool is_uint(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

// One size entry: a byte count, or text such as "4K", "1K,4K" or "2-8M".
void add_sizes(const nlohmann::json& v, const std::string& path, std::vector<uint64_t>& out) {
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

}  // namespace

const std::vector<std::string>& workload_field_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k;
    for (const auto& f : fields()) k.push_back(f.key);
    return k;
  }();
  return kKeys;
}

bool is_workload_field(const std::string& key) { return find_field(key) != nullptr; }

bool is_list_field(const std::string& key) {
  const Field* f = find_field(key);
  return f != nullptr && (f->kind == Kind::kSizes || f->kind == Kind::kCpus);
}

nlohmann::json canonical_field_value(const std::string& key, const nlohmann::json& v,
                                     const std::string& path) {
  const Field* f = find_field(key);
  if (f == nullptr) {
    std::string allowed;
    for (const auto& k : workload_field_keys()) allowed += (allowed.empty() ? "" : ", ") + k;
    throw ConfigError(path, v.dump(), "unknown workload field; known fields: " + allowed);
  }
  switch (f->kind) {
    case Kind::kEnum: {
      if (!v.is_string()) throw ConfigError(path, v.dump(), "a string");
      try {
        f->parse_enum(v.get<std::string>());
      } catch (const ConfigError& e) {
        throw ConfigError(path, v.get<std::string>(), e.allowed());
      }
      return v;
    }
    case Kind::kBool:
      if (!v.is_boolean()) throw ConfigError(path, v.dump(), "true or false");
      return v;
    case Kind::kUint: {
      if (!is_uint(v)) throw ConfigError(path, v.dump(), "a whole number " + range_text(*f));
      const uint64_t n = v.get<uint64_t>();
      if (f->zero_is_default && n == 0) return n;
      if (double(n) < f->lo || double(n) > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + range_text(*f));
      if (key == "mtu" && n != 256 && n != 512 && n != 1024 && n != 2048 && n != 4096)
        throw ConfigError(path, v.dump(), "one of 256, 512, 1024, 2048, 4096 (0 = active MTU)");
      return n;
    }
    case Kind::kInt: {
      if (!v.is_number_integer() || (v.is_number_unsigned() && double(v.get<uint64_t>()) > f->hi))
        throw ConfigError(path, v.dump(), "a whole number " + range_text(*f));
      const int64_t n = v.get<int64_t>();
      if (f->zero_is_default && n == -1) return n;
      if (n < f->lo || n > f->hi)
        throw ConfigError(path, v.dump(), "a whole number " + range_text(*f));
      return n;
    }
    case Kind::kDouble: {
      const std::string what = key.size() > 2 && key.substr(key.size() - 2) == "_s"
                                   ? "a number of seconds "
                                   : "a number ";
      if (!v.is_number()) throw ConfigError(path, v.dump(), what + range_text(*f));
      const double d = v.get<double>();
      if (f->zero_is_default && d == 0) return 0.0;
      if (!std::isfinite(d) || d < f->lo || d > f->hi)
        throw ConfigError(path, v.dump(), what + range_text(*f));
      return d;
    }
    case Kind::kSizes: {
      std::vector<uint64_t> sizes;
      if (v.is_array()) {
        if (v.empty()) throw ConfigError(path, v.dump(), "at least one message size");
        for (size_t i = 0; i < v.size(); ++i)
          add_sizes(v[i], path + "/" + std::to_string(i), sizes);
      } else {
        add_sizes(v, path, sizes);
      }
      std::sort(sizes.begin(), sizes.end());
      sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
      return sizes;
    }
    case Kind::kCpus: {
      std::vector<uint64_t> cpus;
      auto one = [&](const nlohmann::json& c, const std::string& p) {
        if (!is_uint(c) || c.get<uint64_t>() > 4095)
          throw ConfigError(p, c.dump(), "a CPU number from 0 to 4095");
        cpus.push_back(c.get<uint64_t>());
      };
      if (v.is_array()) {
        if (v.empty()) throw ConfigError(path, v.dump(), "at least one CPU number");
        for (size_t i = 0; i < v.size(); ++i) one(v[i], path + "/" + std::to_string(i));
      } else {
        one(v, path);
      }
      return cpus;
    }
  }
  return v;
}

std::vector<std::string> client_options(const nlohmann::json& values) {
  std::vector<std::string> out;
  for (const auto& f : fields()) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    const nlohmann::json& v = *it;
    switch (f.kind) {
      case Kind::kEnum:
        if (std::string(f.key) == "connect") {
          // rdma_cm: -R as before; tcp: explicit (the client's default is auto, which picks
          // rdma_cm on iWARP devices); auto: the default, no option.
          if (v.get<std::string>() == "rdma_cm")
            out.push_back(f.option);
          else if (v.get<std::string>() == "tcp")
            out.insert(out.end(), {"--connect", "tcp"});
        } else {
          out.insert(out.end(), {f.option, v.get<std::string>()});
        }
        break;
      case Kind::kBool:
        if (v.get<bool>()) out.push_back(f.option);
        break;
      case Kind::kUint:
        if (f.zero_is_default && v.get<uint64_t>() == 0) break;
        out.insert(out.end(), {f.option, std::to_string(v.get<uint64_t>())});
        break;
      case Kind::kInt:
        if (f.zero_is_default && v.get<int64_t>() == -1) break;
        out.insert(out.end(), {f.option, std::to_string(v.get<int64_t>())});
        break;
      case Kind::kDouble:
        if (f.zero_is_default && v.get<double>() == 0) break;
        out.insert(out.end(), {f.option, num_text(v.get<double>())});
        break;
      case Kind::kSizes:
      case Kind::kCpus: {
        std::string list;
        for (const auto& x : v)
          list += (list.empty() ? "" : ",") + std::to_string(x.get<uint64_t>());
        out.insert(out.end(), {f.option, list});
        break;
      }
    }
  }
  return out;
}

WorkloadArgs workload_args(const nlohmann::json& values) {
  WorkloadArgs a;
  const std::vector<std::string> opts = client_options(values);
  for (size_t i = 0; i < opts.size(); ++i) {
    const std::string& o = opts[i];
    auto next = [&]() -> std::string { return i + 1 < opts.size() ? opts[++i] : std::string(); };
    if (o == "--op")
      a.op = next();
    else if (o == "--qp")
      a.qp = next();
    else if (o == "--mode")
      a.mode = next();
    else if (o == "--bidir")
      a.bidir = true;
    else if (o == "--size")
      a.sizes = next();
    else if (o == "--iters")
      a.iterations = next();
    else if (o == "--duration")
      a.duration = next();
    else if (o == "--warmup")
      a.warmup = next();
    else if (o == "--warmup-time")
      a.warmup_time = next();
    else if (o == "--tx-depth")
      a.tx_depth = next();
    else if (o == "--rx-depth")
      a.rx_depth = next();
    else if (o == "--inline")
      a.inline_size = next();
    else if (o == "--signal-every")
      a.signal_every = next();
    else if (o == "--cq")
      a.cq = next();
    else if (o == "--srq")
      a.srq = true;
    else if (o == "--threads")
      a.threads = next();
    else if (o == "--qps")
      a.qps = next();
    else if (o == "--cpus")
      a.cpus = next();
    else if (o == "--rdma-cm")
      a.rdma_cm = true;
    else if (o == "--connect")
      a.connect = next();
    else if (o == "--verify")
      a.verify = true;
    else if (o == "--mtu")
      a.mtu = next();
    else if (o == "--timeout")
      a.timeout = next();
    else if (o == "--post-list")
      a.post_list = next();
    else if (o == "--sge")
      a.sge = next();
    else if (o == "--max-rd-atomic")
      a.max_rd_atomic = next();
    else if (o == "--latency-gap")
      a.latency_gap = next();
    else if (o == "--rate")
      a.rate = next();
    else if (o == "--cq-per-qp")
      a.cq_per_qp = true;
    else if (o == "--hugepages")
      a.hugepages = true;
    else if (o == "--align")
      a.align = next();
    else if (o == "--mr")
      a.mr = next();
    else if (o == "--numa")
      a.numa = next();
  }
  return a;
}

std::string describe_values(const nlohmann::json& values) {
  std::string out;
  for (const auto& f : fields()) {
    auto it = values.find(f.key);
    if (it == values.end()) continue;
    std::string text;
    if (f.kind == Kind::kSizes || f.kind == Kind::kCpus) {
      for (const auto& x : *it)
        text += (text.empty() ? "" : ",") + (f.kind == Kind::kSizes
                                                 ? format_size(x.get<uint64_t>())
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
