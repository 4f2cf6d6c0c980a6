#include "engine/side_info.h"

#include <stdexcept>
#include <utility>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {

std::string gid_hex(const ibv_gid& g) {
  static const char* kHex = "0123456789abcdef";
  std::string s(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    s[2 * i] = kHex[g.raw[i] >> 4];
    s[2 * i + 1] = kHex[g.raw[i] & 15];
  }
  return s;
}

ibv_gid gid_from_hex(const std::string& s) {
  if (s.size() != 32) throw PeerError("malformed GID from peer: '" + s + "'");
  ibv_gid g{};
  for (size_t i = 0; i < 16; ++i) {
    auto nib = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw PeerError("malformed GID from peer: '" + s + "'");
    };
    g.raw[i] = static_cast<uint8_t>(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  }
  return g;
}

void to_json(nlohmann::json& j, const SideInfo& s) {
  nlohmann::json qps = nlohmann::json::array();
  for (const auto& q : s.qps) {
    nlohmann::json jq = {
        {"qpn", q.qpn}, {"psn", q.psn}, {"addr", q.addr}, {"rkey", q.rkey}, {"len", q.len}};
    if (q.credit_rkey != 0 || q.credit_addr != 0) {
      jq["credit_addr"] = q.credit_addr;
      jq["credit_rkey"] = q.credit_rkey;
    }
    qps.push_back(std::move(jq));
  }
  j = {{"lid", s.lid},
       {"gid", s.gid},
       {"active_mtu", s.active_mtu},
       {"max_rd_atomic", s.max_rd_atomic},
       {"qps", qps}};
}

SideInfo side_info_from_json(const nlohmann::json& j) {
  try {
    SideInfo s;
    s.lid = static_cast<uint16_t>(json_uint(j.at("lid"), UINT16_MAX));
    s.gid = j.at("gid").get<std::string>();
    s.active_mtu = static_cast<uint32_t>(json_uint(j.at("active_mtu"), 1U << 20));
    s.max_rd_atomic = static_cast<int>(json_uint(j.at("max_rd_atomic"), 255));
    const auto& qps = j.at("qps");
    if (!qps.is_array()) throw std::domain_error("\"qps\" is not an array");
    for (const auto& q : qps) {
      QpInfo qi;
      qi.qpn = static_cast<uint32_t>(json_uint(q.at("qpn"), 0xffffff));
      qi.psn = static_cast<uint32_t>(json_uint(q.at("psn"), 0xffffff));
      qi.addr = json_uint(q.at("addr"));
      qi.rkey = static_cast<uint32_t>(json_uint(q.at("rkey"), UINT32_MAX));
      qi.len = json_uint(q.at("len"));
      if (q.contains("credit_addr") || q.contains("credit_rkey")) {
        qi.credit_addr = json_uint(q.at("credit_addr"));
        qi.credit_rkey = static_cast<uint32_t>(json_uint(q.at("credit_rkey"), UINT32_MAX));
      }
      s.qps.push_back(qi);
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw PeerError(std::string("malformed endpoint description from peer: ") + e.what());
  } catch (const std::domain_error& e) {
    throw PeerError(std::string("malformed endpoint description from peer: ") + e.what());
  }
}

}  // namespace rdmabench
