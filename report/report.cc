#include "report/report.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "base/error.h"
#include "base/file_text.h"
#include "base/temp_dir.h"
#include "base/utc_time.h"
#include "report/data_uri.h"
#include "report/figures.h"
#include "report/gnuplot.h"
#include "report/link_matrix.h"
#include "report/plot.h"
#include "report/report_html.h"
#include "report/report_model.h"

namespace rdmabench {
namespace fs = std::filesystem;
namespace {

std::string read_binary(const std::string& path) {
  std::optional<std::string> bytes = read_file(path);
  if (!bytes) throw Error("cannot read the figure " + path);
  return std::move(*bytes);
}

ReportInput load_input(const std::string& path, std::ostream& notes) {
  ReportInput in;
  in.path = path;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    in.runs = load_results({path}, notes);
    return in;
  }
  in.campaign = read_campaign_folder(path, notes);
  try {
    in.runs = load_results({path}, notes);
  } catch (const ConfigError&) {
    // A sweep in which every point failed has an index but no result document.
    if (!in.campaign->has_index || in.campaign->points.empty()) throw;
  }
  return in;
}

bool any_success(const std::vector<ReportInput>& inputs) {
  for (const auto& in : inputs)
    for (const auto& f : in.runs)
      for (const auto& s : f.run.results)
        if (s.error.empty()) return true;
  return false;
}

}  // namespace

std::string run_report(const ReportOptions& opt, std::ostream& notes) {
  if (opt.format != "png" && opt.format != "svg")
    throw ConfigError("--format", opt.format, "png or svg (the images a web page shows)");
  if (opt.inputs.empty())
    throw ConfigError("results", "", "name at least one result folder or file");
  std::vector<ReportInput> inputs;
  for (const auto& p : opt.inputs) inputs.push_back(load_input(p, notes));

  std::vector<ResultFile> runs;
  for (const auto& in : inputs) runs.insert(runs.end(), in.runs.begin(), in.runs.end());
  std::vector<Figure> figures;
  if (any_success(inputs)) {
    FigureOptions fopt;
    fopt.format = opt.format;
    for (const auto& in : inputs) {
      if (in.campaign && in.campaign->verdicts)
        for (auto& [k, v] : link_marks(*in.campaign->verdicts)) fopt.link_marks[k] = v;
      if (in.campaign)
        fopt.round_records.insert(fopt.round_records.end(), in.campaign->rounds.begin(),
                                  in.campaign->rounds.end());
      if (in.campaign && in.campaign->hunt) fopt.hunts.push_back(*in.campaign->hunt);
    }
    figures = make_figures(runs, fopt, notes);
  } else {
    notes << "rdmabench: note: no successful measurement; the report has no figures\n";
  }
  // Without gnuplot the page still has every table: the figures are left out, and it says why.
  std::string gnuplot;
  std::string figures_note;
  if (!figures.empty()) {
    try {
      gnuplot = find_gnuplot();
    } catch (const Error& e) {
      figures_note = std::string(e.what()) +
                     ": this page has the tables only (rdmabench plot "
                     "draws the figures where gnuplot is installed)";
      notes << "rdmabench: note: " << figures_note << "\n";
      figures.clear();
    }
  }

  fs::path out = opt.out_file;
  if (out.empty()) {
    fs::path first = opt.inputs.at(0);
    out = (fs::is_directory(first) ? first : first.parent_path()) / "report.html";
  }
  std::error_code ec;
  if (fs::is_directory(out, ec))
    throw ConfigError("--out", out.string(), "a file name (it is a folder)");

  std::vector<EmbeddedFigure> embedded;
  if (!figures.empty()) {
    TempDir tmp("rdmabench-report");
    std::vector<std::string> images =
        write_figures(figures, tmp.path().string(), opt.format, gnuplot);
    for (size_t i = 0; i < figures.size(); ++i)
      embedded.push_back({figures[i].name, figure_title(figures[i].name),
                          data_uri(image_mime(opt.format), read_binary(images[i]))});
  }
  ReportModel model = build_report_model(inputs);
  model.figures_note = figures_note;
  const std::string html = render_report_html(model, embedded, utc_now());
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  write_file_atomic(out.string(), html);
  return out.string();
}

}  // namespace rdmabench
