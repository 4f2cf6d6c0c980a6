#pragma once
// A whole file as text, for the small files the tools read back (indexes, documents, env files).
#include <optional>
#include <string>

namespace rdmabench {

// The file's bytes; nullopt when it cannot be opened (the callers then say what they expected of
// it). The one reader of whole files: campaigns, hostfiles, indexes, documents, figures.
std::optional<std::string> read_file(const std::string& path);

// The file's bytes; "" when it does not exist or cannot be read.
std::string file_text(const std::string& path);

}  // namespace rdmabench
