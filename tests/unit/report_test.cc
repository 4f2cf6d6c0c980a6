// rdmabench report: the HTML page of the committed fixtures — the real campaign in
// tests/fixtures/campaign (with two points that really failed) and the result files in
// tests/fixtures/results: every point and size is there, failures with their errors, the
// figures embedded as data: URIs that decode to real PNG/SVG images, hostile strings escaped,
// and the errors of bad input.
#include "report/report.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "base/error.h"
#include "orchestrator/search/cliff.h"
#include "report/campaign_folder.h"
#include "report/data_uri.h"
#include "report/grouping.h"
#include "report/html.h"
#include "report/report_html.h"
#include "report/report_model.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using namespace testutil;
using nlohmann::json;

std::string report(const std::vector<std::string>& inputs, const fs::path& out,
                   const std::string& format = "png", std::ostream* notes = nullptr) {
  ReportOptions opt;
  opt.inputs = inputs;
  opt.out_file = out.string();
  opt.format = format;
  std::ostringstream sink;
  EXPECT_EQ(run_report(opt, notes ? *notes : sink), out.string());
  return read_text(out);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Every src="..." of the page.
std::vector<std::string> sources(const std::string& html) {
  // (Not std::regex: it recurses per character and overflows the stack on a long data: URI.)
  std::vector<std::string> out;
  const std::string attr = " src=\"";
  for (size_t at = html.find(attr); at != std::string::npos; at = html.find(attr, at + 1)) {
    const size_t begin = at + attr.size(), end = html.find('"', begin);
    if (end == std::string::npos) break;
    out.push_back(html.substr(begin, end - begin));
  }
  return out;
}

uint32_t big_endian32(const std::string& b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
         (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
}

// The page uses nothing from outside itself: every image is a data: URI, no script, no
// stylesheet link, no frame, no URL.
void expect_self_contained(const std::string& html) {
  for (const auto& s : sources(html)) EXPECT_EQ(s.rfind("data:image/", 0), 0u) << s.substr(0, 60);
  for (const char* bad :
       {"<script", "<link", "<iframe", "<object", "<embed", "http://", "https://", "url("})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
}

// The index's statuses, by point id.
std::map<std::string, json> index_of(const std::string& dir) {
  std::map<std::string, json> out;
  std::istringstream in(read_text(fs::path(dir) / "index.jsonl"));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) {
      json j = json::parse(line);
      out[j["point_id"].get<std::string>()] = j;
    }
  return out;
}

// --- the committed campaign (a real sweep on the testbed) ------------------------------------

TEST(Report, CampaignHasEveryPointEverySizeAndTheFailures) {
  TempDir out;
  const std::string dir = campaign_fixture();
  const std::string html = report({dir}, out.path() / "r.html");
  expect_self_contained(html);
  auto index = index_of(dir);
  size_t ok = 0, failed = 0;
  for (const auto& [id, line] : index) {
    if (line["status"] == "ok") {
      ++ok;
      EXPECT_EQ(count(html, "<code class=\"point\" data-point=\"" + id + "\">"), 1u) << id;
    } else {
      ASSERT_EQ(line["status"], "failed");
      ++failed;
      EXPECT_EQ(count(html, "<tr class=\"failed-point\" data-point=\"" + id + "\">"), 1u) << id;
      // The error (the server's refusal of the missing device) is there, escaped.
      const std::string error = line["error"].get<std::string>();
      EXPECT_NE(error.find("no_such_device"), std::string::npos) << error;
      EXPECT_NE(html.find(html_escape(error)), std::string::npos) << error;
    }
  }
  EXPECT_EQ(ok, 8u);
  EXPECT_EQ(failed, 2u);
  EXPECT_NE(html.find(">8 ok</span>"), std::string::npos);
  EXPECT_NE(html.find(">2 failed</span>"), std::string::npos);
  EXPECT_NE(html.find("report-fixture"), std::string::npos);
  // One row per workload and size: 4 workloads (write/send x bw/lat), 2 repetitions each,
  // 64 B and 4 KiB.
  EXPECT_EQ(count(html, "<section class=\"workload\""), 4u);
  EXPECT_EQ(count(html, "<tr class=\"size-row\""), 8u);
  EXPECT_EQ(
      count(html, "<tr class=\"size-row\" data-size=\"64\"><td>64</td><td class=\"num\">2</td>"),
      4u);
  // Each host's environment record.
  for (const auto& f : json_files(fs::path(dir) / "env")) {
    json env = read_json(f);
    EXPECT_NE(html.find(html_escape(env["kernel"].get<std::string>())), std::string::npos);
    EXPECT_NE(html.find(html_escape(env["rdma_core"].get<std::string>())), std::string::npos);
    EXPECT_NE(html.find(html_escape(env["rdmabench_version"].get<std::string>())),
              std::string::npos);
  }
}

TEST(Report, SweepRepetitionsOnDifferentServerPortsAreOneSeries) {
  // Each point of a sweep starts its server on a free port, so the repetitions' server_address
  // differ in the port only; the figures must still pool them (series by op alone).
  std::ostringstream notes;
  auto runs = load_results({campaign_fixture()}, notes);
  std::vector<const ResultFile*> bw;
  std::set<std::string> addresses;
  for (const auto& f : runs)
    if (f.run.workload.mode == Mode::kBw) {
      bw.push_back(&f);
      addresses.insert(f.run.server_address);
    }
  ASSERT_EQ(bw.size(), 4u);
  ASSERT_EQ(addresses.size(), 4u);  // four ports
  Grouping g = group_runs(bw, "");
  EXPECT_EQ(g.fields, std::vector<std::string>{"op"});
  ASSERT_EQ(g.series.size(), 2u);
  for (const auto& s : g.series) EXPECT_EQ(s.runs.size(), 2u) << s.label;
  EXPECT_EQ(server_host("198.18.0.1:18515"), "198.18.0.1");
  EXPECT_EQ(server_host("[fe80::1]:18515"), "[fe80::1]");
  EXPECT_EQ(server_host("fe80::1"), "fe80::1");
  EXPECT_EQ(server_host("host.example"), "host.example");
  EXPECT_EQ(server_host("host:"), "host:");
}

TEST(Report, NumbersAreTheMediansOfTheDocuments) {
  TempDir out;
  const std::string html = report({results_fixture("repeat")}, out.path() / "r.html");
  // The three repetitions form one workload; the 64 B row's Gb/s is their median.
  std::vector<double> gbps;
  for (const auto& f : json_files(results_fixture("repeat")))
    gbps.push_back(read_json(f)["results"][0]["gbps"].get<double>());
  std::sort(gbps.begin(), gbps.end());
  char cell[128];
  std::snprintf(cell, sizeof cell, "<td class=\"num\">%.4g<small>%.4g&ndash;%.4g</small></td>",
                gbps[1], gbps[0], gbps[2]);
  const size_t row = html.find("<tr class=\"size-row\" data-size=\"64\">");
  ASSERT_NE(row, std::string::npos);
  EXPECT_LT(html.find(cell, row), html.find("</tr>", row)) << cell;
  EXPECT_EQ(count(html, "<section class=\"workload\""), 1u);
  EXPECT_EQ(count(html, "<tr class=\"size-row\""), 11u);
}

// --- result files ------------------------------------------------------------------------------

TEST(Report, FilesHaveEveryDocumentAndSizeAndEmbeddedPngFigures) {
  TempDir out;
  const std::string html =
      report({results_fixture("bw"), results_fixture("lat")}, out.path() / "r.html");
  expect_self_contained(html);
  size_t rows = 0;
  for (const char* folder : {"bw", "lat"})
    for (const auto& f : json_files(results_fixture(folder))) {
      EXPECT_EQ(count(html, "data-point=\"" + html_escape(f.string()) + "\""), 1u) << f;
      rows += read_json(f)["results"].size();
    }
  EXPECT_EQ(count(html, "<tr class=\"size-row\""), rows);
  EXPECT_NE(html.find(">6 ok</span>"), std::string::npos);
  EXPECT_NE(html.find("Failed points (0)"), std::string::npos);

  // Five figures (bandwidth, msgrate, latency, latency CDF, histogram), each a real PNG.
  auto srcs = sources(html);
  ASSERT_EQ(srcs.size(), 5u);
  EXPECT_NE(html.find("<meta name=\"rdmabench-figures\" content=\"5\">"), std::string::npos);
  for (const auto& s : srcs) {
    const std::string prefix = "data:image/png;base64,";
    ASSERT_EQ(s.rfind(prefix, 0), 0u);
    std::string png = base64_decode(s.substr(prefix.size()));
    ASSERT_GT(png.size(), 1000u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(png.substr(12, 4), "IHDR");
    EXPECT_EQ(big_endian32(png, 16), 960u);
    EXPECT_EQ(big_endian32(png, 20), 540u);
    EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  }
  for (const char* name : {"bandwidth", "msgrate", "latency", "latency_cdf", "latency_hist"})
    EXPECT_NE(html.find("<figure id=\"figure-" + std::string(name) + "\">"), std::string::npos)
        << name;
}

TEST(Report, SvgFiguresAreEmbeddedToo) {
  TempDir out;
  const std::string html = report({results_fixture("lat")}, out.path() / "r.html", "svg");
  auto srcs = sources(html);
  ASSERT_EQ(srcs.size(), 3u);
  for (const auto& s : srcs) {
    const std::string prefix = "data:image/svg+xml;base64,";
    ASSERT_EQ(s.rfind(prefix, 0), 0u);
    std::string svg = base64_decode(s.substr(prefix.size()));
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
  }
}

TEST(Report, DefaultOutputIsReportHtmlInTheFolderWrittenAtomically) {
  TempDir dir;
  copy_docs(results_fixture("bw"), dir.path());
  ReportOptions opt;
  opt.inputs = {dir.str()};
  std::ostringstream notes;
  EXPECT_EQ(run_report(opt, notes), (dir.path() / "report.html").string());
  EXPECT_GT(fs::file_size(dir.path() / "report.html"), 10000u);
  // Nothing else was left there (no temporary files, no figure files).
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 4u);  // three documents and the page
  // A second run replaces it (the page is not taken for a result document).
  EXPECT_EQ(run_report(opt, notes), (dir.path() / "report.html").string());
}

// --- untrusted input ---------------------------------------------------------------------------

TEST(Report, HostileStringsAreEscaped) {
  TempDir dir, out;
  const std::string evil = "<script>alert('x')</script>&\"<img src=x onerror=alert(1)>";
  json doc = read_json(results_fixture("bw/write.json"));
  doc["point"] = {{"campaign", evil}, {"point_id", evil + "-ok"}, {"host_pair", evil}};
  doc["hosts"]["client"]["kernel"] = evil;
  doc["devices"]["server"]["fw_ver"] = evil;
  doc["results"][1]["error"] = evil + " size failed";
  write_text(dir.path() / "a.json", doc.dump());
  write_text(
      dir.path() / "index.jsonl",
      json({{"point_id", evil + "-ok"}, {"status", "ok"}}).dump() + "\n" +
          json({{"point_id", evil + "-bad"}, {"status", "failed"}, {"error", evil + "\nstderr"}})
              .dump() +
          "\nnot json at all\n" +
          json({{"point_id", evil + "-skip"}, {"status", "skipped"}, {"error", evil}}).dump() +
          "\n");
  fs::create_directories(dir.path() / "env");
  json port = {{"state", evil}};
  json dev = {{"name", evil}, {"ports", json::array({port})}};
  json env = {{"host", evil}, {"kernel", evil}, {"devices", json::array({dev})}};
  write_text(dir.path() / "env" / "h.json", env.dump());
  write_text(dir.path() / "env" / "junk.json", "[1, 2");
  std::ostringstream notes;
  const std::string html = report({dir.str()}, out.path() / "r.html", "png", &notes);
  expect_self_contained(html);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("alert('x')"), std::string::npos);
  const std::string escaped = html_escape(evil);
  EXPECT_EQ(escaped,
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;&lt;img src=x "
            "onerror=alert(1)&gt;");
  EXPECT_GE(count(html, escaped), 8u);
  EXPECT_NE(html.find("data-point=\"" + escaped + "-bad\""), std::string::npos);
  EXPECT_NE(notes.str().find("junk.json"), std::string::npos) << notes.str();
  EXPECT_NE(notes.str().find("1 line(s)"), std::string::npos) << notes.str();
}

TEST(Html, EscapesMarkupQuotesControlsAndBrokenUtf8) {
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape("tab\tnew\nline"), "tab\tnew\nline");
  EXPECT_EQ(html_escape(std::string("nul\0bell\a", 9)),
            "nul\xEF\xBF\xBD"
            "bell\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("µs – ok"), "µs – ok");
  EXPECT_EQ(html_escape("bad \xC3 end"), "bad \xEF\xBF\xBD end");
  EXPECT_EQ(html_escape("overlong \xC0\xBC"), "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("surrogate \xED\xA0\x80"),
            "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(DataUri, Base64RoundTripsAndMatchesRfc4648) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(base64_encode(std::string_view("\xff\xfe\x00", 3)), "//4A");
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8="), "fo");
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>(i * 7);
  EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
  EXPECT_THROW(base64_decode("abc"), Error);
  EXPECT_THROW(base64_decode("ab!="), Error);
  EXPECT_THROW(base64_decode("Zg=a"), Error);      // padding, then data
  EXPECT_THROW(base64_decode("Z==="), Error);      // too much padding
  EXPECT_THROW(base64_decode("Zg==Zm8="), Error);  // padding before the end
  EXPECT_EQ(data_uri("image/png", "fo"), "data:image/png;base64,Zm8=");
}

TEST(CampaignFolder, LastIndexLineOfAPointCounts) {
  size_t bad = 0;
  auto points = parse_index_points(
      "{\"point_id\":\"a\",\"status\":\"failed\",\"error\":\"boom\"}\n"
      "{\"point_id\":\"b\",\"status\":\"ok\"}\n"
      "{\"point_id\":\"a\",\"status\":\"ok\",\"error\":null,\"time\":\"T\"}\n"
      "{\"point_id\":7,\"status\":\"ok\"}\n{\"status\":\"ok\"}\n[]\n{\"point_id\":\"c\",\"sta",
      &bad);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].point_id, "a");
  EXPECT_EQ(points[0].status, "ok");
  EXPECT_EQ(points[0].error, "");
  EXPECT_EQ(points[0].time, "T");
  EXPECT_EQ(points[1].point_id, "b");
  EXPECT_EQ(bad, 4u);
}

TEST(Report, CliffsOfASearchAreListedAndTheirRecordIsNotAPoint) {
  // A search's index: two points, then the cliffs record the sweep writes (built by the
  // orchestrator's own functions from a line whose bandwidth falls from 10 to 4 Gb/s at 4 KiB).
  std::vector<CliffObservation> obs;
  const json line = {{"op", "write"}, {"qp", "uc"}};
  obs.push_back({"write uc", line, 1024, 1024, 10.0, "p1"});
  obs.push_back({"write uc", line, 4096, 4096, 4.0, "p2"});
  obs.push_back({"write uc", line, 16384, 16384, 9.5, "p3"});
  const CliffSpec spec{CliffMetric::kBwGbps, 0.3, "sizes"};
  const CliffScan scan = find_cliffs(obs, spec.threshold);
  ASSERT_EQ(scan.cliffs.size(), 1u);
  TempDir dir, out;
  write_text(dir.path() / "index.jsonl",
             json({{"point_id", "p1"}, {"status", "ok"}}).dump() + "\n" +
                 json({{"point_id", "p2"}, {"status", "failed"}, {"error", "e"}}).dump() + "\n" +
                 cliffs_record(spec, scan, "2026-11-23T00:00:00Z").dump() + "\n");
  CampaignFolder c;
  std::ostringstream notes;
  c = read_campaign_folder(dir.str(), notes);
  EXPECT_EQ(c.points.size(), 2u);
  EXPECT_EQ(c.bad_index_lines, 0u) << "the record line is not a malformed point line";
  ASSERT_TRUE(c.cliffs.has_value());
  const std::string html = report({dir.str()}, out.path() / "r.html", "png", &notes);
  EXPECT_NE(html.find("<h2>Cliffs (1)</h2>"), std::string::npos);
  const size_t row = html.find("<tr class=\"cliff\" data-point=\"p2\">");
  ASSERT_NE(row, std::string::npos) << html;
  const std::string tr = html.substr(row, html.find("</tr>", row) - row);
  for (const char* want : {"op=write, qp=uc", ">sizes<", ">1K<", ">4K<", ">bw_gbps<", ">10<", ">4<",
                           "60.0 %", ">dip<"})
    EXPECT_NE(tr.find(want), std::string::npos) << want << " in " << tr;
  EXPECT_EQ(notes.str().find("not point records"), std::string::npos) << notes.str();
}

TEST(Report, SearchWithoutCliffsSaysSoAndAMatrixHasNoCliffSection) {
  TempDir dir, out;
  write_text(dir.path() / "index.jsonl",
             json({{"point_id", "p1"}, {"status", "failed"}, {"error", "e"}}).dump() + "\n" +
                 cliffs_record(CliffSpec{}, CliffScan{}, "T").dump() + "\n");
  EXPECT_NE(report({dir.str()}, out.path() / "a.html").find("The search found none."),
            std::string::npos);
  write_text(dir.path() / "index.jsonl",
             json({{"point_id", "p1"}, {"status", "failed"}, {"error", "e"}}).dump() + "\n");
  EXPECT_EQ(report({dir.str()}, out.path() / "b.html").find("id=\"cliffs\""), std::string::npos);
}

TEST(Report, CampaignWhoseEveryPointFailedStillGivesAPage) {
  TempDir dir, out;
  write_text(dir.path() / "index.jsonl",
             json({{"point_id", "p1"}, {"status", "failed"}, {"error", "server exited: no device"}})
                     .dump() +
                 "\n");
  std::ostringstream notes;
  const std::string html = report({dir.str()}, out.path() / "r.html", "png", &notes);
  EXPECT_NE(html.find("server exited: no device"), std::string::npos);
  EXPECT_NE(html.find(">0 ok</span>"), std::string::npos);
  EXPECT_NE(html.find(">1 failed</span>"), std::string::npos);
  EXPECT_TRUE(sources(html).empty());
  EXPECT_NE(notes.str().find("no successful measurement"), std::string::npos);
}

// --- errors --------------------------------------------------------------------------------

TEST(ReportErrors, EmptyFolderForeignJsonMissingPathAndFormat) {
  TempDir empty, out;
  ReportOptions opt;
  opt.out_file = (out.path() / "r.html").string();
  std::ostringstream notes;
  opt.inputs = {empty.str()};
  try {
    run_report(opt, notes);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(empty.str()), std::string::npos) << e.what();
  }
  opt.inputs = {results_fixture("foreign/devices.json")};
  try {
    run_report(opt, notes);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("not an rdmabench result"), std::string::npos) << e.what();
  }
  opt.inputs = {results_fixture("no/such/thing")};
  EXPECT_THROW(run_report(opt, notes), ConfigError);
  opt.inputs = {results_fixture("bw")};
  opt.format = "pdf";
  EXPECT_THROW(run_report(opt, notes), ConfigError);
  EXPECT_TRUE(fs::is_empty(out.path()));
}

TEST(Report, P999FromFewSamplesIsMarked) {
  // The fixture's latency runs: below 1,000 round trips their p99.9 is marked with the count.
  ReportInput in;
  in.path = campaign_fixture();
  in.runs = load_results({campaign_fixture()}, std::cerr);
  const ReportModel m = build_report_model({in});
  size_t few = 0, many = 0;
  for (const auto& t : m.workloads)
    for (const auto& r : t.rows) {
      if (!r.p999_us) continue;
      ASSERT_GT(r.fewest_samples, 0u);
      (r.fewest_samples < kSamplesForP999 ? few : many) += 1;
    }
  ASSERT_GT(few, 0u) << "no latency row of fewer than 1,000 samples in the fixture";
  const std::string html = render_report_html(m, {}, "2026-01-01T00:00:00Z");
  const size_t marks = [&] {
    size_t n = 0;
    for (size_t at = html.find("class=\"few\""); at != std::string::npos;
         at = html.find("class=\"few\"", at + 1))
      ++n;
    return n;
  }();
  EXPECT_EQ(marks, few);
}

TEST(Report, CounterDeltasAndTheShareOfTheLink) {
  ReportInput in;
  in.path = results_fixture("bw");
  in.runs = load_results({results_fixture("bw")}, std::cerr);
  ASSERT_FALSE(in.runs.empty());
  for (auto& f : in.runs) {
    f.run.counters = {{"client", {{"hw_counters/sent_pkts", 100}, {"hw_counters/lifespan", 0}}},
                      {"server", {{"hw_counters/completer_retry_err", 3}}}};
    f.run.client_device["speed_gbps"] = 10.0;
  }
  const ReportModel m = build_report_model({in});
  ASSERT_FALSE(m.workloads.empty());
  const WorkloadTable& t = m.workloads.front();
  ASSERT_EQ(t.counters.size(), 2u);  // the counter that did not move is left out
  EXPECT_EQ(t.counters[0].name, "hw_counters/sent_pkts");
  EXPECT_FALSE(t.counters[0].attention);
  EXPECT_EQ(t.counters[1].side, "server");
  EXPECT_TRUE(t.counters[1].attention);
  for (const auto& r : t.rows) {
    ASSERT_TRUE(r.gbps && r.link_pct);
    EXPECT_NEAR(r.link_pct->median, r.gbps->median * 10, 1e-9);  // Gb/s / 10 Gb/s in percent
  }
  const std::string html = render_report_html(m, {}, "2026-01-01T00:00:00Z");
  EXPECT_NE(html.find("<span class=\"bad\">hw_counters/completer_retry_err 3</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>of link</th>"), std::string::npos);
}

TEST(ReportErrors, WithoutGnuplotThePageHasTheTablesAndSaysWhy) {
  TempDir empty_bin, out;
  ScopedEnv keep("PATH");
  setenv("PATH", empty_bin.str().c_str(), 1);
  ReportOptions opt;
  opt.inputs = {results_fixture("bw")};
  opt.out_file = (out.path() / "r.html").string();
  std::ostringstream notes;
  const std::string written = run_report(opt, notes);
  EXPECT_NE(notes.str().find("gnuplot not found in PATH; install gnuplot-nox"), std::string::npos)
      << notes.str();
  const std::string html = read_text(written);
  EXPECT_NE(html.find("this page has the tables only"), std::string::npos);
  EXPECT_NE(html.find("<meta name=\"rdmabench-figures\" content=\"0\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"results\">"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
}

}  // namespace
}  // namespace rdmabench
