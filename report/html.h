#pragma once
// HTML text escaping for `rdmabench report`: every string that comes from a result document,
// an index line or a host record is untrusted and goes through html_escape.
#include <string>
#include <string_view>

namespace rdmabench {

// Escapes & < > " ' (safe in element text and in quoted attribute values). Bytes that are not
// valid UTF-8 and control characters other than tab and newline become U+FFFD, so a hostile
// document cannot break the page's encoding either.
std::string html_escape(std::string_view text);

}  // namespace rdmabench
