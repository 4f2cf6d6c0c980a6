#include "engine/qp_settings.h"

#include <array>

#include "base/error.h"
#include "model/gid_option.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

std::string_view type_name(GidType t) { return t == GidType::kRoceV1 ? "RoCE v1" : "RoCE v2"; }

}  // namespace

uint32_t choose_gid_index(const PortInfo& port, int gid_index, const std::string& gid_text,
                          const std::string& prefer_ipv4, GidType type) {
  const GidEntry* g = nullptr;
  if (gid_index >= 0) {
    g = &gid_entry(port, static_cast<uint32_t>(gid_index));
  } else if (!gid_text.empty()) {
    std::array<uint8_t, 16> want{};
    if (!gid_bytes(gid_text, want)) throw ConfigError("gid-index", gid_text, kGidOptionAllowed);
    // Auto: that address's RoCE v2 entry first (an address has a GID of each kind).
    std::array<uint8_t, 16> have{};
    for (const bool v2_only : {type == GidType::kAuto, false})
      for (const auto& e : port.gids) {
        const bool kind =
            type == GidType::kAuto ? !v2_only || e.type == "RoCE v2" : e.type == type_name(type);
        if (kind && gid_bytes(e.gid, have) && have == want) return e.index;
      }
    std::string table;
    for (const auto& e : port.gids)
      table += "\n  " + std::to_string(e.index) + ": " + e.gid + " " + e.type;
    throw ConfigError(
        "gid-index", gid_text,
        "a GID of port " + std::to_string(port.port) +
            (type == GidType::kAuto ? "" : " of type " + std::string(type_name(type))) +
            "; GID table:" + (table.empty() ? std::string(" empty") : table));
  } else {
    if (type == GidType::kAuto) return auto_gid_index(port, prefer_ipv4);
    try {
      return auto_gid_index(port, prefer_ipv4, std::string(type_name(type)));
    } catch (const ConfigError& e) {
      throw ConfigError("gid-type", std::string(to_string(type)),
                        "a kind of GID the port has (" + e.allowed() + ")");
    }
  }
  if (type != GidType::kAuto && port.link_layer == "Ethernet" && g->type != type_name(type))
    throw ConfigError("gid-type", std::string(to_string(type)),
                      "the type of GID index " + std::to_string(g->index) + " (" + g->gid + " is " +
                          g->type + "): give another -x or leave --gid-type out");
  return g->index;
}

void check_qp_settings(const Workload& w, ibv_context* ctx, const PortInfo& port,
                       ConnectMethod connect, bool iwarp) {
  const Workload d;
  if (iwarp) {
    auto refuse = [](const char* option, uint32_t v, uint32_t def) {
      throw ConfigError(
          option, std::to_string(v),
          "the default (" + std::to_string(def) + ") on iWARP, whose connections TCP retransmits");
    };
    if (w.qp_timeout != d.qp_timeout) refuse("qp-timeout", w.qp_timeout, d.qp_timeout);
    if (w.retry_count != d.retry_count) refuse("retry-count", w.retry_count, d.retry_count);
    if (w.rnr_retry != d.rnr_retry) refuse("rnr-retry", w.rnr_retry, d.rnr_retry);
  }
  if (connect == ConnectMethod::kRdmaCm) {
    auto refuse = [](const char* option, uint32_t v, uint32_t def) {
      throw ConfigError(option, std::to_string(v),
                        "the default (" + std::to_string(def) +
                            ") with rdma_cm, which takes it from the route and the CM exchange "
                            "(use --connect tcp to set it)");
    };
    if (w.sl != d.sl) refuse("sl", w.sl, d.sl);
    if (w.flow_label != d.flow_label) refuse("flow-label", w.flow_label, d.flow_label);
    if (w.hop_limit != d.hop_limit) refuse("hop-limit", w.hop_limit, d.hop_limit);
    if (w.pkey_index != d.pkey_index) refuse("pkey-index", w.pkey_index, d.pkey_index);
    if (w.min_rnr_timer != d.min_rnr_timer)
      refuse("min-rnr-timer", w.min_rnr_timer, d.min_rnr_timer);
  }
  uint16_t pkey = 0;
  // A port without a P_Key table (iWARP) answers no index; its QPs take index 0 and ignore it.
  if (w.pkey_index == d.pkey_index &&
      ibv_query_pkey(ctx, static_cast<uint8_t>(port.port), 0, &pkey) != 0)
    return;
  if (ibv_query_pkey(ctx, static_cast<uint8_t>(port.port), static_cast<int>(w.pkey_index), &pkey) !=
          0 ||
      pkey == 0) {
    std::string table;
    for (int i = 0; i < 64; ++i) {
      uint16_t p = 0;
      if (ibv_query_pkey(ctx, static_cast<uint8_t>(port.port), i, &p) != 0) break;
      if (p == 0) continue;
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%04x", ntohs(p));
      table += (table.empty() ? "" : ", ") + std::to_string(i) + " (" + buf + ")";
    }
    throw ConfigError("pkey-index", std::to_string(w.pkey_index),
                      "an index of a P_Key of port " + std::to_string(port.port) + ": " +
                          (table.empty() ? std::string("none") : table));
  }
}

CmSettings cm_settings(const Workload& w) {
  return CmSettings{.tos = static_cast<uint8_t>(w.tos),
                    .ack_timeout = static_cast<uint8_t>(w.qp_timeout),
                    .retry_count = static_cast<uint8_t>(w.retry_count),
                    .rnr_retry = static_cast<uint8_t>(w.rnr_retry)};
}

nlohmann::json applied_qp_settings(ibv_qp* qp, const Workload& w, const ibv_ah_attr* ud_ah,
                                   bool iwarp) {
  if (iwarp)
    return {{"transport", "iWARP"},
            {"tos", w.tos},
            {"note",
             "the connection is TCP's: the TOS was given to rdma_cm; the InfiniBand "
             "address vector, P_Key and RC timers do not apply"}};
  const QpType type = w.qp;
  ibv_qp_attr a{};
  ibv_qp_init_attr init{};
  int mask = IBV_QP_PKEY_INDEX;
  if (type != QpType::kUd) mask |= IBV_QP_AV;
  if (type == QpType::kRc)
    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER;
  if (ibv_query_qp(qp, &a, mask, &init) != 0) return nullptr;
  const ibv_ah_attr& ah = type == QpType::kUd && ud_ah != nullptr ? *ud_ah : a.ah_attr;
  nlohmann::json j = {{"sl", ah.sl}, {"pkey_index", a.pkey_index}, {"global", ah.is_global != 0}};
  if (ah.is_global != 0) {
    j["traffic_class"] = ah.grh.traffic_class;
    j["flow_label"] = ah.grh.flow_label;
    j["hop_limit"] = ah.grh.hop_limit;
    j["sgid_index"] = ah.grh.sgid_index;
  }
  if (type == QpType::kRc) {
    j["timeout"] = a.timeout;
    j["retry_cnt"] = a.retry_cnt;
    j["rnr_retry"] = a.rnr_retry;
    j["min_rnr_timer"] = a.min_rnr_timer;
  }
  // Asked (the workload's field) against applied (the field's qp_attr name in this object), for
  // every field the QP holds (model/workload_field_table.cc). rdma_cm takes the flow label from
  // the route (only one other than the default is checked) and sets no RNR timer of its own.
  const Workload d;
  const bool cm = w.connect == ConnectMethod::kRdmaCm;
  nlohmann::json differ = nlohmann::json::object();
  for (const WorkloadField& f : workload_fields()) {
    if (f.qp_attr.empty()) continue;
    const std::string key(f.key), field(f.qp_attr);
    if (cm && (key == "min_rnr_timer" || (key == "flow_label" && w.flow_label == d.flow_label)))
      continue;
    if (!j.contains(field)) continue;
    const nlohmann::json asked = f.get(w);
    if (j[field] != asked) differ[key] = {{"asked", asked}, {"applied", j[field]}};
  }
  j["not_as_asked"] = differ;
  return j;
}

}  // namespace rdmabench
