#include "report/anomalies_section.h"

#include <cstdio>

#include "model/counter_keys.h"
#include "model/workload_fields.h"
#include "report/html.h"

namespace rdmabench {
namespace {

std::string ratio_text(double r) {
  char b[32];
  std::snprintf(b, sizeof b, r >= 1000 ? "%.3g" : "%.2f", r);
  return b;
}

std::string terms_text(const HuntScore& s) {
  std::string t;
  for (const auto& x : s.terms)
    if (x.ratio >= 1) t += (t.empty() ? "" : ", ") + x.term + " " + ratio_text(x.ratio);
  return t.empty() ? "none" : t;
}

void anomaly_rows(std::string& h, const HuntAnomaly& a, size_t n) {
  std::string seen = std::to_string(1 + a.also_at.size());
  h += "<tr class=\"anomaly\"><td class=\"num\">" + std::to_string(n) + "</td><td><code>" +
       html_escape(describe_values(a.trigger)) + "</code></td><td>" +
       html_escape(terms_text(a.found)) + "</td><td class=\"num\">" + std::to_string(a.found_at) +
       "</td><td class=\"num\">" + seen + "</td><td>" +
       (a.confirm ? html_escape(terms_text(*a.confirm)) : std::string("&mdash;")) + "</td></tr>\n";
  h += "<tr class=\"anomaly-detail\"><td></td><td colspan=\"5\"><details><summary>found at <code>" +
       html_escape(describe_values(a.values)) + "</code>; resets and reproduce</summary><ul>\n";
  for (const HuntReset& r : a.resets) {
    h += "<li><code>" + html_escape(r.factor) + "</code> " + html_escape(r.from.dump()) +
         " &rarr; " + html_escape(r.to.dump()) + ": ";
    if (!r.refused.empty())
      h += "refused (" + html_escape(r.refused) + "); kept";
    else if (r.score)
      h += std::string(r.removes ? "the anomaly went away (in the trigger)"
                                 : "still anomalous (left at its baseline)") +
           ", worst ratio " + ratio_text(r.score->worst());
    h += "</li>\n";
  }
  h += "</ul><p>Counters that moved where it was found: " +
       html_escape(describe_moved_counters(a.counters_found)) +
       "; in its confirmation: " + html_escape(describe_moved_counters(a.counters_confirm)) +
       ".</p>";
  if (!a.reproduce_client.empty())
    h += "<pre>" + html_escape(a.reproduce_server) + "\n" + html_escape(a.reproduce_client) +
         "</pre>";
  h += "</details></td></tr>\n";
}

}  // namespace

void anomalies_section(std::string& h, const std::vector<HuntRecord>& hunts) {
  if (hunts.empty()) return;
  size_t total = 0;
  for (const auto& r : hunts) total += r.anomalies.size();
  h += "<section id=\"anomalies\"><h2>Anomalies (" + std::to_string(total) + ")</h2>\n";
  for (const HuntRecord& r : hunts) {
    size_t not_repeated = 0;
    size_t not_confirmed = 0;
    for (const auto& c : r.candidates) {
      not_repeated += c.state == "not repeated" ? 1 : 0;
      not_confirmed += c.state == "not confirmed" ? 1 : 0;
    }
    h += "<p>A hunt of " + std::to_string(r.evaluations) + " evaluation(s) (budget " +
         std::to_string(r.budget) + ", seed " + std::to_string(r.seed) +
         "): " + std::to_string(r.anomalies.size()) + " anomal" +
         (r.anomalies.size() == 1 ? "y" : "ies") + "; " + std::to_string(not_repeated) +
         " candidate(s) not repeated, " + std::to_string(not_confirmed) + " not confirmed.</p>\n";
    if (r.anomalies.empty()) {
      h += "<p class=\"ok\">It found none.</p>\n";
      continue;
    }
    h += "<table class=\"anomalies\"><thead><tr><th>#</th><th>trigger</th><th>terms (ratio)</th>"
         "<th>found at</th><th>seen</th><th>confirmation</th></tr></thead><tbody>\n";
    for (size_t i = 0; i < r.anomalies.size(); ++i) anomaly_rows(h, r.anomalies[i], i + 1);
    h += "</tbody></table>\n";
  }
  h += "</section>\n";
}

}  // namespace rdmabench
