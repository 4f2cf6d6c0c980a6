#pragma once
// A folder of its own under the system's temporary folder (TMPDIR), removed with everything in it
// when the object goes: the report's figure work, and the tests' scratch folders.
#include <filesystem>
#include <string>

namespace rdmabench {

class TempDir {
 public:
  // Creates <parent>/<prefix>.XXXXXX (mkdtemp; parent: the system's temporary folder when
  // empty); a failure throws SysError naming the template.
  explicit TempDir(const std::string& prefix = "rdmabench",
                   const std::filesystem::path& parent = {});
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // Writes `content` to the file `rel` inside the folder, creating its parent folders.
  void put(const std::string& rel, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace rdmabench
