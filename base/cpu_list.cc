#include "base/cpu_list.h"

#include <stdexcept>

namespace rdmabench {

std::vector<CpuListItem> cpu_list_items(std::string_view text) {
  std::vector<CpuListItem> items;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item(
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    const size_t dash = item.find('-', 1);  // a leading '-' is a sign
    if (dash == std::string::npos)
      items.push_back({item, item, item});
    else
      items.push_back({item.substr(0, dash), item.substr(dash + 1), item});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  std::vector<int> out;
  if (t.empty()) return out;
  const auto bad = [&text] { return std::invalid_argument("bad CPU list '" + text + "'"); };
  const auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
      throw bad();
    return std::stoi(s);
  };
  for (const CpuListItem& item : cpu_list_items(t)) {
    const int lo = number(item.first);
    const int hi = number(item.last);
    if (hi < lo || hi > 65535) throw bad();
    for (int c = lo; c <= hi; ++c) out.push_back(c);
  }
  return out;
}

}  // namespace rdmabench
