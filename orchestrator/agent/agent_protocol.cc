#include "orchestrator/agent/agent_protocol.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <span>

#include "base/error.h"
#include "base/oob_channel.h"

namespace rdmabench::agent {
namespace {

std::string hex(const unsigned char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s.push_back(kDigits[p[i] >> 4]);
    s.push_back(kDigits[p[i] & 15]);
  }
  return s;
}

}  // namespace

std::string new_nonce() {
  std::array<unsigned char, 16> b{};
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1)
    throw Error("cannot draw a nonce: RAND_bytes failed");
  return hex(b.data(), b.size());
}

std::string proof(const std::string& token, const std::string& role, const std::string& agent_nonce,
                  const std::string& controller_nonce) {
  const std::string text = role + "\n" + agent_nonce + "\n" + controller_nonce;
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()),
           reinterpret_cast<const unsigned char*>(text.data()), text.size(), md.data(),
           &len) == nullptr)
    throw Error("cannot compute the agent proof: HMAC-SHA256 failed");
  return hex(md.data(), len);
}

bool same_proof(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string session_argv_problem(const std::vector<std::string>& argv,
                                 const std::set<std::string>& path_options) {
  if (argv.empty() || (argv[0] != "server" && argv[0] != "client"))
    return "an agent runs `server` and `client` sessions only, not '" +
           (argv.empty() ? std::string() : argv[0]) + "'";
  for (const std::string& a : argv) {
    const std::string name = a.substr(0, a.find('='));
    if (path_options.count(name) != 0)
      return "an agent takes no file from the controller: option " + name + " refused";
  }
  return "";
}

std::string encode_message(const nlohmann::json& msg) {
  const std::string payload = msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (payload.size() > kMaxMessageBytes)
    throw Error("agent message too large: " + std::to_string(payload.size()) + " bytes");
  std::array<uint8_t, kFrameHeaderBytes> h{};
  encode_frame_header(static_cast<uint32_t>(payload.size()), h);
  return std::string(reinterpret_cast<const char*>(h.data()), h.size()) + payload;
}

std::string encode_raw(const std::string& bytes) {
  if (bytes.size() > kMaxMessageBytes)
    throw Error("agent data frame too large: " + std::to_string(bytes.size()) + " bytes");
  std::array<uint8_t, kFrameHeaderBytes> h{};
  encode_frame_header(static_cast<uint32_t>(bytes.size()), h);
  return std::string(reinterpret_cast<const char*>(h.data()), h.size()) + bytes;
}

std::optional<std::string> FrameReader::next_raw() {
  if (buffered() < kFrameHeaderBytes) return std::nullopt;
  std::array<uint8_t, kFrameHeaderBytes> h{};
  std::copy_n(reinterpret_cast<const uint8_t*>(buf_.data() + pos_), h.size(), h.begin());
  const uint32_t len = decode_frame_header(h);
  if (buffered() < kFrameHeaderBytes + len) return std::nullopt;
  std::string out = buf_.substr(pos_ + kFrameHeaderBytes, len);
  pos_ += kFrameHeaderBytes + len;
  compact();
  return out;
}

void FrameReader::compact() {
  // Forget what was consumed once it is most of the buffer (a long-lived connection).
  if (pos_ > 65536 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

nlohmann::json FrameReader::next() {
  if (buffered() < kFrameHeaderBytes) return nullptr;
  std::array<uint8_t, kFrameHeaderBytes> h{};
  std::copy_n(reinterpret_cast<const uint8_t*>(buf_.data() + pos_), h.size(), h.begin());
  const uint32_t len = decode_frame_header(h);
  if (buffered() < kFrameHeaderBytes + len) return nullptr;
  const auto* p = reinterpret_cast<const uint8_t*>(buf_.data() + pos_ + kFrameHeaderBytes);
  nlohmann::json msg = decode_payload(std::span<const uint8_t>(p, len));
  pos_ += kFrameHeaderBytes + len;
  compact();
  return msg;
}

}  // namespace rdmabench::agent
