#include "check/fabric_check.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "base/error.h"
#include "base/file_text.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "check/check_expectations.h"
#include "model/campaign_index.h"
#include "model/check_facts.h"
#include "model/check_host_verdict.h"
#include "model/check_plan.h"
#include "model/host_env_record.h"
#include "model/result.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/launch/slurm_allocation.h"
#include "orchestrator/sweep/sweep.h"
#include "report/link_rate.h"
#include "report/results_set.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;

// The check's campaigns read back as the sweep read them (a Slurm campaign: in its allocation).
const CampaignOptions kAsTheSweep{"", find_slurm_allocation, campaign_kinds()};

// What does not go with --fabric: a server of the check's own, this host's device, PCIe (a
// host's own sysfs: run check on the host itself).
void refuse_local_options(const CheckRequest& a, const std::vector<CheckExpectation>& ex) {
  if (!a.peer.empty())
    throw ConfigError("peer", a.peer, "no --peer with --fabric (the ring pairs the hosts)");
  if (a.loopback) throw ConfigError("loopback", "", "no --loopback with --fabric");
  if (a.local_options_given)
    throw ConfigError("device", a.local.device,
                      "no -d, -i or -x with --fabric (each host's device and GID are the "
                      "campaign's)");
  if (a.max_time)
    throw ConfigError("max-time", *a.max_time,
                      "no --max-time with --fabric (the campaign's timeout_s bounds each flow)");
  for (const CheckExpectation& e : ex)
    if (e.subject == CheckSubject::kPcieWidth || e.subject == CheckSubject::kPcieSpeed)
      throw ConfigError("expect", e.text,
                        "port, GID, firmware and traffic expectations with --fabric (the PCIe "
                        "link is read from the host's own sysfs: run check on the host)");
  if (std::none_of(ex.begin(), ex.end(), [](const auto& e) { return e.traffic(); }))
    throw ConfigError("expect", "(no traffic expectation)",
                      "at least one traffic expectation with --fabric, e.g. 'write bw 64K >= 90% "
                      "of link': the ring's flows carry the hosts' checks");
}

// The campaign file's JSON, with its relative paths (ssh_config, fabric.hostfile) made absolute:
// the check's campaigns are written in --out.
nlohmann::json fabric_campaign_json(const std::string& path) {
  const nlohmann::json j = nlohmann::json::parse(file_text(path), nullptr, false);
  if (!j.is_object() || !j.contains("fabric") || !j["fabric"].is_object())
    throw ConfigError("fabric", path, "a readable campaign file with a \"fabric\" block");
  nlohmann::json c = j;
  const std::string base = fs::absolute(fs::path(path)).parent_path().string();
  const auto absolute = [&](nlohmann::json& v) {
    if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>().front() != '/')
      v = base + "/" + v.get<std::string>();
  };
  if (c.contains("ssh_config")) absolute(c["ssh_config"]);
  if (c["fabric"].contains("hostfile")) absolute(c["fabric"]["hostfile"]);
  return c;
}

// The sweep's campaign for one traffic group: the fabric's hosts, launcher and agents, a ring,
// the group's workload over its sizes.
nlohmann::json group_campaign(nlohmann::json c, const std::string& name, const TrafficGroup& g,
                              double duration) {
  for (const char* key : {"matrix", "search", "exclude", "repetitions", "pairs", "description"})
    c.erase(key);
  c["name"] = name;
  c["fabric"]["pattern"] = {{"pattern", "ring"}};
  // The expectations judge; the sweep's relative and loss verdicts would only add noise.
  c["fabric"]["verdicts"] = {
      {"retest", false}, {"bw_fraction", 1e-9}, {"lat_factor", 1000}, {"loss_floor_ppm", nullptr}};
  c["matrix"] = {{"op", std::string(to_string(g.op))},
                 {"qp", std::string(to_string(g.qp))},
                 {"mode", std::string(to_string(g.mode))},
                 {"sizes", {g.sizes}},
                 {"duration_s", duration},
                 {"warmup_s", duration / 5}};
  return c;
}

struct FabricCheck {
  std::vector<std::string> hosts;  // fabric host names
  std::vector<CheckOutcome> outcomes;
  std::vector<std::string> where;    // each outcome's host or link
  std::map<size_t, size_t> link_of;  // Campaign::links index -> links
  std::vector<CheckedLink> links;    // in the order first judged
  std::vector<bool> own_failed;      // by host
};

// Judges one group's sweep (DIR): each flow's expectations against its result, or its error.
void judge_links(const std::string& campaign_file, const std::string& dir, const TrafficGroup& g,
                 const std::vector<CheckExpectation>& ex, FabricCheck& fc) {
  const Campaign c = load_campaign(campaign_file, "rdmabench", kAsTheSweep);
  const Expansion x = expand(c);
  std::map<std::string, IndexEntry> last;
  for (IndexEntry& e : parse_index_points(file_text(dir + "/index.jsonl")))
    last[e.point_id] = std::move(e);
  std::ostringstream quiet;
  std::vector<ResultFile> docs;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    try {
      docs = load_results({dir}, quiet);
    } catch (const ConfigError&) {  // no document at all: every flow failed
    }
  }
  std::map<std::string, const ResultFile*> by_id;
  for (const ResultFile& f : docs)
    if (f.point.is_object() && f.point.value("point_id", nlohmann::json()).is_string())
      by_id[f.point["point_id"].get<std::string>()] = &f;
  if (fc.hosts.empty())
    for (const FabricHost& h : fabric_spec(c)->hosts) fc.hosts.push_back(h.name);
  fc.own_failed.resize(fc.hosts.size(), false);
  for (const Point& p : x.points) {
    const Flow& link = fabric_of(c)->links().at(p.pair);
    const std::string name = c.pair_name(p.pair);
    if (fc.link_of.emplace(p.pair, fc.links.size()).second)
      fc.links.push_back({link.client, link.server, name, false});
    CheckedLink& checked = fc.links[fc.link_of.at(p.pair)];
    const auto entry = last.find(p.id);
    const auto doc = by_id.find(p.id);
    for (size_t i : g.expectations) {
      const CheckExpectation& e = ex[i];
      CheckOutcome o;
      if (entry == last.end()) {
        o = failed_traffic(e, "not run (the sweep stopped before it)");
      } else if (entry->second.status != "ok" || doc == by_id.end()) {
        o = failed_traffic(e, entry->second.error.substr(0, entry->second.error.find('\n')));
      } else {
        const RunResult& r = doc->second->run;
        const auto it = std::find_if(r.results.begin(), r.results.end(),
                                     [&](const SizeResult& s) { return s.size == e.size; });
        o = it != r.results.end() ? judge_traffic(e, *it, link_capacity_gbps(r, false))
                                  : failed_traffic(e, "no result for this size");
      }
      if (!o.pass) checked.failed = true;
      fc.outcomes.push_back(std::move(o));
      fc.where.push_back(name);
    }
  }
}

// Judges each host's own expectations from its agent's hello (DIR/env/HOST.json).
void judge_hosts(const std::string& campaign_file, const std::string& dir,
                 const std::vector<CheckExpectation>& ex, FabricCheck& fc) {
  const Campaign c = load_campaign(campaign_file, "rdmabench", kAsTheSweep);
  for (size_t h = 0; h < fabric_spec(c)->hosts.size(); ++h) {
    const FabricHost& fh = fabric_spec(c)->hosts[h];
    const std::string path = dir + "/env/" + slug(fh.spec.host, 80) + ".json";
    const nlohmann::json text = nlohmann::json::parse(file_text(path), nullptr, false);
    std::optional<HostEnvRecord> env;
    std::string why;
    try {
      if (text.is_object()) env = host_env_record_from_json(text);
    } catch (const ConfigError& e) {
      why = path + ": " + e.what();
    }
    const nlohmann::json* device = env ? env->device(fh.spec.device) : nullptr;
    if (why.empty() && !env) why = "no hello from its agent (it did not start)";
    if (why.empty() && device == nullptr)
      why = "its agent's hello lists no device " + fh.spec.device;
    CheckFacts facts;
    if (why.empty()) {
      try {
        facts = port_facts(*device, 1);
      } catch (const ConfigError& e) {
        why = e.what();
      }
    }
    for (const CheckExpectation& e : ex) {
      if (e.traffic()) continue;
      CheckOutcome o;
      if (why.empty()) {
        o = judge_node(e, facts);
      } else {
        o = failed_traffic(e, "");
        o.reason = why;
      }
      if (!o.pass) fc.own_failed[h] = true;
      fc.outcomes.push_back(std::move(o));
      fc.where.push_back(fh.name);
    }
  }
}

// What the report names besides the judgements.
struct Report {
  std::string fabric;  // the campaign's name
  std::string dir;     // where the sweeps wrote
  std::string started;
  double seconds = 0;
  std::vector<size_t> order;  // the outcomes in the order printed
};

// The lines (each expectation, each host's verdict, the check's), --json; the exit status.
size_t report_fabric_check(const CheckRequest& a, const Report& r, const FabricCheck& fc,
                           std::ostream& out, std::ostream& doc_out) {
  for (const size_t i : r.order)
    out << (fc.outcomes[i].pass ? "PASS  " : "FAIL  ") << fc.where[i] << ": "
        << fc.outcomes[i].expectation << ": " << outcome_detail(fc.outcomes[i]) << "\n";
  const std::vector<HostVerdict> verdicts = host_verdicts(fc.own_failed, fc.links);
  size_t hosts_failed = 0;
  std::string failed_hosts;
  nlohmann::json hosts = nlohmann::json::array();
  for (size_t h = 0; h < fc.hosts.size(); ++h) {
    const HostVerdict& v = verdicts[h];
    if (!v.pass) failed_hosts += (hosts_failed++ == 0 ? "" : ", ") + fc.hosts[h];
    out << "host " << fc.hosts[h] << ": " << (v.pass ? "PASS" : "FAIL")
        << (v.why.empty() ? "" : ", " + v.why) << "\n";
    hosts.push_back({{"host", fc.hosts[h]}, {"verdict", v.pass ? "PASS" : "FAIL"}, {"why", v.why}});
  }
  size_t links_failed = 0;
  nlohmann::json links = nlohmann::json::array();
  for (const CheckedLink& l : fc.links) {
    links_failed += l.failed ? 1 : 0;
    links.push_back({{"link", l.name}, {"verdict", l.failed ? "FAIL" : "PASS"}});
  }
  const bool pass = hosts_failed == 0 && links_failed == 0;
  out << "check: " << (pass ? "PASS" : "FAIL") << ", " << fc.hosts.size() - hosts_failed << " of "
      << fc.hosts.size() << " hosts pass" << (hosts_failed ? " (failed: " + failed_hosts + ")" : "")
      << ", " << links_failed << " of " << fc.links.size() << " links failed (fabric " << r.fabric
      << ", results in " << r.dir << ", " << std::lround(r.seconds) << " s)" << std::endl;
  if (!a.json_file.empty()) {
    // One expectations list, each named with its host or link, as the exports read it.
    nlohmann::json expectations = nlohmann::json::array();
    for (const size_t i : r.order) {
      CheckOutcome o = fc.outcomes[i];
      o.expectation = fc.where[i] + ": " + o.expectation;
      expectations.push_back(o);
    }
    const nlohmann::json doc = {{"check",
                                 {{"tool", "rdmabench"},
                                  {"tool_version", kVersion},
                                  {"start_time", r.started},
                                  {"seconds", r.seconds},
                                  {"host", r.fabric},
                                  {"fabric", a.fabric},
                                  {"results", r.dir}}},
                                {"verdict", pass ? "PASS" : "FAIL"},
                                {"hosts", hosts},
                                {"links", links},
                                {"expectations", expectations}};
    if (a.json_file == "-")
      doc_out << doc.dump(2) << std::endl;
    else
      write_file_atomic(a.json_file, doc.dump(2) + "\n");
  }
  return hosts_failed + links_failed;
}

}  // namespace

CheckEnd run_fabric_check(const CheckRequest& a, std::ostream& out, std::ostream& doc_out,
                          std::ostream& err, const std::atomic<bool>& stop) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string started = utc_now();
  const std::vector<CheckExpectation> ex = check_expectations(a);
  refuse_local_options(a, ex);
  const nlohmann::json base = fabric_campaign_json(a.fabric);
  const std::string name = "check-" + base.value("name", fs::path(a.fabric).stem().string());
  const std::string dir = a.out_dir.empty() ? "out/" + slug(name, 80) : a.out_dir;
  const double duration =
      a.duration ? parse_seconds_option("duration", *a.duration, 0.1, 3600) : 1.0;
  fs::create_directories(dir);
  FabricCheck fc;
  const std::vector<TrafficGroup> groups = group_traffic(ex);
  std::string first_file, first_dir;
  for (const TrafficGroup& g : groups) {
    const std::string label = std::string(to_string(g.op)) + "-" + std::string(to_string(g.qp)) +
                              "-" + std::string(to_string(g.mode));
    const std::string file = dir + "/" + label + ".campaign.json";
    write_file_atomic(file, group_campaign(base, name + "-" + label, g, duration).dump(2) + "\n");
    SweepOptions opt;
    opt.campaign_file = file;
    opt.out_dir = dir + "/" + label;
    err << "rdmabench: check over the fabric: " << label << " around the ring, into " << opt.out_dir
        << "\n";
    const int rc = run_sweep(opt, err, err, stop);
    if (rc == 130 || stop.load()) return CheckEnd{0, std::nullopt, true};
    judge_links(file, opt.out_dir, g, ex, fc);
    if (first_file.empty()) {
      first_file = file;
      first_dir = opt.out_dir;
    }
  }
  const size_t link_outcomes = fc.outcomes.size();
  judge_hosts(first_file, first_dir, ex, fc);
  // The hosts' own expectations first (as a check on one host prints its port's facts first).
  std::vector<size_t> order;
  for (size_t i = link_outcomes; i < fc.outcomes.size(); ++i) order.push_back(i);
  for (size_t i = 0; i < link_outcomes; ++i) order.push_back(i);

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CheckEnd end;
  end.failed = report_fabric_check(
      a, Report{base.value("name", a.fabric), dir, started, seconds, order}, fc, out, doc_out);
  return end;
}

}  // namespace rdmabench
