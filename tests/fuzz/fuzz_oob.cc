// libFuzzer target: the out-of-band message parser (decode_frame_header, decode_payload,
// side_info_from_json on an "endpoints" side, workload_from_json on a "hello" workload, and the
// session message readers of engine/session_messages.h).
// Input: a 12-byte frame header, then the payload. See fuzz_targets.h.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmabench::fuzz::run_oob(std::span<const uint8_t>(data, size));
  return 0;
}
