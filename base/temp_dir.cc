#include "base/temp_dir.h"

#include <stdlib.h>

#include <fstream>
#include <system_error>

#include "base/error.h"

namespace rdmabench {
namespace fs = std::filesystem;

TempDir::TempDir(const std::string& prefix, const fs::path& parent) {
  std::string name =
      ((parent.empty() ? fs::temp_directory_path() : parent) / (prefix + ".XXXXXX")).string();
  if (mkdtemp(name.data()) == nullptr) throw_sys("mkdtemp", name);
  path_ = name;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void TempDir::put(const std::string& rel, const std::string& content) const {
  const fs::path file = path_ / rel;
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << content;
  if (!out.flush()) throw_sys("write", file.string());
}

}  // namespace rdmabench
