// The `hunt` block: parsing (defaults, JSON-path errors), the anomaly score (its terms, classes
// that keep what is slower by nature apart), and the Hunter against small synthetic landscapes:
// a planted trigger found and named exactly (its confirmation measured), noise that does not
// repeat dropped, nothing reported where nothing is planted, the same seed giving the same steps;
// the search's additive model (hunt_model.h) finding the values a rising counter points at; a
// small budget naming two planted causes (the CI's hunt in miniature).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "base/error.h"
#include "model/workload_fields.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/hunt/anomaly_score.h"
#include "orchestrator/hunt/hunt_driver.h"
#include "orchestrator/hunt/hunt_model.h"
#include "orchestrator/hunt/hunt_spec.h"
#include "orchestrator/hunt/hunter.h"

namespace rdmabench {
namespace {

using nlohmann::json;

std::string field_of(const json& hunt) {
  try {
    parse_hunt(hunt, "/hunt");
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(HuntSpec, DefaultSpaceBaselineAndDuration) {
  const HuntSpec h = parse_hunt(json::object(), "/hunt");
  std::set<std::string> keys;
  for (const auto& d : h.space) keys.insert(d.key);
  for (const char* k : {"op", "qp", "mode", "sizes", "tx_depth", "signal_every", "sge", "post_list",
                        "qps_per_thread", "threads", "inline_size", "mtu", "tos"})
    EXPECT_TRUE(keys.count(k)) << k;
  EXPECT_GE(h.combinations(), 100000U);
  EXPECT_EQ(h.baseline["op"], "write");
  EXPECT_EQ(h.baseline["mtu"], 0);  // the ports' active MTU
  EXPECT_EQ(h.baseline["sizes"], json::array({65536}));
  EXPECT_EQ(h.fixed["duration_s"], 1.0);
  EXPECT_EQ(h.fixed["warmup_s"], 0.25);
  EXPECT_EQ(h.budget, 200U);
}

TEST(HuntSpec, ErrorsNameTheField) {
  EXPECT_EQ(field_of({{"budget", 0}}), "/hunt/budget");
  EXPECT_EQ(field_of({{"space", {{"mtu", {1024, 4096}}}}, {"baseline", {{"tos", 0}}}}),
            "/hunt/baseline/tos");
  EXPECT_EQ(field_of({{"space", {{"mtu", {1024, 333}}}}}), "/hunt/space/mtu/1");
  EXPECT_EQ(field_of({{"score", {{"bw_below", 1.5}}}}), "/hunt/score/bw_below");
  EXPECT_EQ(field_of({{"score", {{"congestion_ppm", -1}}}}), "/hunt/score/congestion_ppm");
  EXPECT_EQ(field_of({{"score", {{"same", {"op", "colour"}}}}}), "/hunt/score/same/1");
  EXPECT_EQ(field_of({{"budget", 10}, {"colour", 1}}), "/hunt/colour");
  EXPECT_EQ(field_of({{"space", {{"qp", {"ud"}}}}, {"baseline", {{"qp", "ud"}}}}),
            "/hunt/baseline");  // ud with the default write: refused by the client
}

Measurement bw(double gbps, double loss = 0) {
  Measurement m;
  m.ok = true;
  m.gbps = gbps;
  m.loss_ppm = loss;
  return m;
}

TEST(AnomalyScore, TermsFireAtTheirLimitsWithinAClass) {
  Scorer s(ScoreSpec{});
  const json write = {{"op", "write"}, {"sizes", {4096}}};
  const json read = {{"op", "read"}, {"sizes", {4096}}};
  s.learn(write, bw(20));
  s.learn(read, bw(8));  // slower by nature: its own class
  EXPECT_FALSE(s.score(read, bw(8)).anomalous());
  EXPECT_FALSE(s.score(write, bw(11)).anomalous());
  const Score slow = s.score(write, bw(9));
  EXPECT_EQ(slow.fired(), std::vector<std::string>{"throughput"});
  const Score lossy = s.score(write, bw(19, 250));
  EXPECT_EQ(lossy.fired(), std::vector<std::string>{"loss"});
  EXPECT_DOUBLE_EQ(lossy.worst(), 2.5);
  Measurement failed;
  failed.error = "timed out";
  EXPECT_EQ(s.score(write, failed).fired(), std::vector<std::string>{"failed"});
  // Congestion signals (CNPs, ECN marks, pause frames) per million packets, where the device
  // counts them: 1,000 by default; a device without such counters has no congestion term.
  Measurement congested = bw(19);
  congested.congestion_ppm = 4000;
  EXPECT_EQ(s.score(write, congested).fired(), std::vector<std::string>{"congestion"});
  congested.congestion_ppm = 500;
  EXPECT_FALSE(s.score(write, congested).anomalous());
  EXPECT_EQ(s.score(write, bw(19)).terms.size(), 2U);  // loss and throughput only
  ScoreSpec off;
  off.congestion_ppm = 0;
  congested.congestion_ppm = 4000;
  EXPECT_FALSE(Scorer(off).score(write, congested).anomalous());
}

// A small space; the landscape loses packets where all of `trigger` holds (and, with `noise_at`,
// once at that point's first measurement only).
struct Landscape {
  json trigger;
  json noise_at;
  int measured_noise = 0;
  Measurement operator()(const json& v) {
    bool all = !trigger.empty();
    for (const auto& [k, x] : trigger.items()) all = all && v[k] == x;
    if (!noise_at.is_null() && v == noise_at && measured_noise++ == 0) return bw(10, 5000);
    return bw(all ? 3 : 10, all ? 3000 : 0);
  }
};

HuntSpec small_space(uint64_t budget, uint64_t seed) {
  return parse_hunt({{"budget", budget},
                     {"seed", seed},
                     {"space",
                      {{"mtu", {1024, 2048, 4096}},
                       {"tos", {0, 40, 104, 184}},
                       {"sge", {1, 2, 4}},
                       {"post_list", {1, 4, 16}}}}},
                    "/hunt");
}

std::string accept_all(const json&) { return ""; }

TEST(Hunter, NamesAPlantedTriggerExactlyAndConfirmsIt) {
  Landscape l{{{"mtu", 4096}, {"tos", 104}}, nullptr};
  Hunter h(small_space(60, 3), accept_all);
  while (auto e = h.next()) h.observe(*e, l(e->values));
  ASSERT_EQ(h.anomalies().size(), 1U);
  const AnomalyCase& a = *h.anomalies()[0];
  EXPECT_EQ(a.trigger, (json{{"mtu", 4096}, {"tos", 104}}));
  ASSERT_TRUE(a.confirm.has_value());
  EXPECT_TRUE(a.confirm->anomalous());
  EXPECT_EQ(a.confirm_values["mtu"], 4096);
  EXPECT_EQ(a.confirm_values["sge"], 1);  // the rest at the baseline
  for (const FactorReset& r : a.resets)
    EXPECT_EQ(r.removes, r.factor == "mtu" || r.factor == "tos") << r.factor;
}

TEST(Hunter, TwoIndependentCausesAreTwoAnomalies) {
  // Lossy where mtu is 4096 or where tos is 104: a point with both is explained by one of them.
  struct Either {
    Measurement operator()(const json& v) const {
      const bool bad = v["mtu"] == 4096 || v["tos"] == 104;
      return bw(bad ? 3 : 10, bad ? 3000 : 0);
    }
  } l;
  Hunter h(small_space(60, 1), accept_all);
  while (auto e = h.next()) h.observe(*e, l(e->values));
  std::set<std::string> triggers;
  for (const AnomalyCase* a : h.anomalies()) triggers.insert(a->trigger.dump());
  EXPECT_EQ(triggers, (std::set<std::string>{R"({"mtu":4096})", R"({"tos":104})"}));
}

TEST(Hunter, AFailedRunAndALowRateAreOneAnomaly) {
  // A policed traffic class: its run fails when nothing completes in its window, and measures a
  // low rate when a little does; which one varies from run to run (here: they alternate).
  struct Policed {
    int runs = 0;
    Measurement operator()(const json& v) {
      if (v["tos"] != 104) return bw(10);
      if (runs++ % 2 == 1) return bw(0.5);
      Measurement m;
      m.ok = false;
      m.error = "no operation completed in the 0.5 s measured";
      return m;
    }
  } l;
  Hunter h(small_space(40, 2), accept_all);
  while (auto e = h.next()) h.observe(*e, l(e->values));
  ASSERT_EQ(h.anomalies().size(), 1U);
  EXPECT_EQ(h.anomalies()[0]->trigger, (json{{"tos", 104}}));
  for (const AnomalyCase& c : h.cases()) EXPECT_NE(c.state, CaseState::kNotRepeated);
}

TEST(Hunter, AFailedRunMatchesAnyTermOfTheSameAnomaly) {
  // A policed traffic class: with more than one SGE its runs fail (nothing completes in the
  // window), with one they complete and lose packets. Found failing, its explanation must not
  // keep the SGEs in the trigger because the reset's run shows loss rather than a failure.
  struct Policed {
    Measurement operator()(const json& v) const {
      if (v["tos"] != 104) return bw(10);
      if (v["sge"] == 1) return bw(10, 3000);
      Measurement m;
      m.ok = false;
      m.error = "no operation completed in the 0.5 s measured";
      return m;
    }
  } l;
  int found_failing = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Hunter h(small_space(40, seed), accept_all);
    while (auto e = h.next()) h.observe(*e, l(e->values));
    ASSERT_EQ(h.anomalies().size(), 1U) << "seed " << seed;
    EXPECT_EQ(h.anomalies()[0]->trigger, (json{{"tos", 104}})) << "seed " << seed;
    found_failing += h.anomalies()[0]->found.fired() == std::vector<std::string>{"failed"};
  }
  EXPECT_GT(found_failing, 0);  // the rule was exercised
}

TEST(Hunter, NothingWhereNothingIsPlanted) {
  Landscape l{json::object(), nullptr};
  Hunter h(small_space(40, 5), accept_all);
  uint64_t n = 0;
  while (auto e = h.next()) {
    h.observe(*e, l(e->values));
    ++n;
  }
  EXPECT_EQ(n, 40U);
  EXPECT_TRUE(h.anomalies().empty());
  EXPECT_TRUE(h.cases().empty());
}

TEST(Hunter, NoiseThatDoesNotRepeatIsDropped) {
  // The landscape's first point is lossy once.
  Hunter probe(small_space(1, 9), accept_all);
  const json first = probe.next()->values;
  Landscape l{json::object(), first};
  Hunter h(small_space(10, 9), accept_all);
  while (auto e = h.next()) h.observe(*e, l(e->values));
  ASSERT_EQ(h.cases().size(), 1U);
  EXPECT_EQ(h.cases()[0].state, CaseState::kNotRepeated);
  EXPECT_TRUE(h.anomalies().empty());
}

TEST(Hunter, SameSeedSameSteps) {
  auto steps = [](uint64_t seed) {
    Landscape l{{{"sge", 4}}, nullptr};
    Hunter h(small_space(30, seed), accept_all);
    std::vector<std::string> out;
    while (auto e = h.next()) {
      out.push_back(std::string(hunt_step_name(e->step)) + e->values.dump());
      h.observe(*e, l(e->values));
    }
    return out;
  };
  EXPECT_EQ(steps(4), steps(4));
  EXPECT_NE(steps(4), steps(5));
}

TEST(Hunter, NeverAsksWhatTheClientRefuses) {
  Hunter h(small_space(50, 2), [](const json& v) {
    return v["sge"] == 4 ? std::string("sge 4 refused") : std::string();
  });
  Landscape l{json::object(), nullptr};
  while (auto e = h.next()) {
    EXPECT_NE(e->values["sge"], 4);
    h.observe(*e, l(e->values));
  }
}

TEST(HuntModel, PointsAboveTheNoiseRaiseTheirSharedValues) {
  // Three factors of 3, 4 and 3 values; the climb is 0.5, plus 0.4 for value 2 of factor 0 and
  // 0.4 for value 1 of factor 1 (a counter rising with each condition met), with a little noise.
  HuntModel m({3, 4, 3});
  SampleRng rng(3);
  for (int n = 0; n < 30; ++n) {
    const HuntModel::Point p = {rng.below(3), rng.below(4), rng.below(3)};
    m.add(p, 0.5 + 0.4 * (p[0] == 2) + 0.4 * (p[1] == 1) + 0.05 * rng.unit());
  }
  EXPECT_EQ(HuntModel::best(m.mean()), (HuntModel::Point{2, 1, HuntModel::best(m.mean())[2]}));
  // Thompson draws mostly land on both values (70 of 100 at this seed); an empty model draws
  // every value.
  int both = 0;
  for (int n = 0; n < 100; ++n) {
    const HuntModel::Point p = HuntModel::best(m.draw(rng));
    both += p[0] == 2 && p[1] == 1 ? 1 : 0;
  }
  EXPECT_GE(both, 50);  // uniform draws: about 8
  m.clear();
  std::set<size_t> seen;
  for (int n = 0; n < 100; ++n) seen.insert(HuntModel::best(m.draw(rng))[1]);
  EXPECT_EQ(seen.size(), 4U);
}

TEST(Hunter, FollowsACounterThatRisesTowardsTheTrigger) {
  // Loss rises with each of the trigger's two conditions met (below the loss limit), then the
  // trigger (12 points of 108): over 40 seeds, the evaluations to the first hit are fewer in all
  // than where nothing rises before the trigger.
  auto to_hit = [](double per_condition) {
    uint64_t total = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      Hunter h(small_space(60, seed), accept_all);
      while (auto e = h.next()) {
        const int met = (e->values["mtu"] == 4096 ? 1 : 0) + (e->values["tos"] == 104 ? 1 : 0);
        h.observe(*e, bw(10, met == 2 ? 3000 : per_condition * met));
        if (met == 2) {
          total += e->seq;
          break;
        }
      }
    }
    return total;
  };
  const uint64_t rising = to_hit(40);
  const uint64_t flat = to_hit(0);
  std::printf("evaluations to the first hit over 40 seeds: %llu rising, %llu flat\n",
              static_cast<unsigned long long>(rising), static_cast<unsigned long long>(flat));
  EXPECT_LT(rising * 3, flat * 2);
}

// The CI's planted hunt (tests/orchestrator/pair_sweep_test.sh step 7) in miniature: 16
// evaluations over op, size, MTU and traffic class, a loss at MTU 4096 and a policer on tos 104:
// both named for most seeds (the cross-entropy method: 22 of 30); 10 evaluations of the clean
// pair report nothing.
TEST(Hunter, SmallBudgetNamesTwoPlantedCauses) {
  int both = 0, clean_ok = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    auto spec_of = [&](uint64_t budget) {
      return parse_hunt({{"budget", budget},
                         {"seed", seed},
                         {"duration_s", 0.5},
                         {"space",
                          {{"op", {"write", "send"}},
                           {"sizes", {"4K", "64K"}},
                           {"mtu", {1024, 4096}},
                           {"tos", {0, 104}}}},
                         {"baseline", {{"mtu", 1024}}},
                         {"fixed", {{"inline_size", 0}, {"timeout_s", 5}}},
                         {"score", {{"bw_below", 0.2}}}},
                        "/hunt");
    };
    SampleRng noise(seed * 31 + 7);
    auto meas = [&](const json& v, bool planted) {
      double g = 20 * (1 + 0.1 * (2 * noise.unit() - 1));
      double loss = 0;
      if (planted && v["mtu"] == 4096) {
        loss = 20000;
        g *= 0.5;
      }
      if (planted && v["tos"] == 104) g = 0.05;
      return bw(g, loss);
    };
    Hunter h(spec_of(16), client_refusal);
    while (auto e = h.next()) {
      h.observe(*e, meas(e->values, true));
    }
    std::set<std::string> t;
    for (const AnomalyCase* a : h.anomalies()) t.insert(a->trigger.dump());
    const bool ok = t == std::set<std::string>{R"({"mtu":4096})", R"({"tos":104})"};
    both += ok ? 1 : 0;
    Hunter c(spec_of(10), client_refusal);
    while (auto e = c.next()) c.observe(*e, meas(e->values, false));
    clean_ok += c.anomalies().empty() && c.history().size() == 10 ? 1 : 0;
  }
  std::printf("both named for %d seeds of 30; the clean hunt quiet for %d\n", both, clean_ok);
  EXPECT_GE(both, 24);
  EXPECT_EQ(clean_ok, 30);
}

json hunt_campaign() {
  return {{"name", "h"},
          {"hosts",
           {{{"name", "p"}, {"server", {{"host", "local"}}}, {"client", {{"host", "local"}}}}}},
          {"hunt", {{"budget", 5}, {"space", {{"mtu", {1024, 4096}}}}}}};
}

std::string campaign_field_of(const json& j) {
  try {
    parse_campaign(j, "", "rdmabench", CampaignOptions{"", {}, {hunt_kind()}});
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(HuntCampaign, OneHostPairAndNoMatrixBesideIt) {
  const Campaign c =
      parse_campaign(hunt_campaign(), "", "rdmabench", CampaignOptions{"", {}, {hunt_kind()}});
  const auto* hunt = dynamic_cast<const HuntDriver*>(c.driver.get());
  ASSERT_NE(hunt, nullptr);
  EXPECT_EQ(hunt->spec().budget, 5U);
  EXPECT_EQ(c.driver->adaptive_budget(), 5U);
  EXPECT_TRUE(expand(c).points.empty());  // made as the hunt goes
  json two = hunt_campaign();
  two["hosts"].push_back(two["hosts"][0]);
  two["hosts"][1]["name"] = "q";
  EXPECT_EQ(campaign_field_of(two), "/hosts");
  json with_matrix = hunt_campaign();
  with_matrix["matrix"] = {{"op", "write"}};
  EXPECT_EQ(campaign_field_of(with_matrix), "/hunt");
  json bad = hunt_campaign();
  bad["hunt"]["budget"] = -1;
  EXPECT_EQ(campaign_field_of(bad), "/hunt/budget");
  json no_hosts = hunt_campaign();
  no_hosts.erase("hosts");
  EXPECT_EQ(campaign_field_of(no_hosts), "/hosts");
  json with_fabric = hunt_campaign();
  with_fabric["fabric"] = json::object();
  // the fabric kind is not given here: its key is unknown
  EXPECT_NE(campaign_field_of(with_fabric), "(accepted)");
}

}  // namespace
}  // namespace rdmabench
