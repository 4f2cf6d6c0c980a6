#pragma once
// When receive credits are needed and how often a receiver sends them (recv_credits.h): pure
// rules, shared by validation (no verbs) and the engine.
#include <cstdint>

#include "model/workload.h"

namespace rdmabench {

// Whether a workload needs receive credits on a device of the given transport: bandwidth mode,
// an operation that consumes receives, reliable connected QPs, and no RNR retry (iWARP).
bool needs_recv_credits(const Workload& w, bool iwarp) noexcept;

// How many re-posted receives make a credit write worth sending: the largest step (at most a
// quarter of the window) that still releases a sender stalled at the window, given that the
// receiver may hold up to `pending_max` consumed receives not yet re-posted. 0 when the window
// is too small for the post list.
uint64_t credit_step(uint64_t window, uint32_t post_list, uint64_t pending_max) noexcept;

// The receives of one credit group the receiver may hold consumed but not yet re-posted: a
// post list's worth less one per QP re-posting into the group's queue.
uint64_t credit_pending_max(const Workload& w) noexcept;

}  // namespace rdmabench
