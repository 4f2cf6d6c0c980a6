#include "cli/cmd_results.h"

#include <iostream>

#include "base/file_text.h"
#include "cli/cli_common.h"
#include "report/csv_export.h"
#include "report/junit_export.h"
#include "report/prometheus_export.h"

namespace rdmabench {

CLI::App* add_plot_command(CLI::App& app, PlotOptions& o) {
  auto* plot = app.add_subcommand("plot", "figures of result documents (gnuplot; plots/README.md)");
  plot->add_option("inputs", o.inputs, "result folders (every *.json) or files")
      ->required()
      ->type_name("RESULTS");
  plot->add_option("-o,--out", o.out_dir, "output folder (default: the first input's folder)")
      ->type_name("FIGURE_DIR")
      ->check(path_not_option());
  plot->add_option("--format", o.format, "png, svg or pdf (default png)")->type_name("FORMAT");
  plot->add_option("--group-by", o.group_by,
                   "the parameter telling series apart (default: the one that varies)")
      ->type_name("FIELD");
  plot->add_option("--point", o.point,
                   "message size of the latency CDF and histogram (default: the smallest)")
      ->type_name("SIZE");
  set_examples(plot,
               "  rdmabench plot out/quick                # PNGs next to the results\n"
               "  rdmabench plot a.json b.json -o figs --format svg\n");
  return plot;
}

CLI::App* add_export_command(CLI::App& app, ExportArgs& a) {
  auto* exporter = app.add_subcommand(
      "export", "write results as CSV, JUnit XML or Prometheus metrics (one format)");
  auto* formats = exporter->add_option_group("format", "exactly one of");
  formats->add_flag("--csv", a.csv, "CSV, one row per document and size");
  formats->add_flag("--junit", a.junit,
                    "JUnit XML: a testcase per workload point, failures with their reason");
  formats->add_flag("--prometheus", a.prometheus,
                    "Prometheus text format (node_exporter's textfile collector): gauges");
  formats->require_option(1);
  exporter
      ->add_option("inputs", a.inputs,
                   "result folders (every *.json) or files; a check's document (check "
                   "--json) or a comparison (compare --json) as a file")
      ->required()
      ->type_name("RESULTS");
  exporter->add_option("-o,--out", a.file, "write to FILE (atomically) instead of stdout")
      ->type_name("EXPORT_FILE")
      ->check(path_not_option());
  set_examples(
      exporter,
      "  rdmabench export --csv out/quick -o quick.csv\n"
      "  rdmabench export --junit out/fabric -o fabric.xml\n"
      "  rdmabench export --prometheus out/fabric -o /var/lib/node_exporter/rdmabench.prom\n");
  return exporter;
}

CLI::App* add_report_command(CLI::App& app, ReportOptions& o) {
  auto* report =
      app.add_subcommand("report", "one self-contained HTML page of results (plots/README.md)");
  report->add_option("inputs", o.inputs, "result folders (a sweep's, or any *.json) or files")
      ->required()
      ->type_name("RESULTS");
  report->add_option("-o,--out", o.out_file, "the page (default: <first input folder>/report.html)")
      ->type_name("HTML_FILE")
      ->check(path_not_option());
  report->add_option("--format", o.format, "embedded images: png or svg (default png)")
      ->type_name("FORMAT");
  set_examples(report,
               "  rdmabench report out/quick             # out/quick/report.html\n"
               "  rdmabench report out/a out/b -o both.html\n");
  return report;
}

CLI::App* add_compare_command(CLI::App& app, CompareOptions& o) {
  auto* compare = app.add_subcommand(
      "compare",
      "compare two result sets point by point; exit 1 on a regression (plots/README.md)");
  compare->add_option("A", o.a, "the baseline: a result folder or file")
      ->required()
      ->type_name("BASELINE");
  compare->add_option("B", o.b, "the candidate: a result folder or file")
      ->required()
      ->type_name("CANDIDATE");
  compare
      ->add_option("--threshold", o.threshold,
                   "percent: a real change for the worse beyond this is a regression (default 5)")
      ->type_name("PCT");
  compare
      ->add_option("--noise-floor", o.noise_floor,
                   "percent: the least spread assumed around each median (default 2)")
      ->type_name("PCT");
  compare
      ->add_option("--metric", o.metrics, "gbps, mmsg, p50, p99, p99.9 (default gbps,mmsg,p50,p99)")
      ->type_name("METRIC");
  compare->add_flag("--json", o.json, "print JSON instead of the table");
  set_examples(compare, "  rdmabench compare out/before out/after --threshold 5\n");
  return compare;
}

int run_plot_command(const PlotOptions& o) {
  for (const auto& image : run_plot(o, std::cerr)) std::cout << image << std::endl;
  return 0;
}

int run_export_command(const ExportArgs& a) {
  if (a.csv) {
    run_export_csv(a.inputs, a.file, std::cout, std::cerr);
    return 0;
  }
  const ExportSet set = load_export_set(a.inputs, std::cerr);
  const std::string text = a.junit ? junit_xml(set) : prometheus_text(set);
  if (a.file.empty())
    std::cout << text << std::flush;
  else
    write_file_atomic(a.file, text);
  return 0;
}

int run_report_command(const ReportOptions& o) {
  std::cout << run_report(o, std::cerr) << std::endl;
  return 0;
}

int run_compare_command(const CompareOptions& o) { return run_compare(o, std::cout, std::cerr); }

}  // namespace rdmabench
