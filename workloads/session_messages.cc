#include "workloads/session_messages.h"

#include <cmath>
#include <limits>

#include "harness/error.h"
#include "harness/json_util.h"

namespace rdmabench {
namespace {

[[noreturn]] void malformed(const std::string& type, const std::string& what) {
  throw PeerError("malformed '" + type + "' from the peer: " + what);
}

const nlohmann::json& member(const nlohmann::json& msg, const std::string& type, const char* key) {
  if (!msg.is_object()) malformed(type, "not a JSON object");
  auto it = msg.find(key);
  if (it == msg.end()) malformed(type, std::string("no member \"") + key + "\"");
  return *it;
}

std::string string_member(const nlohmann::json& msg, const std::string& type, const char* key) {
  const nlohmann::json& v = member(msg, type, key);
  if (!v.is_string())
    malformed(type, std::string("member \"") + key + "\" must be a string, got " + brief_json(v));
  return v.get<std::string>();
}

uint64_t uint_member(const nlohmann::json& v, const std::string& type, const std::string& key,
                     uint64_t max = UINT64_MAX) {
  try {
    return json_uint(v, max);
  } catch (const std::domain_error& e) {
    malformed(type, "member \"" + key + "\": " + e.what());
  }
}

double seconds_member(const nlohmann::json& v, const std::string& type, const char* key) {
  if (!v.is_number())
    malformed(type, std::string("member \"") + key + "\" must be a number, got " + brief_json(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0)
    malformed(type, std::string("member \"") + key + "\" must be a finite number >= 0, got " +
                        brief_json(v));
  return d;
}

}  // namespace

std::string hello_token(const nlohmann::json& hello) {
  if (!hello.is_object()) malformed("hello", "not a JSON object");
  auto it = hello.find("token");
  if (it == hello.end()) return "";
  if (!it->is_string())
    malformed("hello", "member \"token\" must be a string, got " + brief_json(*it));
  return it->get<std::string>();
}

HelloMsg parse_hello(const nlohmann::json& hello) {
  HelloMsg m;
  m.token = hello_token(hello);
  // Workload errors are ConfigErrors with the JSON path (/workload/...): the client's settings.
  m.workload = workload_from_json(member(hello, "hello", "workload"), "/workload");
  return m;
}

AcceptMsg parse_accept(const nlohmann::json& accept, bool needs_cm_port) {
  AcceptMsg m;
  const nlohmann::json& h = member(accept, "accept", "host");
  if (!h.is_object())
    malformed("accept", "member \"host\" must be an object, got " + brief_json(h));
  m.host = {string_member(h, "accept", "hostname"), string_member(h, "accept", "kernel"),
            string_member(h, "accept", "rdma_core")};
  m.device = member(accept, "accept", "device");
  if (!m.device.is_object())
    malformed("accept", "member \"device\" must be an object, got " + brief_json(m.device));
  if (needs_cm_port) {
    m.cm_port = static_cast<uint16_t>(
        uint_member(member(accept, "accept", "cm_port"), "accept", "cm_port", 65535));
    if (m.cm_port == 0)
      malformed("accept", "member \"cm_port\" is 0 but the workload connects with rdma_cm");
  }
  return m;
}

StartMsg parse_start(const nlohmann::json& start) {
  StartMsg m;
  m.index = static_cast<size_t>(uint_member(member(start, "start", "index"), "start", "index",
                                            std::numeric_limits<uint32_t>::max()));
  m.size = uint_member(member(start, "start", "size"), "start", "size");
  return m;
}

std::vector<uint64_t> parse_posted(const nlohmann::json& msg, uint32_t threads) {
  const std::string type = msg.is_object() && msg.contains("type") && msg["type"].is_string()
                               ? msg["type"].get<std::string>()
                               : std::string("finish");
  const nlohmann::json& p = member(msg, type, "posted");
  if (!p.is_array() || p.size() != threads)
    malformed(type, "member \"posted\" must be an array of " + std::to_string(threads) +
                        " counts (one per worker thread), got " + brief_json(p));
  std::vector<uint64_t> out;
  out.reserve(threads);
  for (size_t i = 0; i < p.size(); ++i)
    out.push_back(uint_member(p[i], type, "posted/" + std::to_string(i)));
  return out;
}

SizeReplyMsg parse_size_reply(const nlohmann::json& result, bool verify, bool bidir) {
  SizeReplyMsg m;
  m.received = uint_member(member(result, "result", "received"), "result", "received");
  m.received_bytes =
      uint_member(member(result, "result", "received_bytes"), "result", "received_bytes");
  m.recv_post_calls =
      uint_member(member(result, "result", "recv_post_calls"), "result", "recv_post_calls");
  if (verify) m.verify_error = string_member(result, "result", "verify_error");
  if (bidir) {
    const nlohmann::json& r = member(result, "result", "reverse");
    if (!r.is_object())
      malformed("result", "member \"reverse\" must be an object, got " + brief_json(r));
    m.reverse = SizeReplyMsg::Reverse{
        uint_member(member(r, "result", "ops"), "result", "reverse/ops"),
        seconds_member(member(r, "result", "seconds"), "result", "reverse/seconds")};
  }
  return m;
}

}  // namespace rdmabench
