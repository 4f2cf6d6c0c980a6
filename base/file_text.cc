#include "base/file_text.h"

#include <fstream>
#include <sstream>

namespace rdmabench {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rdmabench
