// rdmabench plot / export (report/) on the committed result fixtures in tests/fixtures/results
// (see the README there): every figure renders in every format, the data files and the CSV hold
// the fixtures' numbers (read here straight from their JSON), grouping, repetitions and errors.
#include "report/plot.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/error.h"
#include "base/temp_dir.h"
#include "model/workload_fields.h"
#include "report/csv_export.h"
#include "report/gnuplot.h"
#include "report/grouping.h"
#include "report/results_set.h"
#include "report/spread.h"
#include "report/templates.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixtures = fs::path(__FILE__).parent_path().parent_path() / "fixtures" / "results";
const std::vector<std::string> kAllFigures = {"bandwidth", "msgrate", "latency", "latency_cdf",
                                              "latency_hist"};

std::string fixture(const std::string& relative) { return (kFixtures / relative).string(); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

json read_json(const fs::path& p) { return json::parse(read_text(p)); }

// The fixture documents of a folder, in name order.
std::vector<json> fixture_docs(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kFixtures / folder))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<json> docs;
  for (const auto& f : files) docs.push_back(read_json(f));
  return docs;
}

std::vector<std::string> plot(const std::vector<std::string>& inputs, const fs::path& out,
                              const std::string& format = "png", const std::string& group_by = "",
                              std::optional<std::string> point = std::nullopt,
                              std::ostream* notes = nullptr) {
  PlotOptions opt;
  opt.inputs = inputs;
  opt.out_dir = out.string();
  opt.format = format;
  opt.group_by = group_by;
  opt.point = point;
  std::ostringstream sink;
  return run_plot(opt, notes ? *notes : sink);
}

// A figure's data file: series label -> rows. Blocks start with "# index N: LABEL (K documents)".
std::map<std::string, std::vector<std::vector<double>>> read_dat(const fs::path& p) {
  std::map<std::string, std::vector<std::vector<double>>> blocks;
  std::istringstream in(read_text(p));
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("# index ", 0) == 0) {
      size_t colon = line.find(": ");
      current = line.substr(colon + 2, line.rfind(" (") - colon - 2);
      blocks[current];
    } else if (!line.empty() && line[0] != '#') {
      std::istringstream row(line);
      std::vector<double> values;
      std::string cell;
      while (row >> cell) values.push_back(std::strtod(cell.c_str(), nullptr));
      blocks.at(current).push_back(values);
    }
  }
  return blocks;
}

uint32_t big_endian32(const std::string& b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
         (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
}

void expect_image(const fs::path& p, const std::string& format) {
  ASSERT_TRUE(fs::exists(p)) << p;
  std::string b = read_text(p);
  ASSERT_GT(b.size(), 1000u) << p;
  if (format == "png") {
    EXPECT_EQ(b.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << p;
    EXPECT_EQ(b.substr(12, 4), "IHDR") << p;
    EXPECT_EQ(big_endian32(b, 16), 960u) << p;  // width
    EXPECT_EQ(big_endian32(b, 20), 540u) << p;  // height
  } else if (format == "svg") {
    size_t root = b.find("<svg");
    ASSERT_NE(root, std::string::npos) << p;
    EXPECT_EQ(b.rfind("<?xml", 0), 0u) << p;
    EXPECT_NE(b.find("viewBox=\"0 0 960 540\"", root), std::string::npos) << p;
    EXPECT_NE(b.find("</svg>"), std::string::npos) << p;
  } else {
    EXPECT_EQ(b.rfind("%PDF-1.", 0), 0u) << p;
    EXPECT_NE(b.find("%%EOF", b.size() - 32), std::string::npos) << p;
  }
}

std::vector<const ResultFile*> pointers(const std::vector<ResultFile>& files) {
  std::vector<const ResultFile*> out;
  for (const auto& f : files) out.push_back(&f);
  return out;
}

std::vector<std::string> labels(const Grouping& g) {
  std::vector<std::string> out;
  for (const auto& s : g.series) out.push_back(s.label);
  return out;
}

// --- rendering -------------------------------------------------------------------------------

TEST(Plot, EveryFigureRendersInEveryFormat) {
  for (const std::string format : {"png", "svg", "pdf"}) {
    SCOPED_TRACE(format);
    TempDir out;
    auto images = plot({fixture("bw"), fixture("lat")}, out.path(), format);
    ASSERT_EQ(images.size(), kAllFigures.size());
    for (const auto& name : kAllFigures) {
      EXPECT_NE(
          std::find(images.begin(), images.end(), (out.path() / (name + "." + format)).string()),
          images.end())
          << name;
      expect_image(out.path() / (name + "." + format), format);
      EXPECT_TRUE(fs::exists(out.path() / (name + ".dat"))) << name;
      EXPECT_TRUE(fs::exists(out.path() / (name + ".gp"))) << name;
    }
    for (const auto& e : fs::directory_iterator(out.path()))  // no temporary files left
      EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(Plot, ScriptsAreSelfContained) {
  TempDir out, elsewhere;
  plot({fixture("lat")}, out.path(), "png");
  for (const std::string name : {"latency", "latency_cdf", "latency_hist"}) {
    fs::copy_file(out.path() / (name + ".gp"), elsewhere.path() / (name + ".gp"));
    run_gnuplot(find_gnuplot(), elsewhere.str(), {name + ".gp"});
    expect_image(elsewhere.path() / (name + ".png"), "png");
  }
}

TEST(Plot, BandwidthDocumentsGiveNoLatencyFiguresAndViceVersa) {
  TempDir bw, lat;
  EXPECT_EQ(plot({fixture("bw")}, bw.path()).size(), 2u);
  EXPECT_FALSE(fs::exists(bw.path() / "latency.png"));
  EXPECT_EQ(plot({fixture("lat")}, lat.path()).size(), 3u);
  EXPECT_FALSE(fs::exists(lat.path() / "bandwidth.png"));
}

// --- data files ------------------------------------------------------------------------------

TEST(PlotData, BandwidthAndMessageRateAreTheDocumentsNumbers) {
  TempDir out;
  plot({fixture("bw")}, out.path());
  auto bandwidth = read_dat(out.path() / "bandwidth.dat");
  auto msgrate = read_dat(out.path() / "msgrate.dat");
  auto docs = fixture_docs("bw");
  ASSERT_EQ(bandwidth.size(), docs.size());
  for (const auto& doc : docs) {
    std::string op = doc["workload"]["op"];
    SCOPED_TRACE(op);
    const auto& results = doc["results"];
    ASSERT_EQ(bandwidth.at(op).size(), results.size());
    ASSERT_EQ(msgrate.at(op).size(), results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& row = bandwidth.at(op)[i];
      ASSERT_EQ(row.size(), 5u);
      EXPECT_EQ(row[0], results[i]["size"].get<double>());
      for (int c : {1, 2, 3}) EXPECT_EQ(row[c], results[i]["gbps"].get<double>());
      EXPECT_EQ(row[4], 1);
      EXPECT_EQ(msgrate.at(op)[i][1], results[i]["mmsg_per_s"].get<double>());
    }
  }
}

TEST(PlotData, LatencyPercentilesAreTheDocumentsNumbersInMicroseconds) {
  TempDir out;
  plot({fixture("lat")}, out.path());
  auto latency = read_dat(out.path() / "latency.dat");
  for (const auto& doc : fixture_docs("lat")) {
    std::string op = doc["workload"]["op"];
    SCOPED_TRACE(op);
    const auto& results = doc["results"];
    ASSERT_EQ(latency.at(op).size(), results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& row = latency.at(op)[i];
      const auto& l = results[i]["latency"];
      ASSERT_EQ(row.size(), 11u);
      EXPECT_EQ(row[0], results[i]["size"].get<double>());
      EXPECT_DOUBLE_EQ(row[1], l["p50"].get<double>() / 1000);
      EXPECT_DOUBLE_EQ(row[4], l["p99"].get<double>() / 1000);
      EXPECT_DOUBLE_EQ(row[7], l["p99_9"].get<double>() / 1000);
      EXPECT_EQ(row[10], 1);
    }
  }
}

// The results[] entry of `size` in a document.
const json& size_result(const json& doc, uint64_t size) {
  for (const auto& r : doc["results"])
    if (r["size"].get<uint64_t>() == size) return r;
  throw std::runtime_error("no size " + std::to_string(size));
}

void expect_distribution_of(const fs::path& out, uint64_t size) {
  auto cdf = read_dat(out / "latency_cdf.dat");
  auto hist = read_dat(out / "latency_hist.dat");
  for (const auto& doc : fixture_docs("lat")) {
    std::string op = doc["workload"]["op"];
    SCOPED_TRACE(op);
    const auto& l = size_result(doc, size)["latency"];
    const auto& buckets = l["buckets"];
    double total = l["count"].get<double>();
    ASSERT_EQ(l["overflow"].get<uint64_t>(), 0u);
    ASSERT_EQ(cdf.at(op).size(), buckets.size() + 1);
    ASSERT_EQ(hist.at(op).size(), buckets.size());
    EXPECT_DOUBLE_EQ(cdf.at(op)[0][0], buckets[0][0].get<double>() / 1000);
    EXPECT_EQ(cdf.at(op)[0][1], 0);
    double cumulative = 0;
    for (size_t i = 0; i < buckets.size(); ++i) {
      double low = buckets[i][0], high = buckets[i][1], count = buckets[i][2];
      cumulative += count;
      EXPECT_DOUBLE_EQ(cdf.at(op)[i + 1][0], high / 1000);
      EXPECT_DOUBLE_EQ(cdf.at(op)[i + 1][1], cumulative / total);
      EXPECT_DOUBLE_EQ(hist.at(op)[i][0], low / 1000);
      EXPECT_DOUBLE_EQ(hist.at(op)[i][1], high / 1000);
      EXPECT_DOUBLE_EQ(hist.at(op)[i][2], count / total);
    }
    EXPECT_DOUBLE_EQ(cdf.at(op).back()[1], 1.0);
  }
}

TEST(PlotData, CdfAndHistogramDefaultToTheSmallestSize) {
  TempDir out;
  plot({fixture("lat")}, out.path());
  uint64_t smallest = UINT64_MAX;
  for (const auto& doc : fixture_docs("lat"))
    for (const auto& r : doc["results"]) smallest = std::min(smallest, r["size"].get<uint64_t>());
  expect_distribution_of(out.path(), smallest);
}

TEST(PlotData, PointChoosesTheSizeOfCdfAndHistogram) {
  TempDir out;
  const json first = fixture_docs("lat").at(0);
  uint64_t largest = first["results"].back()["size"];
  plot({fixture("lat")}, out.path(), "png", "", std::to_string(largest));
  expect_distribution_of(out.path(), largest);
}

TEST(PlotData, PointThatWasNotMeasuredIsAnErrorListingTheSizes) {
  TempDir out;
  try {
    plot({fixture("lat")}, out.path(), "png", "", "64M");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "--point");
    EXPECT_NE(std::string(e.what()).find("64M"), std::string::npos) << e.what();
    std::string smallest =
        format_size(fixture_docs("lat")[0]["results"][0]["size"].get<uint64_t>());
    EXPECT_NE(e.allowed().find(smallest), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(out.path()));
}

// --- grouping and repetitions ------------------------------------------------------------------

TEST(Grouping, PicksTheParameterThatVaries) {
  std::ostringstream notes;
  auto bw = load_results({fixture("bw")}, notes);
  EXPECT_EQ(varying_fields(pointers(bw)), std::vector<std::string>{"op"});
  Grouping by_op = group_runs(pointers(bw), "");
  EXPECT_EQ(by_op.fields, std::vector<std::string>{"op"});
  EXPECT_EQ(labels(by_op), (std::vector<std::string>{"send", "write", "read"}));  // enum order

  auto qp = load_results({fixture("qp")}, notes);
  Grouping by_qp = group_runs(pointers(qp), "");
  EXPECT_EQ(by_qp.fields, std::vector<std::string>{"qp"});
  EXPECT_EQ(labels(by_qp), (std::vector<std::string>{"rc", "uc"}));

  auto lat = load_results({fixture("lat")}, notes);
  EXPECT_EQ(group_runs(pointers(lat), "").fields, std::vector<std::string>{"op"});
}

// bench/vs-perftest writes perftest's measurements as result documents with tool "perftest":
// grouped by tool they make one series per tool.
TEST(Grouping, PerftestDocumentsFormTheirOwnSeriesByTool) {
  TempDir in;
  const nlohmann::json doc = nlohmann::json::parse(read_text(fixture("bw/write.json")));
  nlohmann::json converted = doc;
  converted["tool"] = {{"name", "perftest"}, {"version", "4.5-0.17"}};
  for (auto& r : converted["results"]) r["gbps"] = r["gbps"].get<double>() / 2;
  std::ofstream(in.path() / "a-rdmabench.json") << doc.dump();
  std::ofstream(in.path() / "b-perftest.json") << converted.dump();
  std::ostringstream notes;
  auto runs = load_results({in.str()}, notes);
  ASSERT_EQ(runs.size(), 2u) << notes.str();
  EXPECT_EQ(varying_fields(pointers(runs)), std::vector<std::string>{"tool"});
  Grouping g = group_runs(pointers(runs), "tool");
  EXPECT_EQ(labels(g), (std::vector<std::string>{"rdmabench", "perftest"}));
  TempDir out;
  plot({in.str()}, out.path(), "png", "tool");
  auto blocks = read_dat(out.path() / "bandwidth.dat");
  ASSERT_EQ(blocks.size(), 2u);
  ASSERT_FALSE(blocks["rdmabench"].empty());
  ASSERT_EQ(blocks["rdmabench"].size(), blocks["perftest"].size());
  EXPECT_NEAR(blocks["perftest"][0][1], blocks["rdmabench"][0][1] / 2,
              1e-3 * blocks["rdmabench"][0][1]);
  // Another tool name is still not a result document.
  converted["tool"]["name"] = "ib_write_bw";
  std::ofstream(in.path() / "c-other.json") << converted.dump();
  EXPECT_THROW(load_result_file((in.path() / "c-other.json").string()), ConfigError);
}

TEST(Grouping, SeveralVaryingParametersMakeACombinedKey) {
  std::ostringstream notes;
  auto runs = load_results({fixture("bw"), fixture("qp/write_uc.json")}, notes);
  Grouping g = group_runs(pointers(runs), "");
  EXPECT_EQ(g.fields, (std::vector<std::string>{"op", "qp"}));
  EXPECT_EQ(labels(g),
            (std::vector<std::string>{"send, rc", "write, rc", "write, uc", "read, rc"}));
}

TEST(Grouping, GroupByUnknownFieldIsAnErrorListingTheAllowedOnes) {
  TempDir out;
  try {
    plot({fixture("bw")}, out.path(), "png", "colour");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "--group-by");
    EXPECT_EQ(e.value(), "colour");
    for (const auto& f : series_fields()) EXPECT_NE(e.allowed().find(f), std::string::npos) << f;
  }
  EXPECT_TRUE(fs::is_empty(out.path()));
}

TEST(Grouping, GroupByRefusesOtherParametersVaryingWithinASeries) {
  std::ostringstream notes;
  auto qp = load_results({fixture("qp")}, notes);
  try {
    group_runs(pointers(qp), "device");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.allowed().find("qp (rc, uc)"), std::string::npos) << e.what();
  }
  Grouping g = group_runs(pointers(qp), "qp");
  EXPECT_EQ(labels(g), (std::vector<std::string>{"rc", "uc"}));
}

TEST(Grouping, TransportIsNamedFromTheDeviceInformation) {
  ResultFile r;
  auto label = [&](json d) {
    r.run.client_device = std::move(d);
    return field_value(r, "transport").text;
  };
  // rxe: InfiniBand transport over Ethernet with a RoCE v2 GID.
  EXPECT_EQ(label({{"name", "rxe0"},
                   {"transport", "InfiniBand"},
                   {"link_layer", "Ethernet"},
                   {"gid_type", "RoCE v2"}}),
            "RoCE v2");
  EXPECT_EQ(label({{"name", "mlx5_0"},
                   {"transport", "InfiniBand"},
                   {"link_layer", "Ethernet"},
                   {"gid_type", "RoCE v1"}}),
            "RoCE v1");
  EXPECT_EQ(label({{"name", "mlx5_1"},
                   {"transport", "InfiniBand"},
                   {"link_layer", "InfiniBand"},
                   {"gid_type", "IB"}}),
            "InfiniBand");
  // The name does not matter: an iWARP device called rxe9 is iWARP.
  EXPECT_EQ(label({{"name", "rxe9"},
                   {"transport", "iWARP"},
                   {"link_layer", "Ethernet"},
                   {"gid_type", "IB"}}),
            "iWARP");
  EXPECT_EQ(label(json::object()), "?/?");
}

TEST(Grouping, ServerAddressIsTheHostWithoutThePort) {
  // A sweep starts every point's server on a free port: the series key is the host pair.
  ResultFile a, b;
  a.run.server_address = "198.18.0.1:40001";
  b.run.server_address = "198.18.0.1:40977";
  EXPECT_EQ(field_value(a, "server_address").text, "198.18.0.1");
  EXPECT_EQ(field_value(a, "server_address"), field_value(b, "server_address"));
  b.run.server_address = "rb-host1";
  EXPECT_EQ(field_value(b, "server_address").text, "rb-host1");
}

TEST(Grouping, HostPairsOfASweepAreNeverOneSeries) {
  // Two links into one server (a fabric's incast): the same server address and workload, told
  // apart by the campaign's host fields, which vary and so make the series.
  ResultFile a, b, lone;
  a.run.server_address = b.run.server_address = "198.18.0.1:40001";
  a.point = {{"host_pair", "l2 -> l1"}, {"server_host", "local"}, {"client_host", "h2"}};
  b.point = {{"host_pair", "l3 -> l1"}, {"server_host", "local"}, {"client_host", "h3"}};
  EXPECT_EQ(field_value(a, "host_pair").text, "l2 -> l1");
  EXPECT_EQ(field_value(b, "client_host").text, "h3");
  EXPECT_EQ(field_value(lone, "host_pair").text, "host_pair=none");  // `client --json`
  const auto varying = varying_fields({&a, &b});
  EXPECT_NE(std::find(varying.begin(), varying.end(), "host_pair"), varying.end());
  EXPECT_NE(std::find(varying.begin(), varying.end(), "client_host"), varying.end());
  EXPECT_EQ(std::find(varying.begin(), varying.end(), "server_host"), varying.end());
  const Grouping g = group_runs({&a, &b}, "host_pair");
  EXPECT_EQ(g.series.size(), 2u);
}

TEST(Grouping, FabricFlowsAreToldApartByTheirFabricHostNames) {
  // Four fabric hosts on one machine ("local"): the sweep's server_host is "local" for all, the
  // fabric's names tell the servers and clients apart.
  ResultFile a, b;
  a.point = {{"host_pair", "l2 -> l1"},
             {"server_host", "local"},
             {"client_host", "local"},
             {"fabric", {{"server", "l1"}, {"client", "l2"}}}};
  b.point = {{"host_pair", "l3 -> l4"},
             {"server_host", "local"},
             {"client_host", "local"},
             {"fabric", {{"server", "l4"}, {"client", "l3"}}}};
  EXPECT_EQ(field_value(a, "server_host").text, "l1");
  EXPECT_EQ(field_value(b, "client_host").text, "l3");
  EXPECT_EQ(point_host_field(a, "host_pair"), "l2 -> l1");
  EXPECT_EQ(group_runs({&a, &b}, "server_host").series.size(), 2u);
}

TEST(Grouping, GroupByNamesTheSeriesEvenWhenNothingVaries) {
  std::ostringstream notes;
  auto runs = load_results({fixture("repeat")}, notes);
  Grouping g = group_runs(pointers(runs), "device");
  ASSERT_EQ(g.series.size(), 1u);
  EXPECT_EQ(g.series[0].label, runs[0].run.client_device["name"].get<std::string>());
  EXPECT_EQ(g.series[0].runs.size(), runs.size());
}

TEST(Grouping, EngineKnobsAreSeriesFields) {
  // Documents of the same write bandwidth test that differ only in the post list (-l) and the MR
  // layout: the knobs are what tells them apart.
  std::ostringstream notes;
  auto runs = load_results({fixture("qp/write_rc.json"), fixture("qp/write_rc.json")}, notes);
  ASSERT_EQ(runs.size(), 2u);
  runs[1].run.workload.post_list = 16;
  runs[1].run.workload.mr = MrMode::kShared;
  EXPECT_EQ(varying_fields(pointers(runs)), (std::vector<std::string>{"post_list", "mr"}));
  Grouping g = group_runs(pointers(runs), "post_list");
  EXPECT_EQ(labels(g), (std::vector<std::string>{"post_list=1", "post_list=16"}));
  runs[1].run.workload.post_list = 1;
  runs[1].run.workload.mr = MrMode::kPerQp;
  runs[1].run.workload.numa = Workload::kNumaAuto;
  EXPECT_EQ(labels(group_runs(pointers(runs), "")),
            (std::vector<std::string>{"numa=auto", "numa=none"}));
}

TEST(Repetitions, GiveTheMedianWithMinAndMax) {
  TempDir out;
  plot({fixture("repeat")}, out.path());
  auto docs = fixture_docs("repeat");
  ASSERT_EQ(docs.size(), 3u);
  for (const std::string name : {"bandwidth", "msgrate"}) {
    SCOPED_TRACE(name);
    auto dat = read_dat(out.path() / (name + ".dat"));
    ASSERT_EQ(dat.size(), 1u);
    const auto& rows = dat.begin()->second;
    const auto& results = docs[0]["results"];
    ASSERT_EQ(rows.size(), results.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<double> v;
      for (const auto& d : docs)
        v.push_back(
            size_result(d, results[i]["size"])[name == "bandwidth" ? "gbps" : "mmsg_per_s"]);
      std::sort(v.begin(), v.end());
      EXPECT_EQ(rows[i][0], results[i]["size"].get<double>());
      EXPECT_EQ(rows[i][1], v[1]);
      EXPECT_EQ(rows[i][2], v[0]);
      EXPECT_EQ(rows[i][3], v[2]);
      EXPECT_EQ(rows[i][4], 3);
    }
    EXPECT_NE(read_text(out.path() / (name + ".gp")).find("errorbars = 1"), std::string::npos);
  }
  expect_image(out.path() / "bandwidth.png", "png");
}

TEST(Repetitions, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  Spread s = spread_of({4, 1, 3, 2});
  EXPECT_EQ(s.median, 2.5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.n, 4u);
}

// --- errors ----------------------------------------------------------------------------------

TEST(PlotErrors, EmptyFolderNamesTheFolder) {
  TempDir empty, out;
  try {
    plot({empty.str()}, out.path());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(empty.str()), std::string::npos) << e.what();
  }
  std::ostringstream csv, notes;
  EXPECT_THROW(run_export_csv({empty.str()}, "", csv, notes), ConfigError);
}

TEST(PlotErrors, ForeignJsonNamedExplicitlyIsAnErrorNamingTheFile) {
  TempDir out;
  const std::string foreign = fixture("foreign/devices.json");
  try {
    plot({foreign}, out.path());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(foreign), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not an rdmabench result"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(out.path()));
}

TEST(PlotErrors, ForeignJsonInAFolderIsSkippedWithANote) {
  TempDir in, out;
  fs::copy_file(fixture("foreign/devices.json"), in.path() / "devices.json");
  fs::copy_file(fixture("bw/write.json"), in.path() / "write.json");
  std::ostringstream notes;
  auto images = plot({in.str()}, out.path(), "png", "", std::nullopt, &notes);
  EXPECT_EQ(images.size(), 2u);
  EXPECT_NE(notes.str().find("skipping"), std::string::npos) << notes.str();
  EXPECT_NE(notes.str().find((in.path() / "devices.json").string()), std::string::npos)
      << notes.str();

  fs::remove(in.path() / "write.json");  // only the foreign file left: nothing to plot
  EXPECT_THROW(plot({in.str()}, out.path()), ConfigError);
}

TEST(PlotErrors, MissingGnuplotIsAClearError) {
  TempDir empty_bin, out;
  testutil::ScopedEnv keep("PATH");
  setenv("PATH", empty_bin.str().c_str(), 1);
  try {
    plot({fixture("bw")}, out.path());
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    FAIL() << "not a configuration error: " << e.what();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "gnuplot not found in PATH; install gnuplot-nox");
  }
  EXPECT_TRUE(fs::is_empty(out.path()));
}

TEST(PlotErrors, GnuplotFailureReportsItsStderr) {
  TempDir dir;
  std::ofstream(dir.path() / "broken.gp") << "plot undefined_function_xyz(x)\n";
  try {
    run_gnuplot(find_gnuplot(), dir.str(), {"broken.gp"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("exit status"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_function_xyz"), std::string::npos) << what;
  }
}

TEST(PlotErrors, UnknownFormatIsAConfigError) {
  TempDir out;
  EXPECT_THROW(plot({fixture("bw")}, out.path(), "gif"), ConfigError);
  EXPECT_TRUE(fs::is_empty(out.path()));
}

TEST(PlotErrors, TemplatesRefuseAMissingValue) {
  EXPECT_EQ(fill_template("a @X@ b user@host", {{"X", "1"}}), "a 1 b user@host");
  EXPECT_THROW(fill_template("@TITLE@", {}), std::logic_error);
}

// --- CSV -------------------------------------------------------------------------------------

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

TEST(Export, CsvHasOneRowPerDocumentAndSizeWithTheirValues) {
  TempDir out;
  const std::string file = (out.path() / "results.csv").string();
  std::ostringstream unused, notes;
  run_export_csv({fixture("bw"), fixture("lat")}, file, unused, notes);
  EXPECT_TRUE(unused.str().empty());

  std::istringstream in(read_text(file));
  std::string line;
  std::getline(in, line);
  const auto header = split_csv_line(line);
  EXPECT_EQ(header, csv_columns());
  std::map<std::string, json> docs;  // path -> document
  size_t expected_rows = 0;
  for (const std::string folder : {"bw", "lat"})
    for (const auto& e : fs::directory_iterator(kFixtures / folder)) {
      docs[e.path().string()] = read_json(e.path());
      expected_rows += docs[e.path().string()]["results"].size();
    }
  size_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    const auto cells = split_csv_line(line);
    ASSERT_EQ(cells.size(), header.size()) << line;
    std::map<std::string, std::string> c;
    for (size_t i = 0; i < cells.size(); ++i) c[header[i]] = cells[i];
    const json& doc = docs.at(c["file"]);
    const json& r = size_result(doc, std::stoull(c["size"]));
    EXPECT_EQ(c["op"], doc["workload"]["op"].get<std::string>());
    EXPECT_EQ(c["mode"], doc["workload"]["mode"].get<std::string>());
    EXPECT_EQ(c["device"], doc["devices"]["client"]["name"].get<std::string>());
    EXPECT_EQ(c["server_address"], doc["server_address"].get<std::string>());
    const json point = doc.value("point", json::object());
    for (const char* col : {"host_pair", "server_host", "client_host"})
      EXPECT_EQ(c[col], point.value(col, std::string())) << col;
    EXPECT_EQ(c["iterations"], std::to_string(r["iterations"].get<uint64_t>()));
    EXPECT_EQ(c["ops"], std::to_string(r["ops"].get<uint64_t>()));
    EXPECT_EQ(c["bytes"], std::to_string(r["bytes"].get<uint64_t>()));
    EXPECT_EQ(std::stod(c["seconds"]), r["seconds"].get<double>());
    EXPECT_EQ(std::stod(c["gbps"]), r["gbps"].get<double>());
    EXPECT_EQ(std::stod(c["mmsg_per_s"]), r["mmsg_per_s"].get<double>());
    EXPECT_EQ(std::stod(c["cpu_utilization"]), r["cpu"]["utilization"].get<double>());
    if (r["latency"].is_null()) {
      for (const char* col :
           {"latency_kind", "latency_p50_ns", "latency_p99_ns", "latency_p99_9_ns"})
        EXPECT_EQ(c[col], "") << col;
    } else {
      EXPECT_EQ(c["latency_kind"], r["latency"]["kind"].get<std::string>());
      EXPECT_EQ(std::stod(c["latency_p50_ns"]), r["latency"]["p50"].get<double>());
      EXPECT_EQ(std::stod(c["latency_p99_ns"]), r["latency"]["p99"].get<double>());
      EXPECT_EQ(std::stod(c["latency_p99_9_ns"]), r["latency"]["p99_9"].get<double>());
    }
    EXPECT_EQ(c["error"], "");
  }
  EXPECT_EQ(rows, expected_rows);
}

// Every workload field the table marks `series` tells runs apart in plots and is a CSV column
// of its own, with nothing to edit in report/: two documents differing in that field alone
// are two series, and their CSV rows differ in its column.
TEST(Grouping, EveryTableSeriesFieldSplitsSeriesAndIsACsvColumn) {
  std::ostringstream notes;
  const auto base = load_results({fixture("qp/write_rc.json")}, notes);
  ASSERT_EQ(base.size(), 1u);
  const auto& columns = csv_columns();
  size_t checked = 0;
  for (const WorkloadField& f : workload_fields()) {
    if (!f.series) continue;
    SCOPED_TRACE(std::string(f.key));
    auto runs = load_results({fixture("qp/write_rc.json"), fixture("qp/write_rc.json")}, notes);
    Workload& w = runs[1].run.workload;
    const json before = f.get(w);
    if (f.kind == FieldKind::kBool) {
      f.set(w, !before.get<bool>());
    } else if (f.kind == FieldKind::kEnum) {
      for (const char* name :
           {"send", "uc", "lat", "event", "rdma_cm", "shared", "auto", "tcp", "roce-v1"}) {
        try {
          f.set(w, name);
        } catch (const std::exception&) {
          continue;
        }
        if (f.get(w) != before) break;
      }
    } else {
      f.set(w, before.get<double>() + 1);
    }
    ASSERT_NE(f.get(w), before) << "no other value found";
    EXPECT_EQ(varying_fields(pointers(runs)), std::vector<std::string>{std::string(f.key)});
    EXPECT_EQ(group_runs(pointers(runs), "").series.size(), 2u);
    const auto col = std::find(columns.begin(), columns.end(), std::string(f.key));
    ASSERT_NE(col, columns.end()) << "not a CSV column";
    std::istringstream csv(results_csv(runs));
    std::string header, row0, row1;
    std::getline(csv, header);
    std::getline(csv, row0);  // the first document's first size
    for (size_t r = 0; r < runs[0].run.results.size(); ++r)
      std::getline(csv, row1);  // the second's
    const size_t i = static_cast<size_t>(col - columns.begin());
    EXPECT_NE(split_csv_line(row0).at(i), split_csv_line(row1).at(i));
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

TEST(Export, CsvQuotesCellsWithCommasAndQuotes) {
  std::ostringstream notes;
  auto runs = load_results({fixture("bw/write.json")}, notes);
  runs[0].run.results.resize(1);
  runs[0].run.results[0].error = "peer said \"no\", twice";
  std::istringstream in(results_csv(runs));
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_NE(row.find(",\"peer said \"\"no\"\", twice\""), std::string::npos) << row;
  EXPECT_EQ(split_csv_line(row).back(), "peer said \"no\", twice");
}

TEST(Export, CsvGoesToTheStreamWithoutAFile) {
  std::ostringstream out, notes;
  run_export_csv({fixture("repeat")}, "", out, notes);
  const std::string csv = out.str();
  size_t lines = std::count(csv.begin(), csv.end(), '\n');
  size_t expected = 1;
  for (const auto& d : fixture_docs("repeat")) expected += d["results"].size();
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace rdmabench
