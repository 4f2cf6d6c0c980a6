#pragma once
// The code paths the fuzz targets drive, one function per target, shared by the libFuzzer
// entry points (tests/fuzz/fuzz_*.cc) and the regression test that replays the corpora and the
// crash inputs (tests/unit/fuzz_regression_test.cc).
//
// Each function swallows rdmabench::Error (an input refused with a message: expected) and lets
// everything else out: another exception type (std::bad_alloc, nlohmann::json::exception, ...)
// escapes, a broken round trip aborts, and sanitizer reports crash the process.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json_util.h"
#include "base/oob_channel.h"
#include "engine/session_messages.h"
#include "engine/session_resources.h"
#include "model/result.h"
#include "model/workload.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/sweep/sweep.h"

namespace rdmabench::fuzz {

// A property that must hold for every accepted input; aborts (a libFuzzer crash) when not.
inline void check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// Runs `f`; true when it accepted the input, false when it refused it with an rdmabench::Error
// (expected). Anything else propagates.
template <typename F>
bool expect_only_rdmabench_errors(F&& f) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// ---- fuzz_options -------------------------------------------------------------------------
// The input is split on '\n'. "KEY=VALUE" sets the WorkloadArgs string named by the long option
// of a workload field (op, qp, size, iters, tx-depth, ...: model/workload_fields.h); a bare
// flag name (a boolean field's option such as bidir or srq, or all, events, rdma-cm) sets that
// flag; anything else is ignored.
// build_workload() runs on the result; the whole input also goes, as one string, through the size
// and number parsers.
// The field whose long option is `option` (model/workload_fields.h), or nullptr.
inline const WorkloadField* options_field(std::string_view option) {
  for (const WorkloadField& f : workload_fields())
    if (f.option == option) return &f;
  return nullptr;
}

inline bool* options_flag(WorkloadArgs& a, std::string_view key) {
  if (key == "all") return &a.all_sizes;
  if (key == "events") return &a.events;
  if (key == "rdma-cm") return &a.rdma_cm;
  return nullptr;
}

inline WorkloadArgs split_options(std::string_view input) {
  WorkloadArgs args;
  size_t start = 0;
  while (start <= input.size()) {
    size_t nl = input.find('\n', start);
    std::string_view line =
        input.substr(start, nl == std::string_view::npos ? input.npos : nl - start);
    if (size_t eq = line.find('='); eq != std::string_view::npos) {
      const WorkloadField* f = options_field(line.substr(0, eq));
      if (f != nullptr && f->kind != FieldKind::kBool)
        args.text[std::string(f->key)] = std::string(line.substr(eq + 1));
    } else if (bool* b = options_flag(args, line)) {
      *b = true;
    } else if (const WorkloadField* f = options_field(line);
               f != nullptr && f->kind == FieldKind::kBool) {
      args.text[std::string(f->key)] = "true";
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return args;
}

// Returns 1 when build_workload() accepted the options, else 0.
inline int run_options(std::string_view input) {
  const std::string text(input);
  const bool accepted = expect_only_rdmabench_errors([&] {
    const Workload w = build_workload(split_options(input));
    // What the options accept is a valid workload, and survives the trip through JSON (the
    // client sends it to the server that way).
    validate(w);
    nlohmann::json j = w;
    const Workload back = workload_from_json(j, "/workload");
    check(nlohmann::json(back).dump() == j.dump(), "workload -> JSON -> workload changed it",
          j.dump());
  });
  expect_only_rdmabench_errors([&] {
    const std::vector<uint64_t> sizes = parse_size_list(text, "size");
    for (size_t i = 1; i < sizes.size(); ++i)
      check(sizes[i - 1] < sizes[i], "parse_size_list returned an unsorted or repeated list", text);
  });
  expect_only_rdmabench_errors([&] { parse_size(text, "size"); });
  expect_only_rdmabench_errors([&] {
    const uint64_t v = parse_uint_option("iters", text, 1, 1ULL << 40);
    check(v >= 1 && v <= (1ULL << 40), "parse_uint_option out of its range", text);
  });
  expect_only_rdmabench_errors([&] { parse_uint_option("any", text, 0, UINT64_MAX); });
  expect_only_rdmabench_errors([&] {
    const double v = parse_seconds_option("duration", text, 0.001, 86400);
    check(v >= 0.001 && v <= 86400, "parse_seconds_option out of its range", text);
  });
  return accepted ? 1 : 0;
}

// ---- fuzz_workload_json -------------------------------------------------------------------
// The input is parsed as JSON (no exceptions); the document then goes through the three JSON
// readers: a workload, a result document and a campaign (plus its expansion, when small).
// Returns how many of the three readers accepted the document.
inline int run_workload_json(std::string_view input) {
  const nlohmann::json j = nlohmann::json::parse(input.begin(), input.end(), nullptr, false);
  if (j.is_discarded()) return 0;

  int accepted = 0;
  accepted += expect_only_rdmabench_errors([&] {
    const Workload w = workload_from_json(j, "/workload");
    nlohmann::json out = w;
    const Workload back = workload_from_json(out, "/workload");
    check(nlohmann::json(back).dump() == out.dump(), "workload JSON round trip changed it",
          out.dump());
  });

  accepted += expect_only_rdmabench_errors([&] {
    const RunResult r = run_result_from_json(j);
    // A document we read must be one we can write and read again. (Compared as text: a NaN,
    // which the document spells null, is unequal to itself.)
    nlohmann::json out = r;
    const RunResult back = run_result_from_json(out);
    check(nlohmann::json(back).dump() == out.dump(), "result JSON round trip changed it",
          out.dump());
  });

  accepted += expect_only_rdmabench_errors([&] {
    const Campaign c = parse_campaign(j, "/campaigns", "/usr/bin/rdmabench",
                                      CampaignOptions{"", {}, campaign_kinds()});
    // Expand only when the number of points is small (a fuzzer easily writes a matrix of
    // millions of points, which is a large campaign rather than a bug).
    size_t points = c.repetitions;
    auto times = [&](size_t n) {
      points = n != 0 && points > SIZE_MAX / n ? SIZE_MAX : points * n;
    };
    times(c.flow_count());
    times(c.combinations());  // the matrix's combinations, or the runs a search drew
    if (points > 2000) return;
    const Expansion x = expand(c);
    check(x.points.size() + x.excluded == points,
          "expand() made a different number of points than the matrix has");
    for (const auto& p : x.points) {
      check(!p.id.empty(), "a point without an id");
      describe_values(p.values());
    }
  });
  return accepted;
}

// ---- fuzz_oob -----------------------------------------------------------------------------
// The out-of-band channel's receive path without a socket: the first 12 bytes are a frame
// header, the rest the payload; a decoded message with a "side" member goes through
// side_info_from_json (as an "endpoints" message does), one with a "workload" through
// workload_from_json (as a "hello" does); hello, accept, start, finish, sent and result messages
// also go through their readers in engine/session_messages.h. Returns 1 when the payload and its
// members were accepted, else 0 (the header is checked on its own: a fuzzer rarely writes the right
// length).
inline int run_oob(std::span<const uint8_t> input) {
  if (input.size() < kFrameHeaderBytes) return 0;
  expect_only_rdmabench_errors([&] {
    const uint32_t len = decode_frame_header(
        std::span<const uint8_t, kFrameHeaderBytes>(input.data(), kFrameHeaderBytes));
    check(len >= 1 && len <= kMaxMessageBytes, "decode_frame_header accepted a bad length");
  });
  const bool accepted = expect_only_rdmabench_errors([&] {
    const nlohmann::json msg = decode_payload(input.subspan(kFrameHeaderBytes));
    check(msg.is_object() && msg.contains("type") && msg["type"].is_string(),
          "decode_payload returned a message without a string type", brief_json(msg));
    if (auto it = msg.find("side"); it != msg.end()) {
      const SideInfo s = side_info_from_json(*it);
      nlohmann::json out = s;
      const SideInfo back = side_info_from_json(out);
      check(nlohmann::json(back).dump() == out.dump(), "side info JSON round trip changed it",
            out.dump());
    }
    if (auto it = msg.find("workload"); it != msg.end()) workload_from_json(*it, "/workload");
    // The session's readers, by message type, as the client and the server call them.
    const std::string type = msg["type"].get<std::string>();
    if (type == "hello") expect_only_rdmabench_errors([&] { parse_hello(msg); });
    if (type == "accept")
      for (bool cm : {false, true}) expect_only_rdmabench_errors([&] { parse_accept(msg, cm); });
    if (type == "start") expect_only_rdmabench_errors([&] { parse_start(msg); });
    if (type == "finish" || type == "sent") {
      for (uint32_t threads : {1U, 2U, 4U})
        expect_only_rdmabench_errors([&] { parse_posted(msg, threads); });
    }
    if (type == "result") {
      for (bool verify : {false, true})
        for (bool bidir : {false, true})
          expect_only_rdmabench_errors([&] { parse_size_reply(msg, verify, bidir); });
    }
  });
  return accepted ? 1 : 0;
}

}  // namespace rdmabench::fuzz
