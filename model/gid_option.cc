#include "model/gid_option.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

#include "base/error.h"

namespace rdmabench {

bool gid_bytes(const std::string& text, std::array<uint8_t, 16>& out) {
  in_addr v4{};
  if (inet_pton(AF_INET6, text.c_str(), out.data()) == 1) return true;
  if (inet_pton(AF_INET, text.c_str(), &v4) != 1) return false;
  out = {};
  out[10] = 0xff;
  out[11] = 0xff;
  std::memcpy(out.data() + 12, &v4, 4);
  return true;
}

GidOption parse_gid_option(const std::string& field, const std::string& text) {
  GidOption g;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    unsigned long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v > 65535)
      throw ConfigError(field, text, kGidOptionAllowed);
    g.index = static_cast<int>(v);
    return g;
  }
  std::array<uint8_t, 16> bytes{};
  if (!gid_bytes(text, bytes)) throw ConfigError(field, text, kGidOptionAllowed);
  g.gid = text;
  return g;
}

}  // namespace rdmabench
