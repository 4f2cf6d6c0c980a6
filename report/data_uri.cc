#include "report/data_uri.h"

#include <array>
#include <stdexcept>

#include "base/error.h"

namespace rdmabench {
namespace {

// RFC 4648 base64, written here (a page's few images do not justify a library: Debian's
// candidates were OpenSSL's libcrypto, which the binary then needed for nothing else).
constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> decode_table() {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (size_t i = 0; i < kAlphabet.size(); ++i)
    t[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr std::array<int8_t, 256> kDecode = decode_table();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve(4 * ((bytes.size() + 2) / 3));
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                       uint8_t(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  if (const size_t rest = bytes.size() - i; rest != 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0)
    throw Error("base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::string out;
  out.reserve(3 * (text.size() / 4));
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int8_t d = kDecode[static_cast<uint8_t>(c)];
      if (c == '=' && k >= size_t(4 - pad)) d = 0;
      if (d < 0) throw Error("base64: not valid base64 text");
      v = v << 6 | uint32_t(d);
    }
    out += static_cast<char>(v >> 16);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(v & 0xFF);
  }
  return out;
}

std::string data_uri(std::string_view mime, std::string_view bytes) {
  return "data:" + std::string(mime) + ";base64," + base64_encode(bytes);
}

std::string image_mime(std::string_view format) {
  if (format == "png") return "image/png";
  if (format == "svg") return "image/svg+xml";
  throw std::logic_error("image_mime: no MIME type for '" + std::string(format) + "'");
}

}  // namespace rdmabench
