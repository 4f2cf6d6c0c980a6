#include "base/file_text.h"

#include <fstream>
#include <sstream>

namespace rdmabench {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string file_text(const std::string& path) { return read_file(path).value_or(""); }

}  // namespace rdmabench
