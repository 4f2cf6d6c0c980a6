#pragma once
// data: URIs for the images embedded in `rdmabench report` (RFC 4648 base64).
#include <cstdint>
#include <string>
#include <string_view>

namespace rdmabench {

std::string base64_encode(std::string_view bytes);
// Throws Error when `text` is not base64 (padding included).
std::string base64_decode(std::string_view text);

// "data:MIME;base64,...".
std::string data_uri(std::string_view mime, std::string_view bytes);

// The MIME type of an image format of `rdmabench plot`: png, svg (pdf is not an image a page
// shows; std::logic_error).
std::string image_mime(std::string_view format);

}  // namespace rdmabench
