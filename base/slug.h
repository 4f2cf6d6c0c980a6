#pragma once
// Names derived from text for files and ids: a readable slug and a 64-bit hash. Used for point
// ids, per-host file names and ssh's log names alike (orchestrator/, cli/).
#include <cstdint>
#include <string>
#include <string_view>

namespace rdmabench {

// 64-bit FNV-1a.
uint64_t fnv1a64(std::string_view data);

// [A-Za-z0-9_.] kept, runs of anything else become one '-'; at most `max_len` characters.
std::string slug(std::string_view text, size_t max_len = 40);

}  // namespace rdmabench
