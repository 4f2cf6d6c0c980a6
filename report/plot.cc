#include "report/plot.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "base/error.h"
#include "base/file_text.h"
#include "model/campaign_index.h"
#include "model/hunt_record.h"
#include "model/round_record.h"
#include "model/verdict_record.h"
#include "report/figures.h"
#include "report/gnuplot.h"
#include "report/link_matrix.h"
#include "report/results_set.h"

namespace rdmabench {
namespace fs = std::filesystem;

std::vector<std::string> write_figures(const std::vector<Figure>& figures,
                                       const std::string& out_dir, const std::string& format,
                                       const std::string& gnuplot) {
  const fs::path out = out_dir;
  std::vector<std::string> images;
  for (const auto& f : figures) {
    write_file_atomic((out / (f.name + ".dat")).string(), f.data);
    write_file_atomic((out / (f.name + ".gp")).string(), f.script);
    // gnuplot renders into a temporary file, renamed once it succeeded.
    std::string image = f.name + "." + format;
    std::string tmp = "." + image + ".tmp." + std::to_string(getpid());
    try {
      run_gnuplot(gnuplot, out.string(), {"-e", "output='" + tmp + "'", f.name + ".gp"});
      if (!fs::exists(out / tmp) || fs::file_size(out / tmp) == 0)
        throw Error("gnuplot wrote no image for " + (out / (f.name + ".gp")).string());
      fs::rename(out / tmp, out / image);
    } catch (...) {
      std::error_code ec;
      fs::remove(out / tmp, ec);
      throw;
    }
    images.push_back((out / image).string());
  }
  return images;
}

std::vector<std::string> run_plot(const PlotOptions& opt, std::ostream& notes) {
  FigureOptions fopt;
  fopt.format = opt.format;
  fopt.group_by = opt.group_by;
  if (opt.point) fopt.point = parse_size(*opt.point, "--point");
  check_image_format(fopt.format);
  std::vector<ResultFile> runs = load_results(opt.inputs, notes);
  for (const auto& in : opt.inputs) {  // a fabric campaign's verdicts mark its link matrix
    std::error_code ec;
    if (!fs::is_directory(in, ec)) continue;
    std::ifstream index(fs::path(in) / "index.jsonl");
    if (!index) continue;
    std::stringstream text;
    text << index.rdbuf();
    std::vector<std::string> refused;
    if (auto v = last_verdicts_record(parse_records(text.str(), kVerdictsRecord), refused))
      for (auto& [k, mark] : link_marks(*v)) fopt.link_marks[k] = mark;
    for (auto& r : round_records_from_json(parse_records(text.str(), kRoundRecord), refused))
      fopt.round_records.push_back(std::move(r));
    if (auto h = last_hunt_record(parse_records(text.str(), kHuntRecord), refused))
      fopt.hunts.push_back(std::move(*h));
    for (const std::string& why : refused)
      notes << "rdmabench: note: " << in << "/index.jsonl: " << why << "; left out\n";
  }
  std::vector<Figure> figures = make_figures(runs, fopt, notes);
  std::string gnuplot = find_gnuplot();

  fs::path out = opt.out_dir;
  if (out.empty()) {
    fs::path first = opt.inputs.at(0);
    out = fs::is_directory(first) ? first : first.parent_path();
    if (out.empty()) out = ".";
  }
  fs::create_directories(out);
  return write_figures(figures, out.string(), fopt.format, gnuplot);
}

}  // namespace rdmabench
