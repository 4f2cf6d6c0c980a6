// Replays the fuzz targets' inputs through the same code paths as the libFuzzer targets
// (tests/fuzz/fuzz_targets.h), in the normal GCC build and under tools/test-sanitizers: the seed
// corpora (tests/fuzz/corpus/<target>/) and every input that once crashed a target
// (tests/fuzz/regressions/<target>/). Only rdmabench::Error may come out of them; any other
// exception fails the test, and a crash or sanitizer report fails the test binary.
// A regression input named "refused-*" must moreover be refused by every parser it reaches
// (fuzz_targets.h counts the ones that accepted it): for bugs a GCC sanitizer build cannot see,
// such as an out-of-range float converted to an integer (clang's float-cast-overflow).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFuzzDir = fs::path(__FILE__).parent_path().parent_path() / "fuzz";

std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = kFuzzDir / kind / target;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() != ".md") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void replay(const std::string& target, const std::function<int(const std::string&)>& run) {
  const std::vector<fs::path> files = inputs_of(target);
  ASSERT_FALSE(files.empty()) << "no inputs for " << target << " under " << kFuzzDir;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const std::string data = read_file(f);
    try {
      const int accepted = run(data);
      if (f.filename().string().rfind("refused-", 0) == 0) {
        EXPECT_EQ(accepted, 0) << target << ": " << f
                               << " must be refused with an rdmabench::Error, but " << accepted
                               << " parser(s) accepted it";
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << target << ": " << f << " let a non-rdmabench exception escape: " << e.what();
    } catch (...) {
      ADD_FAILURE() << target << ": " << f << " let an unknown exception escape";
    }
  }
}

}  // namespace

TEST(FuzzRegression, Options) {
  replay("fuzz_options", [](const std::string& d) { return rdmabench::fuzz::run_options(d); });
}

TEST(FuzzRegression, WorkloadJson) {
  replay("fuzz_workload_json",
         [](const std::string& d) { return rdmabench::fuzz::run_workload_json(d); });
}

TEST(FuzzRegression, Oob) {
  replay("fuzz_oob", [](const std::string& d) {
    return rdmabench::fuzz::run_oob(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(d.data()), d.size()));
  });
}

// The nested-JSON regression files crash clang's ASan build; a build without sanitizers has
// smaller stack frames, so this test nests deeper (1 MB of brackets) to fail in every build.
// Both documents must be refused with an error: today the ConfigError's message dumps the
// value, recursively, and overflows the stack.
TEST(FuzzRegression, DeeplyNestedJsonIsRefused) {
  const size_t depth = 500000;
  const std::string doc = std::string(depth, '[') + std::string(depth, ']');
  EXPECT_EQ(rdmabench::fuzz::run_workload_json(doc), 0);

  // The same as the workload of a 'hello' from a client (the server's first message; the
  // token is empty unless the server was given --token).
  const std::string body = R"({"type":"hello","token":"","workload":)" + doc + "}";
  std::string frame(rdmabench::kFrameHeaderBytes, '\0');
  rdmabench::encode_frame_header(
      static_cast<uint32_t>(body.size()),
      std::span<uint8_t, rdmabench::kFrameHeaderBytes>(reinterpret_cast<uint8_t*>(frame.data()),
                                                       rdmabench::kFrameHeaderBytes));
  frame += body;
  EXPECT_EQ(rdmabench::fuzz::run_oob(std::span<const uint8_t>(
                reinterpret_cast<const uint8_t*>(frame.data()), frame.size())),
            0);
}
