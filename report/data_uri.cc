#include "report/data_uri.h"

#include <openssl/evp.h>

#include <stdexcept>

#include "harness/error.h"

namespace rdmabench {

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0)
    throw Error("base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::string out(3 * (text.size() / 4) + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) throw Error("base64: not valid base64 text");
  // EVP_DecodeBlock counts the padding as zero bytes: drop one per '='.
  size_t len = static_cast<size_t>(n);
  if (!text.empty() && text.back() == '=') --len;
  if (text.size() >= 2 && text[text.size() - 2] == '=') --len;
  out.resize(len);
  return out;
}

std::string data_uri(std::string_view mime, std::string_view bytes) {
  return "data:" + std::string(mime) + ";base64," + base64_encode(bytes);
}

std::string image_mime(std::string_view format) {
  if (format == "png") return "image/png";
  if (format == "svg") return "image/svg+xml";
  throw std::logic_error("image_mime: no MIME type for '" + std::string(format) + "'");
}

}  // namespace rdmabench
