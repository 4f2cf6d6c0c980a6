#pragma once
// A whole file as text, for the small files the tools read back (indexes, documents, env files).
#include <string>

namespace rdmabench {

// The file's bytes; "" when it does not exist or cannot be read (the callers then report what
// they expected of it).
std::string file_text(const std::string& path);

}  // namespace rdmabench
