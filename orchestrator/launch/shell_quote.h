#pragma once
// Quoting for a remote POSIX shell. ssh hands the remote side one string that the user's login
// shell parses, so every argument we send is wrapped in single quotes (inside which nothing is
// special); a single quote itself becomes '\''. The result is safe for any byte sequence except
// NUL (which no argv element can hold anyway).
#include <string>
#include <string_view>
#include <vector>

namespace rdmabench {

// One argument, quoted: shell_quote("it's") == "'it'\\''s'". Plain words made only of
// [A-Za-z0-9_./:=@%+,-] are returned as they are (easier to read in the dry-run listing).
std::string shell_quote(std::string_view arg);

// Every element quoted, separated by single spaces.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace rdmabench
