#include "report/link_matrix.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "base/json_util.h"
#include "base/number_text.h"
#include "model/counter_keys.h"
#include "model/workload_fields.h"
#include "report/data_table.h"

namespace rdmabench {
namespace {

// How bad a verdict is, for the worst of several sizes.
int severity(const std::string& verdict) {
  if (verdict == "bad") return 6;
  if (verdict == "slow_under_load") return 5;
  if (verdict == "lossy") return 4;
  if (verdict == "failed") return 3;
  if (verdict == "congested") return 2;
  if (verdict == "suspect") return 1;
  return 0;
}

std::string mark_text(const std::string& verdict) {
  if (verdict == "bad") return "BAD";
  if (verdict == "lossy") return "LOSSY";
  if (verdict == "failed") return "FAILED";
  if (verdict == "congested") return "congested";
  if (verdict == "slow_under_load") return "SLOW";
  return verdict;
}

// One combination's flows: link -> its documents (for latency probes, those beside the load; the
// idle ones in `idle`).
struct Combination {
  nlohmann::json values;  // the point's matrix values
  Mode mode = Mode::kBw;
  std::map<std::pair<std::string, std::string>, std::vector<const ResultFile*>> links;  // (c, s)
  std::map<std::pair<std::string, std::string>, std::vector<const ResultFile*>> idle;
  std::set<std::string> hosts;
};

// The marks of the probes (the verdict record's probes.not_ok) are keyed by this combination.
const char* const kProbeMarks = "probes";

// A run's p99 (ns) at `size`; nullopt when it has none.
std::optional<double> p99_at(const ResultFile& r, uint64_t size) {
  for (const SizeResult& s : r.run.results)
    if (s.size == size && s.error.empty() && s.latency && std::isfinite(s.latency->summary.p99))
      return s.latency->summary.p99;
  return std::nullopt;
}

// A probed link's load/idle figure at `size`: its worst p99 beside the load over its idle p99
// (the lowest of its idle runs); nullopt without both.
std::optional<double> probe_ratio_at(const std::vector<const ResultFile*>& load,
                                     const std::vector<const ResultFile*>& idle, uint64_t size) {
  std::optional<double> worst, quiet;
  for (const ResultFile* r : load)
    if (const auto v = p99_at(*r, size); v && (!worst || *v > *worst)) worst = v;
  for (const ResultFile* r : idle)
    if (const auto v = p99_at(*r, size); v && (!quiet || *v < *quiet)) quiet = v;
  if (!worst || !quiet || *quiet <= 0) return std::nullopt;
  return *worst / *quiet;
}

// The best figure of a link at `size`: the highest Gb/s (both directions for --bidir) or the
// lowest p50 (µs); nullopt when no run of it measured that size.
std::optional<double> best_at(const std::vector<const ResultFile*>& runs, uint64_t size,
                              bool latency) {
  std::optional<double> best;
  for (const ResultFile* r : runs)
    for (const SizeResult& s : r->run.results) {
      if (s.size != size || !s.error.empty()) continue;
      if (latency && !s.latency) continue;
      const double v =
          latency ? s.latency->summary.p50 / 1000 : s.gbps + (s.reverse ? s.reverse->gbps : 0);
      if (!best || (latency ? v < *best : v > *best)) best = v;
    }
  return best;
}

// The loss figure of a link at `size` (model/counter_keys.h: gaps per million packets, the size's
// own deltas where the document has them, else its run's): its lowest over the runs whose
// deltas it had alone; nullopt when none counted.
std::optional<double> loss_at(const std::vector<const ResultFile*>& runs, uint64_t size) {
  std::optional<double> best;
  for (const ResultFile* r : runs) {
    const nlohmann::json* fabric =
        r->point.is_object() && r->point.contains("fabric") ? &r->point["fabric"] : nullptr;
    if (fabric != nullptr && fabric->is_object() && fabric->contains("counters_shared") &&
        (*fabric)["counters_shared"] == true)
      continue;
    const nlohmann::json* counters = &r->run.counters;
    for (const SizeResult& s : r->run.results)
      if (s.size == size && !s.counters.empty()) counters = &s.counters;
    if (const auto v = loss_per_million(*counters); v && (!best || *v < *best)) best = v;
  }
  return best;
}

// What a matrix's cells hold: the verdict's figure (Gb/s or p50), the loss figure, or the latency
// probes' load/idle p99 ratio.
enum class Cell { kFigure, kLoss, kProbeRatio };

Figure matrix_figure(const std::string& name, const Combination& c, const LinkMarks& marks,
                     const std::string& format, Cell cell = Cell::kFigure) {
  const bool latency = c.mode == Mode::kLat;
  std::set<uint64_t> sizes;
  for (const auto& [link, runs] : c.links)
    for (const ResultFile* r : runs)
      for (const SizeResult& s : r->run.results)
        if (s.error.empty() && (!latency || s.latency)) sizes.insert(s.size);
  const uint64_t size = sizes.empty() ? 0 : latency ? *sizes.begin() : *sizes.rbegin();
  std::vector<std::string> hosts(c.hosts.begin(), c.hosts.end());
  std::sort(hosts.begin(), hosts.end(), natural_less);
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < hosts.size(); ++i) at[hosts[i]] = i;
  const std::string combination = c.values.dump();
  const bool numbers = hosts.size() <= 16;  // room for a figure in each cell

  std::string grid, labels;
  size_t marked = 0;
  for (size_t s = 0; s < hosts.size(); ++s) {
    for (size_t k = 0; k < hosts.size(); ++k) {
      std::optional<double> v;
      std::string mark;
      if (auto it = c.links.find({hosts[k], hosts[s]}); it != c.links.end()) {
        const std::string link = hosts[k] + " -> " + hosts[s];
        if (cell == Cell::kProbeRatio) {
          const auto idle = c.idle.find({hosts[k], hosts[s]});
          v = probe_ratio_at(it->second,
                             idle != c.idle.end() ? idle->second : std::vector<const ResultFile*>{},
                             size);
        } else {
          v = cell == Cell::kLoss ? loss_at(it->second, size) : best_at(it->second, size, latency);
        }
        const std::string key = cell == Cell::kProbeRatio ? kProbeMarks : combination;
        if (auto m = marks.find({key, link}); m != marks.end()) mark = mark_text(m->second);
      }
      grid += std::to_string(k) + " " + std::to_string(s) + " " +
              (v ? format_number(*v) : std::string("NaN")) + "\n";
      std::string label = v && numbers ? three_digits(*v) : "";
      if (!mark.empty()) {
        label += (label.empty() ? "" : " ") + mark;
        ++marked;
      }
      if (!label.empty())
        labels +=
            std::to_string(k) + " " + std::to_string(s) + " \"" + gnuplot_string(label) + "\"\n";
    }
    grid += "\n";  // one scan line per server
  }
  std::string tics;
  for (size_t i = 0; i < hosts.size(); ++i)
    tics += (i == 0 ? "" : ", ") + ("\"" + gnuplot_string(hosts[i]) + "\" " + std::to_string(i));
  const std::string what = cell == Cell::kLoss         ? "gaps per million packets (counters)"
                           : cell == Cell::kProbeRatio ? "probe p99 beside the load / idle"
                           : latency                   ? "p50 latency (µs)"
                                                       : "bandwidth (Gb/s)";
  // The title names the workload by op, QP type and mode (all its values: the .dat's header).
  std::string workload;
  for (const char* k : {"op", "qp", "mode"})
    if (c.values.contains(k) && c.values[k].is_string())
      workload += (workload.empty() ? "" : " ") + c.values[k].get<std::string>();
  const std::string title = "Link matrix: " + what + " at " + format_size(size) +
                            (size >= 1024 ? "iB" : " B") +
                            (workload.empty() ? "" : " — " + workload) +
                            (marked != 0 ? " (" + std::to_string(marked) + " marked)" : "");
  std::string data =
      "# rdmabench plot data of " + name + ".gp: " + title +
      "\n# workload: " + describe_values(c.values) +
      "\n# block 0: client_index server_index value (NaN: not measured), one scan line per "
      "server; block 1: client_index server_index label\n# hosts: " +
      [&] {
        std::string h;
        for (const auto& x : hosts) h += (h.empty() ? "" : " ") + x;
        return h;
      }() +
      "\n" + grid + "\n" + (labels.empty() ? "0 0 \"\"\n" : labels);
  return template_figure(name, "link_matrix", std::move(data), format, true,
                         {{"TITLE", gnuplot_string(title)},
                          {"CBLABEL", what},
                          {"LAST", std::to_string(hosts.empty() ? 0 : hosts.size() - 1)},
                          {"TICS", tics},
                          {"PALETTE", latency || cell != Cell::kFigure ? "negative" : "positive"}});
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])) != 0) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])) != 0) ++je;
      const std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      const std::string ta = na.substr(std::min(na.find_first_not_of('0'), na.size()));
      const std::string tb = nb.substr(std::min(nb.find_first_not_of('0'), nb.size()));
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

LinkMarks link_marks(const VerdictsRecord& record) {
  LinkMarks marks;
  for (const LinkNotOk& e : record.not_ok) {
    if (!e.matrix.is_object() || e.link.empty() || e.verdict.empty()) continue;
    std::string& m = marks[{e.matrix.dump(), e.link}];
    if (severity(e.verdict) > severity(m)) m = e.verdict;
  }
  if (record.probes)
    for (const ProbeNotOk& e : record.probes->not_ok)
      if (e.verdict == "slow_under_load" && !e.link.empty())
        marks[{kProbeMarks, e.link}] = "slow_under_load";
  return marks;
}

std::vector<Figure> link_matrix_figures(const std::vector<ResultFile>& runs, const LinkMarks& marks,
                                        const std::string& format) {
  std::map<std::string, Combination> by_values;  // matrix text -> its flows
  std::vector<std::string> order;                // combinations in the order first seen
  std::map<std::string, Combination> probes;     // the latency probes', by their workload
  std::vector<std::string> probe_order;
  for (const ResultFile& r : runs) {
    if (!r.point.is_object() || !r.point.contains("fabric") || !r.point["fabric"].is_object())
      continue;
    const nlohmann::json& f = r.point["fabric"];
    const std::string server = json_string_or(f, "server"), client = json_string_or(f, "client");
    if (server.empty() || client.empty()) continue;
    const nlohmann::json values =
        r.point.contains("matrix") ? r.point["matrix"] : nlohmann::json::object();
    const std::string probe = json_string_or(f, "probe");  // "idle", "load" or none
    auto& table = probe.empty() ? by_values : probes;
    auto [it, fresh] = table.try_emplace(values.dump());
    if (fresh) {
      (probe.empty() ? order : probe_order).push_back(it->first);
      it->second.values = values;
      it->second.mode = r.run.workload.mode;
    }
    (probe == "idle" ? it->second.idle : it->second.links)[{client, server}].push_back(&r);
    it->second.hosts.insert({server, client});
  }
  std::vector<Figure> out;
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string n = i == 0 ? "" : "_" + std::to_string(i + 1);
    const Combination& c = by_values.at(order[i]);
    out.push_back(matrix_figure("link_matrix" + n, c, marks, format));
    // The loss matrix beside it, when a link of the combination lost packets.
    const bool lost = std::any_of(c.links.begin(), c.links.end(), [&](const auto& l) {
      for (const ResultFile* r : l.second)
        for (const SizeResult& s : r->run.results)
          if (loss_at({r}, s.size).value_or(0) > 0) return true;
      return false;
    });
    if (lost) out.push_back(matrix_figure("link_loss" + n, c, marks, format, Cell::kLoss));
  }
  // The probes' load/idle ratio, one matrix per probe workload (fabric_probes.h).
  for (size_t i = 0; i < probe_order.size(); ++i)
    out.push_back(
        matrix_figure(i == 0 ? "link_probe_ratio" : "link_probe_ratio_" + std::to_string(i + 1),
                      probes.at(probe_order[i]), marks, format, Cell::kProbeRatio));
  return out;
}

}  // namespace rdmabench
