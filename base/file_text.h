#pragma once
// A whole file as text, for the small files the tools read back and write (indexes, documents,
// env files, reports): read whole, or written atomically.
#include <optional>
#include <string>
#include <string_view>

namespace rdmabench {

// The file's bytes; nullopt when it cannot be opened (the callers then say what they expected of
// it). The one reader of whole files: campaigns, hostfiles, indexes, documents, figures.
std::optional<std::string> read_file(const std::string& path);

// The file's bytes; "" when it does not exist or cannot be read.
std::string file_text(const std::string& path);

// Writes all of `text` to `fd`, again after a short write or EINTR: 0, or the errno of the
// write that failed.
int write_all(int fd, std::string_view text) noexcept;

// Writes `text` to `path` atomically (a temporary file in the same directory, fsynced, then
// renamed over it): a reader sees the old file or the new one, never a part. Throws SysError
// naming the call and the file. The one writer of what a user keeps: results, records, reports.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace rdmabench
