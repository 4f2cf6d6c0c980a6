#include "report/templates.h"

#include <stdexcept>

namespace rdmabench {
namespace detail {
extern const std::map<std::string_view, std::string_view> kPlotTemplates;
}

std::string_view plot_template(std::string_view name) {
  auto it = detail::kPlotTemplates.find(name);
  if (it == detail::kPlotTemplates.end())
    throw std::logic_error("no plot template " + std::string(name));
  return it->second;
}

std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find('@', pos);
    size_t end = at == std::string_view::npos ? at : text.find('@', at + 1);
    if (end == std::string_view::npos) break;
    std::string key(text.substr(at + 1, end - at - 1));
    bool is_key =
        !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string::npos;
    if (!is_key) {  // a lone '@': keep it and look on from the second one
      out.append(text.substr(pos, end - pos));
      pos = end;
      continue;
    }
    auto it = values.find(key);
    if (it == values.end()) throw std::logic_error("plot template needs a value for @" + key + "@");
    out.append(text.substr(pos, at - pos));
    out.append(it->second);
    pos = end + 1;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace rdmabench
