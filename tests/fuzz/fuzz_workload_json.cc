// libFuzzer target: the JSON readers (workload_from_json, run_result_from_json,
// parse_campaign + expand). Input: any bytes, parsed as JSON. See fuzz_targets.h.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmabench::fuzz::run_workload_json(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
