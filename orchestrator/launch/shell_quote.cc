#include "orchestrator/launch/shell_quote.h"

namespace rdmabench {
namespace {

bool is_plain(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '/' || c == ':' || c == '=' || c == '@' ||
                    c == '%' || c == '+' || c == ',' || c == '-';
    if (!ok) return false;
  }
  // "=" first would read as an assignment in some shells' contexts; "-" is fine as an argument.
  return s.front() != '=';
}

}  // namespace

std::string shell_quote(std::string_view arg) {
  if (is_plain(arg)) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

}  // namespace rdmabench
