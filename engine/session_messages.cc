#include "engine/session_messages.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

[[noreturn]] void malformed(const std::string& type, const std::string& what) {
  throw PeerError("malformed '" + type + "' from the peer: " + what);
}

// "member \"key\"", as the errors name a member.
std::string named(const std::string& key) { return "member \"" + key + "\""; }

const nlohmann::json& member(const nlohmann::json& msg, const std::string& type, const char* key) {
  if (!msg.is_object()) malformed(type, "not a JSON object");
  auto it = msg.find(key);
  if (it == msg.end()) malformed(type, std::string("no member \"") + key + "\"");
  return *it;
}

std::string string_member(const nlohmann::json& msg, const std::string& type, const char* key) {
  const nlohmann::json& v = member(msg, type, key);
  if (!v.is_string()) malformed(type, named(key) + " must be a string, got " + brief_json(v));
  return v.get<std::string>();
}

uint64_t uint_member(const nlohmann::json& v, const std::string& type, const std::string& key,
                     uint64_t max = UINT64_MAX) {
  try {
    return json_uint(v, max);
  } catch (const std::domain_error& e) {
    malformed(type, named(key) + ": " + e.what());
  }
}

double seconds_member(const nlohmann::json& v, const std::string& type, const std::string& key) {
  if (!v.is_number()) malformed(type, named(key) + " must be a number, got " + brief_json(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0)
    malformed(type, named(key) + " must be a finite number >= 0, got " + brief_json(v));
  return d;
}

// An informational member: absent is nullopt, present must be a string.
std::optional<std::string> optional_string_member(const nlohmann::json& msg,
                                                  const std::string& type, const char* key) {
  if (!msg.is_object()) malformed(type, "not a JSON object");
  if (!msg.contains(key)) return std::nullopt;
  return string_member(msg, type, key);
}

HostInfo host_member(const nlohmann::json& msg, const std::string& type, const char* key) {
  const nlohmann::json& h = member(msg, type, key);
  if (!h.is_object()) malformed(type, named(key) + " must be an object, got " + brief_json(h));
  return {string_member(h, type, HostInfo::kHostname), string_member(h, type, HostInfo::kKernel),
          string_member(h, type, HostInfo::kRdmaCore)};
}

nlohmann::json typed(const char* type) { return {{kMessageType, type}}; }

}  // namespace

nlohmann::json to_message(const HelloMsg& m) {
  nlohmann::json j = typed(HelloMsg::kType);
  if (m.version) j[HelloMsg::kVersion] = *m.version;
  j[HelloMsg::kToken] = m.token;
  j[HelloMsg::kWorkload] = m.workload;
  if (m.host) j[HelloMsg::kHost] = *m.host;
  return j;
}

std::string hello_token(const nlohmann::json& hello) {
  return optional_string_member(hello, HelloMsg::kType, HelloMsg::kToken).value_or("");
}

HelloMsg parse_hello(const nlohmann::json& hello) {
  HelloMsg m;
  m.token = hello_token(hello);
  // Workload errors are ConfigErrors with the JSON path (/workload/...): the client's settings.
  m.workload = workload_from_json(member(hello, HelloMsg::kType, HelloMsg::kWorkload),
                                  std::string("/") + HelloMsg::kWorkload);
  m.version = optional_string_member(hello, HelloMsg::kType, HelloMsg::kVersion);
  if (hello.contains(HelloMsg::kHost))
    m.host = host_member(hello, HelloMsg::kType, HelloMsg::kHost);
  return m;
}

nlohmann::json to_message(const AcceptMsg& m) {
  nlohmann::json j = typed(AcceptMsg::kType);
  if (m.version) j[AcceptMsg::kVersion] = *m.version;
  j[AcceptMsg::kHost] = m.host;
  j[AcceptMsg::kDevice] = m.device;
  j[AcceptMsg::kCmPort] = m.cm_port;
  j[AcceptMsg::kCmNonce] = m.cm_nonce;
  return j;
}

AcceptMsg parse_accept(const nlohmann::json& accept, bool needs_cm_port) {
  const char* type = AcceptMsg::kType;
  AcceptMsg m;
  m.host = host_member(accept, type, AcceptMsg::kHost);
  m.device = member(accept, type, AcceptMsg::kDevice);
  if (!m.device.is_object())
    malformed(type, named(AcceptMsg::kDevice) + " must be an object, got " + brief_json(m.device));
  if (needs_cm_port) {
    m.cm_port = static_cast<uint16_t>(
        uint_member(member(accept, type, AcceptMsg::kCmPort), type, AcceptMsg::kCmPort, 65535));
    if (m.cm_port == 0)
      malformed(type, named(AcceptMsg::kCmPort) + " is 0 but the workload connects with rdma_cm");
    m.cm_nonce = uint_member(member(accept, type, AcceptMsg::kCmNonce), type, AcceptMsg::kCmNonce,
                             UINT64_MAX);
  }
  m.version = optional_string_member(accept, type, AcceptMsg::kVersion);
  return m;
}

nlohmann::json to_message(const EndpointsMsg& m) {
  nlohmann::json j = typed(EndpointsMsg::kType);
  j[EndpointsMsg::kSide] = m.side;
  return j;
}

EndpointsMsg parse_endpoints(const nlohmann::json& endpoints) {
  return {side_info_from_json(member(endpoints, EndpointsMsg::kType, EndpointsMsg::kSide))};
}

nlohmann::json to_message(const ReadyMsg&) { return typed(ReadyMsg::kType); }
nlohmann::json to_message(const StartedMsg&) { return typed(StartedMsg::kType); }
nlohmann::json to_message(const HeartbeatMsg&) { return typed(HeartbeatMsg::kType); }

nlohmann::json to_message(const StartMsg& m) {
  nlohmann::json j = typed(StartMsg::kType);
  j[StartMsg::kIndex] = m.index;
  j[StartMsg::kSize] = m.size;
  return j;
}

StartMsg parse_start(const nlohmann::json& start) {
  const char* type = StartMsg::kType;
  StartMsg m;
  m.index =
      static_cast<size_t>(uint_member(member(start, type, StartMsg::kIndex), type, StartMsg::kIndex,
                                      std::numeric_limits<uint32_t>::max()));
  m.size = uint_member(member(start, type, StartMsg::kSize), type, StartMsg::kSize);
  return m;
}

nlohmann::json to_message(const PostedMsg& m) {
  nlohmann::json j = typed(m.type.c_str());
  j[PostedMsg::kPosted] = m.posted;
  return j;
}

std::vector<uint64_t> parse_posted(const nlohmann::json& msg, uint32_t threads) {
  const std::string type =
      msg.is_object() && msg.contains(kMessageType) && msg[kMessageType].is_string()
          ? msg[kMessageType].get<std::string>()
          : std::string(PostedMsg::kFinish);
  const nlohmann::json& p = member(msg, type, PostedMsg::kPosted);
  if (!p.is_array() || p.size() != threads)
    malformed(type, named(PostedMsg::kPosted) + " must be an array of " + std::to_string(threads) +
                        " counts (one per worker thread), got " + brief_json(p));
  std::vector<uint64_t> out;
  out.reserve(threads);
  for (size_t i = 0; i < p.size(); ++i)
    out.push_back(
        uint_member(p[i], type, std::string(PostedMsg::kPosted) + "/" + std::to_string(i)));
  return out;
}

nlohmann::json to_message(const SizeReplyMsg& m) {
  using M = SizeReplyMsg;
  nlohmann::json j = typed(M::kType);
  j[M::kReceived] = m.received;
  j[M::kReceivedBytes] = m.received_bytes;
  j[M::kRecvPostCalls] = m.recv_post_calls;
  if (m.verify_error) j[M::kVerifyError] = *m.verify_error;
  if (m.reverse)
    j[M::kReverse] = {{M::Reverse::kOps, m.reverse->ops},
                      {M::Reverse::kSeconds, m.reverse->seconds}};
  if (m.counters) j[M::kCounters] = *m.counters;
  return j;
}

SizeReplyMsg parse_size_reply(const nlohmann::json& result, bool verify, bool bidir) {
  using M = SizeReplyMsg;
  const char* type = M::kType;
  M m;
  m.received = uint_member(member(result, type, M::kReceived), type, M::kReceived);
  m.received_bytes = uint_member(member(result, type, M::kReceivedBytes), type, M::kReceivedBytes);
  m.recv_post_calls = uint_member(member(result, type, M::kRecvPostCalls), type, M::kRecvPostCalls);
  if (verify) m.verify_error = string_member(result, type, M::kVerifyError);
  if (bidir) {
    const nlohmann::json& r = member(result, type, M::kReverse);
    if (!r.is_object())
      malformed(type, named(M::kReverse) + " must be an object, got " + brief_json(r));
    const std::string prefix = std::string(M::kReverse) + "/";
    m.reverse = M::Reverse{
        uint_member(member(r, type, M::Reverse::kOps), type, prefix + M::Reverse::kOps),
        seconds_member(member(r, type, M::Reverse::kSeconds), type, prefix + M::Reverse::kSeconds)};
  }
  if (const auto c = result.find(M::kCounters); c != result.end()) {
    if (!c->is_object())
      malformed(type, named(M::kCounters) + " must be an object, got " + brief_json(*c));
    m.counters = *c;
  }
  return m;
}

nlohmann::json to_message(const ByeMsg& m) {
  nlohmann::json j = typed(ByeMsg::kType);
  if (m.counters) j[ByeMsg::kCounters] = *m.counters;
  if (m.setup) j[ByeMsg::kSetup] = *m.setup;
  return j;
}

ByeMsg parse_bye(const nlohmann::json& bye) {
  ByeMsg m;
  if (!bye.is_object()) return m;
  if (auto it = bye.find(ByeMsg::kCounters); it != bye.end()) m.counters = *it;
  if (auto it = bye.find(ByeMsg::kSetup); it != bye.end() && it->is_object()) m.setup = *it;
  return m;
}

nlohmann::json to_message(const ServerReadyLine& m) {
  using M = ServerReadyLine;
  return {{M::kAddress, m.address}, {M::kPort, m.port}, {M::kCmPort, m.cm_port},
          {M::kDevice, m.device},   {M::kPid, m.pid},   {M::kVersion, m.version}};
}

}  // namespace rdmabench
